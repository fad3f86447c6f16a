// The TypeScript types of a running service's API, for openapi-fetch: binary parts and answers as Blob
// (what fetch sends and reads), as openapi-typescript's documentation advises for file uploads.
//   npm install --save-dev openapi-typescript typescript tsx && npm install openapi-fetch
//   npx tsx generate.ts http://127.0.0.1:7717 schema.ts
import fs from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const [base = 'http://127.0.0.1:7717', out = 'schema.ts'] = process.argv.slice(2);
const ast = await openapiTS(new URL('/api/v1/openapi.json', base), {
  transform: (schema) => (schema.format === 'binary' ? ts.factory.createTypeReferenceNode('Blob') : undefined),
});
fs.writeFileSync(out, astToString(ast));
console.log(`${out} written`);

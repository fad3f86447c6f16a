// Electron's entry: the project runs its TypeScript sources directly (as headless), so the loader
// is registered before the shell is imported.
import { register } from 'tsx/esm/api';

// ONNX Runtime's telemetry is off in the desktop window's processes too (see bin/media-index.js).
process.env.ORT_DISABLE_TELEMETRY = '1';
register();
await import('./main.ts');

#!/usr/bin/env node
// The project runs its TypeScript sources directly through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('../server/cli.ts');

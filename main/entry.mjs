// Electron's entry: the project runs its TypeScript sources directly (as headless), so the loader
// is registered before the shell is imported.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');

// The services the routes call (built once per server by createServices).
export type { Services } from '../services/index.ts';

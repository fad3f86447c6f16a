// Types of layers.js (plain JavaScript: eslint.config.js loads it without a TypeScript loader).
export interface Layer {
  folder: string;
  holds: string;
  imports: string[];
  only?: string;
}
export const SHARED: string[];
export const LAYERS: Layer[];
export function layerViolation(file: string, target: string): string | null;
export function markdownTable(): string;
export const layersRule: unknown;

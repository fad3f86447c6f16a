export function entryPoints(): string[];
export function buildServer(): Promise<string>;

export const OUT_DIR: string;
export function entryPoints(): string[];
export function buildServer(): Promise<void>;

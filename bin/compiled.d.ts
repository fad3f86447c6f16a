export const SOURCES_DIR: string;
export const BUILDS_DIR: string;
export const CURRENT_FILE: string;
export function newestMtime(dir: string): number;
export function currentBuild(sources?: string): string | null;

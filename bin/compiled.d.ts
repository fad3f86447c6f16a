export const COMPILED_CLI: string;
export function compiledIsCurrent(): boolean;

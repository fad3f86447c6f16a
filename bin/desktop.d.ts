export const INSTALL_COMMAND: string;
export type StartChoice = { mode: 'desktop'; electron: string } | { mode: 'headless'; why: string };
export function chooseStart(opts: {
  binary: () => string | null;
  built: boolean;
  online: () => Promise<boolean>;
  installer: string | null;
  say: (line: string) => void;
  headless?: boolean;
}): Promise<StartChoice>;
export function runInstaller(installer: string, say: (line: string) => void, env?: NodeJS.ProcessEnv): Promise<boolean>;
export function downloadHostAnswers(ms?: number, env?: NodeJS.ProcessEnv): Promise<boolean>;

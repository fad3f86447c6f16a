// ffmpeg and ffprobe: found in this order: MEDIA_INDEX_FFMPEG (and MEDIA_INDEX_FFPROBE, else the
// ffprobe beside it), ffmpeg-static where it installed, @ffmpeg-installer/@ffprobe-installer, and
// the system's ffmpeg on PATH.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { env } from '../config.ts';
import { ExtractError } from './types.ts';

const require = createRequire(import.meta.url);

export interface FfmpegTools {
  ffmpeg: string;
  ffprobe: string;
  source: string;
}

function executable(p: string | null | undefined): p is string {
  if (!p) return false;
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (executable(candidate)) return candidate;
  }
  return null;
}

function tryRequire<T>(name: string): T | null {
  try {
    return require(name) as T;
  } catch {
    return null;
  }
}

let cached: FfmpegTools | null | undefined;

export function findFfmpeg(): FfmpegTools | null {
  if (cached !== undefined) return cached;
  const candidates: Array<() => FfmpegTools | null> = [
    () => {
      const ffmpeg = env.ffmpeg;
      if (!executable(ffmpeg)) return null;
      const beside = path.join(path.dirname(ffmpeg), path.basename(ffmpeg).replace('ffmpeg', 'ffprobe'));
      const ffprobe = env.ffprobe ?? beside;
      return executable(ffprobe) ? { ffmpeg, ffprobe, source: 'MEDIA_INDEX_FFMPEG' } : null;
    },
    () => {
      const ffmpeg = tryRequire<string>('ffmpeg-static');
      const probe = tryRequire<{ path: string }>('@ffprobe-installer/ffprobe')?.path ?? onPath('ffprobe');
      return executable(ffmpeg) && executable(probe) ? { ffmpeg, ffprobe: probe, source: 'ffmpeg-static' } : null;
    },
    () => {
      const ffmpeg = tryRequire<{ path: string }>('@ffmpeg-installer/ffmpeg')?.path;
      const ffprobe = tryRequire<{ path: string }>('@ffprobe-installer/ffprobe')?.path;
      return executable(ffmpeg) && executable(ffprobe) ? { ffmpeg, ffprobe, source: '@ffmpeg-installer' } : null;
    },
    () => {
      const ffmpeg = onPath('ffmpeg');
      const ffprobe = onPath('ffprobe');
      return ffmpeg && ffprobe ? { ffmpeg, ffprobe, source: 'system' } : null;
    },
  ];
  for (const c of candidates) {
    const found = c();
    if (found) return (cached = found);
  }
  return (cached = null);
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a tool to completion; output is kept up to a bound so a chatty run cannot exhaust memory.
 * `onStdout` hears its standard output as it comes (ffmpeg's `-progress pipe:1` reports).
 */
export function runTool(
  bin: string,
  args: string[],
  opts: { timeoutMs?: number; maxOutput?: number; signal?: AbortSignal; onStdout?: (chunk: string) => void } = {},
): Promise<RunResult> {
  const max = opts.maxOutput ?? 32 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    // An aborted run's tool is killed (SIGKILL): it ends as a run that failed.
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], signal: opts.signal, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      const text = c.toString();
      if (stdout.length < max) stdout += text;
      opts.onStdout?.(text);
    });
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < max) stderr += c.toString();
    });
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : null;
    child.on('error', reject);
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Why an ffmpeg run failed, as an extraction reason: `no_space` when it could not write its output
 * (the disk of the data folder is full: not the file's fault), else `corrupt` with its last line.
 */
export function ffmpegFailure(stderr: string): ExtractError {
  if (/No space left on device/i.test(stderr)) return new ExtractError('no_space', 'No space left on device while writing what ffmpeg drew from the file');
  return new ExtractError('corrupt', lastError(stderr));
}

/** The last meaningful line ffmpeg printed, for a failure reason. */
export function lastError(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.at(-1) ?? 'unknown error').slice(0, 300);
}

// Starts the real server (real SQLite, real indexer processes) on an ephemeral port with a temp
// data folder, and talks to it over HTTP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { loadConfig, type Config } from '../../server/config.ts';
import { startServer, type RunningServer } from '../../server/server.ts';
import { AuthService } from '../../server/services/auth.service.ts';
import { type Scope } from '../../server/contract/auth.ts';
import { STAGE_NAMES } from '../../server/contract/stages.ts';
import type { WorkerLauncher } from '../../server/indexer/protocol.ts';

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface TestServer {
  server: RunningServer;
  url: string;
  dataDir: string;
  config: Config;
  key(workspace: string, scopes?: Scope[], extra?: { expiresInMs?: number; access?: string[] }): string;
  api(method: string, p: string, opts?: { key?: string; json?: unknown; headers?: Record<string, string>; rawBody?: string }): Promise<ApiResponse>;
  upload(key: string, file: string | { name: string; data: Uint8Array }, fields?: Record<string, string>): Promise<ApiResponse>;
  waitCompleted(key: string, id: string, timeoutMs?: number): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Uploads with these index options (if any) and waits for completion; fails on a refusal. */
  index(key: string, file: string | { name: string; data: Uint8Array }, options?: unknown): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  restart(overrides?: Partial<Config>): Promise<void>;
  close(): Promise<void>;
}

/** Upload options that run extraction alone (every optional stage off). */
export const EXTRACT_ONLY = JSON.stringify(Object.fromEntries(STAGE_NAMES.map((n) => [n, false])));

/** The temporary folders this test file made: removed when it ends, passed or failed. */
const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

export function tempDir(prefix = 'mi-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * fetch, tried once more when a kept-alive connection was reset before any answer: the server runs
 * in the test's process, so a test that blocks the event loop (a synchronous ffmpeg run) lets the
 * server's idle timeout and the client's reuse of that connection race when the loop wakes.
 */
async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw err;
    return fetch(url, init);
  }
}

/** `launch`: how indexer processes start (default: real processes; a test may wrap them to hold runs back). */
export async function startTestServer(overrides: Partial<Config> = {}, dataDir = tempDir(), launch?: WorkerLauncher): Promise<TestServer> {
  const config = loadConfig({
    dataDir,
    port: 0,
    workers: 1,
    rateLimit: { max: 100_000, windowMs: 60_000 },
    // Tests re-group when they ask to, unless they turn the automatic re-grouping on.
    peopleAutoGroup: null,
    ...overrides,
  });
  let server = await startServer(config, { log: () => {}, launch });
  const t: TestServer = {
    get server() {
      return server;
    },
    get url() {
      return server.url;
    },
    dataDir,
    config,
    key(workspace, scopes = ['read', 'write'], extra = {}) {
      return new AuthService(server.store).createKey({ workspace, scopes, ...extra }).key;
    },
    async api(method, p, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.key) headers['X-API-Key'] = opts.key;
      let body: string | undefined = opts.rawBody;
      if (opts.json !== undefined) {
        headers['Content-Type'] = 'application/json';
        body = JSON.stringify(opts.json);
      }
      const res = await send(`${server.url}/api/v1${p}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
    async upload(key, file, fields = { pipeline: 'arrow' }) {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      if (typeof file === 'string') {
        form.append('file', await fs.openAsBlob(file), path.basename(file));
      } else {
        form.append('file', new Blob([new Uint8Array(file.data)]), file.name);
      }
      const res = await send(`${server.url}/api/v1/videos`, { method: 'POST', headers: { 'X-API-Key': key }, body: form });
      return { status: res.status, headers: res.headers, body: await res.json() };
    },
    async waitCompleted(key, id, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const r = await t.api('GET', `/videos/${id}`, { key });
        if (r.status !== 200) throw new Error(`GET /videos/${id} answered ${r.status}: ${JSON.stringify(r.body)}`);
        if (r.body.data.status === 'completed') return r.body.data;
        if (Date.now() > deadline) throw new Error(`asset ${id} not completed: ${JSON.stringify(r.body.data.index.report)}`);
        await new Promise((res) => setTimeout(res, 50));
      }
    },
    async index(key, file, options) {
      const r = await t.upload(key, file, { pipeline: 'arrow', ...(options ? { options: JSON.stringify(options) } : {}) });
      if (r.status !== 201) throw new Error(`upload answered ${r.status}: ${JSON.stringify(r.body)}`);
      return t.waitCompleted(key, r.body.data.video_id);
    },
    async restart(more = {}) {
      await server.close();
      server = await startServer({ ...config, ...more }, { log: () => {} });
    },
    async close() {
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

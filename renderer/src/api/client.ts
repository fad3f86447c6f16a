// The one way the app reaches data: HTTP to /api/v1 with the session's key. Envelopes are unwrapped
// here; an error envelope becomes an ApiError with the server's code and message.
import type { Pagination } from '../../../server/contract/common.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface Session {
  /** Origin of the server ('' = the page's own). */
  base: string;
  key: string;
}

let session: Session = { base: '', key: '' };

export function configure(s: Session): void {
  session = s;
}

const url = (path: string) => `${session.base}/api/v1${path}`;

async function parse(res: Response): Promise<{ data: unknown; pagination?: Pagination }> {
  let body: { success?: boolean; data?: unknown; pagination?: Pagination; error?: { code: string; message: string } };
  try {
    body = await res.json();
  } catch {
    throw new ApiError(res.status, 'bad_response', `The server answered ${res.status} without a JSON body.`);
  }
  if (!res.ok || body.success === false) {
    throw new ApiError(res.status, body.error?.code ?? 'error', body.error?.message ?? `The server answered ${res.status}.`);
  }
  return { data: body.data, pagination: body.pagination };
}

export async function api<T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'X-API-Key': session.key };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(url(path), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return (await parse(res)).data as T;
}

export async function apiList<T>(path: string): Promise<{ items: T[]; pagination: Pagination }> {
  const res = await fetch(url(path), { headers: { 'X-API-Key': session.key } });
  const r = await parse(res);
  return { items: r.data as T[], pagination: r.pagination as Pagination };
}

/** Multipart upload with progress (fetch cannot report upload progress; XHR can). */
export function uploadFile<T>(file: File, fields: Record<string, string>, onProgress: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url('/videos'));
    xhr.setRequestHeader('X-API-Key', session.key);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'The server could not be reached.'));
    xhr.onload = () => {
      void parse(new Response(xhr.responseText, { status: xhr.status }))
        .then((r) => resolve(r.data as T))
        .catch(reject);
    };
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

/**
 * POST that answers with server-sent events (text/event-stream): each event is handed over as it
 * arrives; `signal` closes the connection (the server then stops). A refusal before the stream
 * starts is the usual error envelope, thrown as an ApiError.
 */
export async function postEvents(path: string, body: unknown, onEvent: (event: string, data: unknown) => void, signal?: AbortSignal): Promise<void> {
  const res = await fetch(url(path), {
    method: 'POST',
    headers: { 'X-API-Key': session.key, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok || !res.body) await parse(res);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  // Cancelling the reader ends a pending read at once and closes the connection.
  signal?.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    let cut;
    while ((cut = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, cut);
      buffered = buffered.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) onEvent(event, JSON.parse(data));
    }
  }
}

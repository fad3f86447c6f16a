// The one way the app reaches data: HTTP to /api/v1 with the session's key, through a client typed by
// the service's OpenAPI document (server/contract/openapi.gen.ts: its paths, parameters, bodies and
// answers). Envelopes are unwrapped here; an error envelope becomes an ApiError with the server's
// code and message.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../../server/contract/openapi.gen.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
/** The operation at a path and method (never where the path has none). */
type Operation<P extends keyof paths, M extends Method> = paths[P] extends Record<M, infer O> ? O : never;
/** The JSON body of an operation's success answer (200, 201 or 202). */
type SuccessBody<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 ? (R[S] extends { content: { 'application/json': infer B } } ? B : never) : never }[keyof R]
  : never;
type DataOf<B> = B extends { data: infer D } ? D : never;
type RequestBody<O, Media extends string> = O extends { requestBody?: { content: infer C } } ? (C extends { [K in Media]: infer B } ? B : never) : never;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The `data` of an operation's success envelope: `Data<'/api/v1/videos/{id}', 'get'>` is an asset's detail. */
export type Data<P extends keyof paths, M extends Method> = DataOf<SuccessBody<Operation<P, M>>>;
/** The body an operation takes, in the given media type. */
export type Body<P extends keyof paths, M extends Method, Media extends string = 'application/json'> = RequestBody<Operation<P, M>, Media>;
/** The query parameters an operation takes (all optional here). */
export type Query<P extends keyof paths, M extends Method> = QueryOf<Operation<P, M>>;
/** A list's page: where it starts, how long it is, how many there are in all. */
export type Pagination = SuccessBody<Operation<'/api/v1/videos', 'get'>>['pagination'];

interface Session {
  /** Origin of the server ('' = the page's own). */
  base: string;
  key: string;
}

let session: Session = { base: '', key: '' };
let client: Client<paths> | null = null;

export function configure(s: Session): void {
  session = s;
  client = null;
}

const origin = () => session.base || location.origin;

/** The data of a success envelope; anything else (an error envelope, a body that is not JSON) is thrown as an ApiError. */
async function parse(res: Response): Promise<unknown> {
  let body: { success?: boolean; data?: unknown; error?: Partial<components['schemas']['Error']['error']> };
  try {
    body = await res.json();
  } catch {
    throw new ApiError(res.status, 'bad_response', `The server answered ${res.status} without a JSON body.`);
  }
  if (!res.ok || body.success === false) {
    throw new ApiError(res.status, body.error?.code ?? 'error', body.error?.message ?? `The server answered ${res.status}.`);
  }
  return body.data;
}

/** Failed answers are thrown as an ApiError before openapi-fetch reads them (success bodies are read once, by it). */
const envelopes: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) await parse(response);
  },
};

/** A success answer whose body is not JSON is the server's fault, said as an ApiError like the others. */
async function settled<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof SyntaxError) throw new ApiError(200, 'bad_response', 'The server answered without a JSON body.');
    throw err;
  }
}

/** The typed client of this session: `api().GET('/api/v1/videos/{id}', { params: { path: { id } } })`. */
export function api(): Client<paths> {
  if (!client) {
    client = createClient<paths>({ baseUrl: origin(), headers: { 'X-API-Key': session.key } });
    client.use(envelopes);
  }
  return client;
}

/** The data of a call's success envelope (failures were thrown by the middleware). */
export async function data<T>(call: Promise<{ data?: { data: T } }>): Promise<T> {
  return (await settled(call)).data!.data;
}

/** A page of a list: its items and where they sit in the whole. */
export async function list<T>(call: Promise<{ data?: { data: T[]; pagination: Pagination } }>): Promise<{ items: T[]; pagination: Pagination }> {
  const body = (await settled(call)).data!;
  return { items: body.data, pagination: body.pagination };
}

const UPLOAD = '/api/v1/videos' satisfies keyof paths;
type UploadForm = Body<typeof UPLOAD, 'post', 'multipart/form-data'>;

/** Multipart upload with progress (fetch cannot report upload progress; XHR can). */
export function uploadFile(file: File, fields: Omit<UploadForm, 'file'>, onProgress: (fraction: number) => void): Promise<Data<typeof UPLOAD, 'post'>> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${origin()}${UPLOAD}`);
    xhr.setRequestHeader('X-API-Key', session.key);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'The server could not be reached.'));
    xhr.onload = () => {
      void parse(new Response(xhr.responseText, { status: xhr.status }))
        .then((d) => resolve(d as Data<typeof UPLOAD, 'post'>))
        .catch(reject);
    };
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) form.append(k, v);
    form.append('file' satisfies keyof UploadForm, file, file.name);
    xhr.send(form);
  });
}

/** The paths whose POST answers with server-sent events. */
type EventPath = {
  [P in keyof paths]: paths[P] extends { post: { responses: { 200: { content: { 'text/event-stream': unknown } } } } } ? P : never;
}[keyof paths];

/**
 * POST that answers with server-sent events (text/event-stream): each event is handed over as it
 * arrives; `signal` closes the connection (the server then stops). A refusal before the stream
 * starts is the usual error envelope, thrown as an ApiError.
 */
export async function postEvents<P extends EventPath>(
  path: P,
  body: Body<P, 'post'>,
  onEvent: (event: string, data: unknown) => void,
  signal?: AbortSignal,
): Promise<void> {
  const res = await fetch(`${origin()}${path}`, {
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

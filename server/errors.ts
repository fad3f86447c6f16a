// Named errors with a stable code and HTTP status. Anything else that reaches the API edge is an
// unexpected failure: it is logged once and answered as a masked 500.

export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;

  constructor(code: string, status: number, message: string, extra: { details?: ErrorDetail[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.details = extra.details;
    this.headers = extra.headers;
  }
}

export const Errors = {
  unauthorized: (message = 'A valid API key is required (X-API-Key or Authorization: Bearer).') => new AppError('unauthorized', 401, message),
  forbidden: (message: string) => new AppError('forbidden', 403, message),
  notFound: (what: string) => new AppError('not_found', 404, `${what} not found`),
  routeNotFound: (method: string, path: string) => new AppError('not_found', 404, `No endpoint ${method} ${path}`),
  busy: (message = 'A re-cluster is running; retry later.') => new AppError('busy', 409, message),
  fileTooLarge: (limitBytes: number) => new AppError('file_too_large', 413, `The file is larger than the upload limit of ${limitBytes} bytes.`),
  unsupportedFileType: (message: string) => new AppError('unsupported_file_type', 415, message),
  legacyFormat: (ext: string) =>
    new AppError(
      'unsupported_legacy_format',
      415,
      `The legacy binary format ${ext} is not supported; save the file as ${ext}x (Office Open XML) or PDF and upload that.`,
    ),
  invalidOptions: (details: ErrorDetail[]) => new AppError('invalid_options', 422, `Invalid index options: ${summarize(details)}`, { details }),
  invalidRequest: (details: ErrorDetail[], message?: string) =>
    new AppError('invalid_request', 422, message ?? `Invalid request: ${summarize(details)}`, { details }),
  malformedJson: () => new AppError('invalid_json', 422, 'The request body is not valid JSON.'),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError('rate_limited', 429, `Too many requests; retry in ${retryAfterSeconds} s.`, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    }),
  internal: () => new AppError('internal_error', 500, 'Internal server error.'),
  originalUnavailable: () =>
    new AppError(
      'original_unavailable',
      503,
      'This page is drawn from its original file on first request, and the original is not reachable now (its folder is away, or the file was removed); it is drawn once the file is back.',
    ),
  noSpace: () => new AppError('no_space', 507, 'The disk holding the data folder is full; nothing was stored. Free some space and try again.'),
  databaseBusy: (retryAfterSeconds = 2) =>
    new AppError('database_busy', 503, `The index database is held by another program; retry in ${retryAfterSeconds} s.`, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    }),
} as const;

function summarize(details: ErrorDetail[]): string {
  return details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ');
}

/** Turns zod-like issues into error details with dotted paths. */
export function detailsFromIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>, prefix = ''): ErrorDetail[] {
  return issues.map((i) => ({
    path: [prefix, ...i.path.map(String)].filter(Boolean).join('.'),
    message: i.message,
  }));
}

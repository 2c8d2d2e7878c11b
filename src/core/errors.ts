// The catalogue of every failure the API reports (docs/conventions.md,
// "Errors"): each code is defined once here, with its HTTP status and, where
// it never varies, its message. Code throws by code; the error handler in
// server.ts turns an ApiError into the XML error reply.

interface ErrorDefinition {
  status: number;
  /** The message when the thrower gives none. */
  message: string;
}

const CATALOGUE = {
  bad_request: { status: 400, message: 'bad request' },
  bad_encoding: { status: 400, message: 'the request is not valid UTF-8' },
  unknown_parameter: { status: 400, message: 'unknown parameter' },
  signature_missing: { status: 401, message: 'missing X-Service-Authorization or X-Service-Timestamp header' },
  signature_invalid: {
    status: 401,
    message:
      'signature does not match: sign the method, the path, the query string as sent, the secret and the timestamp header, one per line (SHA-1 or MD5, lower-case hex)',
  },
  unknown_api_key: { status: 401, message: 'unknown API key' },
  timestamp_invalid: { status: 401, message: 'X-Service-Timestamp is not an RFC 2822, ISO 8601 or POSIX time' },
  timestamp_out_of_window: { status: 401, message: "X-Service-Timestamp is outside the 30-minute window around the service's time" },
  authentication_required: { status: 401, message: 'authentication required: send HTTP Basic credentials' },
  invalid_credentials: { status: 401, message: 'invalid login or password' },
  otp_required: { status: 401, message: 'this account uses two-factor authentication: send PASSWORD+CODE' },
  forbidden: { status: 403, message: 'forbidden' },
  not_found: { status: 404, message: 'not found' },
  method_not_allowed: { status: 405, message: 'method not allowed' },
  request_timeout: { status: 408, message: 'the request did not arrive in time' },
  conflict: { status: 409, message: 'conflict' },
  count_mismatch: { status: 409, message: 'the expected count differs from the real one: nothing was done' },
  payload_too_large: { status: 413, message: 'the request body is too large' },
  uri_too_long: { status: 414, message: 'a path segment is too long' },
  unsupported_media_type: { status: 415, message: 'unsupported content type: send application/x-www-form-urlencoded or multipart/form-data' },
  gone: { status: 410, message: 'this gallery has closed' },
  expectation_failed: { status: 417, message: 'the service cannot meet the Expect header' },
  invalid_parameter: { status: 422, message: 'invalid parameter' },
  missing_parameter: { status: 422, message: 'a required parameter is missing' },
  unprocessable: { status: 422, message: 'the request cannot be processed' },
  quota_exceeded: { status: 422, message: "the file does not fit in the account's storage quota" },
  rate_limited: { status: 429, message: 'too many requests' },
  login_throttled: { status: 429, message: 'too many failed logins' },
  headers_too_large: { status: 431, message: 'request headers are too large' },
  internal: { status: 500, message: 'internal error' },
  service_unavailable: { status: 503, message: 'the service is shutting down: send the request again' },
} satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof CATALOGUE;

export function statusOf(code: ErrorCode): number {
  return CATALOGUE[code].status;
}

export interface ApiErrorExtra {
  /** `<auth-method>` of a 401 caused by user credentials. */
  authMethod?: 'basic' | 'basic:password+otp';
  /** `<stop-with-error>true` when retrying is pointless (quota, forbidden type). */
  stopWithError?: boolean;
  /** Seconds for the Retry-After header. */
  retryAfter?: number;
  /** Extra reply children (already dashed). */
  fields?: Record<string, string | number | boolean | null>;
  /** The field spec key a 422 is about (src/core/fields.ts): each face names it its own way. */
  field?: string;
  /**
   * Why the field was refused, as a code (`coupon_expired`): a face that words refusals in its
   * own language reads this, never the message, so the message's wording may change.
   */
  reason?: string;
}

export class ApiError extends Error {
  readonly status: number;
  /** The spec key of the field refused (`name`), beside a message worded with the face's name for it. */
  readonly field: string | undefined;
  /** Why, as a code (ApiErrorExtra.reason); undefined when the message says all. */
  readonly reason: string | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string = CATALOGUE[code].message,
    readonly extra: ApiErrorExtra = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = CATALOGUE[code].status;
    this.field = extra.field;
    this.reason = extra.reason;
  }
}

/** The code Fastify's or Node's own refusal of a status stands for; anything else unknown is a plain 400. */
export function codeForStatus(status: number): ErrorCode {
  for (const [code, def] of Object.entries(CATALOGUE) as Array<[ErrorCode, ErrorDefinition]>) {
    if (def.status === status && code !== 'bad_encoding' && code !== 'unknown_parameter') return code;
  }
  return status >= 500 ? 'internal' : 'bad_request';
}

// The shapes most refusals take.
export const badRequest = (message: string, code: 'bad_request' | 'bad_encoding' | 'unknown_parameter' = 'bad_request') => new ApiError(code, message);
export const notFound = (what: string) => new ApiError('not_found', `${what} not found`);
export const invalid = (message: string, field?: string) => new ApiError('invalid_parameter', message, field === undefined ? {} : { field });
export const missing = (name: string, field?: string) => new ApiError('missing_parameter', `parameter ${name} is required`, field === undefined ? {} : { field });
export const conflict = (message: string, code: 'conflict' | 'count_mismatch' = 'conflict') => new ApiError(code, message);

/** Every code of the catalogue with its HTTP status (the OpenAPI description's error document). */
export const ERROR_CODES: ReadonlyArray<{ code: ErrorCode; status: number }> = (Object.entries(CATALOGUE) as Array<[ErrorCode, ErrorDefinition]>).map(([code, def]) => ({ code, status: def.status }));

// Every failure the API reports is an ApiError with a stable code; the error
// handler in server.ts turns it into the XML error reply.

export type ErrorCode =
  | 'bad_request'
  | 'bad_encoding'
  | 'unknown_parameter'
  | 'invalid_parameter'
  | 'missing_parameter'
  | 'signature_missing'
  | 'signature_invalid'
  | 'unknown_api_key'
  | 'timestamp_invalid'
  | 'timestamp_out_of_window'
  | 'authentication_required'
  | 'invalid_credentials'
  | 'otp_required'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'count_mismatch'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  | 'login_throttled'
  | 'internal'
  | 'service_unavailable'
  | 'expectation_failed';

export interface ApiErrorExtra {
  /** `<auth-method>` of a 401 caused by user credentials. */
  authMethod?: 'basic' | 'basic:password+otp';
  /** `<stop-with-error>true` when retrying is pointless (quota, forbidden type). */
  stopWithError?: boolean;
  /** Seconds for the Retry-After header. */
  retryAfter?: number;
  /** Extra reply children (already dashed). */
  fields?: Record<string, string | number | boolean | null>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: ApiErrorExtra = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (msg: string, code: ErrorCode = 'bad_request') => new ApiError(400, code, msg);
export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} not found`);
export const invalid = (msg: string) => new ApiError(422, 'invalid_parameter', msg);
export const missing = (name: string) => new ApiError(422, 'missing_parameter', `parameter ${name} is required`);
export const conflict = (msg: string, code: ErrorCode = 'conflict') => new ApiError(409, code, msg);

// Typed failures of API calls. One class with a `kind`, because callers
// mostly branch on the kind (404 means "gone, recreate"; otp_required means
// "ask for a code") and all kinds carry the same details.
import { bool, text, type XmlNode } from './xml.js';

export type ApiErrorKind =
  | 'bad_request' // 400
  | 'signature' // application key, signature or timestamp rejected
  | 'authentication' // 401: user credentials missing or wrong
  | 'otp_required' // 401 with auth-method basic:password+otp
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'method_not_allowed' // 405
  | 'conflict' // 409
  | 'too_large' // 413
  | 'unsupported_media_type' // 415
  | 'invalid' // 422
  | 'rate_limited' // 429
  | 'server' // 5xx
  | 'protocol' // the reply is not the XML this API promises
  | 'http'; // any other status

export interface ApiErrorDetails {
  status: number;
  statusText?: string;
  kind: ApiErrorKind;
  message: string;
  errorCode?: string;
  authMethod?: string;
  requestId?: string;
  body: string;
  headers?: Headers;
  doc?: XmlNode;
  /** Seconds from Retry-After, on 429. */
  retryAfter?: number;
  /** `<stop-with-error>true`: retrying is pointless (quota, forbidden type). */
  stopWithError?: boolean;
}

export class ApiRequestError extends Error {
  readonly status: number;
  readonly statusText: string;
  readonly kind: ApiErrorKind;
  readonly errorCode?: string;
  readonly authMethod?: string;
  readonly requestId?: string;
  readonly body: string;
  readonly headers?: Headers;
  readonly doc?: XmlNode;
  readonly retryAfter?: number;
  readonly stopWithError?: boolean;

  constructor(d: ApiErrorDetails) {
    super(d.message);
    this.name = 'ApiRequestError';
    this.status = d.status;
    this.statusText = d.statusText ?? '';
    this.kind = d.kind;
    this.errorCode = d.errorCode;
    this.authMethod = d.authMethod;
    this.requestId = d.requestId;
    this.body = d.body;
    this.headers = d.headers;
    this.doc = d.doc;
    this.retryAfter = d.retryAfter;
    this.stopWithError = d.stopWithError;
  }
}

export function isApiRequestError(e: unknown, kind?: ApiErrorKind): e is ApiRequestError {
  return e instanceof ApiRequestError && (kind === undefined || e.kind === kind);
}

export const OTP_AUTH_METHOD = 'basic:password+otp';

// Server error codes that mean the application layer (spec 5.1) was refused,
// whatever status the server chose for them.
const SIGNATURE_CODE = /^(signature_|timestamp_|unknown_api_key)/;

const BY_STATUS: Record<number, ApiErrorKind> = {
  400: 'bad_request',
  401: 'authentication',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'too_large',
  415: 'unsupported_media_type',
  422: 'invalid',
  429: 'rate_limited',
};

export function classify(status: number, errorCode?: string, authMethod?: string): ApiErrorKind {
  if (errorCode && SIGNATURE_CODE.test(errorCode)) return 'signature';
  if (status === 401 && authMethod === OTP_AUTH_METHOD) return 'otp_required';
  if (errorCode === 'otp_required') return 'otp_required';
  if (status >= 500) return 'server';
  return BY_STATUS[status] ?? 'http';
}

/** Builds the error for a reply with status >= 400; `doc` is absent when the body was not XML. */
export function errorFromReply(
  status: number,
  statusText: string,
  headers: Headers,
  body: string,
  doc: XmlNode | undefined,
  retryAfter?: number,
): ApiRequestError {
  const errorCode = doc && text(doc, 'error-code');
  const authMethod = doc && text(doc, 'auth-method');
  const message = (doc && text(doc, 'error')) || `HTTP ${status}${statusText ? ` ${statusText}` : ''}`;
  return new ApiRequestError({
    status,
    statusText,
    kind: classify(status, errorCode, authMethod),
    message,
    errorCode,
    authMethod,
    requestId: headers.get('x-request-id') ?? undefined,
    body,
    headers,
    doc,
    retryAfter,
    stopWithError: doc ? bool(doc, 'stop-with-error') : undefined,
  });
}

// Public surface of the client SDK.
export {
  MediaPortfolioClient,
  galleryParams,
  DEFAULT_PER_PAGE,
  type AclEntry,
  type ApiResponse,
  type ClientOptions,
  type FeedChange,
  type GalleryAttributes,
  type HttpMethod,
  type PaginateOptions,
  type RequestOptions,
} from './client.js';
export { ApiRequestError, classify, isApiRequestError, OTP_AUTH_METHOD, type ApiErrorKind } from './errors.js';
export { encodeParams, encodePairs, toPairs, type FilePart, type ParamValue, type Params } from './params.js';
export { FileSessionStore, MemorySessionStore, SESSION_COOKIE, type SessionStore } from './session.js';
export { formatTimestamp, isoLocal, signatureHeaders, type SignInput, type TimestampFormat } from './sign.js';
export { MAX_WAIT_SECONDS, type RateLimitState, type Sleep } from './throttle.js';
export { all, bool, child, children, find, int, isNil, items, parseXml, text, xmlToJson, XmlParseError, type JsonValue, type XmlNode } from './xml.js';
export { requestUpload, sendUploadBody, uploadFile, type UploadFile, type UploadOptions } from './upload.js';

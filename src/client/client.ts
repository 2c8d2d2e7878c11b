// Client SDK for the Media Portfolio Service: signs every request (spec 5.1),
// carries the user session (5.2), paces itself by the rate headers (8) and
// turns error replies into typed errors (7).
import type { SignatureAlgorithm } from '../http/signing.js';
import { errorFromReply, ApiRequestError, OTP_AUTH_METHOD } from './errors.js';
import { encodePairs, toFormData, toPairs, type FilePart, type ParamValue, type Params } from './params.js';
import { MemorySessionStore, SESSION_COOKIE, sessionFromSetCookie, type SessionStore } from './session.js';
import { formatTimestamp, signatureHeaders, type TimestampFormat } from './sign.js';
import { realSleep, retryAfterSeconds, Throttle, type RateLimitState, type Sleep } from './throttle.js';
import { all, int, parseXml, text, type XmlNode } from './xml.js';

export interface ClientOptions {
  /** Service address, e.g. http://localhost:8080 (a path prefix is kept). */
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  login?: string;
  password?: string;
  /** Asked for the current one-time code when the service wants one. */
  otp?: () => Promise<string> | string;
  timestampFormat?: TimestampFormat;
  algorithm?: SignatureAlgorithm;
  /** Wait when RateLimit-Remaining reaches 0 (default true). */
  throttle?: boolean;
  /** On 429, wait Retry-After and retry once (default true). */
  retry429?: boolean;
  /** Where the session cookie lives (default: in memory). */
  session?: SessionStore;
  /** A custom fetch, e.g. one bound to an undici dispatcher. */
  fetch?: typeof fetch;
  /** Replaces setTimeout-based waiting (tests, custom schedulers). */
  sleep?: Sleep;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RequestOptions {
  /** Send multipart/form-data instead of an urlencoded body. */
  multipart?: boolean;
  /** A file appended after the fields; implies multipart. */
  file?: FilePart;
  /** Send PUT/DELETE as POST with `_method` as the first form field. */
  methodOverride?: boolean;
  /** 'none': never send user credentials (a session cookie still goes along). */
  auth?: 'auto' | 'none';
  signal?: AbortSignal;
}

export interface ApiResponse {
  status: number;
  statusText: string;
  headers: Headers;
  body: string;
  /** The `<reply>` root element. */
  doc: XmlNode;
  requestId?: string;
}

export interface AclEntry {
  /** The literal DEFAULT for the default entry, otherwise a client e-mail. */
  email: string;
  read?: boolean | 0 | 1;
  comp_download?: boolean | 0 | 1;
  hires_download?: boolean | 0 | 1;
  /** The entry number n in gallery[acl][n]; defaults to the position in the list. */
  id?: number;
}

/** Writable gallery attributes (spec 2.3); sent as gallery[...]. */
export interface GalleryAttributes {
  name?: string;
  parent?: string;
  url_path?: string;
  description?: string;
  display_style?: string;
  cover_media?: string;
  /** Extension (docs/galleries.md): the media a protected gallery shows to visitors who may not open it. */
  public_cover_media?: string;
  hidden?: boolean | 0 | 1;
  indexing?: 0 | 1 | 2;
  password?: string;
  content_order?: string;
  content_order_direction?: 'asc' | 'desc';
  order_subgalleries?: boolean | 0 | 1;
  /** Media UUIDs; an array is joined with commas. */
  medias_order?: string | readonly string[];
  acl?: readonly AclEntry[];
  [extra: string]: ParamValue | readonly ParamValue[] | readonly AclEntry[] | undefined | null;
}

export interface PaginateOptions {
  /** Where the page count is read (default 'total-pages', under `<reply>`). */
  totalPagesPath?: string;
}

/** One entry of the change feed (extension): a deleted object's uuid is a tombstone. */
export interface FeedChange {
  kind: 'media' | 'gallery' | 'collection' | 'lightbox';
  uuid: string;
  action: 'created' | 'updated' | 'deleted';
}

export const DEFAULT_PER_PAGE = 100;

type AuthMode = 'cookie' | 'basic' | 'none';

interface Prepared {
  url: URL;
  wireMethod: string;
  contentType?: string;
  body?: string | FormData;
  signal?: AbortSignal;
}

interface RawReply {
  res: Response;
  body: string;
  doc?: XmlNode;
}

const seg = encodeURIComponent;

function parseReplyBody(body: string): XmlNode | undefined {
  // Clients of this API ignore bodies that are not XML; so do we.
  if (!body.replace(/^\uFEFF/, '').trimStart().startsWith('<')) return undefined;
  try {
    return parseXml(body);
  } catch {
    return undefined;
  }
}

export class MediaPortfolioClient {
  private readonly base: URL;
  private readonly session: SessionStore;
  private readonly throttle: Throttle;
  private readonly fetchFn: typeof fetch;
  private readonly sleep: Sleep;
  private cookie: string | undefined;
  private cookieLoaded = false;

  constructor(private readonly options: ClientOptions) {
    this.base = new URL(options.baseUrl);
    this.session = options.session ?? new MemorySessionStore();
    this.sleep = options.sleep ?? realSleep;
    this.throttle = new Throttle(this.sleep);
    this.fetchFn = options.fetch ?? globalThis.fetch;
  }

  /** Rate headers of the last reply. */
  get rateLimit(): RateLimitState {
    return this.throttle.last;
  }

  /** The current session cookie value, if any (loads it from the store). */
  async sessionCookie(): Promise<string | undefined> {
    if (!this.cookieLoaded) {
      this.cookie = (await this.session.load()) || undefined;
      this.cookieLoaded = true;
    }
    return this.cookie;
  }

  private async setCookie(value: string | undefined): Promise<void> {
    this.cookieLoaded = true;
    if (value === this.cookie) return;
    this.cookie = value;
    await this.session.save(value);
  }

  private get hasCredentials(): boolean {
    return this.options.login !== undefined && this.options.password !== undefined;
  }

  /** Signs and sends one request; throws ApiRequestError on a status >= 400. */
  async request(method: HttpMethod | string, path: string, params?: Params, opts: RequestOptions = {}): Promise<ApiResponse> {
    const prepared = await this.prepare(method.toUpperCase(), path, params, opts);
    const userAuth = opts.auth !== 'none';
    let auth: AuthMode = (await this.sessionCookie()) ? 'cookie' : userAuth && this.hasCredentials ? 'basic' : 'none';
    let otpCode: string | undefined;
    let sessionRetried = false;
    let otpAsked = false;
    let throttleRetried = false;

    for (;;) {
      const reply = await this.send(prepared, auth, otpCode);
      const { res, doc } = reply;
      const authMethod = res.status === 401 && doc ? text(doc, 'auth-method') : undefined;

      // An expired session: forget it and log in again, once.
      if (authMethod && auth === 'cookie') {
        await this.setCookie(undefined);
        if (userAuth && this.hasCredentials && !sessionRetried) {
          sessionRetried = true;
          auth = 'basic';
          continue;
        }
      }
      // Two-factor user: ask for the code and re-send the very same request, once.
      if (authMethod === OTP_AUTH_METHOD && auth === 'basic' && this.options.otp && !otpAsked) {
        otpAsked = true;
        otpCode = String(await this.options.otp()).trim();
        continue;
      }
      if (res.status === 429 && this.options.retry429 !== false && !throttleRetried) {
        throttleRetried = true;
        const wait = retryAfterSeconds(res.headers) ?? this.throttle.last.reset ?? 1;
        await this.sleep(wait * 1000);
        continue;
      }
      return this.finish(reply);
    }
  }

  private finish({ res, body, doc }: RawReply): ApiResponse {
    if (res.status >= 400) {
      const retryAfter = res.status === 429 ? retryAfterSeconds(res.headers) : undefined;
      throw errorFromReply(res.status, res.statusText, res.headers, body, doc, retryAfter);
    }
    const requestId = res.headers.get('x-request-id') ?? undefined;
    if (!doc) {
      throw new ApiRequestError({
        status: res.status,
        kind: 'protocol',
        message: `reply to ${res.url || 'request'} is not an XML document`,
        requestId,
        body,
        headers: res.headers,
      });
    }
    return { status: res.status, statusText: res.statusText, headers: res.headers, body, doc, requestId };
  }

  /** Everything about a request that stays the same across re-sends. */
  private async prepare(method: string, path: string, params: Params | undefined, opts: RequestOptions): Promise<Prepared> {
    const multipart = opts.multipart === true || opts.file !== undefined;
    if (method === 'GET' && (multipart || opts.methodOverride)) {
      throw new TypeError('GET carries its parameters in the query string: no multipart, no method override');
    }
    if (opts.methodOverride && method !== 'PUT' && method !== 'DELETE') {
      throw new TypeError(`method override applies to PUT and DELETE, not ${method}`);
    }
    const [rawPath, rawQuery = ''] = splitOnce(path.startsWith('/') ? path : `/${path}`, '?');
    const pairs = toPairs(params);
    if (opts.methodOverride) pairs.unshift(['_method', method]);

    let query = rawQuery;
    let body: string | FormData | undefined;
    let contentType: string | undefined;
    if (method === 'GET') {
      query = [rawQuery, encodePairs(pairs)].filter((q) => q !== '').join('&');
    } else if (multipart) {
      body = await toFormData(pairs, opts.file); // fetch sets the boundary
    } else {
      body = encodePairs(pairs);
      contentType = 'application/x-www-form-urlencoded';
    }
    const prefix = this.base.pathname.replace(/\/+$/, '');
    const url = new URL(`${this.base.origin}${prefix}${rawPath}${query ? `?${query}` : ''}`);
    return { url, wireMethod: opts.methodOverride ? 'POST' : method, body, contentType, signal: opts.signal };
  }

  private async send(p: Prepared, auth: AuthMode, otpCode: string | undefined): Promise<RawReply> {
    if (this.options.throttle !== false) await this.throttle.ready();
    // Sign what the URL parser will actually put on the wire.
    const headers: Record<string, string> = {
      Accept: 'application/xml',
      ...signatureHeaders({
        method: p.wireMethod,
        path: p.url.pathname,
        query: p.url.search.slice(1),
        apiKey: this.options.apiKey,
        apiSecret: this.options.apiSecret,
        timestamp: formatTimestamp(this.options.timestampFormat ?? 'rfc2822'),
        algorithm: this.options.algorithm,
      }),
    };
    if (p.contentType) headers['Content-Type'] = p.contentType;
    if (auth === 'cookie' && this.cookie) headers.Cookie = `${SESSION_COOKIE}=${this.cookie}`;
    if (auth === 'basic') {
      const password = otpCode ? `${this.options.password}+${otpCode}` : this.options.password ?? '';
      headers.Authorization = `Basic ${Buffer.from(`${this.options.login}:${password}`, 'utf8').toString('base64')}`;
    }

    const res = await this.fetchFn(p.url, {
      method: p.wireMethod,
      headers,
      body: p.body,
      redirect: 'manual', // API calls are never redirected; a redirect is an answer in itself
      signal: p.signal,
    });
    const body = await res.text();
    this.throttle.observe(res.headers);
    const session = sessionFromSetCookie(res.headers.getSetCookie());
    if (session === null) await this.setCookie(undefined);
    else if (session !== undefined) await this.setCookie(session);
    return { res, body, doc: parseReplyBody(body) };
  }

  /**
   * Yields the elements at `arrayElementPath` (e.g. 'galleries/gallery')
   * page by page. Stops (spec 4.3 rule 2) at the page given by
   * `<total-pages>`, or when a page is empty or shorter than per_page.
   */
  async *paginate(path: string, params: Params = {}, arrayElementPath: string, opts: PaginateOptions = {}): AsyncGenerator<XmlNode, void, undefined> {
    const perPage = Number(params.per_page ?? DEFAULT_PER_PAGE);
    let page = Number(params.page ?? 1);
    for (;;) {
      const { doc } = await this.request('GET', path, { ...params, page, per_page: perPage });
      const found = all(doc, arrayElementPath);
      yield* found;
      const totalPages = int(doc, opts.totalPagesPath ?? 'total-pages');
      if (found.length === 0 || found.length < perPage) return;
      if (totalPages !== undefined && page >= totalPages) return;
      page++;
    }
  }

  // ---- convenience wrappers (spec 4) ----------------------------------------

  /** No user authentication: checks the application key and signature only. */
  ping(text?: string): Promise<ApiResponse> {
    return this.request('GET', '/ping.xml', { text }, { auth: 'none' });
  }

  pingAuth(text?: string): Promise<ApiResponse> {
    return this.request('GET', '/ping_auth.xml', { text });
  }

  whoami(): Promise<ApiResponse> {
    return this.request('GET', '/whoami.xml');
  }

  /** Ends the session on the server and forgets the cookie, whatever the reply. */
  async logout(): Promise<ApiResponse | undefined> {
    try {
      if (!(await this.sessionCookie())) return undefined;
      return await this.request('GET', '/logout.xml', undefined, { auth: 'none' });
    } finally {
      await this.setCookie(undefined);
    }
  }

  websites(view?: 'list' | 'details', params: Params = {}): Promise<ApiResponse> {
    return this.request('GET', '/websites.xml', { view, ...params });
  }

  artists(view?: 'list' | 'details', params: Params = {}): Promise<ApiResponse> {
    return this.request('GET', '/artists.xml', { view, ...params });
  }

  galleries(urlname: string, params: Params = {}): Promise<ApiResponse> {
    return this.request('GET', `/websites/${seg(urlname)}/galleries.xml`, params);
  }

  gallery(urlname: string, uuid: string, view?: 'details' | 'details_with_medias' | 'details_with_contents'): Promise<ApiResponse> {
    return this.request('GET', `/websites/${seg(urlname)}/galleries/${seg(uuid)}.xml`, { view });
  }

  createGallery(urlname: string, attrs: GalleryAttributes & { name: string; parent: string }): Promise<ApiResponse> {
    return this.request('POST', `/websites/${seg(urlname)}/galleries.xml`, galleryParams(attrs));
  }

  updateGallery(urlname: string, uuid: string, attrs: GalleryAttributes): Promise<ApiResponse> {
    return this.request('PUT', `/websites/${seg(urlname)}/galleries/${seg(uuid)}.xml`, galleryParams(attrs));
  }

  deleteGallery(urlname: string, uuid: string, params: { delete_medias?: boolean | 0 | 1; medias_count?: number } = {}): Promise<ApiResponse> {
    return this.request('DELETE', `/websites/${seg(urlname)}/galleries/${seg(uuid)}.xml`, params);
  }

  /**
   * Extension (docs/integrations.md, "Change feed"): one page of the user's changes after `since`
   * (an opaque cursor; '0' is the start), or without it the current cursor alone.
   */
  changes(since?: string, perPage?: number): Promise<ApiResponse> {
    return this.request('GET', '/changes.xml', { since, per_page: perPage });
  }

  /**
   * Follows the change feed from `since` until caught up, page after page: `onPage` gets each page's
   * changes and the cursor after them (keep it once the page is applied); returns the last cursor.
   */
  async followChanges(since: string, onPage: (changes: FeedChange[], next: string) => void | Promise<void>, opts: { perPage?: number } = {}): Promise<string> {
    let cursor = since;
    for (;;) {
      const r = await this.changes(cursor, opts.perPage);
      const next = text(r.doc, 'next-cursor');
      if (!next) throw new Error('the change feed answered without a next-cursor');
      const changes = all(r.doc, 'changes/change').map((c) => ({ kind: text(c, 'kind') as FeedChange['kind'], uuid: text(c, 'uuid')!, action: text(c, 'action') as FeedChange['action'] }));
      await onPage(changes, next);
      cursor = next;
      if (text(r.doc, 'has-more') !== 'true') return cursor;
    }
  }

  /**
   * Upload step 3 (spec 4.7): completes the upload described by step 1's `<media>`
   * element, sending back the service's own location, file name and mime type.
   */
  completeUpload(media: XmlNode, fileSize: number): Promise<ApiResponse> {
    return this.request(
      'PUT',
      `/medias/${seg(text(media, 'uuid') ?? '')}.xml`,
      {
        'media[content][upload_location]': text(media, 'upload-location'),
        'media[content][file_name]': text(media, 'file-name'),
        'media[content][file_size]': fileSize,
        'media[content][mime_type]': text(media, 'mime-type'),
      },
      { multipart: true },
    );
  }
}

function splitOnce(s: string, sep: string): [string, string?] {
  const i = s.indexOf(sep);
  return i < 0 ? [s] : [s.slice(0, i), s.slice(i + 1)];
}

/** gallery[...] names for the attributes, gallery[acl][n][...] for the access list. */
export function galleryParams(attrs: GalleryAttributes): Params {
  const out: Params = {};
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || key === 'acl') continue;
    if (key === 'medias_order' && Array.isArray(value)) out['gallery[medias_order]'] = value.join(',');
    else out[`gallery[${key}]`] = value as ParamValue | readonly ParamValue[];
  }
  attrs.acl?.forEach((entry, index) => {
    const n = entry.id ?? index;
    out[`gallery[acl][${n}][email]`] = entry.email;
    for (const right of ['read', 'comp_download', 'hires_download'] as const) {
      const v = entry[right];
      if (v !== undefined) out[`gallery[acl][${n}][${right}]`] = v === true ? 1 : v === false ? 0 : v;
    }
  });
  return out;
}

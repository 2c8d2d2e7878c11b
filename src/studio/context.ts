// The studio's context: what plugin.ts hands every route of routes/*.ts (docs/architecture.md,
// "The studio"): the dependencies, the one HTML and JSON senders, who is signed in, the checks
// on every change (CSRF on forms and scripts' requests alike) and the one body reader. Each area
// is a table of StudioRoute; none holds SQL or a rule of its own (the services do).
import type { ActivityService } from '../activity/service.js';
import busboy from 'busboy';
import type { CouponsService } from '../coupons/service.js';
import type { ShopSettingsService } from '../shop-settings/service.js';
import type { FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Readable } from 'node:stream';
import type { Config } from '../config.js';
import { Encoded } from '../core/content-coding.js';
import { ApiError } from '../core/errors.js';
import type { RateLimit } from '../http/rate-limit.js';
import type { AppsService } from '../apps/service.js';
import type { WebhooksService } from '../webhooks/service.js';
import type { ShareLinksService } from '../share-links/service.js';
import type { ArtistsService } from '../artists/service.js';
import type { GalleriesService } from '../galleries/service.js';
import type { GroupsService } from '../groups/service.js';
import type { JobQueue } from '../jobs/service.js';
import type { LightboxesService } from '../lightboxes/service.js';
import type { MediaService } from '../media/service.js';
import type { OrdersService } from '../orders/service.js';
import type { StripePayments } from '../payments/stripe.js';
import type { PricingProfilesService } from '../pricing-profiles/service.js';
import type { ResumableUploadsService } from '../resumable-uploads/service.js';
import type { TusEndpoint } from '../resumable-uploads/tus-endpoint.js';
import type { StorageBackend } from '../file-storage/backend.js';
import type { MailBrand, MailMessage } from '../mail/messages.js';
import { imageSources } from '../file-storage/image-sources.js';
import type { UserRow } from '../database/schema.js';
import type { Authenticator } from '../users/auth.js';
import type { SessionStore } from '../users/sessions.js';
import type { UsersService } from '../users/service.js';
import type { WebsiteDetails, WebsitesService } from '../websites/service.js';
import type { StudioBudget } from './budget.js';
import { Body } from './body.js';
import { fromOwnOrigin, same, StudioCookies, StudioTokens } from './guard.js';
import type { Viewer } from './pages/layout.js';

/** What the studio hands the invitation mailer for a client added to a gallery's access list. */
export interface InviteRequest {
  /** Lower-cased address, already on the gallery's access list with these rights. */
  email: string;
  /** The photographer's words for the mail (at most 2000 characters, plain text). */
  message: string;
  comp: boolean;
  hires: boolean;
}
/** `mailed`: false without a mail server (SMTP_URL), and then `link` is the sign-in link for the photographer to hand over. */
/** What became of an invitation's mail (src/invitations/repository.ts). */
export interface InvitationDelivery {
  state: 'queued' | 'sent' | 'failed' | 'not_mailed';
  code: string | null;
  queuedAt: string;
  settledAt: string | null;
}

export type Invite = (user: UserRow, galleryUuid: string, request: InviteRequest) => Promise<{ mailed: true } | { mailed: false; link: string }>;

export interface StudioDeps {
  users: UsersService;
  authenticator: Authenticator;
  sessions: SessionStore;
  websites: WebsitesService;
  media: MediaService;
  /** The gallery tree and each gallery's settings and access list (routes/galleries.ts); the media grid of one gallery, its manual order (routes/media.ts). */
  galleries: GalleriesService;
  /**
   * Mails a client invited to a gallery a sign-in link (the API's InvitationsService, src/app.ts).
   * Undefined: the studio adds the client to the access list and says invitations are not available.
   */
  invite?: Invite;
  /** Each invited client's latest invitation mail to a gallery, by address (InvitationsService.deliveries). */
  invitationDeliveries?: (user: UserRow, galleryUuid: string) => Promise<Map<string, InvitationDelivery>>;
  /** The website's brand as its mails show it (src/site/mail-brand.ts): "Preview the mails". */
  mailBrand?: (websiteUuid: string) => Promise<MailBrand | undefined>;
  /** Where renditions are: an owner's thumbnails are streamed from it (a media not yet public has no public address). */
  storage: StorageBackend;
  /** The API's request budget (RATE_LIMIT), keyed `studio:addr:<ip>` before sign-in; null when off. */
  rateLimit: RateLimit | null;
  /** The studio's own budget per session (STUDIO_RATE_LIMIT; budget.ts); null when off. */
  budget: StudioBudget | null;
  /** The service's secret (UPLOAD_SECRET or its file): the studio's tokens are keyed from it. */
  secret: Buffer;
  config: Pick<Config, 'publicUrl' | 'storageUrl'>;
  /** Applications (API keys): a photographer's own, and every one for operators. */
  apps: AppsService;
  /** The job queue: a user's jobs (the batch edit's progress: JobQueue.status, the API's rule), and the queue for operators. */
  jobs: JobQueue;
  /** The service's mail (SMTP_URL; src/mail/mailer.ts): the invitation of a new photographer. */
  mailer: StudioMailer;
  /** Collections and smart collections. */
  groups: GroupsService;
  /** A user's lightboxes (listed with their counts); a gallery's proofing (routes/proofing.ts). */
  lightboxes: LightboxesService;
  /** What clients and visitors did: the analytics screen, and a client's activity beside their selection on the proofing screen. */
  activity: Pick<ActivityService, 'analytics' | 'clientInGallery'>;
  /** Resumable uploads: their outcome, duplicates (routes/uploads.ts). */
  resumable: ResumableUploadsService;
  /** The tus endpoint the uploads screen sends files to. */
  tus: TusEndpoint;
  /** Media libraries and their watermarks (routes/watermarks.ts): created, deleted and previewed on the API's access rule. */
  artists: ArtistsService;
  /** A photographer's webhook endpoints and their delivery log (routes/webhooks.ts). */
  webhooks: WebhooksService;
  /** Price lists (routes/shop-prices.ts) and the batch edit's choice of them (routes/media.ts). */
  pricingProfiles: PricingProfilesService;
  /** Orders, sales, exports and a website's manual payment instructions (routes/shop.ts). */
  orders: OrdersService;
  /** A website's coupons (routes/shop-coupons.ts) and its tax and terms (routes/shop-settings.ts), on the API's services. */
  coupons: CouponsService;
  shopSettings: ShopSettingsService;
  /** The photographer's Stripe account: connected, shown (four last characters at most), removed. */
  stripe: Pick<StripePayments, 'configure' | 'account' | 'disconnect' | 'isConfigured' | 'available'>;
  /** A gallery's share links (routes/share-links.ts). */
  shareLinks: ShareLinksService;
}

/** What the studio needs of the service's mailer (src/mail/mailer.ts, built in src/app.ts). */
export interface StudioMailer {
  /** False without SMTP_URL: the message is logged instead, and the operator is shown the link. */
  readonly mails: boolean;
  /** Starts sending; never throws (failures are logged). */
  send(message: MailMessage, what: string, url: string): void;
}

/** A request's signed-in user, their session token and what the pages show of them. */
export interface Signed {
  user: UserRow;
  token: string;
  viewer: Viewer;
}

/** The largest form: a Markdown page (100 000 characters, up to 3 bytes each when encoded, and more with %-escapes). */
export const FORM_LIMIT_BYTES = 1024 * 1024;
export const SMALL_FORM_BYTES = 16 * 1024;
/** A script's JSON request (a selection of up to a few thousand UUIDs, a tree move): bounded like a form. */
export const JSON_LIMIT_BYTES = 256 * 1024;
/** The header a screen's script sends its session's CSRF token in (read from `<meta name="studio-csrf">`). */
export const CSRF_HEADER = 'x-studio-csrf';

/** A list screen's `?page=`: from 1, at most `max`; anything else is the first page (the studio's lists never refuse a page number). */
export function pageNumber(req: FastifyRequest, max: number): number {
  const v = (req.query as Record<string, unknown>).page;
  return Math.min(Math.max(1, Number.parseInt(typeof v === 'string' ? v : '1', 10) || 1), max);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export interface StudioContext {
  deps: StudioDeps;
  cookies: StudioCookies;
  tokens: StudioTokens;
  /** The one HTML sender: every screen goes out with these headers. */
  send(reply: FastifyReply, status: number, body: string): FastifyReply;
  /** The one JSON sender, for the screens' scripts (never cached, never sniffed). */
  json(reply: FastifyReply, status: number, value: unknown): FastifyReply;
  redirect(reply: FastifyReply, to: string): FastifyReply;
  /** Who is signed in (read once per request by the plugin's hook), remembered for the error page. */
  sessionOf(req: FastifyRequest): Promise<Signed | undefined>;
  signedInOf(req: FastifyRequest): Signed | undefined;
  /** The signed-in user, else a 401 (a GET becomes a redirect to the sign-in). */
  need(req: FastifyRequest): Signed;
  /** The user's row as stored now: the session's may be a few seconds old (sessions.ts caches it). */
  fresh(s: Signed): Promise<UserRow>;
  /** An url-encoded form's fields (415 for another type). */
  formOf(req: FastifyRequest): Body;
  /** Every post: from our own pages (Origin, Sec-Fetch-Site) and with the expected token, compared in constant time. */
  checkPost(req: FastifyRequest, form: Body, expected: string | undefined): void;
  /** A signed-in user's form post, checked. */
  signedPost(req: FastifyRequest): { s: Signed; form: Body };
  /** A signed-in user's request from a screen's script, checked (origin and the CSRF header), whatever its body (tus uploads). */
  signedScript(req: FastifyRequest): Signed;
  /** A signed-in user's JSON request from a screen's script, checked (origin and the CSRF header); its parsed body. */
  signedJson(req: FastifyRequest): { s: Signed; body: unknown };
  /**
   * The one reader of an action a form and a script both send: a script's JSON (the CSRF header)
   * or a form (its csrf field), checked alike, as the same fields; `json` says how to answer.
   */
  signedBody(req: FastifyRequest): { s: Signed; body: Body; json: boolean };
  /** A website of the user by its urlname; the API's rule: one they may not see is a 404. */
  websiteDetails(s: Signed, urlname: string): Promise<WebsiteDetails>;
  /**
   * A signed-in user's multipart form with one file (`file`): the `csrf` field must come before
   * it, and nothing of the file is read before the token is checked (403 otherwise). The file's
   * stream goes to `take`, whose promise is returned as `taken` (undefined: no file was sent); a
   * refused take's stream is drained, never left stalled. Small fields come back by name.
   */
  signedFile<T>(req: FastifyRequest, s: Signed, take: (file: { stream: Readable; fileName: string }, fields: ReadonlyMap<string, string>) => Promise<T>): Promise<{ taken: Promise<T> | undefined; fields: ReadonlyMap<string, string> }>;
}

/** One route of the studio, in its area's table (routes/*.ts), registered by plugin.ts. */
export interface StudioRoute {
  method: HTTPMethods | HTTPMethods[];
  path: string;
  /** Bytes of the body; Fastify's default (1 MiB) when absent. */
  bodyLimit?: number;
  handler(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply): unknown;
}

export function makeContext(deps: StudioDeps): StudioContext {
  const secure = deps.config.publicUrl.startsWith('https:');
  const cookies = new StudioCookies(secure);
  const tokens = new StudioTokens(deps.secret);
  const csp = `default-src 'none'; img-src ${imageSources(deps.config.storageUrl).join(' ')}; style-src 'self'; script-src 'self'; connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
  const signedIn = new WeakMap<FastifyRequest, Signed>();

  const privateHeaders = (reply: FastifyReply) =>
    reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'same-origin').header('cache-control', 'no-store').header('x-robots-tag', 'noindex');

  const ctx: StudioContext = {
    deps,
    cookies,
    tokens,
    send: (reply, status, body) => {
      // Compressed for its request as the website's pages rendered per visitor are (a tree of a thousand galleries is near 1 MB).
      const sent = new Encoded(Buffer.from(body), 'fresh').for(reply.request.headers['accept-encoding']);
      if (sent.coding) reply.header('content-encoding', sent.coding);
      return privateHeaders(reply.code(status))
        .header('content-type', 'text/html; charset=utf-8')
        .header('content-security-policy', csp)
        .header('x-frame-options', 'DENY')
        .header('vary', 'accept-encoding')
        .send(sent.body);
    },
    json: (reply, status, value) => privateHeaders(reply.code(status)).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(value)),
    redirect: (reply, to) => reply.code(303).header('location', to).header('cache-control', 'no-store').send(),

    async sessionOf(req) {
      const token = cookies.read(req, cookies.session);
      if (!token) return undefined;
      const found = await deps.sessions.lookup(token);
      const user = found.owes ? await deps.sessions.settle(found) : found.user;
      if (!user) return undefined;
      const s = { user, token, viewer: { email: user.email, csrf: tokens.csrfOf(token), admin: user.is_admin === 1 } };
      signedIn.set(req, s);
      return s;
    },
    signedInOf: (req) => signedIn.get(req),
    need(req) {
      const s = signedIn.get(req);
      if (!s) throw new ApiError('authentication_required', 'Sign in first.');
      return s;
    },
    async fresh(s) {
      return (await deps.users.byId(s.user.id)) ?? s.user;
    },
    formOf(req) {
      const contentType = (req.headers['content-type'] ?? '').toLowerCase();
      if (!contentType.startsWith('application/x-www-form-urlencoded')) throw new ApiError('unsupported_media_type', 'Send the form as application/x-www-form-urlencoded.');
      const body = req.body;
      if (body !== undefined && body !== null && !Buffer.isBuffer(body)) throw new ApiError('bad_request', 'The form could not be read.');
      let text: string;
      try {
        text = body ? strictUtf8.decode(body) : '';
      } catch {
        throw new ApiError('bad_encoding', 'The form is not valid UTF-8.');
      }
      return Body.form(text);
    },
    checkPost(req, form, expected) {
      if (!fromOwnOrigin(req, deps.config.publicUrl)) throw new ApiError('forbidden', 'This form can only be sent from the studio itself.');
      if (expected === undefined || !same(form.str('csrf'), expected)) throw new ApiError('forbidden', 'The form has expired or did not come from the studio: load the page again and resend it.');
    },
    signedPost(req) {
      const s = ctx.need(req);
      const form = ctx.formOf(req);
      ctx.checkPost(req, form, s.viewer.csrf);
      return { s, form };
    },
    signedScript(req) {
      const s = ctx.need(req);
      if (!fromOwnOrigin(req, deps.config.publicUrl)) throw new ApiError('forbidden', 'This request can only be sent from the studio itself.');
      const header = req.headers[CSRF_HEADER];
      if (typeof header !== 'string' || !same(header, s.viewer.csrf)) throw new ApiError('forbidden', 'The page has expired: load it again.');
      return s;
    },
    signedJson(req) {
      const s = ctx.signedScript(req);
      const contentType = (req.headers['content-type'] ?? '').toLowerCase();
      if (!contentType.startsWith('application/json')) throw new ApiError('unsupported_media_type', 'Send JSON.');
      const raw = req.body;
      if (raw !== undefined && raw !== null && !Buffer.isBuffer(raw)) throw new ApiError('bad_request', 'The request could not be read.');
      let body: unknown;
      try {
        body = raw && raw.length ? JSON.parse(strictUtf8.decode(raw)) : {};
      } catch {
        throw new ApiError('bad_request', 'The request is not valid JSON.');
      }
      return { s, body };
    },
    signedBody(req) {
      if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) {
        const { s, form } = ctx.signedPost(req);
        return { s, body: form, json: false };
      }
      const { s, body } = ctx.signedJson(req);
      return { s, body: Body.json(body), json: true };
    },
    signedFile: (req, s, take) => signedFileOf(ctx, req, s, take),
    async websiteDetails(s, urlname) {
      if (!/^[a-z0-9-]{1,63}$/.test(urlname)) throw new ApiError('not_found', 'There is no such website.');
      return deps.websites.details({ user: s.user }, urlname);
    },
  };
  return ctx;
}

/** ctx.signedFile: the csrf field first, then the one file, never read before the token is checked. */
async function signedFileOf<T>(ctx: StudioContext, req: FastifyRequest, s: Signed, take: (file: { stream: Readable; fileName: string }, fields: ReadonlyMap<string, string>) => Promise<T>): Promise<{ taken: Promise<T> | undefined; fields: ReadonlyMap<string, string> }> {
  const contentType = (req.headers['content-type'] ?? '').toLowerCase();
  if (!contentType.startsWith('multipart/form-data')) throw new ApiError('unsupported_media_type', 'Send the file as multipart/form-data.');
  const expired = () => new ApiError('forbidden', 'The form has expired or did not come from the studio: load the page again and resend it.');
  const fields = new Map<string, string>();
  let taken: ReturnType<typeof take> | undefined;
  let csrfSeen = false;
  await new Promise<void>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      // Fields beyond the limit are dropped without a word: room for the largest form's (a
      // watermark image's: csrf, default, strength, position, tile) and a few to spare.
      bb = busboy({ headers: req.headers, limits: { files: 1, fields: 8, fieldSize: 1024, parts: 10 } });
    } catch {
      reject(new ApiError('bad_request', 'The form could not be read.'));
      return;
    }
    const fail = (err: unknown) => {
      req.raw.unpipe(bb);
      req.raw.resume();
      reject(err);
    };
    bb.on('field', (name, value) => {
      if (name !== 'csrf') {
        fields.set(name, value);
        return;
      }
      try {
        ctx.checkPost(req, Body.of(new Map([['csrf', value]])), s.viewer.csrf);
        csrfSeen = true;
      } catch (err) {
        fail(err);
      }
    });
    bb.on('file', (name, stream, info) => {
      if (!csrfSeen) {
        stream.resume();
        fail(expired());
        return;
      }
      if (name !== 'file' || taken) {
        stream.resume();
        return;
      }
      const p = take({ stream, fileName: info.filename || '' }, fields);
      taken = p;
      p.catch(() => stream.resume());
    });
    bb.on('error', (err) => fail(err instanceof ApiError ? err : new ApiError('bad_request', 'The form could not be read.')));
    bb.on('close', () => resolve());
    req.raw.pipe(bb);
  });
  if (!csrfSeen) throw expired();
  return { taken, fields };
}

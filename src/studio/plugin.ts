// The photographers' studio (issue 21, docs/studio.md) as one encapsulated Fastify plugin
// under /studio/, beside the API and the website (src/site/plugin.ts is its model): its own
// HTML sender and error page, its own session cookie over the API's session store, CSRF on
// every post, the API's login throttle and rate limit. Every change goes through the same
// services and access checks as the API (src/users, src/websites): no SQL here, no rule twice.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import type { Config } from '../config.js';
import { ApiError } from '../http/errors.js';
import { closeAfterReply } from '../http/linger.js';
import { Params } from '../http/params.js';
import type { RateLimit } from '../http/rate-limit.js';
import type { MediaService } from '../media/service.js';
import type { StorageBackend } from '../storage/backend.js';
import { imageSources } from '../storage/image-sources.js';
import type { UserRow } from '../store/schema.js';
import type { Authenticator } from '../users/auth.js';
import type { SessionStore } from '../users/sessions.js';
import type { UsersService } from '../users/service.js';
import { randomTotpSecret } from '../users/totp.js';
import { brandInput, pageInput } from '../websites/brand.js';
import { homeUrl } from '../websites/home-url.js';
import type { WebsiteDetails, WebsitesService } from '../websites/service.js';
import { STUDIO_ASSETS } from './assets.js';
import { fromOwnOrigin, same, StudioCookies, StudioTokens } from './guard.js';
import * as pages from './pages.js';
import { socialLinksOf } from '../websites/social-links.js';

export interface StudioDeps {
  users: UsersService;
  authenticator: Authenticator;
  sessions: SessionStore;
  websites: WebsitesService;
  media: MediaService;
  /** Where renditions are: an owner's thumbnails are streamed from it (a media not yet public has no public address). */
  storage: StorageBackend;
  /** The API's request budget (RATE_LIMIT), keyed `studio:user:<id>` or `studio:addr:<ip>`; null when off. */
  rateLimit: RateLimit | null;
  /** The service's secret (UPLOAD_SECRET or its file): the studio's tokens are keyed from it. */
  secret: Buffer;
  config: Pick<Config, 'publicUrl' | 'storageUrl'>;
}

/** The largest form: a Markdown page (100 000 characters, up to 3 bytes each when encoded, and more with %-escapes). */
const FORM_LIMIT_BYTES = 1024 * 1024;
const SMALL_FORM_BYTES = 16 * 1024;
/** Library images offered as a logo or favicon: the latest ones. */
const PICKABLE = 24;
const WEBSITES_SHOWN = 200;

interface Signed {
  user: UserRow;
  token: string;
  viewer: pages.Viewer;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function formOf(req: FastifyRequest): Params {
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
  return Params.parse(text, 'the form');
}

/** Which field a service's 422 names (`website[title]`, `page[body]`), for the message next to it. */
function fieldOf(message: string, prefix: 'website' | 'page'): string {
  const m = new RegExp(`${prefix}\\[(\\w+)\\]`).exec(message);
  if (!m) return '';
  return prefix === 'page' && m[1] === 'title' ? 'page_title' : m[1];
}

export function studioPlugin(deps: StudioDeps): FastifyPluginAsync {
  const secure = deps.config.publicUrl.startsWith('https:');
  const cookies = new StudioCookies(secure);
  const tokens = new StudioTokens(deps.secret);
  const csp = `default-src 'none'; img-src ${imageSources(deps.config.storageUrl).join(' ')}; style-src 'self'; script-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
  const signedIn = new WeakMap<FastifyRequest, Signed>();

  const send = (reply: FastifyReply, status: number, body: string) =>
    reply
      .code(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('x-frame-options', 'DENY')
      .header('cache-control', 'no-store')
      .header('x-robots-tag', 'noindex')
      .send(body);
  const redirect = (reply: FastifyReply, to: string) => reply.code(303).header('location', to).header('cache-control', 'no-store').send();

  /** The session of a request, read once (the API's store: a lookup that only reads, then the write it owes). */
  async function sessionOf(req: FastifyRequest): Promise<Signed | undefined> {
    const token = cookies.read(req, cookies.session);
    if (!token) return undefined;
    const found = await deps.sessions.lookup(token);
    const user = found.owes ? await deps.sessions.settle(found) : found.user;
    if (!user) return undefined;
    const s = { user, token, viewer: { email: user.email, csrf: tokens.csrfOf(token) } };
    signedIn.set(req, s);
    return s;
  }

  /** The user's row as stored now: the session's may be a few seconds old (sessions.ts caches it), and a password or second factor just changed. */
  async function fresh(s: Signed): Promise<UserRow> {
    return (await deps.users.byId(s.user.id)) ?? s.user;
  }

  function need(req: FastifyRequest): Signed {
    const s = signedIn.get(req);
    if (!s) throw new ApiError('authentication_required', 'Sign in first.');
    return s;
  }

  /** Every post: from our own pages (Origin, Sec-Fetch-Site) and with the session's token, compared in constant time. */
  function checkPost(req: FastifyRequest, form: Params, expected: string | undefined): void {
    if (!fromOwnOrigin(req, deps.config.publicUrl)) throw new ApiError('forbidden', 'This form can only be sent from the studio itself.');
    if (expected === undefined || !same(form.str('csrf'), expected)) throw new ApiError('forbidden', 'The form has expired or did not come from the studio: load the page again and resend it.');
  }

  function signedPost(req: FastifyRequest): { s: Signed; form: Params } {
    const s = need(req);
    const form = formOf(req);
    checkPost(req, form, s.viewer.csrf);
    return { s, form };
  }

  async function websiteDetails(s: Signed, urlname: string): Promise<WebsiteDetails> {
    // The API's rule: a website the user may not see is a 404, as if it did not exist.
    if (!/^[a-z0-9-]{1,63}$/.test(urlname)) throw new ApiError('not_found', 'There is no such website.');
    return deps.websites.details({ user: s.user }, urlname);
  }

  async function pickable(s: Signed): Promise<pages.Pickable[]> {
    const found = await deps.media.list(s.user, {}, { limit: PICKABLE, offset: 0 }, true);
    return found.records
      .filter((r) => r.mime_type?.startsWith('image/'))
      .map((r) => {
        const views = (found.renditions?.get(r.id) ?? []).slice().sort((a, b) => a.width - b.width);
        return { uuid: r.uuid, label: r.title || r.file_name || r.uuid.slice(0, 8), thumb: views[0] ? `/studio/thumbs/${r.uuid}` : undefined };
      });
  }

  function settingsValues(d: WebsiteDetails): pages.SettingsValues {
    const w = d.website;
    const links = socialLinksOf(w.social_links);
    return {
      title: w.title,
      tagline: w.tagline ?? '',
      colorScheme: w.color_scheme,
      accentColor: w.accent_color ?? '',
      theme: w.theme,
      credit: w.credit ?? '',
      copyright: w.copyright ?? '',
      contactEmail: w.contact_email ?? '',
      socialLinks: links.join('\n'),
      logo: d.logoUuid ?? '',
      favicon: d.faviconUuid ?? '',
    };
  }

  return async (f: FastifyInstance) => {
    // The one error handler of the studio: every refusal and failure is a studio page, never the API's XML.
    f.setErrorHandler((err, req, reply) => {
      closeAfterReply(req, reply);
      const viewer = signedIn.get(req)?.viewer;
      if (err instanceof ApiError) {
        if (err.extra.retryAfter) reply.header('retry-after', String(err.extra.retryAfter));
        if (err.status === 401 && req.method === 'GET') return redirect(reply, '/studio/signin');
        const title = err.status === 404 ? 'Not found' : err.status === 429 ? 'Too many requests' : 'Request refused';
        return send(reply, err.status, pages.messagePage({ title, text: err.message, viewer }));
      }
      const status = (err as { statusCode?: number }).statusCode ?? 500;
      if (status >= 400 && status < 500) {
        const text = status === 413 ? 'The form is too large.' : 'The request could not be understood.';
        return send(reply, status, pages.messagePage({ title: 'Request refused', text, viewer }));
      }
      req.log.error({ reqId: req.id, method: req.method, route: req.routeOptions.url, err }, 'studio page failed');
      return send(reply, 500, pages.messagePage({ title: 'Something went wrong', text: `Please try again later (request ${req.id}).`, viewer }));
    });
    // Any other address under /studio/ is the studio's 404 page (the root's not-found handler is the API's).
    f.all('/studio/*', async (req, reply) => send(reply, 404, pages.messagePage({ title: 'Not found', text: 'There is no such page in the studio.', viewer: signedIn.get(req)?.viewer })));

    // Who is signed in, then the API's request budget for them (or for the address).
    f.addHook('preHandler', async (req, reply) => {
      if (req.routeOptions.url?.startsWith('/studio/_assets/')) return;
      const s = await sessionOf(req);
      if (deps.rateLimit) {
        const decision = await deps.rateLimit.consume(s ? `studio:user:${s.user.id}` : `studio:addr:${req.ip}`);
        for (const [k, v] of Object.entries(decision.headers)) reply.header(k, v);
        if (decision.error) throw decision.error;
      }
    });

    f.get('/studio/_assets/:name', (req, reply) => {
      const asset = STUDIO_ASSETS.get((req.params as { name: string }).name);
      if (!asset) return reply.code(404).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send('not found\n');
      return reply.header('content-type', asset.type).header('cache-control', 'public, max-age=31536000, immutable').header('x-content-type-options', 'nosniff').header('etag', `"${asset.name}"`).send(asset.body);
    });

    // The smallest rendition of one of the user's medias, through the API's access check (404 otherwise).
    f.get('/studio/thumbs/:uuid', async (req, reply) => {
      const s = need(req);
      const uuid = (req.params as { uuid: string }).uuid;
      if (!/^[0-9a-f-]{36}$/i.test(uuid)) throw new ApiError('not_found', 'There is no such image.');
      const found = await deps.media.get(s.user, uuid.toLowerCase(), true);
      const smallest = found.renditions.slice().sort((a, b) => a.width - b.width)[0];
      const body = smallest && /^image\/(jpeg|png|webp|avif)$/.test(smallest.type) ? await deps.storage.read(smallest.key) : undefined;
      if (!body) throw new ApiError('not_found', 'This image has no preview yet.');
      return reply.header('content-type', smallest.type).header('cache-control', 'private, max-age=300').header('x-content-type-options', 'nosniff').send(body);
    });

    f.get('/studio', (_req, reply) => redirect(reply, '/studio/'));
    f.get('/studio/', (req, reply) => redirect(reply, signedIn.get(req) ? '/studio/websites' : '/studio/signin'));

    // ---- sign-in: e-mail and password, then the code of a two-factor user
    // The token of the sign-in forms is kept while its cookie lives, so that two tabs' forms both work.
    const signInForm = (req: FastifyRequest, reply: FastifyReply, status: number, extra: { email?: string; error?: string } = {}) => {
      const token = cookies.read(req, cookies.signinToken) ?? tokens.fresh();
      reply.header('set-cookie', cookies.set(cookies.signinToken, token, 3600));
      return send(reply, status, pages.signInPage({ token, ...extra }));
    };
    const codeForm = (req: FastifyRequest, reply: FastifyReply, status: number, error?: string) => {
      const token = cookies.read(req, cookies.signinToken) ?? tokens.fresh();
      reply.header('set-cookie', cookies.set(cookies.signinToken, token, 3600));
      return send(reply, status, pages.codePage({ token, error }));
    };
    const startSession = async (reply: FastifyReply, user: UserRow) => {
      const token = await deps.sessions.create(user.id);
      return reply
        .code(303)
        .header('set-cookie', [cookies.sessionCookie(token), cookies.cleared(cookies.pending), cookies.cleared(cookies.signinToken)])
        .header('location', '/studio/websites')
        .header('cache-control', 'no-store')
        .send();
    };
    /** A refusal of the login shown on its form; the throttle's 429 stays a 429 (with Retry-After). */
    const loginRefusal = (err: unknown): string | undefined => (err instanceof ApiError && (err.code === 'invalid_credentials' || err.code === 'invalid_parameter') ? err.message : undefined);

    f.get('/studio/signin', (req, reply) => (signedIn.get(req) ? redirect(reply, '/studio/websites') : signInForm(req, reply, 200)));
    f.post('/studio/signin', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
      const form = formOf(req);
      checkPost(req, form, cookies.read(req, cookies.signinToken));
      const email = (form.str('email') ?? '').trim().slice(0, 254);
      const password = form.str('password') ?? '';
      try {
        const { user, otp } = await deps.authenticator.checkPassword(email, password, req.ip);
        if (!otp) return await startSession(reply, user);
        const token = cookies.read(req, cookies.signinToken) ?? tokens.fresh();
        reply.header('set-cookie', [cookies.set(cookies.pending, tokens.pending(user.id, user.password_hash), 300), cookies.set(cookies.signinToken, token, 3600)]);
        return send(reply, 200, pages.codePage({ token }));
      } catch (err) {
        const message = loginRefusal(err);
        if (message === undefined) throw err;
        return signInForm(req, reply, 401, { email, error: 'The e-mail address or the password is not right.' });
      }
    });

    const pendingUser = async (req: FastifyRequest): Promise<UserRow | undefined> => {
      const value = cookies.read(req, cookies.pending);
      const id = tokens.pendingUser(value);
      const user = id === undefined ? undefined : await deps.users.byId(id);
      return user && user.otp_secret && tokens.pendingValid(value!, user.id, user.password_hash) ? user : undefined;
    };
    f.get('/studio/signin/code', async (req, reply) => ((await pendingUser(req)) ? codeForm(req, reply, 200) : redirect(reply, '/studio/signin')));
    f.post('/studio/signin/code', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
      const form = formOf(req);
      checkPost(req, form, cookies.read(req, cookies.signinToken));
      const user = await pendingUser(req);
      if (!user) return signInForm(req, reply, 401, { error: 'The sign-in took too long: start again.' });
      try {
        return await startSession(reply, await deps.authenticator.checkCode(user, form.str('code') ?? '', req.ip));
      } catch (err) {
        if (loginRefusal(err) === undefined) throw err;
        return codeForm(req, reply, 401, 'The code is not right: type the code your app shows now.');
      }
    });

    f.post('/studio/signout', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
      const { s } = signedPost(req);
      await deps.sessions.destroy(s.token);
      return reply.code(303).header('set-cookie', cookies.cleared(cookies.session)).header('location', '/studio/signin').send();
    });
    f.post('/studio/signout-everywhere', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
      const { s } = signedPost(req);
      await deps.sessions.destroyAllOf(s.user.id);
      return reply.code(303).header('set-cookie', cookies.cleared(cookies.session)).header('location', '/studio/signin').send();
    });

    // ---- account: password, two-factor
    f.get('/studio/account', async (req, reply) => {
      const s = need(req);
      const notice = { password: 'Your password was changed; your other sessions have ended.', 'otp-on': 'Two-factor sign-in is on.', 'otp-off': 'Two-factor sign-in is off.' }[(req.query as { done?: string }).done ?? ''];
      return send(reply, 200, pages.accountPage({ viewer: s.viewer, otp: !!(await fresh(s)).otp_secret, notice }));
    });
    f.post('/studio/account/password', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
      const { s, form } = signedPost(req);
      try {
        await deps.users.changePassword(await fresh(s), form.str('current') ?? '', form.str('next') ?? '');
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 422) throw err;
        const field = err.message.includes('current') ? 'current' : 'next';
        return send(reply, 422, pages.accountPage({ viewer: s.viewer, otp: !!(await fresh(s)).otp_secret, error: { field, message: err.message } }));
      }
      await deps.sessions.destroyAllOf(s.user.id, s.token);
      return redirect(reply, '/studio/account?done=password');
    });
    f.get('/studio/account/two-factor', async (req, reply) => {
      const s = need(req);
      if ((await fresh(s)).otp_secret) return redirect(reply, '/studio/account');
      const secret = randomTotpSecret();
      return send(reply, 200, await enrolPage(s, secret));
    });
    const enrolPage = async (s: Signed, secret: string, error?: string) => {
      const uri = `otpauth://totp/${encodeURIComponent(`Studio:${s.user.email}`)}?secret=${secret}&issuer=Studio&algorithm=SHA1&digits=6&period=30`;
      const qrSvg = await QRCode.toString(uri, { type: 'svg', margin: 1 });
      return pages.enrolPage({ viewer: s.viewer, secret, qrSvg, error });
    };
    f.post('/studio/account/two-factor', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
      const { s, form } = signedPost(req);
      const secret = (form.str('secret') ?? '').slice(0, 128);
      try {
        await deps.users.enableOtp(s.user, secret, form.str('code') ?? '');
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 422) throw err;
        if (!/^[A-Z2-7]{16,128}$/.test(secret)) throw err;
        return send(reply, 422, await enrolPage(s, secret, err.message));
      }
      return redirect(reply, '/studio/account?done=otp-on');
    });
    f.post('/studio/account/two-factor/off', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
      const { s, form } = signedPost(req);
      try {
        await deps.users.disableOtp(await fresh(s), form.str('password') ?? '');
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 422) throw err;
        return send(reply, 422, pages.accountPage({ viewer: s.viewer, otp: true, error: { field: 'otp_password', message: err.message } }));
      }
      return redirect(reply, '/studio/account?done=otp-off');
    });

    // ---- websites: the list, the settings (brand), the pages
    f.get('/studio/websites', async (req, reply) => {
      const s = need(req);
      const found = await deps.websites.list(s.user, { limit: WEBSITES_SHOWN, offset: 0 });
      const websites = found.websites.map((w) => ({ urlname: w.urlname, title: w.title, home: homeUrl(deps.config.publicUrl, w) }));
      return send(reply, 200, pages.websitesPage({ viewer: s.viewer, websites, total: found.total }));
    });
    const urlnameOf = (req: FastifyRequest) => (req.params as { urlname: string }).urlname;
    f.get('/studio/websites/:urlname', async (req, reply) => {
      const s = need(req);
      const d = await websiteDetails(s, urlnameOf(req));
      const notice = (req.query as { done?: string }).done === 'saved' ? 'Saved. The website shows the change within seconds.' : undefined;
      return send(reply, 200, pages.settingsPage({ viewer: s.viewer, urlname: d.website.urlname, home: homeUrl(deps.config.publicUrl, d.website), values: settingsValues(d), images: await pickable(s), notice }));
    });
    f.post('/studio/websites/:urlname', { bodyLimit: SMALL_FORM_BYTES * 4 }, async (req, reply) => {
      const s = need(req);
      const d = await websiteDetails(s, urlnameOf(req));
      const form = formOf(req);
      checkPost(req, form, s.viewer.csrf);
      // The form's fields become the API's parameters, read by the API's own reader (its whitelist and its 422s).
      const p = new Params();
      for (const name of ['title', 'tagline', 'color_scheme', 'accent_color', 'theme', 'credit', 'copyright', 'contact_email', 'logo', 'favicon']) {
        const v = form.str(name);
        if (v !== undefined) p.add(`website[${name}]`, v);
      }
      const links = form.str('social_links');
      if (links !== undefined) {
        p.add('website[social_links]', '');
        for (const l of links.split(/\r?\n/).map((x) => x.trim()).filter(Boolean).slice(0, 50)) p.add('website[social_links]', l);
      }
      try {
        await deps.websites.setBrand({ user: s.user }, d.website.urlname, brandInput.read(p, undefined));
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 422) throw err;
        const values: pages.SettingsValues = {
          title: form.str('title') ?? '',
          tagline: form.str('tagline') ?? '',
          colorScheme: form.str('color_scheme') ?? 'light',
          accentColor: form.str('accent_color') ?? '',
          theme: form.str('theme') ?? 'modern',
          credit: form.str('credit') ?? '',
          copyright: form.str('copyright') ?? '',
          contactEmail: form.str('contact_email') ?? '',
          socialLinks: links ?? '',
          logo: form.str('logo') ?? '',
          favicon: form.str('favicon') ?? '',
        };
        const error = { field: fieldOf(err.message, 'website'), message: err.message.replace(/website\[(\w+)\]/g, (_m, n: string) => n.replace('_', ' ')) };
        return send(reply, 422, pages.settingsPage({ viewer: s.viewer, urlname: d.website.urlname, home: homeUrl(deps.config.publicUrl, d.website), values, images: await pickable(s), error }));
      }
      return redirect(reply, `/studio/websites/${d.website.urlname}?done=saved`);
    });

    f.get('/studio/websites/:urlname/pages', async (req, reply) => {
      const s = need(req);
      const d = await websiteDetails(s, urlnameOf(req));
      const done = (req.query as { done?: string }).done;
      const notice = done === 'saved' ? 'The page was saved.' : done === 'deleted' ? 'The page was deleted.' : undefined;
      const list = d.pages.map((pg) => ({ slug: pg.slug, title: pg.title, position: pg.position }));
      return send(reply, 200, pages.pagesPage({ viewer: s.viewer, urlname: d.website.urlname, siteTitle: d.website.title || d.website.urlname, pages: list, notice }));
    });
    f.get('/studio/websites/:urlname/new-page', async (req, reply) => {
      const s = need(req);
      const d = await websiteDetails(s, urlnameOf(req));
      return send(reply, 200, pages.pageEditPage({ viewer: s.viewer, urlname: d.website.urlname, isNew: true, slug: '', title: '', body: '', position: 0 }));
    });
    f.get('/studio/websites/:urlname/pages/:slug', async (req, reply) => {
      const s = need(req);
      const { page, website } = await deps.websites.page({ user: s.user }, (await websiteDetails(s, urlnameOf(req))).website.urlname, (req.params as { slug: string }).slug);
      return send(reply, 200, pages.pageEditPage({ viewer: s.viewer, urlname: website.urlname, isNew: false, slug: page.slug, title: page.title, body: page.body, position: page.position }));
    });
    const savePage = async (req: FastifyRequest, reply: FastifyReply, isNew: boolean) => {
      const s = need(req);
      const d = await websiteDetails(s, urlnameOf(req));
      const form = formOf(req);
      checkPost(req, form, s.viewer.csrf);
      const slug = isNew ? (form.str('slug') ?? '').trim().toLowerCase() : (req.params as { slug: string }).slug;
      if (!isNew) await deps.websites.page({ user: s.user }, d.website.urlname, slug);
      const p = new Params();
      p.add('page[title]', form.str('title') ?? '');
      p.add('page[body]', form.str('body') ?? '');
      const position = (form.str('position') ?? '').trim();
      if (position !== '') p.add('page[position]', position);
      try {
        if (isNew && (await deps.websites.page({ user: s.user }, d.website.urlname, slug).then(() => true, () => false))) {
          throw new ApiError('invalid_parameter', 'page[slug]: a page has this address already');
        }
        await deps.websites.putPage({ user: s.user }, d.website.urlname, slug, pageInput.read(p, undefined));
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 422) throw err;
        const field = /page name|address/.test(err.message) ? 'slug' : fieldOf(err.message, 'page');
        const error = { field: isNew || field !== 'slug' ? field : '', message: err.message.replace(/page\[(\w+)\]/g, '$1') };
        return send(reply, 422, pages.pageEditPage({ viewer: s.viewer, urlname: d.website.urlname, isNew, slug, title: form.str('title') ?? '', body: form.str('body') ?? '', position: Number(position) || 0, error }));
      }
      return redirect(reply, `/studio/websites/${d.website.urlname}/pages?done=saved`);
    };
    f.post('/studio/websites/:urlname/new-page', { bodyLimit: FORM_LIMIT_BYTES }, (req, reply) => savePage(req, reply, true));
    f.post('/studio/websites/:urlname/pages/:slug', { bodyLimit: FORM_LIMIT_BYTES }, (req, reply) => savePage(req, reply, false));
    f.post('/studio/websites/:urlname/pages/:slug/delete', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
      const s = need(req);
      const d = await websiteDetails(s, urlnameOf(req));
      const form = formOf(req);
      checkPost(req, form, s.viewer.csrf);
      await deps.websites.deletePage({ user: s.user }, d.website.urlname, (req.params as { slug: string }).slug);
      return redirect(reply, `/studio/websites/${d.website.urlname}/pages?done=deleted`);
    });
  };
}

// The visitor website's addresses, on the API's Fastify instance but outside
// its signed router: no signature, no key, its own rate limit, HTML replies
// (errors too) with a strict Content-Security-Policy.
//   /sites/<urlname>/…          a website by its urlname
//   /…  (Host = its hostname)   a website at its own hostname
//   /_site/<hash>.css|.js       the stylesheet and the script, immutable
// Under a website's home: `/` (root gallery), `-/<full-url-path>` (gallery,
// `?page=N`), `…/_/<media-uuid>` (media), robots.txt, sitemap.xml, and
// POST `_password`. See docs/website.md.
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h, type VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Logger } from 'pino';
import type { VisitorBudget } from './budget.js';
import { closeAfterReply } from '../http/linger.js';
import { PASS_COOKIE, PASS_LIFETIME_SECONDS, type PassCodec, type VisitorPass } from './pass.js';
import { backUnder, fromOwnOrigin } from './address.js';
import type { PasswordThrottle } from './throttle.js';
import { ASSETS } from './assets.js';
import { GalleryPage } from './pages/gallery.js';
import { render, type Frame } from './pages/layout.js';
import { MediaPage } from './pages/media.js';
import { MessagePage, PasswordPage, SigninPage } from './pages/messages.js';
import { galleryHref, type Refusal, type SiteAddress, type SiteService } from './service.js';

const FORM_BYTES = 4096;
const PAGE = /^[1-9][0-9]{0,5}$/;
const URLNAME = /^[A-Za-z0-9_-]{1,100}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FULL_PATH = /^[a-z0-9-]+(\/[a-z0-9-]+)*$/;
/** No gallery has a longer full url path or lies deeper (docs/galleries.md): refused before any query. */
const MAX_FULL_PATH_CHARS = 1000;
const MAX_DEPTH = 32;

function isGalleryPath(path: string): boolean {
  return path.length <= MAX_FULL_PATH_CHARS && FULL_PATH.test(path) && path.split('/').length <= MAX_DEPTH;
}
/** Pages kept by the micro-cache; the oldest go first. */
const CACHE_ENTRIES = 1000;

interface CachedPage {
  expires: number;
  html: string;
  indexable: boolean;
}

/**
 * A short-lived memory of the pages anonymous visitors get (the same for all
 * of them): a popular gallery costs its queries and its rendering once per
 * period, not once per visitor. Visitors with a pass are never served from it.
 */
class PageCache {
  private readonly pages = new Map<string, CachedPage>();
  constructor(private readonly ttlMs: number) {}

  get(key: string, now = Date.now()): CachedPage | undefined {
    const hit = this.pages.get(key);
    if (hit && hit.expires > now) return hit;
    if (hit) this.pages.delete(key);
    return undefined;
  }

  set(key: string, html: string, indexable: boolean, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    this.pages.delete(key);
    this.pages.set(key, { expires: now + this.ttlMs, html, indexable });
    if (this.pages.size > CACHE_ENTRIES) this.pages.delete(this.pages.keys().next().value!);
  }
}

export interface SiteRouteDeps {
  site: SiteService;
  passes: PassCodec;
  /** Wrong gallery passwords per address (src/site/throttle.ts), shared through Redis when set. */
  passwordThrottle: PasswordThrottle;
  /** Visitor requests per address (VISITOR_RATE_LIMIT), shared with the sign-in pages. */
  visitorBudget: VisitorBudget;
  /** How long a page for a visitor without a pass is served from memory; 0: never. */
  cacheSeconds: number;
  publicUrl: string;
  storageUrl?: string;
  log: Logger;
}

/** What a site request is about, once its website is known. */
interface Visit {
  at: SiteAddress;
  /** The path below the home, without its leading slash. */
  rest: string;
  query: URLSearchParams;
  pass: VisitorPass | undefined;
  /** Names the page in the micro-cache: what names the page, nothing a visitor may vary freely. */
  cacheKey: string;
}

/** A gallery or media page named by a path below the home, its shape checked (no query yet). */
type PageAddress = { kind: 'gallery'; path: string } | { kind: 'media'; path: string; uuid: string };

function pageAddressOf(rest: string): PageAddress | undefined {
  if (rest === '') return { kind: 'gallery', path: '' };
  if (rest.startsWith('_/')) return UUID.test(rest.slice(2)) ? { kind: 'media', path: '', uuid: rest.slice(2).toLowerCase() } : undefined;
  if (!rest.startsWith('-/')) return undefined;
  const inner = rest.slice(2);
  const cut = inner.indexOf('/_/');
  const path = cut < 0 ? inner : inner.slice(0, cut);
  if (!isGalleryPath(path)) return undefined;
  if (cut < 0) return { kind: 'gallery', path };
  const uuid = inner.slice(cut + 3);
  return UUID.test(uuid) ? { kind: 'media', path, uuid: uuid.toLowerCase() } : undefined;
}

export function siteRoutes(fastify: FastifyInstance, deps: SiteRouteDeps): void {
  const { site, passes, log } = deps;
  const csp = contentSecurityPolicy(deps.storageUrl);
  const secure = deps.publicUrl.startsWith('https:');
  const cache = new PageCache(deps.cacheSeconds * 1000);

  const frameOf = (at: SiteAddress | undefined): Omit<Frame, 'title' | 'indexable' | 'crumbs' | 'script'> =>
    at ? { siteTitle: at.website.title || at.website.urlname, homeHref: galleryHref(at.homePath, ''), canonical: undefined } : { siteTitle: 'Not found', homeHref: '/' };

  const sendHtml = (reply: FastifyReply, status: number, html: string, indexable: boolean) => {
    reply
      .code(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'private, no-cache')
      .header('vary', 'Cookie');
    if (!indexable) reply.header('x-robots-tag', 'noindex');
    return reply.send(html);
  };
  const sendText = (reply: FastifyReply, type: string, body: string) =>
    reply.code(200).header('content-type', type).header('x-content-type-options', 'nosniff').header('cache-control', 'public, max-age=300').send(body);

  const notFound = (reply: FastifyReply, at?: SiteAddress) =>
    sendHtml(reply, 404, render(MessagePage({ frame: frameOf(at), title: 'Not found', text: 'There is nothing at this address.' })), false);
  const tooMany = (reply: FastifyReply, at: SiteAddress | undefined, retryAfter: number) => {
    reply.header('retry-after', String(retryAfter));
    return sendHtml(reply, 429, render(MessagePage({ frame: frameOf(at), title: 'Too many requests', text: `Please wait ${retryAfter} seconds and try again.` })), false);
  };

  /** The visitor budget of an address: undefined when within it, else the seconds to wait. */
  const overBudget = (req: FastifyRequest): Promise<number | undefined> => deps.visitorBudget.take(req.ip);

  const refusal = (reply: FastifyReply, v: Visit, r: Refusal, back: string) => {
    const frame = frameOf(v.at);
    if (r.kind === 'not-found') return notFound(reply, v.at);
    if (r.kind === 'password') {
      const page = PasswordPage({ frame, action: `${v.at.homePath}/_password`, gallery: r.gallery, galleryName: r.galleryName, back, wrong: false, crumbs: r.crumbs });
      return sendHtml(reply, 403, render(page), false);
    }
    const signinHref = `${v.at.homePath}/_signin?back=${encodeURIComponent(back)}`;
    return sendHtml(reply, 403, render(SigninPage({ frame, signinHref, crumbs: r.crumbs })), false);
  };

  const galleryPage = async (reply: FastifyReply, v: Visit, fullUrlPath: string, page: number, here: string) => {
    const view = await site.gallery(v.at, fullUrlPath, page, v.pass);
    if (view.kind !== 'gallery') return refusal(reply, v, view, here);
    const html = render(GalleryPage({ view, frame: { ...frameOf(v.at), canonical: site.homeUrl(v.at.website) + galleryHref('', fullUrlPath) + (page > 1 ? `?page=${page}` : '') } }));
    if (!v.pass) cache.set(v.cacheKey, html, view.indexable);
    return sendHtml(reply, 200, html, view.indexable);
  };

  const mediaPage = async (reply: FastifyReply, v: Visit, fullUrlPath: string, uuid: string, here: string) => {
    const view = await site.media(v.at, fullUrlPath, uuid, v.pass);
    if (view.kind !== 'media') return refusal(reply, v, view, here);
    const html = render(MediaPage({ view, frame: frameOf(v.at) }));
    if (!v.pass) cache.set(v.cacheKey, html, view.indexable);
    return sendHtml(reply, 200, html, view.indexable);
  };

  const robots = async (reply: FastifyReply, v: Visit) => {
    const entries = await site.sitemap(v.at.website);
    const home = `${v.at.homePath}/`;
    const lines = ['User-agent: *'];
    // Nothing to index: keep crawlers out altogether.
    if (entries.length === 0) lines.push(`Disallow: ${home}`);
    else lines.push(`Disallow: ${home}_password`, `Disallow: ${home}_signin`, `Sitemap: ${site.homeUrl(v.at.website)}/sitemap.xml`);
    return sendText(reply, 'text/plain; charset=utf-8', lines.join('\n') + '\n');
  };

  const sitemap = async (reply: FastifyReply, v: Visit) => {
    const entries = await site.sitemap(v.at.website);
    // Written by the same escaping renderer as the pages.
    const doc: VNode = h(
      'urlset',
      { xmlns: 'http://www.sitemaps.org/schemas/sitemap/0.9' },
      entries.map((e) => h('url', null, h('loc', null, e.loc), h('lastmod', null, e.lastmod.slice(0, 10)))),
    );
    return sendText(reply, 'application/xml; charset=utf-8', '<?xml version="1.0" encoding="UTF-8"?>\n' + renderToString(doc));
  };

  const password = async (req: FastifyRequest, reply: FastifyReply, v: Visit) => {
    if (!Buffer.isBuffer(req.body)) return sendHtml(reply, 400, render(MessagePage({ frame: frameOf(v.at), title: 'Bad request', text: 'The form could not be read.' })), false);
    // A cross-site page must not post this form in a visitor's name (it would choose where the visitor lands).
    const ours = [new URL(site.homeUrl(v.at.website)).origin, new URL(deps.publicUrl).origin, `${req.protocol}://${req.host}`];
    if (!fromOwnOrigin(req.headers.origin, ours)) {
      return sendHtml(reply, 403, render(MessagePage({ frame: frameOf(v.at), title: 'Request refused', text: 'This form can only be sent from the website itself.' })), false);
    }
    const form = new URLSearchParams(req.body.toString('utf8'));
    const gallery = form.get('gallery') ?? '';
    const given = form.get('password') ?? '';
    // Anything but a path of this website (checked as the sign-in form checks it) goes back home.
    const back = backUnder(v.at.homePath, form.get('back') ?? undefined) ?? `${v.at.homePath}/`;
    const galleryKey = gallery.toLowerCase().slice(0, 36);
    // Counted before the hash is computed, so simultaneous guesses cannot all be checked.
    const taken = await deps.passwordThrottle.take(v.at.website.uuid, galleryKey, req.ip);
    if (!taken.ok) return tooMany(reply, v.at, taken.retryAfterSeconds);
    const checked = given.length > 0 && given.length <= 200 ? await site.checkPassword(v.at.website, gallery, given) : { result: 'wrong' as const, uuid: undefined };
    if (checked.result === 'ok') {
      await deps.passwordThrottle.succeeded(v.at.website.uuid, galleryKey, req.ip);
      const pass = passes.withGallery(v.pass ?? passes.fresh(v.at.website.uuid), checked.uuid!, checked.passwordHash!);
      reply.header(
        'set-cookie',
        stringifySetCookie({ name: PASS_COOKIE, value: passes.encode(pass), path: v.at.homePath || '/', maxAge: PASS_LIFETIME_SECONDS, httpOnly: true, sameSite: 'lax', secure }),
      );
      return reply.code(303).header('location', back).header('cache-control', 'no-store').send();
    }
    if (checked.result === 'unknown') return notFound(reply, v.at);
    const view = await site.gallery(v.at, backGalleryPath(back, v.at.homePath), 1, v.pass);
    const name = view.kind === 'password' ? view.galleryName : 'Protected gallery';
    const crumbs = view.kind === 'password' ? view.crumbs : [];
    const page = PasswordPage({ frame: frameOf(v.at), action: `${v.at.homePath}/_password`, gallery: checked.uuid ?? gallery, galleryName: name, back, wrong: true, crumbs });
    return sendHtml(reply, 403, render(page), false);
  };

  /** One request below a website's home. */
  const visit = async (req: FastifyRequest, reply: FastifyReply, at: SiteAddress, rest: string, query: URLSearchParams): Promise<unknown> => {
    const wait = await overBudget(req);
    if (wait !== undefined) return tooMany(reply, at, wait);
    const pass = passes.decode(parseCookie(req.headers.cookie ?? '')[PASS_COOKIE], at.website.uuid);
    const v: Visit = { at, rest, query, pass, cacheKey: '' };
    if (req.method === 'POST') {
      // A body we do not read (not a form) must not stay on the connection.
      closeAfterReply(req, reply);
      return rest === '_password' ? password(req, reply, v) : notFound(reply, at);
    }
    if (rest === 'robots.txt') return robots(reply, v);
    if (rest === 'sitemap.xml') return sitemap(reply, v);
    const target = pageAddressOf(rest);
    if (!target) return notFound(reply, at);
    let page = 1;
    if (target.kind === 'gallery') {
      const p = query.get('page');
      if (p !== null && !PAGE.test(p)) return notFound(reply, at);
      page = p === null ? 1 : Number(p);
    }
    // The page's one address: `?page=N` (N > 1) on a gallery, no query on a media. Anything else a
    // visitor adds (tracking parameters, cache busters) is sent there before any query or
    // rendering, so it can neither cost a render nor push popular pages out of the cache.
    const canonicalQuery = page > 1 ? `page=${page}` : '';
    const here = `${at.homePath}/${rest}${canonicalQuery ? `?${canonicalQuery}` : ''}`;
    const names = [...query.keys()];
    if (canonicalQuery ? names.length !== 1 : names.length !== 0) return reply.code(301).header('location', here).send();
    v.cacheKey = `${at.website.id}\n${at.homePath}\n${target.kind}\n${target.path}\n${target.kind === 'gallery' ? page : target.uuid}`;
    if (!pass) {
      const hit = cache.get(v.cacheKey);
      if (hit) return sendHtml(reply, 200, hit.html, hit.indexable);
    }
    return target.kind === 'gallery' ? galleryPage(reply, v, target.path, page, here) : mediaPage(reply, v, target.path, target.uuid, here);
  };

  const guarded = (fn: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>) => async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      return await fn(req, reply);
    } catch (err) {
      log.error({ reqId: req.id, path: (req.raw.url ?? '').split('?')[0], err }, 'site page failed');
      if (reply.sent) return;
      return sendHtml(reply, 500, render(MessagePage({ frame: frameOf(undefined), title: 'Something went wrong', text: `Please try again later (request ${req.id}).` })), false);
    }
  };

  const split = (req: FastifyRequest): { path: string; query: URLSearchParams } => {
    const url = req.raw.url ?? '/';
    const q = url.indexOf('?');
    return { path: q < 0 ? url : url.slice(0, q), query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)) };
  };

  // A website by its urlname.
  const byUrlname = guarded(async (req, reply) => {
    const { urlname } = req.params as { urlname: string };
    const { path, query } = split(req);
    const website = URLNAME.test(urlname) ? await site.website({ urlname }) : undefined;
    if (!website) {
      const wait = await overBudget(req);
      return wait !== undefined ? tooMany(reply, undefined, wait) : notFound(reply);
    }
    const homePath = `/sites/${website.urlname}`;
    if (path === homePath) {
      // Straight to the root gallery's own address: only a valid page number is kept.
      const p = query.get('page');
      return reply.code(301).header('location', `${homePath}/${p !== null && PAGE.test(p) && p !== '1' ? `?page=${p}` : ''}`).send();
    }
    return visit(req, reply, { website, homePath }, path.slice(homePath.length + 1), query);
  });
  for (const url of ['/sites/:urlname', '/sites/:urlname/*']) {
    fastify.route({ method: ['GET', 'POST'], url, bodyLimit: FORM_BYTES, handler: byUrlname });
  }

  // A website at its own hostname: the site's own paths (a catch-all would take over the
  // API's refusals of malformed paths). Other hosts get the API's 404.
  const byHost = guarded(async (req, reply) => {
    const host = hostOf(req.headers.host);
    const website = host ? await site.website({ host }) : undefined;
    if (!website) return reply.callNotFound();
    const { path, query } = split(req);
    return visit(req, reply, { website, homePath: '' }, path.slice(1), query);
  });
  for (const url of ['/', '/-/*', '/_/*', '/robots.txt', '/sitemap.xml']) fastify.route({ method: 'GET', url, handler: byHost });
  fastify.route({ method: 'POST', url: '/_password', bodyLimit: FORM_BYTES, handler: byHost });

  fastify.get('/_site/:name', (req, reply) => {
    const asset = ASSETS.get((req.params as { name: string }).name);
    if (!asset) return reply.code(404).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send('not found\n');
    return reply
      .header('content-type', asset.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('etag', `"${asset.name}"`)
      .send(asset.body);
  });
}

/** A Host header lower-cased, when it is a host name with an optional port. */
function hostOf(header: string | undefined): string | undefined {
  if (!header || header.length > 255) return undefined;
  return /^[a-z0-9.-]+(?::\d{1,5})?$/i.test(header) ? header.toLowerCase() : undefined;
}

/** The gallery of a page address under the home (for the form shown again after a wrong password). */
function backGalleryPath(back: string, homePath: string): string {
  const rest = back.slice(homePath.length + 1).split('?')[0];
  if (!rest.startsWith('-/')) return '';
  const inner = rest.slice(2);
  const cut = inner.indexOf('/_/');
  const path = cut < 0 ? inner : inner.slice(0, cut);
  return isGalleryPath(path) ? path : '';
}

/** The pages' policy: nothing inline, images from here (and from the object store when files are there). */
function contentSecurityPolicy(storageUrl: string | undefined): string {
  const img = ["'self'"];
  if (storageUrl?.startsWith('s3:')) {
    try {
      const endpoint = new URL(storageUrl).searchParams.get('endpoint');
      img.push(endpoint ? new URL(endpoint).origin : 'https://*.amazonaws.com');
    } catch {
      /* a bad STORAGE_URL stops the service elsewhere */
    }
  }
  return `default-src 'none'; img-src ${img.join(' ')}; style-src 'self'; script-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

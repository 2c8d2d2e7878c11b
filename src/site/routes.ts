// The website's pages, inside its plugin (plugin.ts: headers, error page,
// addresses, budget). Under a website's home: `/` (root gallery),
// `-/<full-url-path>` (gallery, `?page=N`), `…/_/<media-uuid>` (media),
// robots.txt, sitemap.xml, and POST `_password`. See docs/website.md.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h, type VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { ApiError } from '../core/errors.js';
import { MemoryCache } from '../ops/cache.js';
import { closeAfterReply } from '../http/linger.js';
import { SLUG } from '../websites/brand.js';
import { backGalleryPath, backUnder, cookiePath, pageAddressOf, pathAndQuery, type SiteAddress } from './address.js';
import { GalleryPage } from './pages/gallery.js';
import type { FavouritesBar } from './pages/favourites.js';
import type { SelectionGallery } from '../lightboxes/service.js';
import { render, type Frame } from './pages/layout.js';
import { ContentPage } from './pages/content.js';
import { MediaPage } from './pages/media.js';
import { PasswordPage, SigninPage } from './pages/messages.js';
import type { VisitorPass } from './signin/pass.js';
import { passCookie, readPass } from './signin/pass-cookie.js';
import type { WebsiteDeps, WebsiteKit } from './plugin-deps.js';
import { archiveHref, galleryHref, type Refusal, type Sitemap } from './service.js';
import { clientOf, FAVOURITES, FAVOURITES_ARCHIVE, favouritePages } from './delivery/favourites-routes.js';

const FORM_BYTES = 4096;
/** A favourites form: a note of 500 characters, each up to 12 bytes percent-encoded, and the rest. */
const FAVOURITES_FORM_BYTES = 16 * 1024;
const PAGE = /^[1-9][0-9]{0,5}$/;
/**
 * The micro-cache: a short-lived memory of the pages anonymous visitors get
 * (the same for all of them), so a popular gallery costs its queries and its
 * rendering once per period, not once per visitor. Visitors with a pass are
 * never served from it. At most this many pages, and this many characters of
 * HTML in all (a gallery page of many media is large); the least recently used go first.
 */
const CACHE_ENTRIES = 1000;
const CACHE_BYTES = 32 * 1024 * 1024;

interface CachedPage {
  /** The page's bytes, encoded once: a string would be measured and encoded again for each visitor. */
  body: Buffer;
  indexable: boolean;
  /** A gallery page's gallery: a view served from the cache is recorded too. */
  galleryId?: number;
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
  /** A HEAD request: nothing is shown, so no view is recorded. */
  head: boolean;
}


export function pageRoutes(fastify: FastifyInstance, kit: WebsiteKit, deps: WebsiteDeps): void {
  const { site, passes } = deps;
  const favourites = favouritePages(kit, deps);
  const cache = new MemoryCache<string, CachedPage>({
    entries: CACHE_ENTRIES,
    ttlMs: deps.cacheSeconds * 1000,
    size: { max: CACHE_BYTES, of: (page) => page.body.length },
  });
  const secure = () => deps.config.publicUrl.startsWith('https:');

  const frameOf = (at: SiteAddress): Omit<Frame, 'title' | 'indexable' | 'crumbs' | 'script'> => ({ ...kit.frameOf(at), canonical: undefined });
  const sendText = (reply: FastifyReply, type: string, body: string) =>
    reply.code(200).header('content-type', type).header('x-content-type-options', 'nosniff').header('cache-control', 'public, max-age=300').send(body);
  const notFound = () => new ApiError('not_found', 'There is nothing at this address.');

  /**
   * The hearts of a gallery or media page: the visitor's picks there when they have said who they
   * are (a pass: the page is then theirs alone, never in the micro-cache), else none.
   */
  const favouritesOf = async (v: Visit, galleryUuid: string, selection: SelectionGallery, here: string): Promise<FavouritesBar> => {
    const client = clientOf(v.pass);
    const view = client ? await deps.lightboxes.view(selection, client) : undefined;
    return {
      action: `${v.at.homePath}/${FAVOURITES}/pick`,
      gallery: galleryUuid,
      back: here,
      href: `${v.at.homePath}/${FAVOURITES}/${galleryUuid}`,
      identified: client !== undefined,
      picked: new Map((view?.picks ?? []).map((p) => [p.media_uuid, p.note ?? ''])),
      count: view?.count ?? 0,
      limit: selection.pickLimit,
      sent: view?.state === 'sent',
    };
  };

  const refusal = (reply: FastifyReply, v: Visit, r: Refusal, back: string) => {
    const frame = frameOf(v.at);
    if (r.kind === 'not-found') throw notFound();
    if (r.kind === 'password') {
      const page = PasswordPage({ frame, action: `${v.at.homePath}/_password`, gallery: r.gallery, galleryName: r.galleryName, back, wrong: false, crumbs: r.crumbs, locked: r.locked });
      return kit.html(reply, 403, render(page));
    }
    const signinHref = `${v.at.homePath}/_signin?back=${encodeURIComponent(back)}`;
    return kit.html(reply, 403, render(SigninPage({ frame, signinHref, crumbs: r.crumbs, locked: r.locked })));
  };

  /**
   * A gallery page shown: a view of the visitor whose pass proves an address, else one more in
   * the gallery's anonymous count of the day. Recorded in the background: the page never waits.
   */
  const viewed = (v: Visit, galleryId: number) => {
    if (!v.head) deps.activity.record({ gallery: galleryId, client: v.pass?.email ? { email: v.pass.email, verified: true } : null, kind: 'view' });
  };

  const galleryPage = async (reply: FastifyReply, v: Visit, fullUrlPath: string, page: number, here: string) => {
    const view = await site.gallery(v.at, fullUrlPath, page, v.pass);
    if (view.kind !== 'gallery') return refusal(reply, v, view, here);
    const favourites = await favouritesOf(v, view.uuid, view.selection, here);
    const body = Buffer.from(render(GalleryPage({ view, favourites, frame: { ...frameOf(v.at), canonical: view.meta.canonical, meta: view.meta } })));
    if (!v.pass) cache.set(v.cacheKey, { body, indexable: view.indexable, galleryId: view.galleryId });
    viewed(v, view.galleryId);
    return kit.html(reply, 200, body, { indexable: view.indexable });
  };

  const mediaPage = async (reply: FastifyReply, v: Visit, fullUrlPath: string, uuid: string, here: string) => {
    const view = await site.media(v.at, fullUrlPath, uuid, v.pass);
    if (view.kind !== 'media') return refusal(reply, v, view, here);
    const favourites = await favouritesOf(v, view.galleryUuid, view.selection, here);
    const body = Buffer.from(render(MediaPage({ view, favourites, frame: { ...frameOf(v.at), canonical: view.meta.canonical, meta: view.meta } })));
    if (!v.pass) cache.set(v.cacheKey, { body, indexable: view.indexable });
    return kit.html(reply, 200, body, { indexable: view.indexable });
  };

  const robots = async (reply: FastifyReply, v: Visit) => {
    const home = `${v.at.homePath}/`;
    const lines = ['User-agent: *'];
    // Nothing any crawler could index, listed or not: keep crawlers out altogether.
    if (!(await site.crawlable(v.at.website))) lines.push(`Disallow: ${home}`);
    else lines.push(`Disallow: ${home}_password`, `Disallow: ${home}_signin`, `Sitemap: ${site.homeUrl(v.at.website)}/sitemap.xml`);
    return sendText(reply, 'text/plain; charset=utf-8', lines.join('\n') + '\n');
  };

  const sitemap = async (reply: FastifyReply, v: Visit, part: number | undefined) => {
    const map = await site.sitemap(v.at.website, part);
    if (!map) throw notFound();
    return sendText(reply, 'application/xml; charset=utf-8', sitemapXml(map));
  };

  const password = async (req: FastifyRequest, reply: FastifyReply, v: Visit) => {
    if (!Buffer.isBuffer(req.body)) throw new ApiError('bad_request', 'The form could not be read.');
    // A cross-site page must not post this form in a visitor's name (it would choose where the visitor lands).
    if (!kit.fromOwnSite(req, v.at)) throw new ApiError('forbidden', 'This form can only be sent from the website itself.');
    const form = new URLSearchParams(req.body.toString('utf8'));
    const gallery = form.get('gallery') ?? '';
    const given = form.get('password') ?? '';
    // Anything but a path of this website (checked as the sign-in form checks it) goes back home.
    const back = backUnder(v.at.homePath, form.get('back') ?? undefined) ?? `${v.at.homePath}/`;
    const galleryKey = gallery.toLowerCase().slice(0, 36);
    // Counted before the hash is computed, so simultaneous guesses cannot all be checked.
    const taken = await deps.passwordThrottle.take(v.at.website.uuid, galleryKey, req.ip);
    if (!taken.ok) throw new ApiError('rate_limited', `Please wait ${taken.retryAfterSeconds} seconds and try again.`, { retryAfter: taken.retryAfterSeconds });
    const checked = given.length > 0 && given.length <= 200 ? await site.checkPassword(v.at.website, gallery, given) : { result: 'wrong' as const, uuid: undefined };
    if (checked.result === 'ok') {
      await deps.passwordThrottle.succeeded(v.at.website.uuid, galleryKey, req.ip);
      const pass = passes.withGallery(v.pass ?? passes.fresh(v.at.website.uuid), checked.uuid!, checked.passwordHash!);
      reply.header('set-cookie', passCookie(passes, pass, cookiePath(v.at), secure()));
      return reply.code(303).header('location', back).header('cache-control', 'no-store').send();
    }
    if (checked.result === 'unknown') throw notFound();
    const view = await site.gallery(v.at, backGalleryPath(back, v.at.homePath), 1, v.pass);
    const name = view.kind === 'password' ? view.galleryName : 'Protected gallery';
    const crumbs = view.kind === 'password' ? view.crumbs : [];
    const locked = view.kind === 'password' ? view.locked : undefined;
    const page = PasswordPage({ frame: frameOf(v.at), action: `${v.at.homePath}/_password`, gallery: checked.uuid ?? gallery, galleryName: name, back, wrong: true, crumbs, locked });
    return kit.html(reply, 403, render(page));
  };

  /** A page of the website's navigation (Markdown), `<home>/p/<slug>`: the same for every visitor, so cached too. */
  const contentPage = async (reply: FastifyReply, v: Visit, slug: string) => {
    if (!SLUG.test(slug)) throw notFound();
    const href = `${v.at.homePath}/p/${slug}`;
    // One address, as the other pages: whatever query a visitor adds is sent there first.
    if ([...v.query.keys()].length > 0) return reply.code(301).header('location', href).send();
    v.cacheKey = `${brandKey(v.at)}\n${v.at.homePath}\npage\n${slug}`;
    const hit = cache.get(v.cacheKey);
    if (hit) return kit.html(reply, 200, hit.body, { indexable: hit.indexable });
    const page = await site.page(v.at, slug);
    if (!page) throw notFound();
    const body = Buffer.from(render(ContentPage({ title: page.title, html: page.html, frame: { ...frameOf(v.at), canonical: `${site.homeUrl(v.at.website)}/p/${slug}`, current: href } })));
    const indexable = v.at.website.indexing !== 0;
    cache.set(v.cacheKey, { body, indexable });
    return kit.html(reply, 200, body, { indexable });
  };

  /**
   * `<gallery>/_archive.zip[?folders=1]`: the gallery's photos as one streamed ZIP at the
   * visitor's rights (archive.ts), behind the same access as the gallery page; rights are decided
   * when it starts. Its one address: any other query goes there first, as a page's does.
   */
  const archive = async (req: FastifyRequest, reply: FastifyReply, v: Visit, fullUrlPath: string) => {
    const folders = v.query.get('folders') === '1';
    const href = archiveHref(v.at.homePath, fullUrlPath) + (folders ? '?folders=1' : '');
    const names = [...v.query.keys()];
    if (folders ? names.length !== 1 || v.query.getAll('folders').length !== 1 : names.length !== 0) return reply.code(301).header('location', href).header('cache-control', 'no-store').send();
    const plan = await site.archivePlan(v.at, fullUrlPath, v.pass, folders);
    if (plan.kind === 'no-rights') throw new ApiError('forbidden', 'This gallery offers no downloads.');
    if (plan.kind !== 'archive') return refusal(reply, v, plan, galleryHref(v.at.homePath, fullUrlPath));
    return deps.archives.send(req, reply, v.pass, { kind: 'gallery', name: plan.name, websiteId: v.at.website.id, galleryUuid: plan.galleryUuid, folders, parts: plan.parts });
  };

  /** One request below a website's home. */
  const visit = async (req: FastifyRequest, reply: FastifyReply, at: SiteAddress, rest: string, query: URLSearchParams): Promise<unknown> => {
    await kit.withinBudget(req);
    const pass = readPass(passes, req.headers.cookie, at.website.uuid);
    const v: Visit = { at, rest, query, pass, cacheKey: '', head: req.method === 'HEAD' };
    if (req.method === 'POST') {
      // A body we do not read (not a form) must not stay on the connection.
      closeAfterReply(req, reply);
      if (rest === '_password') return password(req, reply, v);
      if (rest.startsWith(`${FAVOURITES}/`)) return favourites.post(req, reply, v, rest.slice(FAVOURITES.length + 1));
      throw notFound();
    }
    if (rest === FAVOURITES || rest.startsWith(`${FAVOURITES}/`)) {
      const sub = rest.slice(FAVOURITES.length + 1);
      const zip = FAVOURITES_ARCHIVE.exec(sub);
      return zip ? favourites.archive(req, reply, v, zip[1]) : favourites.get(reply, v, sub);
    }
    if (rest.startsWith('p/')) return contentPage(reply, v, rest.slice(2));
    if (rest === 'robots.txt') return robots(reply, v);
    const archivePath = archiveTarget(rest);
    if (archivePath !== undefined) return archive(req, reply, v, archivePath);
    const sitemapPart = SITEMAP_PART.exec(rest);
    if (sitemapPart) return sitemap(reply, v, sitemapPart[1] === undefined ? undefined : Number(sitemapPart[1]));
    const target = pageAddressOf(rest);
    if (!target) throw notFound();
    let page = 1;
    if (target.kind === 'gallery') {
      const p = query.get('page');
      if (p !== null && !PAGE.test(p)) throw notFound();
      page = p === null ? 1 : Number(p);
    }
    // The page's one address: `?page=N` (N > 1) on a gallery, no query on a media. Anything else a
    // visitor adds (tracking parameters, cache busters) is sent there before any query or
    // rendering, so it can neither cost a render nor push popular pages out of the cache.
    const canonicalQuery = page > 1 ? `page=${page}` : '';
    const here = `${at.homePath}/${rest}${canonicalQuery ? `?${canonicalQuery}` : ''}`;
    const names = [...query.keys()];
    if (canonicalQuery ? names.length !== 1 : names.length !== 0) return reply.code(301).header('location', here).send();
    v.cacheKey = `${brandKey(at)}\n${at.homePath}\n${target.kind}\n${target.path}\n${target.kind === 'gallery' ? page : target.uuid}`;
    if (!pass) {
      const hit = cache.get(v.cacheKey);
      if (hit) {
        if (hit.galleryId !== undefined) viewed(v, hit.galleryId);
        return kit.html(reply, 200, hit.body, { indexable: hit.indexable });
      }
    }
    return target.kind === 'gallery' ? galleryPage(reply, v, target.path, page, here) : mediaPage(reply, v, target.path, target.uuid, here);
  };

  // A website by its urlname.
  const byUrlname = async (req: FastifyRequest, reply: FastifyReply) => {
    const { urlname } = req.params as { urlname: string };
    const { path, query } = pathAndQuery(req.raw.url);
    const at = await kit.byUrlname(req, urlname);
    if (!at) {
      await kit.withinBudget(req);
      throw notFound();
    }
    if (path === at.homePath) {
      // Straight to the root gallery's own address: only a valid page number is kept.
      const p = query.get('page');
      return reply.code(301).header('location', `${at.homePath}/${p !== null && PAGE.test(p) && p !== '1' ? `?page=${p}` : ''}`).send();
    }
    return visit(req, reply, at, path.slice(at.homePath.length + 1), query);
  };
  for (const url of ['/sites/:urlname', '/sites/:urlname/*']) {
    fastify.route({ method: ['GET', 'POST'], url, bodyLimit: FORM_BYTES, handler: byUrlname });
  }
  fastify.route({ method: ['GET', 'POST'], url: `/sites/:urlname/${FAVOURITES}/*`, bodyLimit: FAVOURITES_FORM_BYTES, handler: byUrlname });

  // A website at its own hostname: the site's own paths (a catch-all would take over the
  // API's refusals of malformed paths). Other hosts get the API's 404.
  const byHost = async (req: FastifyRequest, reply: FastifyReply) => {
    const at = await kit.byHost(req);
    if (!at) return reply.callNotFound();
    const { path, query } = pathAndQuery(req.raw.url);
    return visit(req, reply, at, path.slice(1), query);
  };
  for (const url of ['/', '/-/*', '/_/*', '/_archive.zip', '/robots.txt', '/sitemap.xml', '/sitemap-*']) fastify.route({ method: 'GET', url, handler: byHost });
  fastify.route({ method: 'POST', url: '/_password', bodyLimit: FORM_BYTES, handler: byHost });
  // Favourites (docs/delivery.md): the visitor's selections and their forms.
  fastify.route({ method: 'GET', url: '/_favourites', handler: byHost });
  fastify.route({ method: ['GET', 'POST'], url: `/${FAVOURITES}/*`, bodyLimit: FAVOURITES_FORM_BYTES, handler: byHost });
  // The website's own pages (an API extension: docs/website.md "Brand and pages").
  fastify.route({ method: 'GET', url: '/p/*', handler: byHost });
}

/**
 * What names a website's look in the micro-cache's keys: a change of its brand or pages moves
 * its `updated_at` on, and a rename of its root gallery its root's name, so a cached page never
 * outlives either.
 */
function brandKey(at: SiteAddress): string {
  return `${at.website.id}\n${at.website.updated_at ?? ''}\n${at.website.root_name ?? ''}`;
}

/** A sitemap file, or the index of its parts, written by the same escaping renderer as the pages. */
export function sitemapXml(map: Sitemap): string {
  const xmlns = { xmlns: 'http://www.sitemaps.org/schemas/sitemap/0.9' };
  const doc: VNode =
    map.kind === 'index'
      ? h('sitemapindex', xmlns, map.parts.map((loc) => h('sitemap', null, h('loc', null, loc))))
      : h('urlset', xmlns, map.entries.map((e) => h('url', null, h('loc', null, e.loc), h('lastmod', null, e.lastmod.slice(0, 10)))));
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + renderToString(doc);
}

const ARCHIVE = '_archive.zip';

/** The gallery whose archive a path below the home names (`_archive.zip`, `-/<path>/_archive.zip`), or undefined. */
function archiveTarget(rest: string): string | undefined {
  if (rest === ARCHIVE) return '';
  if (!rest.startsWith('-/') || !rest.endsWith(`/${ARCHIVE}`)) return undefined;
  const page = pageAddressOf(rest.slice(0, -ARCHIVE.length - 1));
  return page?.kind === 'gallery' && page.path !== '' ? page.path : undefined;
}

/** `sitemap.xml`, or a part of it when it is an index (`sitemap-N.xml`). */
const SITEMAP_PART = /^sitemap(?:-([1-9][0-9]{0,5}))?\.xml$/;


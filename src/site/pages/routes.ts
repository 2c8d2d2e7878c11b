// The website's pages, as rows of the one route table (../routes.ts): the root
// gallery `/`, `-/<full-url-path>` (gallery, `?page=N`), `…/_/<media-uuid>`
// (media), `…/_archive.zip`, `p/<slug>`, robots.txt, sitemap.xml and POST
// `_password`; the micro-cache of anonymous pages. See docs/website.md.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { h, type VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { Encoded } from '../../core/content-coding.js';
import { ApiError } from '../../core/errors.js';
import type { SelectionGallery } from '../../lightboxes/service.js';
import { MemoryCache } from '../../ops/cache.js';
import { SLUG } from '../../websites/brand.js';
import { backGalleryPath, backUnder, cookiePath, pageAddressOf, type PageAddress, type SiteAddress } from '../address.js';
import { clientOf, FAVOURITES } from '../delivery/favourites-routes.js';
import { clientKeyOf } from '../delivery/download-controls.js';
import { Downloads } from '../delivery/download-routes.js';
import type { SiteHelpers, SiteRoute, WebsiteDeps } from '../plugin-deps.js';
import { archiveHref, galleryHref, type Refusal, type Sitemap } from '../service.js';
import { passCookie } from '../signin/pass-cookie.js';
import { activityClientOf } from '../signin/pass.js';
import { notFound, only, visiting, type Visit, type VisitHandler } from '../visit.js';
import { ContentPage } from './content.js';
import type { FavouritesBar } from './favourites.js';
import { pickListsOf } from '../../lightboxes/lists.js';
import { GalleryPage } from './gallery.js';
import { render, type Frame } from './layout.js';
import { MediaPage } from './media.js';
import type { OfferProps } from './shop.js';
import { cartHref, SOLD_KINDS } from '../shop/cart-routes.js';
import { ClosedPage, PasswordPage, SigninPage } from './messages.js';

export const FORM_BYTES = 4096;
/** A gallery's page number as `?page=` may give it. */
export const PAGE = /^[1-9][0-9]{0,5}$/;
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
  /**
   * The page's bytes, encoded once (a string would be measured and encoded again for each
   * visitor), and their brotli and gzip copies, each made once for the copy's first visitor who takes it.
   */
  body: Encoded;
  indexable: boolean;
  /** A gallery page's gallery: a view served from the cache is recorded too. */
  galleryId?: number;
}

/** The pages' rows of the route table. */
export function pageRoutes(helpers: SiteHelpers, deps: WebsiteDeps): SiteRoute[] {
  const pages = new Pages(helpers, deps);
  const visit = (handle: VisitHandler) => visiting(helpers, deps, handle);
  const page: VisitHandler = (_req, reply, v) => pages.page(reply, v);
  const archive: VisitHandler = (req, reply, v) => pages.archive(req, reply, v, archiveTarget(v.rest)!);
  const isArchive = (rest: string) => archiveTarget(rest) !== undefined;
  const sitemap = only((rest) => SITEMAP_PART.test(rest), (_req, reply, v) => pages.sitemap(reply, v));
  return [
    // The root gallery, a gallery below it (or its archive) and a media: the path is checked as sent (pageAddressOf).
    { method: 'GET', path: '/', handler: visit(page) },
    { method: 'GET', path: '/-/*', handler: visit((req, reply, v) => (isArchive(v.rest) ? archive(req, reply, v) : page(req, reply, v))) },
    { method: 'GET', path: '/_/*', handler: visit(page) },
    { method: 'GET', path: `/${ARCHIVE}`, handler: visit(only(isArchive, archive)) },
    { method: 'GET', path: '/robots.txt', handler: visit(only((rest) => rest === 'robots.txt', (_req, reply, v) => pages.robots(reply, v))) },
    { method: 'GET', path: '/sitemap.xml', handler: visit(sitemap) },
    { method: 'GET', path: '/sitemap-*', handler: visit(sitemap) },
    { method: 'POST', path: '/_password', bodyLimit: FORM_BYTES, handler: visit(only((rest) => rest === '_password', (req, reply, v) => pages.password(req, reply, v))) },
    // The website's own pages (an API extension: docs/website.md "Brand and pages").
    { method: 'GET', path: '/p/*', handler: visit(only((rest) => rest.startsWith('p/'), (_req, reply, v) => pages.content(reply, v, v.rest.slice(2)))) },
  ];
}

/** The page handlers, over one micro-cache per plugin. */
class Pages {
  private readonly cache: MemoryCache<string, CachedPage>;
  private readonly downloads: Downloads;

  constructor(
    private readonly helpers: SiteHelpers,
    private readonly deps: WebsiteDeps,
  ) {
    this.downloads = new Downloads(helpers, deps);
    this.cache = new MemoryCache<string, CachedPage>({ entries: CACHE_ENTRIES, ttlMs: deps.cacheSeconds * 1000, size: { max: CACHE_BYTES, of: (page) => sizeOf(page.body) } });
  }

  private frameOf(at: SiteAddress): Omit<Frame, 'title' | 'indexable' | 'crumbs' | 'script'> {
    return { ...this.helpers.frameOf(at), canonical: undefined };
  }

  /** A gallery or media page, from the micro-cache when the visitor has no pass. */
  async page(reply: FastifyReply, v: Visit): Promise<unknown> {
    const target = pageAddressOf(v.rest);
    if (!target) throw notFound();
    let page = 1;
    if (target.kind === 'gallery') {
      const p = v.query.get('page');
      if (p !== null && !PAGE.test(p)) throw notFound();
      page = p === null ? 1 : Number(p);
    }
    // The page's one address: `?page=N` (N > 1) on a gallery, no query on a media. Anything else a
    // visitor adds (tracking parameters, cache busters) is sent there before any query or
    // rendering, so it can neither cost a render nor push popular pages out of the cache.
    const canonicalQuery = page > 1 ? `page=${page}` : '';
    const here = `${v.at.homePath}/${v.rest}${canonicalQuery ? `?${canonicalQuery}` : ''}`;
    const names = [...v.query.keys()];
    if (canonicalQuery ? names.length !== 1 : names.length !== 0) return reply.code(301).header('location', here).send();
    v.cacheKey = `${brandKey(v.at)}\n${v.at.homePath}\n${target.kind}\n${target.path}\n${target.kind === 'gallery' ? page : target.uuid}`;
    if (!v.pass) {
      const hit = this.cache.get(v.cacheKey);
      if (hit) {
        if (hit.galleryId !== undefined) this.viewed(v, hit.galleryId);
        return this.helpers.html(reply, 200, hit.body, { indexable: hit.indexable });
      }
    }
    return this.render(reply, v, target, page, here);
  }

  private async render(reply: FastifyReply, v: Visit, target: PageAddress, page: number, here: string): Promise<unknown> {
    if (target.kind === 'gallery') {
      const view = await this.deps.site.gallery(v.at, target.path, page, v.pass);
      if (view.kind !== 'gallery') return this.refusal(reply, v, view, here);
      const [favourites, forSale, sold] = await Promise.all([
        this.favouritesOf(v, view.uuid, view.selection, here),
        this.deps.shop.forSale(v.at.website.owner_id, view.medias.map((m) => m.uuid), [...SOLD_KINDS]),
        this.deps.shop.orders.websiteGallerySale(v.at.website, view.galleryId),
      ]);
      // The same for every visitor (the page stays in the micro-cache); a price change shows within SITE_CACHE_SECONDS.
      const sale = sold && sold.medias > 0 ? { ...sold, action: `${cartHref(v.at)}/gallery` } : undefined;
      const body = this.kept(v, render(GalleryPage({ view, favourites, forSale, sale, frame: { ...this.frameOf(v.at), canonical: view.meta.canonical, meta: view.meta } })));
      if (body instanceof Encoded) this.cache.set(v.cacheKey, { body, indexable: view.indexable, galleryId: view.galleryId });
      this.viewed(v, view.galleryId);
      return this.helpers.html(reply, 200, body, { indexable: view.indexable });
    }
    const view = await this.deps.site.media(v.at, target.path, target.uuid, v.pass);
    if (view.kind !== 'media') return this.refusal(reply, v, view, here);
    const [favourites, offer] = await Promise.all([this.favouritesOf(v, view.galleryUuid, view.selection, here), this.offerOf(v, view.uuid)]);
    const body = this.kept(v, render(MediaPage({ view, favourites, offer, frame: { ...this.frameOf(v.at), canonical: view.meta.canonical, meta: view.meta } })));
    if (body instanceof Encoded) this.cache.set(v.cacheKey, { body, indexable: view.indexable });
    return this.helpers.html(reply, 200, body, { indexable: view.indexable });
  }

  /** A page for the micro-cache when the visitor has no pass (its copies compressed once), else theirs alone. */
  private kept(v: Visit, html: string): Encoded | Buffer {
    const bytes = Buffer.from(html);
    return v.pass ? bytes : new Encoded(bytes, 'cached');
  }

  /** A media's offer (the same for every visitor: the page stays in the micro-cache); none when it has no price list sold here. */
  private async offerOf(v: Visit, media: string): Promise<OfferProps | undefined> {
    const lists = (await this.deps.shop.offer(v.at.website.owner_id, media)).filter((l) => SOLD_KINDS.has(l.kind));
    if (lists.length === 0) return undefined;
    return { action: `${cartHref(v.at)}/add`, media, lists, cartHref: cartHref(v.at) };
  }

  /**
   * The hearts of a gallery or media page: the visitor's picks there when they have said who they
   * are (a pass: the page is then theirs alone, never in the micro-cache), else none.
   */
  private async favouritesOf(v: Visit, galleryUuid: string, selection: SelectionGallery, here: string): Promise<FavouritesBar | undefined> {
    // Favourites off here: no hearts, no lists (and the forms are refused, favourites-routes.ts).
    if (selection.favourites === false) return undefined;
    const client = clientOf(v.pass);
    const view = client ? await this.deps.lightboxes.view(selection, client) : undefined;
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
      lists: view?.listCounts ?? (selection.lists ?? []).map((name) => ({ name, count: 0 })),
      pickLists: new Map((view?.picks ?? []).map((p) => [p.media_uuid, pickListsOf(p.lists)])),
      listAction: `${v.at.homePath}/${FAVOURITES}/list`,
    };
  }

  private refusal(reply: FastifyReply, v: Visit, r: Refusal, back: string) {
    const frame = this.frameOf(v.at);
    if (r.kind === 'not-found') throw notFound();
    if (r.kind === 'closed') return this.helpers.html(reply, 410, render(ClosedPage({ frame, galleryName: r.galleryName, crumbs: r.crumbs })));
    if (r.kind === 'password') {
      const page = PasswordPage({ frame, action: `${v.at.homePath}/_password`, gallery: r.gallery, galleryName: r.galleryName, back, wrong: false, crumbs: r.crumbs, locked: r.locked });
      return this.helpers.html(reply, 403, render(page));
    }
    const signinHref = `${v.at.homePath}/_signin?back=${encodeURIComponent(back)}`;
    return this.helpers.html(reply, 403, render(SigninPage({ frame, signinHref, crumbs: r.crumbs, locked: r.locked })));
  }

  /**
   * A gallery page shown: a view of the visitor whose pass proves an address, else one more in
   * the gallery's anonymous count of the day. Recorded in the background: the page never waits.
   */
  private viewed(v: Visit, galleryId: number): void {
    if (!v.head) this.deps.activity.record({ gallery: galleryId, client: activityClientOf(v.pass), kind: 'view' });
  }

  async robots(reply: FastifyReply, v: Visit): Promise<unknown> {
    const home = `${v.at.homePath}/`;
    const lines = ['User-agent: *'];
    // Nothing any crawler could index, listed or not: keep crawlers out altogether.
    if (!(await this.deps.site.crawlable(v.at.website))) lines.push(`Disallow: ${home}`);
    else lines.push(`Disallow: ${home}_password`, `Disallow: ${home}_signin`, `Disallow: ${home}_share`, `Disallow: ${home}_lightbox`, `Sitemap: ${this.deps.site.homeUrl(v.at.website)}/sitemap.xml`);
    return sendText(reply, 'text/plain; charset=utf-8', lines.join('\n') + '\n');
  }

  /** `sitemap.xml`, or a part of it when it is an index (`sitemap-N.xml`). */
  async sitemap(reply: FastifyReply, v: Visit): Promise<unknown> {
    const part = SITEMAP_PART.exec(v.rest)![1];
    const map = await this.deps.site.sitemap(v.at.website, part === undefined ? undefined : Number(part));
    if (!map) throw notFound();
    return sendText(reply, 'application/xml; charset=utf-8', sitemapXml(map));
  }

  async password(req: FastifyRequest, reply: FastifyReply, v: Visit): Promise<unknown> {
    const { site, passes, passwordThrottle } = this.deps;
    if (!Buffer.isBuffer(req.body)) throw new ApiError('bad_request', 'The form could not be read.');
    // A cross-site page must not post this form in a visitor's name (it would choose where the visitor lands).
    if (!this.helpers.fromOwnSite(req, v.at)) throw new ApiError('forbidden', 'This form can only be sent from the website itself.');
    const form = new URLSearchParams(req.body.toString('utf8'));
    const gallery = form.get('gallery') ?? '';
    const given = form.get('password') ?? '';
    // Anything but a path of this website (checked as the sign-in form checks it) goes back home.
    const back = backUnder(v.at.homePath, form.get('back') ?? undefined) ?? `${v.at.homePath}/`;
    const galleryKey = gallery.toLowerCase().slice(0, 36);
    // Counted before the hash is computed, so simultaneous guesses cannot all be checked.
    const taken = await passwordThrottle.take(v.at.website.uuid, galleryKey, req.ip);
    if (!taken.ok) throw new ApiError('rate_limited', `Please wait ${taken.retryAfterSeconds} seconds and try again.`, { retryAfter: taken.retryAfterSeconds });
    const checked = given.length > 0 && given.length <= 200 ? await site.checkPassword(v.at.website, gallery, given) : { result: 'wrong' as const, uuid: undefined };
    if (checked.result === 'ok') {
      await passwordThrottle.succeeded(v.at.website.uuid, galleryKey, req.ip);
      const pass = passes.withGallery(v.pass ?? passes.fresh(v.at.website.uuid), checked.uuid!, checked.passwordHash!);
      reply.header('set-cookie', passCookie(passes, pass, cookiePath(v.at), this.deps.config.publicUrl.startsWith('https:')));
      return reply.code(303).header('location', back).header('cache-control', 'no-store').send();
    }
    if (checked.result === 'unknown') throw notFound();
    const view = await site.gallery(v.at, backGalleryPath(back, v.at.homePath), 1, v.pass);
    const name = view.kind === 'password' ? view.galleryName : 'Protected gallery';
    const crumbs = view.kind === 'password' ? view.crumbs : [];
    const locked = view.kind === 'password' ? view.locked : undefined;
    const page = PasswordPage({ frame: this.frameOf(v.at), action: `${v.at.homePath}/_password`, gallery: checked.uuid ?? gallery, galleryName: name, back, wrong: true, crumbs, locked });
    return this.helpers.html(reply, 403, render(page));
  }

  /** A page of the website's navigation (Markdown), `<home>/p/<slug>`: the same for every visitor, so cached too. */
  async content(reply: FastifyReply, v: Visit, slug: string): Promise<unknown> {
    if (!SLUG.test(slug)) throw notFound();
    const href = `${v.at.homePath}/p/${slug}`;
    // One address, as the other pages: whatever query a visitor adds is sent there first.
    if ([...v.query.keys()].length > 0) return reply.code(301).header('location', href).send();
    v.cacheKey = `${brandKey(v.at)}\n${v.at.homePath}\npage\n${slug}`;
    const hit = this.cache.get(v.cacheKey);
    if (hit) return this.helpers.html(reply, 200, hit.body, { indexable: hit.indexable });
    const page = await this.deps.site.page(v.at, slug);
    if (!page) throw notFound();
    const body = new Encoded(Buffer.from(render(ContentPage({ title: page.title, html: page.html, frame: { ...this.frameOf(v.at), canonical: `${this.deps.site.homeUrl(v.at.website)}/p/${slug}`, current: href } }))), 'cached');
    const indexable = v.at.website.indexing !== 0;
    this.cache.set(v.cacheKey, { body, indexable });
    return this.helpers.html(reply, 200, body, { indexable });
  }

  /**
   * `<gallery>/_archive.zip[?folders=1]`: the gallery's photos as one streamed ZIP at the
   * visitor's rights (delivery/archives.ts), behind the same access as the gallery page; rights are
   * decided when it starts. Its one address: any other query goes there first, as a page's does.
   */
  async archive(req: FastifyRequest, reply: FastifyReply, v: Visit, fullUrlPath: string): Promise<unknown> {
    const folders = v.query.get('folders') === '1';
    const href = archiveHref(v.at.homePath, fullUrlPath) + (folders ? '?folders=1' : '');
    const names = [...v.query.keys()];
    if (folders ? names.length !== 1 || v.query.getAll('folders').length !== 1 : names.length !== 0) return reply.code(301).header('location', href).header('cache-control', 'no-store').send();
    const plan = await this.deps.site.archivePlan(v.at, fullUrlPath, v.pass, folders);
    if (plan.kind === 'no-rights') throw new ApiError('forbidden', 'This gallery offers no downloads.');
    const back = galleryHref(v.at.homePath, fullUrlPath);
    if (plan.kind !== 'archive') return this.refusal(reply, v, plan, back);
    // The gallery's download controls (docs/delivery.md): its PIN first; a limit counts per client, a session at least.
    reply.header('cache-control', 'no-store');
    if (!this.deps.site.pinOpened(v.pass, plan.galleryUuid, plan.controls.pin)) {
      return this.downloads.pinPage(reply, v, { gallery: plan.galleryUuid, galleryName: plan.galleryName, back: href, cancel: back, crumbs: [], wrong: false });
    }
    const limited = plan.parts.some((p) => p.limit !== undefined);
    const pass = limited ? this.downloads.passOf(reply, v) : v.pass;
    const own = plan.parts.find((p) => p.folder.length === 0);
    if (pass && own?.limit !== undefined && (await this.downloads.spent(own.galleryId, own.limit, pass))) {
      return this.downloads.limitPage(reply, v, { galleryName: plan.galleryName, limit: own.limit, back, crumbs: [] });
    }
    return this.deps.archives.send(req, reply, pass, { kind: 'gallery', name: plan.name, websiteId: v.at.website.id, galleryUuid: plan.galleryUuid, folders, parts: plan.parts, clientKey: pass && limited ? clientKeyOf(pass) : undefined });
  }
}

/** A cached page's weight: its bytes, and half again for its brotli and gzip copies (each under a quarter of a page). */
function sizeOf(page: Encoded): number {
  return Math.ceil(page.body.length * 1.5);
}

function sendText(reply: FastifyReply, type: string, body: string) {
  return reply.code(200).header('content-type', type).header('x-content-type-options', 'nosniff').header('cache-control', 'public, max-age=300').send(body);
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

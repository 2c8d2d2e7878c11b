// What a visitor sees of a website: the gallery and media pages as typed
// views, after the access decision (src/site/access.ts) over the chain of
// galleries from the root. No HTML here (pages/*.tsx) and no HTTP (routes.ts).
import { isUuid } from '../access/uuid.js';
import { BrandExtrasLoader, brandOf, type SiteBrand } from './brand.js';
import { renderMarkdown } from './markdown.js';
import { verifyPassword } from '../users/passwords.js';
import type { FileUrls } from './file-urls.js';
import { homeUrl, type SiteAddress } from './address.js';
import { accessState, decide, type Chain, type Decision, type GateGallery, type VisitorAccess } from './access.js';
import type { VisitorPass } from './pass.js';
import { sortByContentOrder } from '../galleries/content-order.js';
import type { SiteGallery, SiteMedia, SiteRendition, SiteRepository, SiteWebsite } from './repository.js';

export const MEDIAS_PER_PAGE = 60;
/** The display styles' layouts; anything else is shown as a grid. */
export const LAYOUTS = ['grid', 'masonry', 'slideshow', 'filmstrip'] as const;
export type Layout = (typeof LAYOUTS)[number];

export interface Picture {
  alt: string;
  width: number;
  height: number;
  /** Absent until renditions exist: the page shows a placeholder of the right shape. */
  src?: string;
  srcset?: string;
}

export interface Crumb {
  name: string;
  href: string;
}

export interface MediaItem {
  uuid: string;
  href: string;
  title: string;
  picture: Picture;
  /** The largest size fit for a lightbox (2048 at most). */
  large?: { src: string; width: number; height: number };
}

export interface ChildItem {
  name: string;
  href: string;
  locked: boolean;
  cover?: Picture;
}

export interface GalleryView {
  kind: 'gallery';
  title: string;
  description: string | null;
  layout: Layout;
  crumbs: Crumb[];
  children: ChildItem[];
  medias: MediaItem[];
  page: number;
  pages: number;
  href: string;
  indexable: boolean;
  restricted: boolean;
}

export interface MediaView {
  kind: 'media';
  title: string;
  uuid: string;
  description: string | null;
  keywords: string[];
  location: string | null;
  shotAt: string | null;
  picture: Picture;
  crumbs: Crumb[];
  galleryHref: string;
  prev?: string;
  next?: string;
  downloads: Array<{ label: string; href: string }>;
  indexable: boolean;
  restricted: boolean;
}

/** A page the visitor may not see yet. */
export type Refusal =
  | { kind: 'password'; gallery: string; galleryName: string; back: string; crumbs: Crumb[] }
  | { kind: 'signin'; back: string; crumbs: Crumb[] }
  | { kind: 'not-found' };

export interface SitemapEntry {
  loc: string;
  lastmod: string;
}

export class SiteService {
  constructor(
    private readonly repo: SiteRepository,
    /** The one decision of who may see what, over the one chain loader. */
    private readonly visitors: VisitorAccess,
    private readonly files: FileUrls,
    /** Read at each use: PUBLIC_URL may be settled after start (the tests learn their port then). */
    private readonly config: { readonly publicUrl: string },
  ) {}

  /** A website by its urlname, or by a Host header (lower-cased, with or without its port). */
  async website(by: { urlname: string } | { host: string }): Promise<SiteWebsite | undefined> {
    const website = 'urlname' in by ? await this.repo.websiteByUrlname(by.urlname) : await this.repo.websiteByHost(by.host, by.host.replace(/:\d+$/, ''));
    return website && this.brandExtras.attach(this.repo, website);
  }

  /** The brand's pages and pictures, remembered per website version (brand.ts). */
  private readonly brandExtras = new BrandExtrasLoader();

  /** The website's brand as its pages show it (brand.ts). */
  brand(at: SiteAddress): SiteBrand {
    return brandOf(at, (key) => this.files.public(key));
  }

  /** A page of the website's navigation (Markdown, rendered and sanitised); undefined: 404. */
  async page(at: SiteAddress, slug: string): Promise<{ title: string; html: string } | undefined> {
    const page = await this.repo.page(at.website.id, slug);
    return page && { title: page.title, html: renderMarkdown(page.body) };
  }

  /** The website's canonical home URL (its hostname when it has one). */
  homeUrl(website: SiteWebsite): string {
    return homeUrl(this.config.publicUrl, website);
  }

  async gallery(at: SiteAddress, fullUrlPath: string, page: number, pass: VisitorPass | undefined, now = Date.now()): Promise<GalleryView | Refusal> {
    const access = await this.access(at, fullUrlPath, pass);
    if (access.kind !== 'ok') return access.refusal;
    const { chain, gate, decision } = access;
    const gallery = chain[chain.length - 1];
    const href = galleryHref(at.homePath, gallery.full_url_path);

    const order = sortByContentOrder(await this.repo.orderRows(gallery.id), gallery.content_order, gallery.content_order_direction);
    const pages = Math.max(1, Math.ceil(order.length / MEDIAS_PER_PAGE));
    if (page > pages) return { kind: 'not-found' };
    const slice = order.slice((page - 1) * MEDIAS_PER_PAGE, page * MEDIAS_PER_PAGE);

    const childRows = page === 1 ? await this.repo.listedChildren(gallery.id) : [];
    const [covers, childAcls] = await Promise.all([this.repo.covers(childRows.map((c) => c.id)), this.repo.acls(childRows.map((c) => c.id))]);
    const { medias, renditions } = await this.repo.medias([...slice.map((r) => r.media_id), ...covers.values()]);
    const sign = this.signer(decision, pass, now, gallery.uuid, gate);

    const children: ChildItem[] = childRows.map((c) => {
      const childGate = [...gate, { uuid: c.uuid, passwordProtected: c.password_hash !== null, passwordHash: c.password_hash, acl: childAcls.get(c.id) ?? [] }];
      const childDecision = decide(childGate, pass);
      const coverId = covers.get(c.id);
      const media = coverId === undefined ? undefined : medias.get(coverId);
      // A cover shows only what the visitor may already see inside.
      const cover = childDecision.ok && media ? picture(media, renditions.get(media.id) ?? [], this.signer(childDecision, pass, now, c.uuid, childGate)) : undefined;
      return { name: c.name, href: galleryHref(at.homePath, c.full_url_path), locked: !childDecision.ok, cover };
    });
    const items: MediaItem[] = slice.flatMap((r) => {
      const m = medias.get(r.media_id);
      if (!m) return [];
      const rs = renditions.get(m.id) ?? [];
      return [{ uuid: m.uuid, href: mediaHref(at.homePath, gallery.full_url_path, m.uuid), title: titleOf(m), picture: picture(m, rs, sign), large: large(rs, sign) }];
    });
    return {
      kind: 'gallery',
      // The root gallery's own name (a rename shows at once); the website's title is the header's.
      title: gallery.name,
      description: gallery.description,
      layout: (LAYOUTS as readonly string[]).includes(gallery.layout ?? '') ? (gallery.layout as Layout) : 'grid',
      crumbs: crumbs(at, chain),
      children,
      medias: items,
      page,
      pages,
      href,
      indexable: indexable(chain, decision),
      restricted: decision.restricted,
    };
  }

  async media(at: SiteAddress, fullUrlPath: string, mediaUuid: string, pass: VisitorPass | undefined, now = Date.now()): Promise<MediaView | Refusal> {
    if (!isUuid(mediaUuid)) return { kind: 'not-found' };
    const access = await this.access(at, fullUrlPath, pass);
    if (access.kind !== 'ok') return access.refusal;
    const { chain, gate, decision } = access;
    const gallery = chain[chain.length - 1];
    const order = sortByContentOrder(await this.repo.orderRows(gallery.id), gallery.content_order, gallery.content_order_direction);
    const at_ = order.findIndex((r) => r.uuid === mediaUuid.toLowerCase());
    if (at_ < 0) return { kind: 'not-found' };
    const { medias, renditions, keywords } = await this.repo.medias([order[at_].media_id]);
    const m = medias.get(order[at_].media_id);
    if (!m) return { kind: 'not-found' };
    const rs = renditions.get(m.id) ?? [];
    const stamp = this.files.accessStamp(accessState(gate));
    const sign = this.signer(decision, pass, now, gallery.uuid, gate);
    const downloads: MediaView['downloads'] = [];
    if (decision.ok && decision.compDownload) {
      const comp = compRendition(rs);
      if (comp) downloads.push({ label: `Download (${comp.width} × ${comp.height})`, href: this.files.signed(comp.storage_key, expiry(now), visitorOf(pass), gallery.uuid, true, stamp) });
    }
    if (decision.ok && decision.hiresDownload && m.storage_key) {
      downloads.push({ label: `Download the original${m.width && m.height ? ` (${m.width} × ${m.height})` : ''}`, href: this.files.signed(m.storage_key, originalExpiry(now), visitorOf(pass), gallery.uuid, true, stamp) });
    }
    const place = [m.location, m.city, m.state, m.country].filter((s): s is string => !!s && s.trim() !== '').join(', ');
    return {
      kind: 'media',
      title: titleOf(m),
      uuid: m.uuid,
      description: m.description,
      keywords: keywords.get(m.id) ?? [],
      location: place || null,
      shotAt: m.shot_at,
      picture: picture(m, rs, sign, true),
      crumbs: crumbs(at, chain),
      galleryHref: galleryHref(at.homePath, gallery.full_url_path),
      prev: at_ > 0 ? mediaHref(at.homePath, gallery.full_url_path, order[at_ - 1].uuid) : undefined,
      next: at_ < order.length - 1 ? mediaHref(at.homePath, gallery.full_url_path, order[at_ + 1].uuid) : undefined,
      downloads,
      indexable: indexable(chain, decision),
      restricted: decision.restricted,
    };
  }

  /**
   * A gallery password: 'ok' (the gallery's UUID and the stored hash it matched, to put in the
   * pass as that password's version), 'wrong', or 'unknown' gallery.
   */
  async checkPassword(website: SiteWebsite, galleryUuid: string, password: string): Promise<{ result: 'ok' | 'wrong' | 'unknown'; uuid?: string; passwordHash?: string }> {
    if (!isUuid(galleryUuid)) return { result: 'unknown' };
    const g = await this.repo.galleryByUuid(website.id, galleryUuid);
    if (!g || g.password_hash === null) return { result: 'unknown' };
    // argon2's verify compares in constant time.
    return (await verifyPassword(g.password_hash, password)) ? { result: 'ok', uuid: g.uuid, passwordHash: g.password_hash } : { result: 'wrong', uuid: g.uuid };
  }

  /**
   * Galleries search engines may index: the sitemap. Only galleries anyone may
   * find and open are listed: a hidden gallery, or one behind a password or an
   * access list (itself or above it), never appears, whatever its `indexing`
   * says — `indexing` 2 lets such a page be indexed when found, it does not
   * announce it. `indexing` 0 is left out too.
   */
  async sitemap(website: SiteWebsite): Promise<SitemapEntry[]> {
    const chains = await this.visitors.everyChain(website.id);
    const home = this.homeUrl(website);
    const out: SitemapEntry[] = [];
    for (const [path, chain] of chains) {
      const g = chain.galleries[chain.galleries.length - 1];
      if (g.indexing === 0) continue;
      const listed = chain.galleries.every((c) => c.hidden === 0);
      const open = decide(chain.gate, undefined);
      if (listed && open.ok && !open.restricted) out.push({ loc: home + galleryHref('', path), lastmod: g.updated_at });
    }
    return out;
  }

  private async access(
    at: SiteAddress,
    fullUrlPath: string,
    pass: VisitorPass | undefined,
  ): Promise<{ kind: 'ok'; chain: SiteGallery[]; gate: Chain['gate']; decision: Extract<Decision, { ok: true }> } | { kind: 'refused'; refusal: Refusal }> {
    const loaded = await this.visitors.chain(at.website.id, fullUrlPath);
    if (!loaded) return { kind: 'refused', refusal: { kind: 'not-found' } };
    const { galleries: chain, gate } = loaded;
    const decision = decide(gate, pass);
    if (decision.ok) return { kind: 'ok', chain, gate, decision };
    const gallery = chain[chain.length - 1];
    const back = galleryHref(at.homePath, gallery.full_url_path);
    if (decision.need === 'password') {
      const locked = chain.find((g) => g.uuid === decision.gallery)!;
      return { kind: 'refused', refusal: { kind: 'password', gallery: locked.uuid, galleryName: locked.name, back, crumbs: crumbs(at, chain) } };
    }
    return { kind: 'refused', refusal: { kind: 'signin', back, crumbs: crumbs(at, chain) } };
  }

  /**
   * File addresses for one decision: public ones when everyone may see them, else signed for this
   * visitor and for the gallery they are shown in (`galleryUuid`: the media must stay published
   * there), with the access stamp of its chain (`gate`: a change of access revokes them).
   */
  private signer(decision: Decision, pass: VisitorPass | undefined, now: number, galleryUuid: string, gate: readonly GateGallery[]): (key: string) => string {
    if (decision.ok && !decision.restricted) return (key) => this.files.public(key);
    const e = expiry(now);
    const v = visitorOf(pass);
    const stamp = this.files.accessStamp(accessState(gate));
    return (key) => this.files.signed(key, e, v, galleryUuid, false, stamp);
  }
}

/** Search engines may index it: indexing 2, or 1 when no hidden gallery is on the way and anyone may see it. */
function indexable(chain: readonly SiteGallery[], decision: Extract<Decision, { ok: true }>): boolean {
  const g = chain[chain.length - 1];
  if (g.indexing === 0) return false;
  if (g.indexing === 2) return true;
  return chain.every((c) => c.hidden === 0) && !decision.restricted;
}

/** Signed addresses last until the end of the next hour: the same for a whole hour, so pages and files stay cacheable per visitor. */
function expiry(now: number): Date {
  const hour = 3600_000;
  return new Date(Math.ceil((now + hour) / hour) * hour);
}

/**
 * An original is the file a photographer sells or keeps for clients: its address is good for
 * minutes (10 to 11, to the next whole minute), enough to click the link of the page just shown,
 * so a forwarded one dies soon. The media page is not cached for a visitor with a pass; without
 * one, the page cache (seconds) is far shorter.
 */
export const ORIGINAL_LINK_MINUTES = 10;

function originalExpiry(now: number): Date {
  const minute = 60_000;
  return new Date(Math.ceil((now + ORIGINAL_LINK_MINUTES * minute) / minute) * minute);
}

function visitorOf(pass: VisitorPass | undefined): string {
  return pass?.id ?? 'anonymous';
}

export function galleryHref(homePath: string, fullUrlPath: string): string {
  return fullUrlPath === '' ? `${homePath}/` : `${homePath}/-/${fullUrlPath}`;
}

function mediaHref(homePath: string, fullUrlPath: string, uuid: string): string {
  return fullUrlPath === '' ? `${homePath}/_/${uuid}` : `${homePath}/-/${fullUrlPath}/_/${uuid}`;
}

function crumbs(at: SiteAddress, chain: readonly SiteGallery[]): Crumb[] {
  return chain.map((g) => ({ name: g.name, href: galleryHref(at.homePath, g.full_url_path) }));
}

function titleOf(m: SiteMedia): string {
  return m.title && m.title.trim() !== '' ? m.title : m.file_name;
}

/** The image renditions of one format: WebP when there are any (smaller), else JPEG; posters for videos. */
function ladder(rs: readonly SiteRendition[]): SiteRendition[] {
  const images = rs.filter((r) => r.name !== 'poster');
  const webp = images.filter((r) => r.mime_type === 'image/webp');
  const chosen = webp.length > 0 ? webp : images.filter((r) => r.mime_type === 'image/jpeg');
  if (chosen.length > 0) return [...chosen].sort((a, b) => a.width - b.width);
  return rs.filter((r) => r.name === 'poster');
}

function picture(m: SiteMedia, rs: readonly SiteRendition[], sign: (key: string) => string, big = false): Picture {
  const sizes = ladder(rs);
  const top = sizes[sizes.length - 1];
  const width = m.width ?? top?.width ?? 4;
  const height = m.height ?? top?.height ?? 3;
  const alt = titleOf(m);
  if (sizes.length === 0) return { alt, width, height };
  // The fallback src: the 640 (1280 on a media page), else the nearest size.
  const want = big ? 1280 : 640;
  const fallback = sizes.find((r) => Math.max(r.width, r.height) >= want) ?? top;
  return {
    alt,
    width,
    height,
    src: sign(fallback.storage_key),
    srcset: sizes.map((r) => `${sign(r.storage_key)} ${r.width}w`).join(', '),
  };
}

function large(rs: readonly SiteRendition[], sign: (key: string) => string): MediaItem['large'] {
  const sizes = ladder(rs);
  if (sizes.length === 0) return undefined;
  const pick = [...sizes].reverse().find((r) => Math.max(r.width, r.height) <= 2048) ?? sizes[0];
  return { src: sign(pick.storage_key), width: pick.width, height: pick.height };
}

/** The comp: the watermarked 1280, else the largest watermarked size. */
function compRendition(rs: readonly SiteRendition[]): SiteRendition | undefined {
  const marked = rs.filter((r) => r.watermarked === 1 && r.name !== 'poster');
  const jpeg = marked.filter((r) => r.mime_type === 'image/jpeg');
  const pool = jpeg.length > 0 ? jpeg : marked;
  return pool.find((r) => r.name === '1280') ?? [...pool].sort((a, b) => b.width - a.width)[0];
}

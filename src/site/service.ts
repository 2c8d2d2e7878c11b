// What a visitor sees of a website: the gallery and media pages as typed
// views, after the access decision (src/site/access.ts) over the chain of
// galleries from the root. No HTML here (pages/*.tsx) and no HTTP (routes.ts).
import { favouritesOn, listNamesOf } from '../lightboxes/lists.js';
import { isUuid } from '../core/uuid.js';
import { BrandExtrasLoader, brandOf, type SiteBrand } from './look/brand.js';
import { renderMarkdown } from './look/markdown.js';
import { verifyPassword } from '../users/passwords.js';
import type { FileUrls } from '../file-storage/file-urls.js';
import { FIELD_BITS } from '../media/file-fields.js';
import { homeUrl } from '../websites/home-url.js';
import { hostPart, isOwnHost, ownHosts } from '../websites/hostnames.js';
import { MemoryCache } from '../ops/cache.js';
import type { SiteAddress } from './address.js';
import { accessState, closedBy, decide, downloadState, SHARE_VISITOR, type Chain, type Decision, type GateGallery, type VisitorAccess } from './access.js';
import type { ArchivePart, DownloadRights } from './delivery/archives.js';
import { compRendition } from './delivery/comp-rendition.js';
import { controlsOf, guarded, pinEntry, pinOpens, webRendition, type DownloadControls } from './delivery/download-controls.js';
import type { VisitorPass } from './signin/pass.js';
import type { SelectionGallery } from '../lightboxes/service.js';
import { GalleryOrder, OrderMemo } from './pages/gallery-order.js';
import type { AclRule, ChildGallery, SiteGallery, SiteMedia, SiteRendition, SiteRepository, SiteWebsite } from './repository.js';
import { creditOf, imageGallery, imageObject, shareImage, summary, type Credit, type ImageFacts, type PageMeta } from './pages/share.js';

export const MEDIAS_PER_PAGE = 60;
/** The display styles' layouts; anything else is shown as a grid. */
export const LAYOUTS = ['grid', 'masonry', 'slideshow', 'filmstrip'] as const;
/**
 * How a gallery's photos are laid out: a grid style shows justified rows (every photo whole, at
 * its own aspect ratio) unless the style crops (then square cells); masonry is columns.
 */
export type Layout = 'justified' | 'grid' | 'masonry' | 'slideshow' | 'filmstrip';
export const SPACINGS = ['none', 'tight', 'normal', 'wide'] as const;
export type Spacing = (typeof SPACINGS)[number];

/** What a display style chooses (docs/display-styles.md; crop, spacing and captions are extensions). */
export interface Presentation {
  layout: Layout;
  spacing: Spacing;
  captions: boolean;
}

export function presentationOf(g: Pick<SiteGallery, 'layout' | 'crop' | 'spacing' | 'captions'>): Presentation {
  const style = (LAYOUTS as readonly string[]).includes(g.layout ?? '') ? (g.layout as (typeof LAYOUTS)[number]) : 'grid';
  return {
    layout: style === 'grid' ? (g.crop === 1 ? 'grid' : 'justified') : style,
    spacing: (SPACINGS as readonly string[]).includes(g.spacing ?? '') ? (g.spacing as Spacing) : 'normal',
    captions: g.captions === 1,
  };
}

export interface Picture {
  alt: string;
  width: number;
  height: number;
  /** Absent until renditions exist: the page shows a placeholder of the right shape. */
  src?: string;
  srcset?: string;
  /** The same ladder with AVIF where it was made (WebP for the other sizes): the <picture>'s AVIF source. */
  avifSrcset?: string;
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
  /** The viewer's image: a fallback (2048 at most) and every size, up to the largest, for its zoom. */
  large?: { src: string; srcset: string; width: number; height: number };
  /** Author, copyright notice, licence: the viewer's caption credit line (absent when none is set). */
  credit?: Credit;
  /** The comp download, when the visitor's rights allow it (a signed address). */
  download?: string;
}

export interface ChildItem {
  name: string;
  href: string;
  locked: boolean;
  /** The photos a visitor may see in it (absent when locked). */
  count?: number;
  /** What the visitor may see inside, or, for a locked gallery, the public cover its photographer chose (never another). */
  cover?: Picture;
  date: string;
}

/** The home page's hero: its photos in order (one, or a slideshow), how they fill the screen, the words over them. */
export interface HeroView {
  fit: 'fill' | 'fit';
  headline: string | null;
  tagline: string | null;
  slides: Picture[];
}

/** A locked gallery as its password and sign-in pages show it: name, date and the public cover its photographer chose. */
export interface LockedGallery {
  name: string;
  date: string;
  cover?: Picture;
}

export interface GalleryView {
  kind: 'gallery';
  /** The gallery's id: its views are recorded (docs/delivery.md "Activity"). */
  galleryId: number;
  uuid: string;
  /** The gallery as a client's selection of it names it (favourites, docs/delivery.md). */
  selection: SelectionGallery;
  title: string;
  description: string | null;
  layout: Layout;
  presentation: Presentation;
  crumbs: Crumb[];
  /** The home page's hero (its first page), when the photographer chose photos for it. */
  hero?: HeroView;
  /** The sub-galleries' cards; on the home page, its featured galleries. */
  children: ChildItem[];
  /** true on the home page: `children` are its featured galleries. */
  featured: boolean;
  medias: MediaItem[];
  page: number;
  pages: number;
  href: string;
  indexable: boolean;
  restricted: boolean;
  /**
   * The "Download all" links, when the visitor may download here (delivery/archives.ts): the gallery's
   * photos, and with its sub-galleries as folders when it shows any.
   */
  /** `asks`: the gallery has a PIN or a limit, so its archive may answer with a page first. */
  archive?: { href: string; withFolders?: string; asks?: boolean };
  /** Canonical address, share card and JSON-LD (pages/share.ts). */
  meta: PageMeta;
}

export interface MediaView {
  kind: 'media';
  galleryUuid: string;
  /** The gallery as a client's selection of it names it (favourites, docs/delivery.md). */
  selection: SelectionGallery;
  /** The photographer's title; '' when none (a file name is never shown). */
  title: string;
  /** Its title, else its place in the gallery ("Wedding: photo 3 of 40"): the page's <title>, the image's alt, a hidden heading. */
  label: string;
  uuid: string;
  description: string | null;
  keywords: string[];
  location: string | null;
  /** WGS 84 degrees, from the file or the API. */
  position: { latitude: number; longitude: number } | null;
  shotAt: string | null;
  /** Author, copyright notice, licence (absent when none is set). */
  credit?: Credit;
  picture: Picture;
  crumbs: Crumb[];
  galleryHref: string;
  prev?: string;
  next?: string;
  downloads: Array<{ label: string; href: string }>;
  indexable: boolean;
  restricted: boolean;
  /** Canonical address, share card and JSON-LD (pages/share.ts). */
  meta: PageMeta;
}

/** A media as the shop's pages show it (SiteService.shopMedias): title ('' when none), its page, its thumbnail. */
export interface ShopMedia {
  uuid: string;
  title: string;
  href: string;
  picture: Picture;
}

/** A photo of a client's selection as its page shows it. */
export interface FavouriteItem {
  id: number;
  uuid: string;
  title: string;
  href: string;
  picture: Picture;
}

/** A gallery a visitor may see, for choosing favourites in it (SiteService.favouriteGallery). */
export interface FavouriteGallery {
  kind: 'favourites';
  uuid: string;
  title: string;
  href: string;
  crumbs: Crumb[];
  selection: SelectionGallery;
  /** What this visitor may download here (the favourites' archive is at these rights). */
  rights: DownloadRights;
  /** The gallery's download controls (its PIN, limit and size hold for the favourites' archive too). */
  controls: DownloadControls;
  /** Media ids by UUID, of the UUIDs given, for those the visitor sees in this gallery. */
  idsOf(uuids: readonly string[]): Promise<Map<string, number>>;
  /** The thumbnails of the medias given that the visitor still sees here, in that order. */
  items(ids: readonly number[]): Promise<FavouriteItem[]>;
}

/** A page the visitor may not see yet. */
/** A single download the download route may let through (downloadTarget). */
export interface DownloadTarget {
  kind: 'download';
  galleryId: number;
  galleryUuid: string;
  galleryName: string;
  back: string;
  crumbs: Crumb[];
  mediaId: number;
  controls: DownloadControls;
  gate: readonly GateGallery[];
  /** The stored file: a rendition (comp, web size) or the original. */
  key: string;
  original: boolean;
}

export const DOWNLOAD_ROUTE = '_download';

/** The download route's address of one photo's download in a gallery with download controls. */
export function downloadHref(at: SiteAddress, galleryUuid: string, mediaUuid: string, as: 'comp' | 'full'): string {
  return `${at.homePath}/${DOWNLOAD_ROUTE}/${galleryUuid}/${mediaUuid}?as=${as}`;
}

export type Refusal =
  | { kind: 'password'; gallery: string; galleryName: string; back: string; crumbs: Crumb[]; locked: LockedGallery }
  | { kind: 'signin'; back: string; crumbs: Crumb[]; locked: LockedGallery }
  /** Past its expiry, or below a gallery that is: the closed page (410). */
  | { kind: 'closed'; galleryName: string; crumbs: Crumb[] }
  | { kind: 'not-found' };

export interface SitemapEntry {
  loc: string;
  lastmod: string;
}

/**
 * How long a Host that named no website is remembered (every node keeps its own): a name that
 * takes effect is seen at once on the node that verified it, within this on the others.
 */
export const HOST_MISS_MS = 5000;

/** The most addresses one sitemap file may hold (sitemaps.org); beyond it, /sitemap.xml is an index of parts. */
export const SITEMAP_URLS = 50_000;

/** A sitemap file: its addresses, or (beyond the limit) the addresses of its parts. */
export type Sitemap = { kind: 'urls'; entries: SitemapEntry[] } | { kind: 'index'; parts: string[] };

export class SiteService {
  constructor(
    private readonly repo: SiteRepository,
    /** The one decision of who may see what, over the one chain loader. */
    private readonly visitors: VisitorAccess,
    private readonly files: FileUrls,
    /** Read at each use: PUBLIC_URL may be settled after start (the tests learn their port then). */
    private readonly config: { readonly publicUrl: string; readonly storageUrl?: string; readonly reservedHostnames?: readonly string[] },
    /** Addresses per sitemap file (a constant but for tests of the index). */
    private readonly sitemapUrls = SITEMAP_URLS,
  ) {
    this.orders = new OrderMemo((galleryId, contentOrder) => this.repo.orderRows(galleryId, contentOrder));
  }

  /** Each gallery's visible order, under its stamp: pages cost their slice (issue 22). */
  private readonly orders: OrderMemo;

  /**
   * A website by its urlname, or by a Host header (lower-cased, with or without its port). The
   * service's own host names are never a website's (whatever a row says: names taken before they
   * were refused), and a Host that named no website is remembered so for HOST_MISS_MS.
   */
  async website(by: { urlname: string } | { host: string }): Promise<SiteWebsite | undefined> {
    if ('urlname' in by) {
      const website = await this.repo.websiteByUrlname(by.urlname);
      return website && this.brandExtras.attach(this.repo, website);
    }
    if (this.isOwnHost(by.host) || this.hostMisses.get(by.host)) return undefined;
    const website = await this.repo.websiteByHost(by.host, hostPart(by.host));
    if (!website) {
      this.hostMisses.set(by.host, hostPart(by.host));
      return undefined;
    }
    return this.brandExtras.attach(this.repo, website);
  }

  /**
   * Whether Caddy may get a certificate for `domain` (its on-demand TLS `ask`): the verified host
   * name of a website whose owner is not disabled. A miss is remembered as a Host's is.
   */
  async tlsAllowed(domain: string): Promise<boolean> {
    const name = domain.toLowerCase();
    // Its own key: a website of a disabled owner is no certificate's, yet still its Host's.
    const key = `tls ${name}`;
    if (this.isOwnHost(name) || this.hostMisses.get(key)) return false;
    if (await this.repo.activeHost(name)) return true;
    this.hostMisses.set(key, name);
    return false;
  }

  /** Forgets the remembered misses of a host name (every port): it names a website now, on this node at once. */
  forgetHost(hostname: string): void {
    const name = hostPart(hostname);
    this.hostMisses.deleteWhere((v) => v === name);
  }

  /** Unknown Host headers (and TLS names), each remembered briefly: the value is the name without its port. */
  private readonly hostMisses = new MemoryCache<string, string>({ entries: 10_000, ttlMs: HOST_MISS_MS });

  private ownHostsOf: { key: string; hosts: Set<string> } | undefined;
  private isOwnHost(host: string): boolean {
    const c = this.config;
    const key = `${c.publicUrl}\n${c.storageUrl ?? ''}\n${(c.reservedHostnames ?? []).join(',')}`;
    if (this.ownHostsOf?.key !== key) this.ownHostsOf = { key, hosts: ownHosts(c) };
    return isOwnHost(host, this.ownHostsOf.hosts);
  }

  /** The brand's pages and pictures, remembered per website version (look/brand.ts). */
  private readonly brandExtras = new BrandExtrasLoader();

  /** The website's brand as its pages show it (look/brand.ts). */
  brand(at: SiteAddress): SiteBrand {
    return brandOf(at, (key) => this.files.public(key));
  }

  /** A page of the website's navigation (Markdown, rendered and sanitised); undefined: 404. */
  async page(at: SiteAddress, slug: string): Promise<{ title: string; html: string } | undefined> {
    const page = await this.repo.page(at.website.id, slug);
    return page && { title: page.title, html: renderMarkdown(page.body) };
  }

  /**
   * Covers for galleries without a photo of their own: the first sub-gallery's (list order, the
   * nearest level first, at most COVER_DEPTH down) that has one. Only through sub-galleries that
   * add nothing to the visitor's rights — no password, no access list, not hidden — so a card never
   * shows what its visitor could not open or find; two or three queries a level, none per gallery.
   */
  private async coversFromBelow(galleryIds: readonly number[]): Promise<Map<number, CoverBelow>> {
    const out = new Map<number, CoverBelow>();
    // A gallery below → the gallery whose cover it may give, and the UUIDs from there down to it.
    let frontier = new Map<number, { owner: number; path: string[] }>(galleryIds.map((id) => [id, { owner: id, path: [] }]));
    for (let depth = 0; depth < COVER_DEPTH && frontier.size > 0; depth++) {
      const rows = (await this.repo.listedChildrenOf([...frontier.keys()])).filter((r) => r.password_hash === null);
      const acls = await this.repo.acls(rows.map((r) => r.id));
      const open = rows.filter((r) => (acls.get(r.id) ?? []).length === 0);
      const found = await this.repo.covers(open.map((r) => r.id));
      const byParent = new Map<number, typeof open>();
      for (const r of open) byParent.set(r.parent_id!, [...(byParent.get(r.parent_id!) ?? []), r]);
      const next = new Map<number, { owner: number; path: string[] }>();
      // The frontier in list order, each parent's children in theirs: the first with a cover wins for its gallery.
      for (const [parent, { owner, path }] of frontier) {
        for (const r of byParent.get(parent) ?? []) {
          if (out.has(owner)) break;
          const media = found.get(r.id);
          if (media !== undefined) out.set(owner, { media, path: [...path, r.uuid] });
          else next.set(r.id, { owner, path: [...path, r.uuid] });
        }
      }
      frontier = new Map([...next].filter(([, v]) => !out.has(v.owner)));
    }
    return out;
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

    const order = await this.orders.of(gallery);
    const pages = Math.max(1, Math.ceil(order.length / MEDIAS_PER_PAGE));
    if (page > pages) return { kind: 'not-found' };
    const slice = order.page(page, MEDIAS_PER_PAGE);

    // The home page's first page: its hero and its featured galleries (docs/website.md "Home page").
    const home = chain.length === 1 && page === 1 ? await this.homeParts(at, gallery.id, gate, pass, now) : undefined;
    const childRows = page === 1 && !home ? await this.repo.listedChildren(gallery.id) : [];
    const childAcls = await this.repo.acls(childRows.map((c) => c.id));
    const children = home?.featured ?? (await this.cards(at, childRows.map((c) => ({ c, gate: [...gate, gateOf(c, childAcls)] })), pass, now));
    const { medias, renditions, keywords } = await this.repo.medias(slice);
    const sign = this.signer(decision, pass, now, gallery.uuid, gate);
    const stamp = this.files.accessStamp(accessState(gate));
    const presentation = presentationOf(gallery);

    const galleryName = chain.length === 1 ? at.website.title || gallery.name : gallery.name;
    const items: MediaItem[] = slice.flatMap((id, i) => {
      const m = medias.get(id);
      if (!m) return [];
      const rs = renditions.get(m.id) ?? [];
      const comp = decision.compDownload ? compRendition(rs) : undefined;
      return [
        {
          uuid: m.uuid,
          href: mediaHref(at.homePath, gallery.full_url_path, m.uuid),
          title: titleOf(m),
          picture: picture(m, rs, sign, false, altOf(m) || nameOf(m, galleryName, (page - 1) * MEDIAS_PER_PAGE + i + 1, order.length)),
          large: large(rs, sign),
          credit: creditOf(m),
          download: comp && (guarded(controlsOf(gallery)) ? downloadHref(at, gallery.uuid, m.uuid, 'comp') : this.files.signed(comp.storage_key, expiry(now), this.downloaderOf(pass), gallery.uuid, true, stamp)),
        },
      ];
    });
    const title = chain.length === 1 ? at.website.title || gallery.name : gallery.name;
    const homeUrl = this.homeUrl(at.website);
    const canonical = homeUrl + galleryHref('', gallery.full_url_path) + (page > 1 ? `?page=${page}` : '');
    const publicUrl = this.absoluteFiles(homeUrl);
    const meta: PageMeta = { canonical };
    if (shareable(decision)) {
      // The card's picture: the gallery's cover when it is on this page, else its first photo.
      const lead = slice.find((id) => id === gallery.cover_media_id) ?? slice[0];
      const leadMedia = lead === undefined ? undefined : medias.get(lead);
      const images = slice.flatMap((id) => {
        const m = medias.get(id);
        if (!m) return [];
        const page = homeUrl + mediaHref('', gallery.full_url_path, m.uuid);
        return [imageObject(imageFacts(m, renditions.get(m.id) ?? [], keywords.get(m.id) ?? [], page, publicUrl), false, true)];
      });
      meta.card = {
        title,
        description: summary(gallery.description),
        siteName: at.website.title || at.website.urlname,
        image: leadMedia ? shareImage(renditions.get(leadMedia.id) ?? [], titleOf(leadMedia) || title, publicUrl) : undefined,
      };
      meta.structured = imageGallery({ title, description: gallery.description, page: canonical, images });
    }
    return {
      kind: 'gallery',
      galleryId: gallery.id,
      uuid: gallery.uuid,
      selection: selectionGallery(at, gallery, gate),
      // The root gallery's own name (a rename shows at once); the website's title is the header's (and the card's).
      title: gallery.name,
      description: gallery.description,
      layout: presentation.layout,
      presentation,
      crumbs: crumbs(at, chain),
      hero: home?.hero,
      children,
      featured: home !== undefined,
      medias: items,
      page,
      pages,
      href,
      indexable: at.website.indexing !== 0 && indexable(chain, decision),
      restricted: decision.restricted,
      archive:
        mayDownload(decision) && order.length > 0
          ? {
              href: archiveHref(at.homePath, gallery.full_url_path),
              withFolders: children.length > 0 ? `${archiveHref(at.homePath, gallery.full_url_path)}?folders=1` : undefined,
              asks: gallery.download_pin !== null || gallery.download_limit !== null,
            }
          : undefined,
      meta,
    };
  }

  /**
   * A lightbox opened by a share link (docs/integrations.md "Share links"): its photos in the
   * website's brand, laid out as a gallery page, every address signed for the link (/files checks
   * the link is live, the photo is in the lightbox and the level allows a download, at each
   * request). The caller has checked that the visitor's live link names this lightbox.
   */
  async lightbox(at: SiteAddress, lightboxUuid: string, page: number, pass: VisitorPass, now = Date.now()): Promise<GalleryView | { kind: 'not-found' }> {
    const share = pass.share;
    const box = share?.lightbox === lightboxUuid ? await this.repo.lightbox(at.website.owner_id, lightboxUuid) : undefined;
    if (!share || !box) return { kind: 'not-found' };
    const pages = Math.max(1, Math.ceil(box.mediaIds.length / MEDIAS_PER_PAGE));
    if (page > pages) return { kind: 'not-found' };
    const slice = box.mediaIds.slice((page - 1) * MEDIAS_PER_PAGE, page * MEDIAS_PER_PAGE);
    const { medias, renditions } = await this.repo.medias(slice);
    const e = expiry(now);
    const v = visitorOf(pass);
    // Signed for the lightbox: `g` names it, no access stamp (a lightbox has no gallery chain).
    const sign = (key: string) => this.files.signed(key, e, v, lightboxUuid, false);
    const href = `${at.homePath}/_lightbox/${lightboxUuid}`;
    const items: MediaItem[] = slice.flatMap((id, i) => {
      const m = medias.get(id);
      if (!m || m.renditions_state === 'failed') return [];
      const rs = renditions.get(m.id) ?? [];
      const comp = share.download !== 'none' ? compRendition(rs) : undefined;
      const big = large(rs, sign);
      return [
        {
          uuid: m.uuid,
          // No media page outside a gallery: without the viewer, a photo opens its large image.
          href: big?.src ?? href,
          title: titleOf(m),
          picture: picture(m, rs, sign, false, altOf(m) || nameOf(m, box.name, (page - 1) * MEDIAS_PER_PAGE + i + 1, box.mediaIds.length)),
          large: big,
          credit: creditOf(m),
          // No media page to offer the original on: at `originals` the viewer's download is the original itself.
          download: share.download === 'originals' && m.storage_key ? this.files.signed(m.storage_key, originalExpiry(now), v, lightboxUuid, true) : comp && this.files.signed(comp.storage_key, e, v, lightboxUuid, true),
        },
      ];
    });
    const presentation = presentationOf({ layout: null, crop: 0, spacing: null, captions: 1 });
    return {
      kind: 'gallery',
      galleryId: 0,
      uuid: lightboxUuid,
      selection: { id: 0, ownerId: at.website.owner_id, name: box.name, pickLimit: null, favourites: false },
      title: box.name,
      description: null,
      layout: presentation.layout,
      presentation,
      crumbs: [],
      children: [],
      featured: false,
      medias: items,
      page,
      pages,
      href,
      indexable: false,
      restricted: true,
      meta: { canonical: `${this.homeUrl(at.website)}/_lightbox/${lightboxUuid}` },
    };
  }

  /**
   * The home page's parts: the hero's photos (public: a hero photo's renditions are, as a logo's)
   * and the featured galleries — those the photographer chose, in order, each under its own
   * chain's decision (a client gallery chosen shows locked with its public cover), else the
   * top-level galleries open to everyone (no password, no access list: client galleries stay off
   * the home page unless chosen). A bounded number of queries, whatever the library holds.
   */
  private async homeParts(at: SiteAddress, rootId: number, gate: readonly GateGallery[], pass: VisitorPass | undefined, now: number): Promise<{ hero?: HeroView; featured: ChildItem[] }> {
    const w = at.website;
    const [heroIds, chosen] = await Promise.all([this.repo.heroMedias(w.id), this.repo.featuredGalleries(w.id)]);
    let entries: Array<{ c: ChildGallery; gate: GateGallery[] }>;
    if (chosen.length > 0) {
      const chains = await this.visitors.chains(w.id, chosen.map((c) => c.full_url_path));
      entries = chosen.flatMap((c) => {
        const chain = chains.get(c.full_url_path);
        // A gallery below a closed one is closed too: no card.
        return chain && !closedBy(chain.gate, now) ? [{ c, gate: chain.gate }] : [];
      });
    } else {
      const rows = await this.repo.listedChildren(rootId);
      const acls = await this.repo.acls(rows.map((c) => c.id));
      entries = rows.filter((c) => c.password_hash === null && (acls.get(c.id) ?? []).length === 0).map((c) => ({ c, gate: [...gate, gateOf(c, acls)] }));
    }
    const featured = await this.cards(at, entries, pass, now);
    if (heroIds.length === 0) return { featured };
    const { medias, renditions } = await this.repo.medias(heroIds);
    const publicly = (key: string) => this.files.public(key);
    const slides = heroIds.flatMap((id) => {
      const m = medias.get(id);
      const rs = renditions.get(id) ?? [];
      return m && ladder(rs).length > 0 ? [picture(m, rs, publicly, true, altOf(m))] : [];
    });
    if (slides.length === 0) return { featured };
    return { featured, hero: { fit: w.hero_fit === 'fit' ? 'fit' : 'fill', headline: w.hero_headline ?? null, tagline: w.hero_tagline ?? null, slides } };
  }

  /**
   * Gallery cards, each with the chain (`gate`) that decides what its visitor sees: its cover when
   * they may open it (its own, else one from below), else the public cover its photographer
   * chose; its photo count when open. A fixed number of queries for any number of cards.
   */
  private async cards(at: SiteAddress, entries: ReadonlyArray<{ c: ChildGallery; gate: GateGallery[] }>, pass: VisitorPass | undefined, now: number): Promise<ChildItem[]> {
    if (entries.length === 0) return [];
    const ids = entries.map((e) => e.c.id);
    const [covers, counts] = await Promise.all([this.repo.covers(ids), this.repo.photoCounts(ids)]);
    const decisions = new Map(entries.map((e) => [e.c.id, decide(e.gate, pass)]));
    // A gallery the visitor may open but with no photo of its own (a gallery of galleries) takes its cover from below.
    const below = await this.coversFromBelow(ids.filter((id) => !covers.has(id) && decisions.get(id)!.ok));
    for (const [id, b] of below) covers.set(id, b.media);
    const publicCovers = entries.flatMap((e) => (e.c.public_cover_media_id === null ? [] : [e.c.public_cover_media_id]));
    const { medias, renditions } = await this.repo.medias([...covers.values(), ...publicCovers]);
    const publicly = (key: string) => this.files.public(key);
    return entries.map(({ c, gate: childGate }) => {
      const childDecision = decisions.get(c.id)!;
      const coverId = covers.get(c.id);
      const media = coverId === undefined ? undefined : medias.get(coverId);
      // A cover shows only what the visitor may already see inside; a locked gallery shows the
      // public cover its photographer chose, or none.
      const publicCover = c.public_cover_media_id === null ? undefined : medias.get(c.public_cover_media_id);
      // A cover from below is signed for the gallery it is published in, under the same rights (nothing restricts on the way).
      const from = below.get(c.id);
      const coverGate = from ? [...childGate, ...from.path.map((uuid) => ({ uuid, passwordProtected: false, passwordHash: null, acl: [] }))] : childGate;
      const cover = childDecision.ok
        ? media && picture(media, renditions.get(media.id) ?? [], this.signer(childDecision, pass, now, from ? from.path[from.path.length - 1] : c.uuid, coverGate), false, '')
        : publicCover && picture(publicCover, renditions.get(publicCover.id) ?? [], publicly, false, '');
      const count = childDecision.ok ? (counts.get(c.id) ?? 0) : undefined;
      return { name: c.name, href: galleryHref(at.homePath, c.full_url_path), locked: !childDecision.ok, cover, date: c.published_at, count };
    });
  }

  /**
   * What an archive of a gallery holds for this visitor (delivery/archives.ts), its rights decided here,
   * once, per gallery, when the archive starts: the gallery's visible medias at its rights, and
   * with `folders` each listed (not hidden) gallery below it that the visitor may open and
   * download from, as a folder named after the galleries on the way, in path order. A refusal
   * as the gallery page gives it; 'no-rights' when the visitor may see the gallery but download
   * nothing from it (or below it, with `folders`).
   */
  async archivePlan(
    at: SiteAddress,
    fullUrlPath: string,
    pass: VisitorPass | undefined,
    folders: boolean,
  ): Promise<{ kind: 'archive'; name: string; galleryUuid: string; galleryName: string; controls: DownloadControls; parts: ArchivePart[] } | Refusal | { kind: 'no-rights' }> {
    const access = await this.access(at, fullUrlPath, pass);
    if (access.kind !== 'ok') return access.refusal;
    const { chain, decision } = access;
    const gallery = chain[chain.length - 1];
    const partOf = (g: SiteGallery, folder: string[], rights: DownloadRights): ArchivePart => ({
      galleryId: g.id,
      folder,
      rights: { compDownload: rights.compDownload, hiresDownload: rights.hiresDownload, web: controlsOf(g).size === 'web' },
      limit: controlsOf(g).limit ?? undefined,
      // The order pages use (memoised per stamp), read when this part's turn comes.
      medias: async () => (await this.orders.of(g)).ids,
    });
    const parts: ArchivePart[] = [];
    if (mayDownload(decision)) parts.push(partOf(gallery, [], decision));
    if (folders) {
      const prefix = gallery.full_url_path === '' ? '' : `${gallery.full_url_path}/`;
      for (const [path, c] of await this.visitors.everyChain(at.website.id)) {
        if (!path.startsWith(prefix) || c.galleries.length <= chain.length || c.galleries[chain.length - 1].id !== gallery.id) continue;
        const below = c.galleries.slice(chain.length);
        if (below.some((g) => g.hidden !== 0)) continue;
        const d = decide(c.gate, pass);
        // A sub-gallery behind a PIN the visitor has not given is left out (its own archive asks for it).
        const sub = below[below.length - 1];
        if (d.ok && mayDownload(d) && this.pinOpened(pass, sub.uuid, sub.download_pin)) parts.push(partOf(sub, below.map((g) => g.name), d));
      }
    }
    if (parts.length === 0) return { kind: 'no-rights' };
    const name = chain.length === 1 ? at.website.title || gallery.name : gallery.name;
    return { kind: 'archive', name, galleryUuid: gallery.uuid, galleryName: name, controls: controlsOf(gallery), parts };
  }

  /**
   * Medias as the shop shows them (docs/shop.md "On the website"), by (lower-case) UUID: each
   * one's title, its page and thumbnail in the first gallery of this website where this visitor
   * may see it; a media there is none for is left out (what one cannot see cannot be bought here).
   * One access decision for all of them, over the one chain loader: a fixed number of queries
   * whatever their number (a cart's lines).
   */
  async shopMedias(at: SiteAddress, mediaUuids: readonly string[], pass: VisitorPass | undefined, now = Date.now()): Promise<Map<string, ShopMedia>> {
    const out = new Map<string, ShopMedia>();
    const wanted = [...new Set(mediaUuids.filter(isUuid).map((u) => u.toLowerCase()))];
    if (wanted.length === 0) return out;
    // Where each is shown on this website: the galleries whose visible order holds it (live, renditions not failed).
    const placements = await this.repo.shownIn(at.website.id, wanted);
    if (placements.length === 0) return out;
    const chains = await this.visitors.chains(at.website.id, [...new Set(placements.map((p) => p.full_url_path))]);
    const first = new Map<number, { chain: Chain; decision: Extract<Decision, { ok: true }> }>();
    for (const p of placements) {
      if (first.has(p.media_id)) continue;
      const chain = chains.get(p.full_url_path);
      const decision = chain && decide(chain.gate, pass, now);
      if (chain && decision?.ok) first.set(p.media_id, { chain, decision });
    }
    const { medias, renditions } = await this.repo.medias([...first.keys()]);
    for (const [id, { chain, decision }] of first) {
      const m = medias.get(id);
      if (!m) continue;
      const gallery = chain.galleries[chain.galleries.length - 1];
      const sign = this.signer(decision, pass, now, gallery.uuid, chain.gate);
      out.set(m.uuid, { uuid: m.uuid, title: titleOf(m), href: mediaHref(at.homePath, gallery.full_url_path, m.uuid), picture: picture(m, renditions.get(id) ?? [], sign, false, altOf(m)) });
    }
    return out;
  }

  /** A gallery of this website the visitor may open now (the shop's "buy the whole gallery"), else undefined. */
  async shopGallery(at: SiteAddress, galleryUuid: string, pass: VisitorPass | undefined): Promise<{ id: number; uuid: string } | undefined> {
    if (!isUuid(galleryUuid)) return undefined;
    const g = await this.repo.galleryByUuid(at.website.id, galleryUuid.toLowerCase());
    if (!g) return undefined;
    const access = await this.access(at, g.full_url_path, pass);
    return access.kind === 'ok' ? { id: g.id, uuid: g.uuid } : undefined;
  }

  async media(at: SiteAddress, fullUrlPath: string, mediaUuid: string, pass: VisitorPass | undefined, now = Date.now()): Promise<MediaView | Refusal> {
    if (!isUuid(mediaUuid)) return { kind: 'not-found' };
    const access = await this.access(at, fullUrlPath, pass);
    if (access.kind !== 'ok') return access.refusal;
    const { chain, gate, decision } = access;
    const gallery = chain[chain.length - 1];
    const [order, id] = await Promise.all([this.orders.of(gallery), this.repo.mediaId(mediaUuid.toLowerCase())]);
    const at_ = id === undefined ? -1 : order.positionOf(id);
    if (at_ < 0) return { kind: 'not-found' };
    const prevId = at_ > 0 ? order.ids[at_ - 1] : undefined;
    const nextId = at_ < order.length - 1 ? order.ids[at_ + 1] : undefined;
    const [{ medias, renditions, keywords }, neighbours] = await Promise.all([
      this.repo.medias([order.ids[at_]]),
      this.repo.uuids([prevId, nextId].filter((n): n is number => n !== undefined)),
    ]);
    const m = medias.get(order.ids[at_]);
    if (!m) return { kind: 'not-found' };
    const prevUuid = prevId === undefined ? undefined : neighbours.get(prevId);
    const nextUuid = nextId === undefined ? undefined : neighbours.get(nextId);
    const rs = renditions.get(m.id) ?? [];
    const stamp = this.files.accessStamp(accessState(gate));
    const sign = this.signer(decision, pass, now, gallery.uuid, gate);
    const downloads = this.downloadsOf(at, gallery, m, rs, decision, pass, now, stamp);
    const place = placeOf(m);
    const home = this.homeUrl(at.website);
    const canonical = home + mediaHref('', gallery.full_url_path, m.uuid);
    const meta: PageMeta = { canonical };
    const label = nameOf(m, chain.length === 1 ? at.website.title || gallery.name : gallery.name, at_ + 1, order.length);
    if (shareable(decision)) {
      const facts = imageFacts(m, rs, keywords.get(m.id) ?? [], canonical, this.absoluteFiles(home));
      meta.card = { title: label, description: summary(m.description), siteName: at.website.title || at.website.urlname, image: facts.image };
      meta.structured = imageObject(facts, true);
    }
    return {
      kind: 'media',
      galleryUuid: gallery.uuid,
      selection: selectionGallery(at, gallery, gate),
      title: titleOf(m),
      label,
      uuid: m.uuid,
      description: m.description,
      keywords: keywords.get(m.id) ?? [],
      location: place,
      position: positionOf(m),
      shotAt: m.shot_at,
      credit: creditOf(m),
      picture: picture(m, rs, sign, true, altOf(m) || label),
      crumbs: crumbs(at, chain),
      galleryHref: galleryHref(at.homePath, gallery.full_url_path),
      prev: prevUuid === undefined ? undefined : mediaHref(at.homePath, gallery.full_url_path, prevUuid),
      next: nextUuid === undefined ? undefined : mediaHref(at.homePath, gallery.full_url_path, nextUuid),
      downloads,
      indexable: at.website.indexing !== 0 && indexable(chain, decision),
      restricted: decision.restricted,
      meta,
    };
  }

  /**
   * A media page's download buttons: signed addresses as before, or, where the gallery has download
   * controls (a PIN, a limit, web size), the download route that asks for them first.
   */
  private downloadsOf(at: SiteAddress, gallery: SiteGallery, m: SiteMedia, rs: readonly SiteRendition[], decision: Decision, pass: VisitorPass | undefined, now: number, stamp: string): MediaView['downloads'] {
    const downloads: MediaView['downloads'] = [];
    if (!decision.ok) return downloads;
    const c = controlsOf(gallery);
    const routed = guarded(c);
    if (decision.compDownload) {
      const comp = compRendition(rs);
      if (comp) downloads.push({ label: `Download (${comp.width} × ${comp.height})`, href: routed ? downloadHref(at, gallery.uuid, m.uuid, 'comp') : this.files.signed(comp.storage_key, expiry(now), this.downloaderOf(pass), gallery.uuid, true, stamp) });
    }
    if (decision.hiresDownload && c.size === 'web') {
      const web = webRendition(rs);
      if (web) downloads.push({ label: `Download (web size, ${web.width} × ${web.height})`, href: downloadHref(at, gallery.uuid, m.uuid, 'full') });
    } else if (decision.hiresDownload && m.storage_key) {
      const label = `Download the original${m.width && m.height ? ` (${m.width} × ${m.height})` : ''}`;
      downloads.push({ label, href: routed ? downloadHref(at, gallery.uuid, m.uuid, 'full') : this.files.signed(m.storage_key, originalExpiry(now), this.downloaderOf(pass), gallery.uuid, true, stamp) });
    }
    return downloads;
  }

  /**
   * One download through the download route (`<home>/_download/<gallery>/<media>?as=comp|full`):
   * the file the visitor's rights and the gallery's size give, with what the route checks first
   * (the PIN, the limit). A refusal as the gallery page gives it; 'no-rights' without the right.
   */
  async downloadTarget(at: SiteAddress, galleryUuid: string, mediaUuid: string, as: 'comp' | 'full', pass: VisitorPass | undefined): Promise<DownloadTarget | Refusal | { kind: 'no-rights' }> {
    if (!isUuid(galleryUuid) || !isUuid(mediaUuid)) return { kind: 'not-found' };
    const row = await this.repo.galleryByUuid(at.website.id, galleryUuid.toLowerCase());
    if (!row) return { kind: 'not-found' };
    const access = await this.access(at, row.full_url_path, pass);
    if (access.kind !== 'ok') return access.refusal;
    const { chain, gate, decision } = access;
    const gallery = chain[chain.length - 1];
    const [order, id] = await Promise.all([this.orders.of(gallery), this.repo.mediaId(mediaUuid.toLowerCase())]);
    if (id === undefined || order.positionOf(id) < 0) return { kind: 'not-found' };
    const { medias, renditions } = await this.repo.medias([id]);
    const m = medias.get(id);
    if (!m) return { kind: 'not-found' };
    const rs = renditions.get(id) ?? [];
    const c = controlsOf(gallery);
    let file: { key: string; original: boolean } | undefined;
    if (as === 'comp' && decision.compDownload) file = ((r) => r && { key: r.storage_key, original: false })(compRendition(rs));
    else if (as === 'full' && decision.hiresDownload && c.size === 'web') file = ((r) => r && { key: r.storage_key, original: false })(webRendition(rs));
    else if (as === 'full' && decision.hiresDownload && m.storage_key) file = { key: m.storage_key, original: true };
    if (!file) return { kind: 'no-rights' };
    const name = chain.length === 1 ? at.website.title || gallery.name : gallery.name;
    return { kind: 'download', galleryId: gallery.id, galleryUuid: gallery.uuid, galleryName: name, back: galleryHref(at.homePath, gallery.full_url_path), crumbs: crumbs(at, chain), mediaId: id, controls: c, gate, ...file };
  }

  /** The signed address of a download the route let through: stamped with the gallery's controls (/files checks them again). */
  signDownload(t: DownloadTarget, pass: VisitorPass | undefined, now = Date.now()): string {
    return this.files.signed(t.key, t.original ? originalExpiry(now) : expiry(now), this.downloaderOf(pass), t.galleryUuid, true, this.files.accessStamp(downloadState(t.gate)));
  }

  /** Whether the pass holds the gallery's download PIN as it is now. */
  pinOpened(pass: VisitorPass | undefined, galleryUuid: string, pin: string | null): boolean {
    return pinOpens(this.files, pass, galleryUuid, pin);
  }

  /** What a pass keeps of a PIN given (keyed: the cookie does not tell it). */
  pinEntry(galleryUuid: string, pin: string): string {
    return pinEntry(this.files, galleryUuid, pin);
  }

  /** A gallery's download PIN and name, when the visitor may see the gallery (else the refusal). */
  async galleryPin(at: SiteAddress, galleryUuid: string, pass: VisitorPass | undefined): Promise<{ kind: 'pin'; uuid: string; name: string; pin: string | null; crumbs: Crumb[] } | Refusal> {
    if (!isUuid(galleryUuid)) return { kind: 'not-found' };
    const row = await this.repo.galleryByUuid(at.website.id, galleryUuid.toLowerCase());
    if (!row) return { kind: 'not-found' };
    const access = await this.access(at, row.full_url_path, pass);
    if (access.kind !== 'ok') return access.refusal;
    const g = access.chain[access.chain.length - 1];
    return { kind: 'pin', uuid: g.uuid, name: access.chain.length === 1 ? at.website.title || g.name : g.name, pin: g.download_pin, crumbs: crumbs(at, access.chain) };
  }

  /**
   * A gallery named by its UUID (a favourites form or page), as this visitor may see it: the
   * same decision as its page, over the same chain. `idsOf` gives the ids of the medias the
   * visitor sees there (others are left out); `items` the thumbnails of those still visible, in
   * the order given.
   */
  async favouriteGallery(at: SiteAddress, galleryUuid: string, pass: VisitorPass | undefined, now = Date.now()): Promise<FavouriteGallery | Refusal> {
    if (!isUuid(galleryUuid)) return { kind: 'not-found' };
    const row = await this.repo.galleryByUuid(at.website.id, galleryUuid);
    if (!row) return { kind: 'not-found' };
    const access = await this.access(at, row.full_url_path, pass);
    if (access.kind !== 'ok') return access.refusal;
    const { chain, gate, decision } = access;
    const gallery = chain[chain.length - 1];
    const visible = async (ids: readonly number[]): Promise<number[]> => {
      const order = await this.orders.of(gallery);
      return ids.filter((id) => order.positionOf(id) >= 0);
    };
    return {
      kind: 'favourites',
      uuid: gallery.uuid,
      title: gallery.name,
      href: galleryHref(at.homePath, gallery.full_url_path),
      crumbs: crumbs(at, chain),
      selection: selectionGallery(at, gallery, gate),
      rights: { compDownload: decision.compDownload, hiresDownload: decision.hiresDownload, web: controlsOf(gallery).size === 'web' },
      controls: controlsOf(gallery),
      idsOf: async (uuids) => {
        const found = await this.repo.mediaIds(uuids.filter(isUuid).map((u) => u.toLowerCase()));
        const shown = new Set(await visible([...found.values()]));
        return new Map([...found].filter(([, id]) => shown.has(id)));
      },
      items: async (ids) => {
        const shown = await visible(ids);
        const { medias, renditions } = await this.repo.medias(shown);
        const sign = this.signer(decision, pass, now, gallery.uuid, gate);
        return shown.flatMap((id, i) => {
          const m = medias.get(id);
          return m ? [{ id, uuid: m.uuid, title: titleOf(m), href: mediaHref(at.homePath, gallery.full_url_path, m.uuid), picture: picture(m, renditions.get(id) ?? [], sign, false, altOf(m) || `Chosen photo ${i + 1}`) }] : [];
        });
      },
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
   * Galleries search engines may index, and the media pages they show. Only galleries anyone may
   * find and open are listed: a hidden gallery, or one behind a password or an access list
   * (itself or above it), never appears, whatever its `indexing` says — `indexing` 2 lets such a
   * page be indexed when found, it does not announce it. `indexing` 0 is left out too.
   */
  async listed(website: SiteWebsite): Promise<Array<{ id: number; path: string; lastmod: string; gallery: SiteGallery }>> {
    // The website's own switch (studio, `website[indexing]` 0): nothing of it is announced.
    if (website.indexing === 0) return [];
    const chains = await this.visitors.everyChain(website.id);
    const out: Array<{ id: number; path: string; lastmod: string; gallery: SiteGallery }> = [];
    for (const [path, chain] of chains) {
      const g = chain.galleries[chain.galleries.length - 1];
      if (g.indexing === 0) continue;
      const listed = chain.galleries.every((c) => c.hidden === 0);
      const open = decide(chain.gate, undefined);
      if (listed && open.ok && !open.restricted) out.push({ id: g.id, path, lastmod: g.updated_at, gallery: g });
    }
    return out;
  }

  /**
   * Whether a crawler may find anything to index on the website (robots.txt keeps it out of the
   * whole website otherwise): a page of its navigation, or a gallery whose own page an anonymous
   * visitor may open and that says it may be indexed, decided per gallery as its page decides
   * (`indexable`): a hidden gallery whose indexing is 2 counts, though the sitemap never names it.
   */
  async crawlable(website: SiteWebsite): Promise<boolean> {
    if (website.indexing === 0) return false;
    if ((await this.repo.pageStamps(website.id)).length > 0) return true;
    for (const chain of (await this.visitors.everyChain(website.id)).values()) {
      const decision = decide(chain.gate, undefined);
      if (decision.ok && indexable(chain.galleries, decision)) return true;
    }
    return false;
  }

  /**
   * The sitemap (`part` undefined) or one part of it: the listed galleries, then the media pages
   * they show, gallery by gallery in each one's visible order. Up to `sitemapUrls` addresses it is
   * one file; beyond, the sitemap is an index of parts of that many (sitemap-1.xml, …). A part that
   * does not exist: undefined. The sizes and the part's medias come from the galleries' orders kept
   * under their stamps (the memo the gallery pages read), so a part costs its own addresses, not a
   * count of the whole website and a skip over the parts before it (issue 22).
   */
  async sitemap(website: SiteWebsite, part?: number): Promise<Sitemap | undefined> {
    if (website.indexing === 0) return undefined;
    const [galleries, pages] = await Promise.all([this.listed(website), this.repo.pageStamps(website.id)]);
    const home = this.homeUrl(website);
    // The galleries open to all, the website's own pages (About, Contact…), then the media pages.
    const fixed: SitemapEntry[] = [
      ...galleries.map((g) => ({ loc: home + galleryHref('', g.path), lastmod: g.lastmod })),
      ...pages.map((p) => ({ loc: `${home}/p/${p.slug}`, lastmod: p.updated_at })),
    ];
    // One gallery's order at a time: the memo builds a stale one once, and never many at once.
    const orders: GalleryOrder[] = [];
    for (const g of galleries) orders.push(await this.orders.of(g.gallery));
    const total = fixed.length + orders.reduce((n, o) => n + o.length, 0);
    const limit = this.sitemapUrls;
    const parts = Math.ceil(total / limit);
    if (part === undefined && parts > 1) return { kind: 'index', parts: Array.from({ length: parts }, (_, i) => `${home}/sitemap-${i + 1}.xml`) };
    if (part !== undefined && (parts <= 1 || part < 1 || part > parts)) return undefined;
    const start = part === undefined ? 0 : (part - 1) * limit;
    const end = Math.min(total, start + limit);
    const entries: SitemapEntry[] = fixed.slice(start, end);
    // The part's window of media pages: whole galleries before it skipped by their lengths.
    let skip = Math.max(start, fixed.length) - fixed.length;
    let want = end - Math.max(start, fixed.length);
    const picked: Array<{ path: string; id: number }> = [];
    for (let i = 0; i < orders.length && want > 0; i++) {
      const ids = orders[i]!.ids;
      if (skip >= ids.length) {
        skip -= ids.length;
        continue;
      }
      const slice = ids.subarray(skip, skip + want);
      skip = 0;
      want -= slice.length;
      for (const id of slice) picked.push({ path: galleries[i]!.path, id });
    }
    const stamps = await this.repo.mediaStamps(picked.map((p) => p.id));
    for (const p of picked) {
      // A media gone since its gallery's order was read is left out (the next stamp drops it).
      const m = stamps.get(p.id);
      if (m) entries.push({ loc: home + mediaHref('', p.path, m.uuid), lastmod: m.updated_at });
    }
    return { kind: 'urls', entries };
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
    if (decision.need === 'closed') return { kind: 'refused', refusal: { kind: 'closed', galleryName: gallery.name, crumbs: crumbs(at, chain) } };
    const back = galleryHref(at.homePath, gallery.full_url_path);
    const shown = await this.lockedGallery(gallery);
    if (decision.need === 'password') {
      const locked = chain.find((g) => g.uuid === decision.gallery)!;
      return { kind: 'refused', refusal: { kind: 'password', gallery: locked.uuid, galleryName: locked.name, back, crumbs: crumbs(at, chain), locked: shown } };
    }
    return { kind: 'refused', refusal: { kind: 'signin', back, crumbs: crumbs(at, chain), locked: shown } };
  }

  /**
   * The gallery a sign-in form returns to, as its refusal page shows it (name, date, public
   * cover) — only when this visitor is indeed asked to sign in for it; otherwise nothing.
   */
  async lockedForSignin(at: SiteAddress, fullUrlPath: string, pass: VisitorPass | undefined): Promise<LockedGallery | undefined> {
    const access = await this.access(at, fullUrlPath, pass);
    return access.kind === 'refused' && access.refusal.kind === 'signin' ? access.refusal.locked : undefined;
  }

  /** The gallery asked for as a visitor who may not open it sees it: its name, date and public cover (public addresses). */
  private async lockedGallery(g: SiteGallery): Promise<LockedGallery> {
    if (g.public_cover_media_id === null) return { name: g.name, date: g.published_at };
    const { medias, renditions } = await this.repo.medias([g.public_cover_media_id]);
    const m = medias.get(g.public_cover_media_id);
    const live = m && m.renditions_state !== 'failed';
    return { name: g.name, date: g.published_at, cover: live ? picture(m, renditions.get(m.id) ?? [], (key) => this.files.public(key)) : undefined };
  }

  /**
   * Public file addresses made absolute for cards and JSON-LD (read away from the page): on the
   * origin of the website's canonical home, which serves `/files` as every address of the service does.
   */
  private absoluteFiles(home: string): (key: string) => string {
    return (key) => new URL(this.files.public(key), home).href;
  }

  /**
   * File addresses for one decision: public ones when everyone may see them, else signed for this
   * visitor and for the gallery they are shown in (`galleryUuid`: the media must stay published
   * there), with the access stamp of its chain (`gate`: a change of access revokes them).
   */
  /**
   * Who a download address is for: a visitor whose pass proves an address gets it sealed
   * (FileUrls.sealClient), so the download is recorded as theirs (docs/delivery.md "Activity");
   * any other visitor, their pass id.
   */
  private downloaderOf(pass: VisitorPass | undefined): string {
    return pass?.share ? visitorOf(pass) : pass?.email ? this.files.sealClient(pass.email) : visitorOf(pass);
  }

  private signer(decision: Decision, pass: VisitorPass | undefined, now: number, galleryUuid: string, gate: readonly GateGallery[]): (key: string) => string {
    if (decision.ok && !decision.restricted) return (key) => this.files.public(key);
    const e = expiry(now);
    const v = visitorOf(pass);
    const stamp = this.files.accessStamp(accessState(gate));
    return (key) => this.files.signed(key, e, v, galleryUuid, false, stamp);
  }
}

/**
 * A page that may carry a share card and JSON-LD: one anyone may open, no password or access
 * list on the way. A hidden gallery (not listed, open to whoever has the link) has them too: a
 * link to it is meant to be passed on; it stays `noindex` (indexable below).
 */
function shareable(decision: Extract<Decision, { ok: true }>): boolean {
  return !decision.restricted;
}

function placeOf(m: SiteMedia): string | null {
  return [m.location, m.city, m.state, m.country].filter((s): s is string => !!s && s.trim() !== '').join(', ') || null;
}

/**
 * A position is shown to visitors only when the photographer set it: one a camera wrote into the
 * file stays in the library (the API shows it to its owner) and off the website, since it can
 * name a home or a nest (docs/media.md, "Metadata from the file").
 */
function positionOf(m: SiteMedia): MediaView['position'] {
  if ((Number(m.client_meta) & FIELD_BITS.position) === 0) return null;
  return m.latitude !== null && m.longitude !== null ? { latitude: m.latitude, longitude: m.longitude } : null;
}

/** What the JSON-LD says of a picture shown on a public page (its image at a public address). */
function imageFacts(m: SiteMedia, rs: readonly SiteRendition[], keywords: readonly string[], page: string, publicUrl: (key: string) => string): ImageFacts {
  return {
    title: titleOf(m),
    description: m.description,
    keywords,
    credit: creditOf(m),
    shotAt: m.shot_at,
    place: placeOf(m),
    position: positionOf(m),
    page,
    image: shareImage(rs, titleOf(m), publicUrl),
  };
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
  // A share link's addresses name the link: /files checks it is still live at each request.
  if (pass?.share) return `${SHARE_VISITOR}${pass.share.link}`;
  return pass?.id ?? 'anonymous';
}

/** `gate`: the chain's access; a password or an access list on the way makes it a client gallery (favourites on by default). */
function selectionGallery(at: SiteAddress, g: SiteGallery, gate: readonly GateGallery[]): SelectionGallery {
  const client = gate.some((x) => x.passwordProtected || x.acl.length > 0);
  return { id: g.id, ownerId: at.website.owner_id, name: g.name, pickLimit: g.pick_limit, favourites: favouritesOn(g.favourites, client), lists: listNamesOf(g.favourite_lists) };
}

function mayDownload(d: DownloadRights): boolean {
  return d.compDownload || d.hiresDownload;
}

/** A gallery's archive: `<gallery>/_archive.zip` (`<home>/_archive.zip` for the root). */
export function archiveHref(homePath: string, fullUrlPath: string): string {
  return fullUrlPath === '' ? `${homePath}/_archive.zip` : `${homePath}/-/${fullUrlPath}/_archive.zip`;
}

export function galleryHref(homePath: string, fullUrlPath: string): string {
  return fullUrlPath === '' ? `${homePath}/` : `${homePath}/-/${fullUrlPath}`;
}

function mediaHref(homePath: string, fullUrlPath: string, uuid: string): string {
  return fullUrlPath === '' ? `${homePath}/_/${uuid}` : `${homePath}/-/${fullUrlPath}/_/${uuid}`;
}

/** A sub-gallery as the access decision reads it, under its parent's chain. */
function gateOf(c: ChildGallery, acls: ReadonlyMap<number, readonly AclRule[]>): GateGallery {
  return { uuid: c.uuid, passwordProtected: c.password_hash !== null, passwordHash: c.password_hash, acl: acls.get(c.id) ?? [] };
}

function crumbs(at: SiteAddress, chain: readonly SiteGallery[]): Crumb[] {
  return chain.map((g) => ({ name: g.name, href: galleryHref(at.homePath, g.full_url_path) }));
}

/** How many levels below a gallery of galleries its cover is looked for. */
const COVER_DEPTH = 4;

/** A cover found below a gallery: the media, and the UUIDs of the sub-galleries down to the one it is published in. */
interface CoverBelow {
  media: number;
  path: string[];
}

/** The photographer's title, or '' when there is none: a file name is never shown as a title (issue 30). */
function titleOf(m: SiteMedia): string {
  return m.title && m.title.trim() !== '' ? m.title : '';
}

/** The image's text: the photographer's alt text (an extension), else its title, else '' (never its file name). */
function altOf(m: SiteMedia): string {
  return m.alt_text && m.alt_text.trim() !== '' ? m.alt_text : titleOf(m);
}

/** What names a photo where something must (a link's image, a page's <title>, a screen reader's heading): its title, else its place in the gallery. */
function nameOf(m: SiteMedia, galleryName: string, n: number, total: number): string {
  return titleOf(m) || `${galleryName}: photo ${n} of ${total}`;
}

/** The image renditions of one format: WebP when there are any (smaller), else JPEG; posters for videos. */
function ladder(rs: readonly SiteRendition[]): SiteRendition[] {
  const images = rs.filter((r) => r.name !== 'poster');
  const webp = images.filter((r) => r.mime_type === 'image/webp');
  const chosen = webp.length > 0 ? webp : images.filter((r) => r.mime_type === 'image/jpeg');
  if (chosen.length > 0) return [...chosen].sort((a, b) => a.width - b.width);
  return rs.filter((r) => r.name === 'poster');
}

/**
 * The `srcset` of the AVIF source: each size of the ladder as AVIF where it was made, else as it is
 * (every browser that decodes AVIF decodes WebP), so the largest sizes stay in reach; undefined
 * when the media has no AVIF (older, or its alternates still being made).
 */
function avifSrcset(rs: readonly SiteRendition[], sizes: readonly SiteRendition[], sign: (key: string) => string): string | undefined {
  const avif = new Map(rs.filter((r) => r.mime_type === 'image/avif').map((r) => [r.name, r]));
  if (avif.size === 0) return undefined;
  return sizes.map((r) => `${sign((avif.get(r.name) ?? r).storage_key)} ${r.width}w`).join(', ');
}

/** `alt`: the image's text (altOf unless told: a cover is named by its gallery's card, '' then). */
function picture(m: SiteMedia, rs: readonly SiteRendition[], sign: (key: string) => string, big = false, alt = altOf(m)): Picture {
  const sizes = ladder(rs);
  const top = sizes[sizes.length - 1];
  const width = m.width ?? top?.width ?? 4;
  const height = m.height ?? top?.height ?? 3;
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
    avifSrcset: avifSrcset(rs, sizes, sign),
  };
}

/**
 * The viewer's image: its fallback is the largest size up to 2048, its srcset every size (the
 * viewer sets `sizes` to the drawn width, so zooming in loads a larger one), and its dimensions
 * those of the largest size, the most it may be zoomed to without drawing above its pixels.
 */
function large(rs: readonly SiteRendition[], sign: (key: string) => string): MediaItem['large'] {
  const sizes = ladder(rs);
  if (sizes.length === 0) return undefined;
  const pick = [...sizes].reverse().find((r) => Math.max(r.width, r.height) <= 2048) ?? sizes[0];
  const top = sizes[sizes.length - 1];
  return { src: sign(pick.storage_key), srcset: sizes.map((r) => `${sign(r.storage_key)} ${r.width}w`).join(', '), width: top.width, height: top.height };
}

// Every query of the visitor website: websites by address, a gallery and the
// chain above it, sub-galleries with their covers, the medias a visitor may see
// (live, renditions not failed, published to the gallery), their renditions
// and keywords, and what the sitemap lists. Reads only.
import { sql } from 'kysely';
import type { Db } from '../database/db.js';
import { prepared, preparedAll } from '../database/prepared.js';
import type { OrderableMedia } from '../galleries/content-order.js';
import type { GalleryRow, MediaRow, RenditionRow, WebsiteRow } from '../database/schema.js';

/** One entry of a gallery's access list, as the access decision (access.ts) reads it. */
export interface AclRule {
  /** DEFAULT, or a lower-cased client address. */
  email: string;
  read: boolean;
  compDownload: boolean;
  hiresDownload: boolean;
}

/**
 * A website as its pages know it. The brand's columns are there when the pages' lookups read it
 * (below); the sign-in links' lookups (signin/repository.ts) leave them out, and what they render
 * wears the default theme.
 */
export type SiteWebsite = Pick<WebsiteRow, 'id' | 'uuid' | 'urlname' | 'title' | 'hostname' | 'owner_id'> &
  Partial<
    Pick<
      WebsiteRow,
      'updated_at' | 'tagline' | 'logo_media_id' | 'favicon_media_id' | 'color_scheme' | 'accent_color' | 'theme' | 'credit' | 'copyright' | 'contact_email' | 'social_links' | 'indexing' | 'hero_fit' | 'hero_headline' | 'hero_tagline'
    >
  > & {
  /** The root gallery's name: the navigation's first entry. */
  root_name?: string | null;
  /** The brand's other parts (look/brand.ts), once loaded. */
  extras?: BrandExtras;
};

/** What the brand needs beyond the website's row: its pages' titles and its logo's and favicon's renditions. */
export interface BrandExtras {
  nav: Array<{ slug: string; title: string }>;
  renditions: SiteRendition[];
  /** The top-level galleries open to everyone, in their list order (the navigation's; at most NAV_GALLERIES). */
  galleries?: Array<{ name: string; full_url_path: string }>;
}

/** Top-level galleries in the navigation, at most. */
export const NAV_GALLERIES = 8;

const WEBSITE_COLUMNS = [
  'w.id',
  'w.uuid',
  'w.urlname',
  'w.title',
  'w.hostname',
  // The photographer: owner of the lightboxes its clients' favourites make (docs/delivery.md).
  'w.owner_id',
  'w.indexing',
  'w.updated_at',
  'w.tagline',
  'w.logo_media_id',
  'w.favicon_media_id',
  'w.color_scheme',
  'w.accent_color',
  'w.theme',
  'w.credit',
  'w.copyright',
  'w.contact_email',
  'w.social_links',
  'w.hero_fit',
  'w.hero_headline',
  'w.hero_tagline',
  'root.name as root_name',
] as const;

export type SiteGallery = Pick<
  GalleryRow,
  | 'id' | 'uuid' | 'parent_id' | 'name' | 'full_url_path' | 'description' | 'hidden' | 'indexing' | 'password_hash'
  | 'content_order' | 'content_order_direction' | 'cover_media_id' | 'public_cover_media_id' | 'published_at' | 'updated_at' | 'order_stamp' | 'pick_limit' | 'favourites' | 'favourite_lists'
  | 'expires_at' | 'download_pin' | 'download_limit' | 'download_size'
> & { layout: string | null; crop: number | null; spacing: string | null; captions: number | null };

/** A media a visitor may see in a gallery, with what orders it. */
export type OrderRow = OrderableMedia;

/** The one field each content order compares besides the manual position (content-order.ts). */
const ORDER_FIELDS: Record<string, 'm.file_name' | 'mg.published_at as mg_published_at' | 'm.shot_at' | 'm.created_at' | 'm.updated_at' | 'm.artist_rating'> = {
  file_name: 'm.file_name',
  file_name_nat: 'm.file_name',
  published_at: 'mg.published_at as mg_published_at',
  shot_at: 'm.shot_at',
  created_at: 'm.created_at',
  updated_at: 'm.updated_at',
  artist_rating: 'm.artist_rating',
};

export type SiteMedia = Pick<
  MediaRow,
  | 'id' | 'uuid' | 'file_name' | 'mime_type' | 'storage_key' | 'title' | 'description' | 'location' | 'city' | 'state' | 'country'
  | 'shot_at' | 'width' | 'height' | 'renditions_state' | 'author' | 'copyright' | 'license' | 'alt_text' | 'latitude' | 'longitude' | 'client_meta'
>;

export type SiteRendition = Pick<RenditionRow, 'media_id' | 'name' | 'width' | 'height' | 'mime_type' | 'storage_key' | 'watermarked'>;

export type ChildGallery = Pick<GalleryRow, 'id' | 'uuid' | 'name' | 'full_url_path' | 'password_hash' | 'cover_media_id' | 'public_cover_media_id' | 'published_at'>;

const GALLERY_COLUMNS = [
  'g.id',
  'g.uuid',
  'g.parent_id',
  'g.name',
  'g.full_url_path',
  'g.description',
  'g.hidden',
  'g.indexing',
  'g.password_hash',
  'g.content_order',
  'g.content_order_direction',
  'g.cover_media_id',
  'g.public_cover_media_id',
  'g.published_at',
  'ds.layout',
  'ds.crop',
  'ds.spacing',
  'ds.captions',
  'g.updated_at',
  'g.order_stamp',
  'g.pick_limit',
  'g.favourites',
  'g.favourite_lists',
  'g.expires_at',
  'g.download_pin',
  'g.download_limit',
  'g.download_size',
] as const;

const MEDIA_COLUMNS = [
  'm.id',
  'm.uuid',
  'm.file_name',
  'm.mime_type',
  'm.storage_key',
  'm.title',
  'm.description',
  'm.location',
  'm.city',
  'm.state',
  'm.country',
  'm.shot_at',
  'm.width',
  'm.height',
  'm.renditions_state',
  'm.author',
  'm.copyright',
  'm.license',
  'm.alt_text',
  'm.latitude',
  'm.longitude',
  'm.client_meta',
] as const;

/**
 * The websites with their root gallery's name (one join: renaming it shows on every page at once).
 * The root is the gallery whose full url path is '': found by the (website, full url path) index,
 * one row whatever the number of galleries or websites. A disabled owner's website is none: an
 * operator's disabling takes the photographer's pages down with their sign-in.
 */
function websites(db: Db) {
  return db
    .selectFrom('websites as w')
    .innerJoin('users as owner', (j) => j.onRef('owner.id', '=', 'w.owner_id').on('owner.disabled_at', 'is', null))
    .leftJoin('galleries as root', (j) => j.onRef('root.website_id', '=', 'w.id').on('root.full_url_path', '=', '').on('root.parent_id', 'is', null))
    .select(WEBSITE_COLUMNS);
}

// Compiled once (src/database/prepared.ts): every page request starts with one of these.
const websiteByUrlname = prepared((db: Db, urlname: string) => websites(db).where('w.urlname', '=', urlname));
const websitesByHost = preparedAll((db: Db, hosts: readonly string[]) => websites(db).where(sql<string>`lower(w.hostname)`, 'in', hosts).orderBy('w.id'));

// The shop's pages (their lines' photos), compiled once.
const shownInQuery = preparedAll((db: Db, websiteId: number, mediaUuids: readonly string[]) =>
  db
    .selectFrom('media_galleries as mg')
    .innerJoin('galleries as g', 'g.id', 'mg.gallery_id')
    .innerJoin('medias as m', 'm.id', 'mg.media_id')
    .select(['mg.media_id', 'g.full_url_path'])
    .where('m.uuid', 'in', mediaUuids)
    .where('g.website_id', '=', websiteId)
    .where('m.status', '=', sql.lit('live'))
    .where('m.renditions_state', '!=', sql.lit('failed'))
    .orderBy('mg.media_id')
    .orderBy('g.id'),
);

// What every gallery, media and shop page reads (the chain loader, the access lists, the media
// reader), compiled once: building them in Kysely for each request cost about what running them
// did (issue 33's profile of the cart and gallery pages).
const aclRows = (db: Db) =>
  db.selectFrom('gallery_acl as a').innerJoin('galleries as g', 'g.id', 'a.gallery_id').select(['a.gallery_id', 'a.email', 'a.can_read', 'a.comp_download', 'a.hires_download']);
const aclsOfGalleries = preparedAll((db: Db, galleryIds: readonly number[]) => aclRows(db).where('a.gallery_id', 'in', galleryIds).orderBy('a.gallery_id').orderBy('a.position'));
const aclsOfWebsite = preparedAll((db: Db, websiteId: number) => aclRows(db).where('g.website_id', '=', websiteId).orderBy('a.gallery_id').orderBy('a.position'));
const chainRows = (db: Db, websiteId: number) => db.selectFrom('galleries as g').leftJoin('display_styles as ds', 'ds.id', 'g.display_style_id').select(GALLERY_COLUMNS).where('g.website_id', '=', websiteId);
const galleriesAt = preparedAll((db: Db, websiteId: number, paths: readonly string[]) => chainRows(db, websiteId).where('g.full_url_path', 'in', paths));
const galleriesOfWebsite = preparedAll((db: Db, websiteId: number) => chainRows(db, websiteId).orderBy('g.full_url_path'));
const mediasByIds = preparedAll((db: Db, ids: readonly number[]) => db.selectFrom('medias as m').select(MEDIA_COLUMNS).where('m.id', 'in', ids));
const renditionsOf = preparedAll((db: Db, ids: readonly number[]) =>
  db.selectFrom('renditions').select(['media_id', 'name', 'width', 'height', 'mime_type', 'storage_key', 'watermarked']).where('media_id', 'in', ids).orderBy('media_id').orderBy('width'),
);
const keywordsOf = preparedAll((db: Db, ids: readonly number[]) => db.selectFrom('media_keywords').select(['media_id', 'keyword']).where('media_id', 'in', ids).orderBy('media_id').orderBy('position'));

/**
 * The access lists of galleries (or of every gallery of a website) as the access
 * decision reads them, entries in position order (DEFAULT first); galleries
 * without one are absent.
 */
async function aclRulesOf(db: Db, of: { galleryIds: readonly number[] } | { websiteId: number }): Promise<Map<number, AclRule[]>> {
  if ('galleryIds' in of && of.galleryIds.length === 0) return new Map();
  const rows = await ('galleryIds' in of ? aclsOfGalleries(db, of.galleryIds) : aclsOfWebsite(db, of.websiteId));
  const out = new Map<number, AclRule[]>();
  for (const r of rows) {
    let list = out.get(r.gallery_id);
    if (!list) out.set(r.gallery_id, (list = []));
    list.push({ email: r.email, read: r.can_read === 1, compDownload: r.comp_download === 1, hiresDownload: r.hires_download === 1 });
  }
  return out;
}

/** The full url paths from the root down to `fullUrlPath`: its prefixes, '' first. */
export function ancestorPaths(fullUrlPath: string): string[] {
  const segments = fullUrlPath === '' ? [] : fullUrlPath.split('/');
  const out = [''];
  for (let i = 1; i <= segments.length; i++) out.push(segments.slice(0, i).join('/'));
  return out;
}

/** A stored file as the file route sees it. */
export type StoredFileInfo =
  /** `title`, `fileName`: its media's, to name a download. */
  | { kind: 'rendition'; mimeType: string; bytes: number; mediaId: number; title: string | null; fileName: string }
  | { kind: 'original'; mimeType: string; bytes: number | null; mediaId: number; fileName: string };

/** A media as an archive reads it: its original and its renditions, with their sizes. */
export interface ArchiveMedia {
  id: number;
  file_name: string;
  title: string | null;
  mime_type: string | null;
  storage_key: string | null;
  file_size: number | null;
  shot_at: string | null;
  renditions: Array<SiteRendition & { bytes: number }>;
}

/** Chains by leaf path, and the access lists of their galleries by gallery id. */
export interface LoadedChains {
  chains: Map<string, SiteGallery[]>;
  acls: Map<number, AclRule[]>;
}

export class SiteRepository {
  constructor(private readonly db: Db) {}

  async websiteByUrlname(urlname: string): Promise<SiteWebsite | undefined> {
    return websiteByUrlname(this.db, urlname);
  }

  /** A website by its id or UUID (the brand of its mails: mail-brand.ts). */
  websiteBy(ref: { id: number } | { uuid: string }): Promise<SiteWebsite | undefined> {
    const q = websites(this.db);
    return ('id' in ref ? q.where('w.id', '=', ref.id) : q.where('w.uuid', '=', ref.uuid)).executeTakeFirst();
  }

  /**
   * The brand's pages (titles for the navigation) and the renditions of its logo and favicon
   * medias while they are live: two queries, whatever the website holds.
   */
  async brandExtras(websiteId: number, mediaIds: readonly number[], now = new Date().toISOString()): Promise<BrandExtras> {
    const [nav, galleries, renditions] = await Promise.all([
      this.db.selectFrom('website_pages').select(['slug', 'title']).where('website_id', '=', websiteId).orderBy('position').orderBy('slug').execute(),
      // Client galleries (a password, an access list), hidden and closed ones stay out of the navigation.
      this.db
        .selectFrom('galleries as g')
        .innerJoin('galleries as root', 'root.id', 'g.parent_id')
        .select(['g.name', 'g.full_url_path'])
        .where('root.website_id', '=', websiteId)
        .where('root.parent_id', 'is', null)
        .where('g.hidden', '=', 0)
        .where('g.password_hash', 'is', null)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('gallery_acl as a').select('a.gallery_id').whereRef('a.gallery_id', '=', 'g.id'))))
        .where((eb) => eb.or([eb('g.expires_at', 'is', null), eb('g.expires_at', '>', now)]))
        .orderBy('g.list_pos')
        .orderBy('g.id')
        .limit(NAV_GALLERIES)
        .execute(),
      mediaIds.length === 0
        ? Promise.resolve([])
        : this.db
            .selectFrom('renditions as r')
            .innerJoin('medias as m', 'm.id', 'r.media_id')
            .select(['r.media_id', 'r.name', 'r.width', 'r.height', 'r.mime_type', 'r.storage_key', 'r.watermarked'])
            .where('r.media_id', 'in', mediaIds)
            .where('m.status', '=', 'live')
            .orderBy('r.media_id')
            .orderBy('r.width')
            .execute(),
    ]);
    return { nav, renditions, galleries };
  }

  /** A website's pages for its sitemap, in navigation order (a handful: pages are written by hand). */
  pageStamps(websiteId: number): Promise<Array<{ slug: string; updated_at: string }>> {
    return this.db.selectFrom('website_pages').select(['slug', 'updated_at']).where('website_id', '=', websiteId).orderBy('position').orderBy('slug').execute();
  }

  /** A page of a website by its slug. */
  page(websiteId: number, slug: string): Promise<{ slug: string; title: string; body: string; updated_at: string } | undefined> {
    return this.db.selectFrom('website_pages').select(['slug', 'title', 'body', 'updated_at']).where('website_id', '=', websiteId).where('slug', '=', slug).executeTakeFirst();
  }

  /** Whether a live media is the logo, the favicon or a hero photo of a website: its renditions are public. */
  async isBrandMedia(mediaId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('websites')
      .select('id')
      .where((eb) =>
        eb.or([eb('logo_media_id', '=', mediaId), eb('favicon_media_id', '=', mediaId), eb('id', 'in', eb.selectFrom('website_hero').select('website_id').where('media_id', '=', mediaId))]),
      )
      .where((eb) => eb.exists(eb.selectFrom('medias').select('id').where('id', '=', mediaId).where('status', '=', 'live')))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The home page's hero photos in order: those still live with renditions not failed (one query, at most MAX_HERO rows). */
  async heroMedias(websiteId: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('website_hero as h')
      .innerJoin('medias as m', 'm.id', 'h.media_id')
      .select('h.media_id')
      .where('h.website_id', '=', websiteId)
      .where('m.status', '=', 'live')
      .where('m.renditions_state', '!=', 'failed')
      .orderBy('h.position')
      .execute();
    return rows.map((r) => r.media_id);
  }

  /** The galleries featured on the home page in order, those of the website not closed (one query, at most MAX_FEATURED rows). */
  featuredGalleries(websiteId: number, now = new Date().toISOString()): Promise<ChildGallery[]> {
    return this.db
      .selectFrom('website_featured as f')
      .innerJoin('galleries as g', 'g.id', 'f.gallery_id')
      .select(['g.id', 'g.uuid', 'g.name', 'g.full_url_path', 'g.password_hash', 'g.cover_media_id', 'g.public_cover_media_id', 'g.published_at'])
      .where('f.website_id', '=', websiteId)
      .where('g.website_id', '=', websiteId)
      .where((eb) => eb.or([eb('g.expires_at', 'is', null), eb('g.expires_at', '>', now)]))
      .orderBy('f.position')
      .execute();
  }

  /** How many photos a visitor may see in each gallery (live, renditions not failed): one grouped query. */
  async photoCounts(galleryIds: readonly number[]): Promise<Map<number, number>> {
    if (galleryIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('media_galleries as mg')
      .innerJoin('medias as m', 'm.id', 'mg.media_id')
      .select(['mg.gallery_id', (eb) => eb.fn.countAll().as('n')])
      .where('mg.gallery_id', 'in', [...galleryIds])
      .where('m.status', '=', 'live')
      .where('m.renditions_state', '!=', 'failed')
      .groupBy('mg.gallery_id')
      .execute();
    return new Map(rows.map((r) => [r.gallery_id, Number(r.n)]));
  }

  /**
   * Whether a host name (lower-case, as a TLS client names it: no port) is the verified name of a
   * website whose owner may sign in: what the TLS `ask` answers. One probe of lower(hostname)'s index.
   */
  async activeHost(name: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('websites as w')
      .innerJoin('users as u', 'u.id', 'w.owner_id')
      .select('w.id')
      .where(sql<string>`lower(w.hostname)`, '=', name)
      .where('u.disabled_at', 'is', null)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The website at a Host header (`name` or `name:port`, lower-cased): a hostname set with its port wins over one without. */
  async websiteByHost(host: string, name: string): Promise<SiteWebsite | undefined> {
    const rows = await websitesByHost(this.db, [host, name]);
    return rows.find((r) => r.hostname!.toLowerCase() === host) ?? rows[0];
  }

  /**
   * The one chain loader of the website: for each leaf (a full url path of the website), the
   * galleries from the root down to it, the root first (absent when a link is missing or not the
   * child of the one before), and the access lists of every gallery loaded. The ancestors' full
   * url paths are the prefixes of a leaf's: one query for the galleries and one for their access
   * lists, whatever the number of leaves. `leaves` undefined: every gallery of the website (the
   * sitemap; a website holds at most 20 000), by path order.
   */
  async chains(websiteId: number, leaves: readonly string[] | undefined): Promise<LoadedChains> {
    if (leaves?.length === 0) return { chains: new Map(), acls: new Map() };
    const wanted = leaves && [...new Set(leaves.flatMap(ancestorPaths))];
    const rows = await (wanted ? galleriesAt(this.db, websiteId, wanted) : galleriesOfWebsite(this.db, websiteId));
    const acls = await aclRulesOf(this.db, leaves ? { galleryIds: rows.map((r) => r.id) } : { websiteId });
    const byPath = new Map(rows.map((r) => [r.full_url_path, r]));
    const chains = new Map<string, SiteGallery[]>();
    for (const leaf of leaves ?? rows.map((r) => r.full_url_path)) {
      const chain: SiteGallery[] = [];
      for (const p of ancestorPaths(leaf)) {
        const g = byPath.get(p);
        // A root gallery has no parent; every other link must be the child of the one before.
        if (!g || (chain.length === 0 ? g.parent_id !== null : g.parent_id !== chain[chain.length - 1].id)) break;
        chain.push(g);
      }
      if (chain.length > 0 && chain[chain.length - 1].full_url_path === leaf) chains.set(leaf, chain);
    }
    return { chains, acls };
  }

  /**
   * The galleries a live media is published in, with their website: where /files looks for a
   * chain that lets a visitor have its files.
   */
  publishedIn(mediaId: number): Promise<Array<{ website_id: number; uuid: string; full_url_path: string }>> {
    return this.db
      .selectFrom('media_galleries as mg')
      .innerJoin('galleries as g', 'g.id', 'mg.gallery_id')
      .innerJoin('medias as m', 'm.id', 'mg.media_id')
      .select(['g.website_id', 'g.uuid', 'g.full_url_path'])
      .where('mg.media_id', '=', mediaId)
      .where('m.status', '=', 'live')
      .execute();
  }

  /**
   * Where each of these medias (UUIDs) is shown on a website: the galleries whose visible order
   * holds it (live, renditions not failed: as orderRows reads an order), one query, by media
   * then gallery.
   */
  async shownIn(websiteId: number, mediaUuids: readonly string[]): Promise<Array<{ media_id: number; full_url_path: string }>> {
    return shownInQuery(this.db, websiteId, [...mediaUuids]);
  }

  /** Whether a live media is the public cover of a gallery (a protected gallery's, chosen by its photographer as public). */
  async isPublicCover(mediaId: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('galleries as g')
      .innerJoin('medias as m', 'm.id', 'g.public_cover_media_id')
      .select('g.id')
      .where('g.public_cover_media_id', '=', mediaId)
      .where('m.status', '=', 'live')
      // A closed gallery shows no card, so its public cover is public no more.
      .where((eb) => eb.or([eb('g.expires_at', 'is', null), eb('g.expires_at', '>', new Date().toISOString())]))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Access lists of several galleries, entries in position order (DEFAULT first). */
  acls(galleryIds: readonly number[]): Promise<Map<number, AclRule[]>> {
    return aclRulesOf(this.db, { galleryIds });
  }

  /** Sub-galleries shown in navigation (not hidden), in their list order. */
  listedChildren(galleryId: number, now = new Date().toISOString()): Promise<ChildGallery[]> {
    return this.db
      .selectFrom('galleries')
      .select(['id', 'uuid', 'name', 'full_url_path', 'password_hash', 'cover_media_id', 'public_cover_media_id', 'published_at'])
      .where('parent_id', '=', galleryId)
      .where('hidden', '=', 0)
      // A closed gallery (past its expiry) is listed no more; UTC text of one form compares as time.
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .orderBy('list_pos')
      .orderBy('id')
      .execute();
  }

  /** The listed sub-galleries (not hidden) of several galleries, each parent's in its list order. */
  listedChildrenOf(parentIds: readonly number[], now = new Date().toISOString()): Promise<Array<Pick<GalleryRow, 'id' | 'uuid' | 'parent_id' | 'password_hash'>>> {
    if (parentIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('galleries')
      .select(['id', 'uuid', 'parent_id', 'password_hash'])
      .where('parent_id', 'in', [...parentIds])
      .where('hidden', '=', 0)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .orderBy('parent_id')
      .orderBy('list_pos')
      .orderBy('id')
      .execute();
  }

  /**
   * A cover for each gallery: its cover media when that one is visible in it,
   * else its first visible media in manual order. Three indexed queries, none
   * per gallery nor per media.
   */
  async covers(galleryIds: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (galleryIds.length === 0) return out;
    const chosen = await this.db
      .selectFrom('galleries as c')
      .innerJoin('media_galleries as mg', (j) => j.onRef('mg.gallery_id', '=', 'c.id').onRef('mg.media_id', '=', 'c.cover_media_id'))
      .innerJoin('medias as m', 'm.id', 'mg.media_id')
      .select(['c.id', 'mg.media_id'])
      .where('c.id', 'in', galleryIds)
      .where('m.status', '=', 'live')
      .where('m.renditions_state', '!=', 'failed')
      .execute();
    for (const r of chosen) out.set(r.id, r.media_id);
    const rest = galleryIds.filter((id) => !out.has(id));
    if (rest.length === 0) return out;
    const firsts = await this.db
      .selectFrom('media_galleries as mg')
      .innerJoin('medias as m', 'm.id', 'mg.media_id')
      .select(['mg.gallery_id', (eb) => eb.fn.min('mg.position').as('position')])
      .where('mg.gallery_id', 'in', rest)
      .where('m.status', '=', 'live')
      .where('m.renditions_state', '!=', 'failed')
      .groupBy('mg.gallery_id')
      .execute();
    if (firsts.length === 0) return out;
    const wanted = new Map(firsts.map((f) => [f.gallery_id, Number(f.position)]));
    const rows = await this.db
      .selectFrom('media_galleries as mg')
      .innerJoin('medias as m', 'm.id', 'mg.media_id')
      .select(['mg.gallery_id', 'mg.media_id', 'mg.position'])
      .where('mg.gallery_id', 'in', [...wanted.keys()])
      .where('mg.position', 'in', [...new Set(wanted.values())])
      .where('m.status', '=', 'live')
      .where('m.renditions_state', '!=', 'failed')
      .orderBy('mg.media_id')
      .execute();
    for (const r of rows) if (wanted.get(r.gallery_id) === r.position && !out.has(r.gallery_id)) out.set(r.gallery_id, r.media_id);
    return out;
  }

  /**
   * What orders the medias a visitor may see in a gallery (live, published there, renditions not
   * failed) in `contentOrder`: the membership and the one field that order compares; the fields
   * other orders compare are left out (null), as the memo of a 50 000-media gallery is built from
   * these rows and would otherwise hold every field of every media at once.
   */
  async orderRows(galleryId: number, contentOrder: string): Promise<OrderRow[]> {
    // Manual orders compare the position only; an order this code does not know sorts as published_at does.
    const field = contentOrder.startsWith('manual') ? undefined : (ORDER_FIELDS[contentOrder] ?? ORDER_FIELDS.published_at);
    const q = this.db
      .selectFrom('media_galleries as mg')
      .innerJoin('medias as m', 'm.id', 'mg.media_id')
      .select(['mg.media_id', 'mg.position'])
      .where('mg.gallery_id', '=', galleryId)
      .where('m.status', '=', 'live')
      .where('m.renditions_state', '!=', 'failed');
    const rows = await (field === undefined ? q : q.select(field)).execute();
    return rows as unknown as OrderRow[];
  }

  /** A media's id by its UUID (the gallery's order says whether the gallery shows it). */
  async mediaId(uuid: string): Promise<number | undefined> {
    const r = await this.db.selectFrom('medias').select('id').where('uuid', '=', uuid).executeTakeFirst();
    return r?.id;
  }

  /** Ids of medias by (lower-cased) UUID, for those that exist. */
  async mediaIds(uuids: readonly string[]): Promise<Map<string, number>> {
    if (uuids.length === 0) return new Map();
    const rows = await this.db.selectFrom('medias').select(['id', 'uuid']).where('uuid', 'in', uuids).execute();
    return new Map(rows.map((r) => [r.uuid, r.id]));
  }

  /** UUIDs of medias by id. */
  async uuids(ids: readonly number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('medias').select(['id', 'uuid']).where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, r.uuid]));
  }

  /** UUIDs and last changes of medias by id (a sitemap part's media pages), in queries of at most 1000 ids. */
  async mediaStamps(ids: readonly number[]): Promise<Map<number, { uuid: string; updated_at: string }>> {
    const out = new Map<number, { uuid: string; updated_at: string }>();
    for (let i = 0; i < ids.length; i += 1000) {
      const rows = await this.db.selectFrom('medias').select(['id', 'uuid', 'updated_at']).where('id', 'in', ids.slice(i, i + 1000)).execute();
      for (const r of rows) out.set(r.id, { uuid: r.uuid, updated_at: r.updated_at });
    }
    return out;
  }

  /**
   * A lightbox of the website's owner shown through a share link (docs/integrations.md "Share
   * links"): its name and its live medias' ids in the lightbox's order; undefined when it is none of theirs.
   */
  async lightbox(ownerId: number, uuid: string): Promise<{ name: string; mediaIds: number[] } | undefined> {
    const box = await this.db.selectFrom('lightboxes').select(['id', 'name']).where('uuid', '=', uuid).where('owner_id', '=', ownerId).executeTakeFirst();
    if (!box) return undefined;
    const rows = await this.db
      .selectFrom('lightbox_medias as lm')
      .innerJoin('medias as m', 'm.id', 'lm.media_id')
      .select('m.id')
      .where('lm.lightbox_id', '=', box.id)
      .where('m.status', '=', 'live')
      .orderBy('lm.position')
      .orderBy('m.id')
      .execute();
    return { name: box.name, mediaIds: rows.map((r) => r.id) };
  }

  /** Medias by id with their renditions and keywords, three queries for any number. */
  async medias(ids: readonly number[]): Promise<{ medias: Map<number, SiteMedia>; renditions: Map<number, SiteRendition[]>; keywords: Map<number, string[]> }> {
    const medias = new Map<number, SiteMedia>();
    const renditions = new Map<number, SiteRendition[]>();
    const keywords = new Map<number, string[]>();
    if (ids.length === 0) return { medias, renditions, keywords };
    const [m, r, k] = await Promise.all([mediasByIds(this.db, ids), renditionsOf(this.db, ids), keywordsOf(this.db, ids)]);
    for (const row of m) medias.set(row.id, row);
    for (const row of r) {
      let list = renditions.get(row.media_id);
      if (!list) renditions.set(row.media_id, (list = []));
      list.push(row);
    }
    for (const row of k) {
      let list = keywords.get(row.media_id);
      if (!list) keywords.set(row.media_id, (list = []));
      list.push(row.keyword);
    }
    return { medias, renditions, keywords };
  }

  /**
   * What an archive (delivery/archives.ts) reads of some medias of one gallery: those still live, not
   * failed and published there (a media unpublished since the archive started is left out), with
   * their original's key and size and their renditions' keys and sizes. Two queries per call;
   * the archive asks for a bounded chunk at a time.
   */
  async archiveFiles(galleryId: number, ids: readonly number[]): Promise<Map<number, ArchiveMedia>> {
    const out = new Map<number, ArchiveMedia>();
    if (ids.length === 0) return out;
    const [medias, rows] = await Promise.all([
      this.db
        .selectFrom('medias as m')
        .innerJoin('media_galleries as mg', 'mg.media_id', 'm.id')
        .select(['m.id', 'm.file_name', 'm.title', 'm.mime_type', 'm.storage_key', 'm.file_size', 'm.shot_at'])
        .where('mg.gallery_id', '=', galleryId)
        .where('m.id', 'in', ids)
        .where('m.status', '=', 'live')
        .where('m.renditions_state', '!=', 'failed')
        .execute(),
      this.db
        .selectFrom('renditions')
        .select(['media_id', 'name', 'width', 'height', 'mime_type', 'storage_key', 'watermarked', 'bytes'])
        .where('media_id', 'in', ids)
        .orderBy('media_id')
        .orderBy('width')
        .execute(),
    ]);
    for (const m of medias) out.set(m.id, { ...m, file_size: m.file_size === null ? null : Number(m.file_size), renditions: [] });
    for (const r of rows) out.get(r.media_id)?.renditions.push(r);
    return out;
  }

  /** A gallery of a website by UUID (the password form names it). */
  galleryByUuid(websiteId: number, uuid: string): Promise<{ id: number; uuid: string; full_url_path: string; password_hash: string | null } | undefined> {
    // full_url_path: a favourite names its gallery by UUID, and is then decided on that path's chain.
    return this.db
      .selectFrom('galleries')
      .select(['id', 'uuid', 'full_url_path', 'password_hash'])
      .where('website_id', '=', websiteId)
      .where('uuid', '=', uuid.toLowerCase())
      .executeTakeFirst();
  }

  /** What `key` is: a rendition, the original of a live media, or nothing we serve. */
  async fileInfo(key: string): Promise<StoredFileInfo | undefined> {
    const r = await this.db
      .selectFrom('renditions as r')
      .innerJoin('medias as m', 'm.id', 'r.media_id')
      .select(['r.media_id', 'r.mime_type', 'r.bytes', 'm.title', 'm.file_name'])
      .where('r.storage_key', '=', key)
      .executeTakeFirst();
    if (r) return { kind: 'rendition', mimeType: r.mime_type, bytes: r.bytes, mediaId: r.media_id, title: r.title, fileName: r.file_name };
    const m = await this.db.selectFrom('medias').select(['id', 'mime_type', 'file_size', 'file_name']).where('storage_key', '=', key).where('status', '=', 'live').executeTakeFirst();
    if (m) return { kind: 'original', mimeType: m.mime_type ?? 'application/octet-stream', bytes: m.file_size === null ? null : Number(m.file_size), mediaId: m.id, fileName: m.file_name };
    return undefined;
  }
}

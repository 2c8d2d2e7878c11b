// SQL of websites, their members (website sharing) and their display styles.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../database/db.js';
import { nowIso } from '../database/db.js';
import type { DisplayStyleRow, WebsitePageRow, WebsiteRow } from '../database/schema.js';

/** A website as the list shows it, with its root gallery. */
export type WebsiteListRow = Pick<WebsiteRow, 'uuid' | 'urlname' | 'title' | 'hostname' | 'created_at' | 'updated_at'> & { root_uuid: string | null };

export type DisplayStyleListRow = Pick<DisplayStyleRow, 'uuid' | 'name' | 'layout' | 'is_default' | 'created_at'>;

export interface NewWebsiteRow {
  ownerId: number;
  urlname: string;
  title: string;
  hostname: string | null;
}

/** Ids of the websites a user owns or was given access to: the only ones they may see. */
function accessibleWebsites(db: Db, userId: number) {
  return db
    .selectFrom('websites')
    .where((eb) =>
      eb.or([
        eb('websites.owner_id', '=', userId),
        eb('websites.id', 'in', eb.selectFrom('website_members').select('website_id').where('user_id', '=', userId)),
      ]),
    );
}

export class WebsitesRepository {
  constructor(private readonly db: Db) {}

  async countAccessible(userId: number): Promise<number> {
    const [{ total }] = await accessibleWebsites(this.db, userId)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .execute();
    return Number(total);
  }

  accessible(userId: number, limit: number, offset: number): Promise<WebsiteListRow[]> {
    return accessibleWebsites(this.db, userId)
      .leftJoin('galleries', (j) => j.onRef('galleries.website_id', '=', 'websites.id').on('galleries.parent_id', 'is', null))
      .select(['websites.uuid', 'websites.urlname', 'websites.title', 'websites.hostname', 'websites.created_at', 'websites.updated_at', 'galleries.uuid as root_uuid'])
      .orderBy('websites.id')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** Any website by its urlname, whoever may see it (the operator's commands). */
  byUrlname(urlname: string): Promise<Pick<WebsiteRow, 'id' | 'uuid' | 'urlname'> | undefined> {
    return this.db.selectFrom('websites').select(['id', 'uuid', 'urlname']).where('urlname', '=', urlname).executeTakeFirst();
  }

  /**
   * A website with its display styles (the first one the default) and its
   * root gallery, in one transaction. The root gallery's row is written here,
   * not by the galleries feature: it is part of creating the website.
   */
  create(input: NewWebsiteRow, styles: ReadonlyArray<{ name: string; layout: string }>): Promise<{ uuid: string; urlname: string; rootGalleryUuid: string }> {
    const now = nowIso();
    return this.db.transaction().execute(async (trx) => {
      const website = await trx
        .insertInto('websites')
        .values({ uuid: randomUUID(), urlname: input.urlname, title: input.title, hostname: input.hostname, owner_id: input.ownerId, created_at: now, updated_at: now })
        .returning(['id', 'uuid', 'urlname', 'title'])
        .executeTakeFirstOrThrow();
      const inserted = await trx
        .insertInto('display_styles')
        .values(styles.map((s, i) => ({ uuid: randomUUID(), website_id: website.id, name: s.name, layout: s.layout, is_default: i === 0 ? 1 : 0, created_at: now })))
        .returning(['id', 'is_default'])
        .execute();
      const rootGalleryUuid = randomUUID();
      await trx
        .insertInto('galleries')
        .values({
          uuid: rootGalleryUuid,
          website_id: website.id,
          parent_id: null,
          list_pos: 1,
          name: website.title,
          url_path: '',
          full_url_path: '',
          description: null,
          display_style_id: inserted.find((s) => s.is_default === 1)?.id ?? null,
          published_at: now,
          created_at: now,
          updated_at: now,
        })
        .execute();
      return { uuid: website.uuid, urlname: website.urlname, rootGalleryUuid };
    });
  }

  /** Gives `userId` access to the website; giving it twice changes nothing. */
  async addMember(websiteId: number, userId: number): Promise<void> {
    await this.db
      .insertInto('website_members')
      .values({ website_id: websiteId, user_id: userId })
      .onConflict((oc) => oc.columns(['website_id', 'user_id']).doNothing())
      .execute();
  }

  /**
   * Changes what a display style of the website chooses besides its layout (extension: crop,
   * spacing, captions); the style by UUID or by name. False when the website has no such style.
   */
  async updateDisplayStyle(websiteId: number, style: string, changes: { name?: string; layout?: string; crop?: number; spacing?: string; captions?: number }): Promise<boolean> {
    if (Object.keys(changes).length === 0) return (await this.db.selectFrom('display_styles').select('id').where('website_id', '=', websiteId).where((eb) => eb.or([eb('uuid', '=', style), eb('name', '=', style)])).executeTakeFirst()) !== undefined;
    const r = await this.db
      .updateTable('display_styles')
      .set(changes)
      .where('website_id', '=', websiteId)
      .where((eb) => eb.or([eb('uuid', '=', style), eb('name', '=', style)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Every display style of the website with all it chooses (a website has a handful: bounded all the same). */
  displayStylesFull(websiteId: number, limit: number): Promise<DisplayStyleRow[]> {
    return this.db.selectFrom('display_styles').selectAll().where('website_id', '=', websiteId).orderBy('id').limit(limit).execute();
  }

  /** A new display style of the website (never its default: a website's default is the one it was created with). */
  async createDisplayStyle(websiteId: number, values: { name: string; layout: string; crop: number; spacing: string; captions: number }): Promise<string> {
    const uuid = randomUUID();
    await this.db.insertInto('display_styles').values({ uuid, website_id: websiteId, is_default: 0, created_at: nowIso(), ...values }).execute();
    return uuid;
  }

  async countDisplayStyles(websiteId: number): Promise<number> {
    const [{ total }] = await this.db
      .selectFrom('display_styles')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('website_id', '=', websiteId)
      .execute();
    return Number(total);
  }

  displayStyles(websiteId: number, limit: number, offset: number): Promise<DisplayStyleListRow[]> {
    return this.db
      .selectFrom('display_styles')
      .select(['uuid', 'name', 'layout', 'is_default', 'created_at'])
      .where('website_id', '=', websiteId)
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  // ---- brand and pages (an API extension, docs/website.md)

  /** Any website's full row by its urlname (the operator's commands). */
  /** The website at a host name (any case, with its port as given), if any. */
  byHostname(hostname: string): Promise<Pick<WebsiteRow, 'id' | 'urlname'> | undefined> {
    return this.db.selectFrom('websites').select(['id', 'urlname']).where(sql<string>`lower(hostname)`, '=', hostname.toLowerCase()).executeTakeFirst();
  }

  /** Records a look for the proof that did not find it (the website's pages are unchanged: `updated_at` stays). */
  async recordHostnameCheck(websiteId: number, token: string, reason: string): Promise<void> {
    await this.db.updateTable('websites').set({ hostname_checked_at: nowIso(), hostname_check: reason }).where('id', '=', websiteId).where('hostname_token', '=', token).execute();
  }

  /**
   * The pending name proved with `token` takes effect: 'done', or 'taken' when another website has
   * it meanwhile (the unique index of lower(hostname) decides between two at once), or 'changed'
   * when the website asks for another name since the proof was looked for.
   */
  async promoteHostname(websiteId: number, name: string, token: string): Promise<'done' | 'taken' | 'changed'> {
    try {
      const res = await this.db
        .updateTable('websites')
        .set({ hostname: name, hostname_pending: null, hostname_token: null, hostname_checked_at: nowIso(), hostname_check: null, updated_at: nowIso() })
        .where('id', '=', websiteId)
        .where('hostname_pending', '=', name)
        .where('hostname_token', '=', token)
        .executeTakeFirst();
      return Number(res.numUpdatedRows) === 1 ? 'done' : 'changed';
    } catch (err) {
      const code = String((err as { code?: string }).code ?? '');
      if (code === '23505' || code.startsWith('SQLITE_CONSTRAINT')) return 'taken';
      throw err;
    }
  }

  fullByUrlname(urlname: string): Promise<WebsiteRow | undefined> {
    return this.db.selectFrom('websites').selectAll().where('urlname', '=', urlname).executeTakeFirst();
  }

  /** The UUIDs of the logo and favicon medias, and the root gallery: what the details show beside the row. */
  async brandRefs(website: Pick<WebsiteRow, 'id' | 'logo_media_id' | 'favicon_media_id'>): Promise<{ logo: string | null; favicon: string | null; root: string | null }> {
    const ids = [website.logo_media_id, website.favicon_media_id].filter((i): i is number => i !== null);
    const [medias, root] = await Promise.all([
      ids.length === 0 ? [] : this.db.selectFrom('medias').select(['id', 'uuid']).where('id', 'in', ids).execute(),
      this.db.selectFrom('galleries').select('uuid').where('website_id', '=', website.id).where('parent_id', 'is', null).executeTakeFirst(),
    ]);
    const uuid = (id: number | null) => (id === null ? null : (medias.find((m) => m.id === id)?.uuid ?? null));
    return { logo: uuid(website.logo_media_id), favicon: uuid(website.favicon_media_id), root: root?.uuid ?? null };
  }

  /** The MIME type of a media (a logo must be an image). */
  async mediaMime(id: number): Promise<string | null | undefined> {
    return (await this.db.selectFrom('medias').select('mime_type').where('id', '=', id).executeTakeFirst())?.mime_type;
  }

  /**
   * Changes brand columns and, when given, the home page's lists (hero medias, featured galleries:
   * replaced whole, in order), in one transaction; `updated_at` moves on, which also renews the
   * website's cached pages.
   */
  async updateBrand(websiteId: number, values: BrandColumns, lists: { hero?: readonly number[]; featured?: readonly number[] } = {}): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('websites').set({ ...values, updated_at: nowIso() }).where('id', '=', websiteId).execute();
      if (lists.hero) {
        await trx.deleteFrom('website_hero').where('website_id', '=', websiteId).execute();
        if (lists.hero.length > 0) await trx.insertInto('website_hero').values(lists.hero.map((media_id, position) => ({ website_id: websiteId, position, media_id }))).execute();
      }
      if (lists.featured) {
        await trx.deleteFrom('website_featured').where('website_id', '=', websiteId).execute();
        if (lists.featured.length > 0) await trx.insertInto('website_featured').values(lists.featured.map((gallery_id, position) => ({ website_id: websiteId, position, gallery_id }))).execute();
      }
    });
  }

  /** The home page's hero medias and featured galleries, by UUID in their order (those that still exist). */
  async homeRefs(websiteId: number): Promise<{ hero: string[]; featured: string[] }> {
    const [hero, featured] = await Promise.all([
      this.db.selectFrom('website_hero as h').innerJoin('medias as m', 'm.id', 'h.media_id').select('m.uuid').where('h.website_id', '=', websiteId).orderBy('h.position').execute(),
      this.db.selectFrom('website_featured as f').innerJoin('galleries as g', 'g.id', 'f.gallery_id').select('g.uuid').where('f.website_id', '=', websiteId).orderBy('f.position').execute(),
    ]);
    return { hero: hero.map((r) => r.uuid), featured: featured.map((r) => r.uuid) };
  }

  /** The MIME types of several medias. */
  async mediaMimes(ids: readonly number[]): Promise<Map<number, string | null>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('medias').select(['id', 'mime_type']).where('id', 'in', [...ids]).execute();
    return new Map(rows.map((r) => [r.id, r.mime_type]));
  }

  /** Of `galleryIds`, those of the website. */
  async galleriesOf(websiteId: number, galleryIds: readonly number[]): Promise<Set<number>> {
    if (galleryIds.length === 0) return new Set();
    const rows = await this.db.selectFrom('galleries').select('id').where('website_id', '=', websiteId).where('id', 'in', [...galleryIds]).execute();
    return new Set(rows.map((r) => r.id));
  }

  pages(websiteId: number): Promise<WebsitePageRow[]> {
    return this.db.selectFrom('website_pages').selectAll().where('website_id', '=', websiteId).orderBy('position').orderBy('slug').execute();
  }

  page(websiteId: number, slug: string): Promise<WebsitePageRow | undefined> {
    return this.db.selectFrom('website_pages').selectAll().where('website_id', '=', websiteId).where('slug', '=', slug).executeTakeFirst();
  }

  /**
   * Writes a page (new or changed) and moves the website's `updated_at` on, in one transaction:
   * the navigation of every page of the website changes with it. A new page beyond `maxPages` is
   * refused (false) inside the same transaction.
   */
  putPage(websiteId: number, slug: string, page: { title: string; body: string; position: number }, maxPages: number): Promise<'created' | 'updated' | 'full'> {
    const now = nowIso();
    return this.db.transaction().execute(async (trx) => {
      // Taken first: two pages put at once on the same website are counted one after the other.
      await trx.updateTable('websites').set({ updated_at: now }).where('id', '=', websiteId).execute();
      const existing = await trx.selectFrom('website_pages').select('id').where('website_id', '=', websiteId).where('slug', '=', slug).executeTakeFirst();
      if (existing) {
        await trx.updateTable('website_pages').set({ ...page, updated_at: now }).where('id', '=', existing.id).execute();
        return 'updated';
      }
      const [{ total }] = await trx
        .selectFrom('website_pages')
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .where('website_id', '=', websiteId)
        .execute();
      if (Number(total) >= maxPages) return 'full';
      await trx.insertInto('website_pages').values({ website_id: websiteId, slug, ...page, created_at: now, updated_at: now }).execute();
      return 'created';
    });
  }

  async deletePage(websiteId: number, slug: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const gone = await trx.deleteFrom('website_pages').where('website_id', '=', websiteId).where('slug', '=', slug).executeTakeFirst();
      if (Number(gone.numDeletedRows) === 0) return false;
      await trx.updateTable('websites').set({ updated_at: nowIso() }).where('id', '=', websiteId).execute();
      return true;
    });
  }
}

/** The brand columns a change may set. */
export type BrandColumns = Partial<
  Pick<
    WebsiteRow,
    'title' | 'tagline' | 'logo_media_id' | 'favicon_media_id' | 'color_scheme' | 'accent_color' | 'theme' | 'credit' | 'copyright' | 'contact_email' | 'social_links' | 'indexing' | 'hero_fit' | 'hero_headline' | 'hero_tagline'
  >
> &
  HostnameColumns;

/** The host name columns (migration 022). */
export type HostnameColumns = Partial<Pick<WebsiteRow, 'hostname' | 'hostname_pending' | 'hostname_token' | 'hostname_checked_at' | 'hostname_check'>>;

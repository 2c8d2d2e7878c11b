// SQL of websites, their members (website sharing) and their display styles.
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { nowIso } from '../store/db.js';
import type { DisplayStyleRow, WebsiteRow } from '../store/schema.js';

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
  async updateDisplayStyle(websiteId: number, style: string, changes: { crop?: number; spacing?: string; captions?: number }): Promise<boolean> {
    if (Object.keys(changes).length === 0) return (await this.db.selectFrom('display_styles').select('id').where('website_id', '=', websiteId).where((eb) => eb.or([eb('uuid', '=', style), eb('name', '=', style)])).executeTakeFirst()) !== undefined;
    const r = await this.db
      .updateTable('display_styles')
      .set(changes)
      .where('website_id', '=', websiteId)
      .where((eb) => eb.or([eb('uuid', '=', style), eb('name', '=', style)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
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
}

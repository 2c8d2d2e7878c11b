import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { nowIso } from '../store/db.js';
import { prepared } from '../store/prepared.js';

/** Ids of the websites a user owns or was given access to: the only ones they may see. */
export function accessibleWebsites(db: Db, userId: number) {
  return db
    .selectFrom('websites')
    .where((eb) =>
      eb.or([
        eb('websites.owner_id', '=', userId),
        eb('websites.id', 'in', eb.selectFrom('website_members').select('website_id').where('user_id', '=', userId)),
      ]),
    );
}

export const findAccessibleWebsite = prepared((db: Db, userId: number, urlname: string) =>
  accessibleWebsites(db, userId).selectAll('websites').where('websites.urlname', '=', urlname),
);

export const DEFAULT_DISPLAY_STYLES = [
  { name: 'Grid', layout: 'grid' },
  { name: 'Slideshow', layout: 'slideshow' },
  { name: 'Masonry', layout: 'masonry' },
  { name: 'Filmstrip', layout: 'filmstrip' },
];

export interface NewWebsite {
  ownerId: number;
  urlname: string;
  title?: string;
  hostname?: string;
}

/** A website comes with its root gallery and a few display styles (operations.md). */
export async function createWebsite(db: Db, input: NewWebsite): Promise<{ uuid: string; urlname: string; rootGalleryUuid: string }> {
  const now = nowIso();
  return db.transaction().execute(async (trx) => {
    const website = await trx
      .insertInto('websites')
      .values({
        uuid: randomUUID(),
        urlname: input.urlname,
        title: input.title ?? input.urlname,
        hostname: input.hostname ?? null,
        owner_id: input.ownerId,
        created_at: now,
        updated_at: now,
      })
      .returning(['id', 'uuid', 'urlname', 'title'])
      .executeTakeFirstOrThrow();
    const styles = await trx
      .insertInto('display_styles')
      .values(DEFAULT_DISPLAY_STYLES.map((s, i) => ({ uuid: randomUUID(), website_id: website.id, name: s.name, layout: s.layout, is_default: i === 0 ? 1 : 0, created_at: now })))
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
        display_style_id: styles.find((s) => s.is_default === 1)?.id ?? null,
        published_at: now,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return { uuid: website.uuid, urlname: website.urlname, rootGalleryUuid };
  });
}

export function isValidUrlname(urlname: string): boolean {
  return /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(urlname);
}

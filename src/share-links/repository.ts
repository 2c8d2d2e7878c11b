// SQL of share links (docs/integrations.md "Share links"): created, listed per gallery, revoked;
// found by the SHA-256 of their token; a visit counted in one statement under the view limit.
import { nowIso, type Db } from '../database/db.js';
import type { ShareLinkRow } from '../database/schema.js';

export interface NewShareLink {
  uuid: string;
  ownerId: number;
  galleryId: number;
  tokenHash: string;
  recipient: string | null;
  expiresAt: string | null;
  maxViews: number | null;
  passwordHash: string | null;
  download: string;
}

/** A link with where its gallery is: the website (its id and urlname) and the gallery's path and UUID. */
export interface ShareLinkPlace extends ShareLinkRow {
  gallery_uuid: string;
  website_id: number;
  urlname: string;
  full_url_path: string;
}

export class ShareLinksRepository {
  constructor(private readonly db: Db) {}

  async create(n: NewShareLink): Promise<ShareLinkRow> {
    return this.db
      .insertInto('share_links')
      .values({ uuid: n.uuid, owner_id: n.ownerId, gallery_id: n.galleryId, token_hash: n.tokenHash, recipient: n.recipient, expires_at: n.expiresAt, max_views: n.maxViews, password_hash: n.passwordHash, download: n.download, created_at: nowIso(), revoked_at: null })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async galleryName(galleryId: number): Promise<string> {
    return (await this.db.selectFrom('galleries').select('name').where('id', '=', galleryId).executeTakeFirstOrThrow()).name;
  }

  listOfGallery(galleryId: number): Promise<ShareLinkRow[]> {
    return this.db.selectFrom('share_links').selectAll().where('gallery_id', '=', galleryId).orderBy('id', 'desc').limit(500).execute();
  }

  /** Revokes the owner's link; false when it is not theirs (or does not exist). */
  async revoke(ownerId: number, uuid: string): Promise<boolean> {
    const row = await this.db.selectFrom('share_links').select(['id', 'revoked_at']).where('uuid', '=', uuid).where('owner_id', '=', ownerId).executeTakeFirst();
    if (!row) return false;
    if (row.revoked_at === null) await this.db.updateTable('share_links').set({ revoked_at: nowIso() }).where('id', '=', row.id).execute();
    return true;
  }

  private placed() {
    return this.db
      .selectFrom('share_links')
      .innerJoin('galleries', 'galleries.id', 'share_links.gallery_id')
      .innerJoin('websites', 'websites.id', 'galleries.website_id')
      .selectAll('share_links')
      .select(['galleries.uuid as gallery_uuid', 'galleries.website_id', 'websites.urlname', 'galleries.full_url_path']);
  }

  byTokenHash(hash: string): Promise<ShareLinkPlace | undefined> {
    return this.placed().where('share_links.token_hash', '=', hash).executeTakeFirst();
  }

  byUuid(uuid: string): Promise<ShareLinkPlace | undefined> {
    return this.placed().where('share_links.uuid', '=', uuid).executeTakeFirst();
  }

  /** One more visit, if the link is still live and under its limit: false otherwise (of two racing the last visit, one wins). */
  async countView(id: number, now: string): Promise<boolean> {
    const r = await this.db
      .updateTable('share_links')
      .set((eb) => ({ views: eb('views', '+', 1) }))
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .where((eb) => eb.or([eb('max_views', 'is', null), eb('views', '<', eb.ref('max_views'))]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }
}

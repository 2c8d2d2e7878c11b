// SQL of share links (docs/integrations.md "Share links"): created, listed per target (a gallery
// or a lightbox), revoked; found by the SHA-256 of their token; a visit counted in one statement
// under the view limit.
import { sql } from 'kysely';
import { nowIso, type Db } from '../database/db.js';
import type { ShareLinkRow } from '../database/schema.js';

/** What a link opens: a gallery or a lightbox, by id. */
export type ShareTargetRef = { kind: 'gallery'; id: number } | { kind: 'lightbox'; id: number };

export interface NewShareLink {
  uuid: string;
  ownerId: number;
  target: ShareTargetRef;
  /** A lightbox's link: the website it is shown on. */
  websiteId: number | null;
  tokenHash: string;
  recipient: string | null;
  expiresAt: string | null;
  maxViews: number | null;
  passwordHash: string | null;
  download: string;
}

/**
 * A link with where it opens: the website (its id and urlname), and the gallery's path and UUID
 * or the lightbox's UUID (the other one null).
 */
export interface ShareLinkPlace extends ShareLinkRow {
  gallery_uuid: string | null;
  lightbox_uuid: string | null;
  website_id: number;
  urlname: string;
  full_url_path: string | null;
}

export class ShareLinksRepository {
  constructor(private readonly db: Db) {}

  async create(n: NewShareLink): Promise<ShareLinkRow> {
    return this.db
      .insertInto('share_links')
      .values({
        uuid: n.uuid,
        owner_id: n.ownerId,
        gallery_id: n.target.kind === 'gallery' ? n.target.id : null,
        lightbox_id: n.target.kind === 'lightbox' ? n.target.id : null,
        website_id: n.websiteId,
        token_hash: n.tokenHash,
        recipient: n.recipient,
        expires_at: n.expiresAt,
        max_views: n.maxViews,
        password_hash: n.passwordHash,
        download: n.download,
        created_at: nowIso(),
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** The target's name, for the studio's screen. */
  async targetName(t: ShareTargetRef): Promise<string> {
    const table = t.kind === 'gallery' ? 'galleries' : 'lightboxes';
    return (await this.db.selectFrom(table).select('name').where('id', '=', t.id).executeTakeFirstOrThrow()).name;
  }

  /**
   * The website a lightbox's link is shown on: its gallery's for a client's selection, else the
   * owner's first website; undefined when the owner has none.
   */
  async lightboxWebsite(ownerId: number, lightboxId: number): Promise<number | undefined> {
    const own = await this.db
      .selectFrom('lightboxes')
      .innerJoin('galleries', 'galleries.id', 'lightboxes.gallery_id')
      .innerJoin('websites', 'websites.id', 'galleries.website_id')
      .select('websites.id')
      .where('lightboxes.id', '=', lightboxId)
      .where('websites.owner_id', '=', ownerId)
      .executeTakeFirst();
    if (own) return own.id;
    return (await this.db.selectFrom('websites').select('id').where('owner_id', '=', ownerId).orderBy('id').limit(1).executeTakeFirst())?.id;
  }

  listOf(t: ShareTargetRef): Promise<ShareLinkRow[]> {
    return this.db
      .selectFrom('share_links')
      .selectAll()
      .where(t.kind === 'gallery' ? 'gallery_id' : 'lightbox_id', '=', t.id)
      .orderBy('id', 'desc')
      .limit(500)
      .execute();
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
      .leftJoin('galleries', 'galleries.id', 'share_links.gallery_id')
      .leftJoin('lightboxes', 'lightboxes.id', 'share_links.lightbox_id')
      .innerJoin('websites', (j) => j.on('websites.id', '=', sql<number>`coalesce(${sql.ref('share_links.website_id')}, ${sql.ref('galleries.website_id')})`))
      .selectAll('share_links')
      .select(['galleries.uuid as gallery_uuid', 'lightboxes.uuid as lightbox_uuid', 'websites.id as website_id', 'websites.urlname', 'galleries.full_url_path']);
  }

  byTokenHash(hash: string): Promise<ShareLinkPlace | undefined> {
    return this.placed().where('share_links.token_hash', '=', hash).executeTakeFirst() as Promise<ShareLinkPlace | undefined>;
  }

  byUuid(uuid: string): Promise<ShareLinkPlace | undefined> {
    return this.placed().where('share_links.uuid', '=', uuid).executeTakeFirst() as Promise<ShareLinkPlace | undefined>;
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

  /** One more file downloaded through the link. */
  async countDownload(uuid: string): Promise<void> {
    await this.db
      .updateTable('share_links')
      .set((eb) => ({ downloads: eb('downloads', '+', 1) }))
      .where('uuid', '=', uuid)
      .execute();
  }

  /** Whether a media is in a lightbox (a lightbox link's /files check): one indexed lookup. */
  async inLightbox(lightboxUuid: string, mediaId: number): Promise<boolean> {
    const r = await this.db
      .selectFrom('lightbox_medias')
      .innerJoin('lightboxes', 'lightboxes.id', 'lightbox_medias.lightbox_id')
      .select('lightbox_medias.media_id')
      .where('lightboxes.uuid', '=', lightboxUuid)
      .where('lightbox_medias.media_id', '=', mediaId)
      .executeTakeFirst();
    return r !== undefined;
  }
}

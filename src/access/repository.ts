// SQL of access: which rows of each kind a user may use. One query per list,
// whatever its length (lists are looked up a chunk at a time).
import type { Db, Sometimes } from '../database/db.js';
import { prepared } from '../database/prepared.js';
import type { WebsiteRow } from '../database/schema.js';

/** The kinds of resource a request may name by UUID. */
export type Kind = 'gallery' | 'media' | 'artist' | 'collection' | 'group' | 'pricing-profile' | 'watermark' | 'lightbox' | 'job';

export interface Found {
  id: number;
  uuid: string;
}

/** UUIDs per IN list: well under every database's bound-parameter limit. */
const CHUNK = 500;

/** Ids of the websites a user owns or was given access to: the only ones they may see. */
function accessibleWebsiteIds(db: Db, userId: number) {
  return db
    .selectFrom('websites')
    .select('websites.id')
    .where((eb) =>
      eb.or([
        eb('websites.owner_id', '=', userId),
        eb('websites.id', 'in', eb.selectFrom('website_members').select('website_id').where('user_id', '=', userId)),
      ]),
    );
}

// Compiled once: every request on a website starts with this lookup.
const websiteByUrlname = prepared((db: Db, userId: number, urlname: string) =>
  db.selectFrom('websites').selectAll().where('urlname', '=', urlname).where('id', 'in', accessibleWebsiteIds(db, userId)),
);

export class AccessRepository {
  constructor(private readonly db: Db) {}

  website(userId: number, urlname: string): Sometimes<WebsiteRow | undefined> {
    return websiteByUrlname(this.db, userId, urlname);
  }

  /** Rows of `kind` among `uuids` (lower-case, well-formed) that `userId` may use. */
  async find(userId: number, kind: Kind, uuids: readonly string[]): Promise<Found[]> {
    const out: Found[] = [];
    for (let i = 0; i < uuids.length; i += CHUNK) out.push(...(await this.findChunk(userId, kind, uuids.slice(i, i + CHUNK))));
    return out;
  }

  private findChunk(userId: number, kind: Kind, uuids: readonly string[]): Promise<Found[]> {
    const db = this.db;
    switch (kind) {
      case 'gallery':
        return db.selectFrom('galleries').select(['id', 'uuid']).where('uuid', 'in', uuids).where('website_id', 'in', accessibleWebsiteIds(db, userId)).execute();
      case 'media':
        return db.selectFrom('medias').select(['id', 'uuid']).where('uuid', 'in', uuids).where('owner_id', '=', userId).execute();
      case 'artist':
        return db.selectFrom('artists').select(['id', 'uuid']).where('uuid', 'in', uuids).where('owner_id', '=', userId).execute();
      case 'collection':
        // Plain collections only: smart collections have no members to add.
        return db.selectFrom('media_groups').select(['id', 'uuid']).where('uuid', 'in', uuids).where('owner_id', '=', userId).where('kind', '=', 'collection').execute();
      case 'group':
        return db.selectFrom('media_groups').select(['id', 'uuid']).where('uuid', 'in', uuids).where('owner_id', '=', userId).execute();
      case 'pricing-profile':
        return db.selectFrom('pricing_profiles').select(['id', 'uuid']).where('uuid', 'in', uuids).where('owner_id', '=', userId).execute();
      case 'watermark':
        return db
          .selectFrom('watermarks')
          .innerJoin('artists', 'artists.id', 'watermarks.artist_id')
          .select(['watermarks.id', 'watermarks.uuid'])
          .where('watermarks.uuid', 'in', uuids)
          .where('artists.owner_id', '=', userId)
          .execute();
      case 'lightbox':
        return db.selectFrom('lightboxes').select(['id', 'uuid']).where('uuid', 'in', uuids).where('owner_id', '=', userId).execute();
      case 'job':
        return db.selectFrom('jobs').select(['id', 'uuid']).where('uuid', 'in', uuids).where('owner_id', '=', userId).execute();
    }
  }

  /** The user's default media library (every user has one). */
  async defaultArtistId(userId: number): Promise<number | undefined> {
    const row = await this.db.selectFrom('artists').select('id').where('owner_id', '=', userId).orderBy('is_default', 'desc').orderBy('id').limit(1).executeTakeFirst();
    return row?.id;
  }
}

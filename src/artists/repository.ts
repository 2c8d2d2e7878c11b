// SQL of media libraries ("artists" in paths) and their watermarks.
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { nowIso } from '../store/db.js';
import type { ArtistRow, WatermarkRow } from '../store/schema.js';

export type ArtistListRow = Pick<ArtistRow, 'uuid' | 'name' | 'is_default' | 'created_at'>;

export interface NewWatermarkRow {
  uuid: string;
  artistId: number;
  text: string | null;
  fileName: string | null;
  storageKey: string | null;
  width: number | null;
  height: number | null;
  isDefault: boolean;
}

export class ArtistsRepository {
  constructor(private readonly db: Db) {}

  async countOwned(ownerId: number): Promise<number> {
    const [{ total }] = await this.db.selectFrom('artists').select((eb) => eb.fn.countAll<number>().as('total')).where('owner_id', '=', ownerId).execute();
    return Number(total);
  }

  owned(ownerId: number, limit: number, offset: number): Promise<ArtistListRow[]> {
    return this.db
      .selectFrom('artists')
      .select(['uuid', 'name', 'is_default', 'created_at'])
      .where('owner_id', '=', ownerId)
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** Any media library by its UUID, whoever owns it (the operator's commands). */
  async idByUuid(uuid: string): Promise<number | undefined> {
    return (await this.db.selectFrom('artists').select('id').where('uuid', '=', uuid).executeTakeFirst())?.id;
  }

  /** A media library that is not its owner's default; its UUID. */
  async create(ownerId: number, name: string): Promise<string> {
    const uuid = randomUUID();
    await this.db.insertInto('artists').values({ uuid, owner_id: ownerId, name, is_default: 0, created_at: nowIso() }).execute();
    return uuid;
  }

  async countWatermarks(artistId: number): Promise<number> {
    const [{ total }] = await this.db.selectFrom('watermarks').select((eb) => eb.fn.countAll<number>().as('total')).where('artist_id', '=', artistId).execute();
    return Number(total);
  }

  watermarks(artistId: number, limit: number, offset: number): Promise<WatermarkRow[]> {
    return this.db.selectFrom('watermarks').selectAll().where('artist_id', '=', artistId).orderBy('id').limit(limit).offset(offset).execute();
  }

  /** Adds a watermark; a new default takes the place of the library's old one, in the same transaction. */
  async createWatermark(w: NewWatermarkRow): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (w.isDefault) await trx.updateTable('watermarks').set({ is_default: 0 }).where('artist_id', '=', w.artistId).execute();
      await trx
        .insertInto('watermarks')
        .values({
          uuid: w.uuid,
          artist_id: w.artistId,
          text: w.text,
          file_name: w.fileName,
          storage_key: w.storageKey,
          width: w.width,
          height: w.height,
          is_default: w.isDefault ? 1 : 0,
          created_at: nowIso(),
        })
        .execute();
    });
  }
}

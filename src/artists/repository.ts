// SQL of media libraries ("artists" in paths) and their watermarks.
import { randomUUID } from 'node:crypto';
import type { Db } from '../database/db.js';
import { nowIso } from '../database/db.js';
import type { ArtistRow, WatermarkRow } from '../database/schema.js';
import type { DeletionsRepository } from '../file-storage/deletions-repository.js';
import type { WatermarkLook } from './watermark-rules.js';

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
  /** What is not given takes the table's default (strength 50, center, not tiled). */
  look: WatermarkLook;
}

export class ArtistsRepository {
  constructor(
    private readonly db: Db,
    /** A deleted watermark's image is recorded for removal with the row's deletion (src/file-storage/file-deletions.ts). */
    private readonly deletions: DeletionsRepository,
  ) {}

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
          ...lookColumns(w.look),
          created_at: nowIso(),
        })
        .execute();
    });
  }

  /** One watermark by its id (the access module has said the user may use it). */
  watermarkById(id: number): Promise<WatermarkRow | undefined> {
    return this.db.selectFrom('watermarks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Changes how a watermark looks: only what `look` gives. */
  async changeLook(watermarkId: number, look: WatermarkLook): Promise<void> {
    const set = lookColumns(look);
    if (Object.keys(set).length === 0) return;
    await this.db.updateTable('watermarks').set(set).where('id', '=', watermarkId).execute();
  }

  /** Makes one watermark its library's default, the old default no longer one, in one transaction. */
  async makeDefault(artistId: number, watermarkId: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('watermarks').set({ is_default: 0 }).where('artist_id', '=', artistId).where('id', '!=', watermarkId).execute();
      await trx.updateTable('watermarks').set({ is_default: 1 }).where('id', '=', watermarkId).execute();
    });
  }

  /**
   * Deletes a watermark; the medias that named it name none from then on (medias.watermark_id has no
   * foreign key), in the same transaction. Its image's storage key, to remove once committed.
   */
  async deleteWatermark(watermarkId: number): Promise<string | null> {
    return this.db.transaction().execute(async (trx) => {
      await trx.updateTable('medias').set({ watermark_id: null }).where('watermark_id', '=', watermarkId).execute();
      const gone = await trx.deleteFrom('watermarks').where('id', '=', watermarkId).returning('storage_key').executeTakeFirst();
      // The image's object outlives its row by a sweep at most, should removing it right after fail.
      await this.deletions.record(trx, [gone?.storage_key]);
      return gone?.storage_key ?? null;
    });
  }

  /** The image of a deleted watermark is gone: its record goes too. */
  imageRemoved(storageKey: string): Promise<void> {
    return this.deletions.forget([storageKey]);
  }

  /**
   * The storage key of the owner's latest photo's rendition with no watermark on it (1280 px when
   * there is one, else 640), for the studio's preview; undefined without any.
   */
  async latestPhotoRendition(ownerId: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('renditions as r')
      .innerJoin('medias as m', 'm.id', 'r.media_id')
      .select('r.storage_key')
      .where('m.owner_id', '=', ownerId)
      .where('r.watermarked', '=', 0)
      .where('r.name', 'in', ['640', '1280'])
      .where('r.mime_type', 'in', ['image/jpeg', 'image/webp'])
      .orderBy('m.id', 'desc')
      .orderBy('r.width', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.storage_key;
  }
}

function lookColumns(look: WatermarkLook): { strength?: number; position?: string; tile?: number } {
  const set: { strength?: number; position?: string; tile?: number } = {};
  if (look.strength !== undefined) set.strength = look.strength;
  if (look.position !== undefined) set.position = look.position;
  if (look.tile !== undefined) set.tile = look.tile ? 1 : 0;
  return set;
}

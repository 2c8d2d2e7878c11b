// Media libraries ("artists" in paths) and their watermarks: listing them for
// their owner; creating watermarks for the operator (admin command line) and for
// the owner (the studio), deleting them, and previewing one on a photo.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Access } from '../access/access.js';
import { invalid, notFound } from '../core/errors.js';
import { MemoryCache } from '../ops/cache.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../core/private-files.js';
import { tempDirOf, tempFileName } from '../file-storage/temp-file.js';
import type { UserRow, WatermarkRow } from '../database/schema.js';
import type { ArtistListRow, ArtistsRepository } from './repository.js';
import type { WatermarkFiles } from './watermark-files.js';
import { WATERMARK_IMAGE_FORMATS, WATERMARK_IMAGE_MAX_BYTES, WATERMARK_IMAGE_MAX_MEGAPIXELS, WATERMARK_IMAGE_MAX_PIXELS, watermarkTextProblem, type WatermarkLook } from './watermark-rules.js';

export interface PageWindow {
  limit: number;
  offset: number;
}

/** A watermark is a text or an image file (a path the operator names), and how it looks (the table's defaults for what is not given). */
export type NewWatermark = { artistUuid: string; isDefault: boolean; look?: WatermarkLook } & ({ text: string; file?: undefined } | { file: string; text?: undefined });

/** A photographer's own watermark: a text, or an uploaded image (its name as sent, and its bytes). */
export type OwnWatermark = { artistUuid: string; isDefault: boolean; look?: WatermarkLook } & ({ text: string; image?: undefined } | { image: { fileName: string; stream: Readable }; text?: undefined });

/** The preview's long edge, in pixels. */
export const PREVIEW_MAX_EDGE = 1200;
const PREVIEW_TIMEOUT_SECONDS = 20;

/**
 * Draws a watermark on a photo (or a grey canvas): the renditions' own overlay
 * (src/renditions/ladder.ts, watermarkPreview), handed in by the composition root, which loads sharp only when first used.
 */
export type WatermarkDrawer = (
  mark: { text?: string; imagePath?: string; strength: number; position: string; tile: boolean },
  photo: Readable | undefined,
  maxEdge: number,
  timeoutSeconds: number,
) => Promise<Buffer>;

/** Where the preview's photo comes from: a rendition's storage key, and how to read it. */
export type PhotoReader = (key: string) => Promise<Readable | undefined>;

export class ArtistsService {
  /** The last few previews (JPEG, ~100 kB each), by watermark and photo: the screen shows each one again on every visit. */
  private readonly previews = new MemoryCache<string, Buffer>({ entries: 32, ttlMs: 60_000, size: { max: 8 * 1024 * 1024, of: (b) => b.length } });

  constructor(
    private readonly repo: ArtistsRepository,
    private readonly access: Access,
    /** Images are received into DATA_DIR/tmp, then kept in the object store (watermark-files.ts). */
    private readonly dataDir: string,
    private readonly files: WatermarkFiles,
    private readonly draw: WatermarkDrawer,
  ) {}

  /** A page of the user's media libraries, and how many in all. */
  async list(user: Pick<UserRow, 'id'>, window: PageWindow): Promise<{ total: number; artists: ArtistListRow[] }> {
    const total = await this.repo.countOwned(user.id);
    const artists = await this.repo.owned(user.id, window.limit, window.offset);
    return { total, artists };
  }

  /** A page of the watermarks of one of the user's media libraries (404 otherwise), and how many in all. */
  async watermarks(user: Pick<UserRow, 'id'>, artistUuid: string, window: PageWindow): Promise<{ total: number; watermarks: WatermarkRow[] }> {
    const artistId = await this.access.requireOne(user, 'artist', artistUuid, { notFound: 'media library' });
    const total = await this.repo.countWatermarks(artistId);
    const watermarks = await this.repo.watermarks(artistId, window.limit, window.offset);
    return { total, watermarks };
  }

  /** A further (not default) media library of `owner`. */
  async create(owner: Pick<UserRow, 'id'>, name: string): Promise<{ uuid: string }> {
    return { uuid: await this.repo.create(owner.id, name) };
  }

  /** A watermark of any media library (the operator's); an image file is copied, checked, then put in the store. */
  async createWatermark(input: NewWatermark): Promise<{ uuid: string }> {
    const artistId = await this.repo.idByUuid(input.artistUuid);
    if (artistId === undefined) throw notFound(`media library ${input.artistUuid}`);
    const look = input.look ?? {};
    if (input.file === undefined) return this.add(artistId, input.isDefault, look, { text: input.text });
    const fileName = input.file.split(/[\\/]/).pop()!;
    return this.add(artistId, input.isDefault, look, { fileName, write: (partial) => copyFile(input.file, partial) });
  }

  /** A watermark of one of the user's own media libraries (404 otherwise): a text, or an uploaded image streamed to DATA_DIR, checked, then put in the store. */
  async createOwnWatermark(user: Pick<UserRow, 'id'>, input: OwnWatermark): Promise<{ uuid: string }> {
    const artistId = await this.access.requireOne(user, 'artist', input.artistUuid, { notFound: 'media library' });
    const look = input.look ?? {};
    if (input.image === undefined) return this.add(artistId, input.isDefault, look, { text: input.text });
    const { stream, fileName } = input.image;
    return this.add(artistId, input.isDefault, look, {
      fileName,
      write: async (partial) => {
        let bytes = 0;
        const bounded = new Transform({
          transform(chunk: Buffer, _enc, done) {
            bytes += chunk.length;
            if (bytes > WATERMARK_IMAGE_MAX_BYTES) done(invalid(`file: the image is larger than ${WATERMARK_IMAGE_MAX_BYTES / 1024 / 1024} MiB`, 'file'));
            else done(null, chunk);
          },
        });
        await pipeline(stream, bounded, createWriteStream(partial, { mode: PRIVATE_FILE_MODE }));
      },
    });
  }

  /** Makes one of the user's watermarks its library's default (404 for another's). */
  async makeDefault(user: Pick<UserRow, 'id'>, watermarkUuid: string): Promise<void> {
    const mark = await this.ownWatermark(user, watermarkUuid);
    await this.repo.makeDefault(mark.artist_id, mark.id);
  }

  /**
   * Changes how one of the user's watermarks looks (404 for another's): what `look` gives, the rest
   * as it was. An extension (the API has no update): the renditions already made keep their pixels,
   * as after a delete or a new default; those made from then on draw the new look (docs/watermarks.md).
   */
  async changeLook(user: Pick<UserRow, 'id'>, watermarkUuid: string, look: WatermarkLook): Promise<void> {
    const mark = await this.ownWatermark(user, watermarkUuid);
    await this.repo.changeLook(mark.id, look);
  }

  /**
   * Deletes one of the user's watermarks (404 for another's). Medias that named it name none from
   * then on; renditions already made keep their pixels (docs/watermarks.md).
   */
  async deleteWatermark(user: Pick<UserRow, 'id'>, watermarkUuid: string): Promise<void> {
    const mark = await this.ownWatermark(user, watermarkUuid);
    const storageKey = await this.repo.deleteWatermark(mark.id);
    this.previews.deleteWhere(() => true);
    if (!storageKey) return;
    try {
      await this.files.delete(storageKey);
      await this.repo.imageRemoved(storageKey);
    } catch {
      // The watermark is gone; its image stays recorded in file_deletions, and the cleanup sweep removes it.
    }
  }

  /**
   * One of the user's watermarks drawn on their latest photo (or a grey canvas without one) by the
   * renditions' own overlay: a JPEG of at most PREVIEW_MAX_EDGE px. 404 for another's watermark.
   */
  async preview(user: Pick<UserRow, 'id'>, watermarkUuid: string, read: PhotoReader): Promise<Buffer> {
    const mark = await this.ownWatermark(user, watermarkUuid);
    const photoKey = await this.repo.latestPhotoRendition(user.id);
    // The look is in the key: a changed watermark is drawn again, never served as it was.
    const key = `${mark.uuid}\n${mark.strength}\n${mark.position}\n${mark.tile}\n${photoKey ?? ''}`;
    const cached = this.previews.get(key);
    if (cached) return cached;
    const spec = mark.storage_key
      ? { imagePath: await this.files.localPath(mark.storage_key), strength: mark.strength, position: mark.position, tile: mark.tile === 1 }
      : { text: mark.text ?? '', strength: mark.strength, position: mark.position, tile: mark.tile === 1 };
    const photo = photoKey ? await read(photoKey) : undefined;
    const jpeg = await this.draw(spec, photo, PREVIEW_MAX_EDGE, PREVIEW_TIMEOUT_SECONDS);
    this.previews.set(key, jpeg);
    return jpeg;
  }

  private async ownWatermark(user: Pick<UserRow, 'id'>, watermarkUuid: string): Promise<WatermarkRow> {
    const id = await this.access.requireOne(user, 'watermark', watermarkUuid, { notFound: 'watermark' });
    const mark = await this.repo.watermarkById(id);
    if (!mark) throw notFound(`watermark ${watermarkUuid}`);
    return mark;
  }

  /** Adds a text, or an image written by `write` to a private partial file, checked, then put in the store: whole or not at all. */
  private async add(artistId: number, isDefault: boolean, look: WatermarkLook, what: { text: string } | { fileName: string; write: (partial: string) => Promise<void> }): Promise<{ uuid: string }> {
    const uuid = randomUUID();
    let image: { fileName: string; storageKey: string; width: number; height: number } | undefined;
    if ('text' in what) {
      const problem = watermarkTextProblem(what.text);
      if (problem) throw invalid(`text: ${problem}`, 'text');
    } else {
      image = await this.storeImage(uuid, what.fileName, what.write);
    }
    try {
      await this.repo.createWatermark({
        uuid,
        artistId,
        text: 'text' in what ? what.text : null,
        fileName: image?.fileName ?? null,
        storageKey: image?.storageKey ?? null,
        width: image?.width ?? null,
        height: image?.height ?? null,
        isDefault,
        look,
      });
    } catch (err) {
      // No row names the file: it would never be found again. The row's failure is the answer, not the store's.
      if (image) await this.files.delete(image.storageKey).catch(() => undefined);
      throw err;
    }
    return { uuid };
  }

  /** Writes the image to a partial file in DATA_DIR/tmp, sniffs what it is, then puts it in the store as watermarks/<uuid>.<format>. */
  private async storeImage(uuid: string, name: string, write: (partial: string) => Promise<void>): Promise<{ fileName: string; storageKey: string; width: number; height: number }> {
    // DATA_DIR/tmp: on the local store's file system (putFile renames), and swept of a crashed process's leftovers.
    const tmpDir = tempDirOf(this.dataDir);
    ensurePrivateDir(tmpDir);
    const partial = join(tmpDir, tempFileName());
    try {
      await write(partial);
      await chmod(partial, PRIVATE_FILE_MODE);
      let meta;
      try {
        // sharp is loaded for an image watermark only: the admin command line's other commands start without it.
        // The header only: the pixel count is checked below, on the size it declares.
        const { default: sharp } = await import('sharp');
        meta = await sharp(partial, { limitInputPixels: false }).metadata();
      } catch (err) {
        throw invalid(`file: ${name} is not a readable image: ${(err as Error).message}`, 'file');
      }
      const ext = meta.format === undefined ? undefined : WATERMARK_IMAGE_FORMATS[meta.format];
      if (ext === undefined || !meta.width || !meta.height) throw invalid(`file: ${name} is not a PNG, JPEG, WebP or GIF image`, 'file');
      if (meta.width * meta.height > WATERMARK_IMAGE_MAX_PIXELS) {
        throw invalid(`file: ${name} has more than ${WATERMARK_IMAGE_MAX_MEGAPIXELS} megapixels (${meta.width} × ${meta.height}); a watermark is drawn at most 1280 px wide`, 'file');
      }
      const storageKey = `watermarks/${uuid}${ext}`;
      await this.files.put(storageKey, partial);
      const fileName = name.replace(/["\\\r\n]/g, '_').slice(0, 255) || 'watermark';
      return { fileName, storageKey, width: meta.width, height: meta.height };
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
  }
}

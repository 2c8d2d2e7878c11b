// Media libraries ("artists" in paths) and their watermarks: listing them for
// their owner, and creating them for the operator (admin command line).
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, copyFile, rename, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Access } from '../access/access.js';
import { invalid, notFound } from '../http/errors.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../storage/private-files.js';
import type { UserRow, WatermarkRow } from '../store/schema.js';
import type { ArtistListRow, ArtistsRepository } from './repository.js';

export interface PageWindow {
  limit: number;
  offset: number;
}

/** A watermark is a text or an image file (a path the operator names). */
export type NewWatermark = { artistUuid: string; isDefault: boolean } & ({ text: string; file?: undefined } | { file: string; text?: undefined });

export class ArtistsService {
  constructor(
    private readonly repo: ArtistsRepository,
    private readonly access: Access,
    /** Watermark images are kept under DATA_DIR/watermarks. */
    private readonly dataDir: string,
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

  /** A watermark of any media library; an image file is copied into DATA_DIR first. */
  async createWatermark(input: NewWatermark): Promise<{ uuid: string }> {
    const artistId = await this.repo.idByUuid(input.artistUuid);
    if (artistId === undefined) throw notFound(`media library ${input.artistUuid}`);
    const uuid = randomUUID();
    const image = input.file === undefined ? undefined : await this.storeImage(uuid, input.file);
    try {
      await this.repo.createWatermark({
        uuid,
        artistId,
        text: input.text ?? null,
        fileName: image?.fileName ?? null,
        storageKey: image?.storageKey ?? null,
        width: image?.width ?? null,
        height: image?.height ?? null,
        isDefault: input.isDefault,
      });
    } catch (err) {
      // No row names the copy: it would never be found again.
      if (image) await rm(join(this.dataDir, image.storageKey), { force: true });
      throw err;
    }
    return { uuid };
  }

  /** Copies the image to DATA_DIR/watermarks/<uuid><ext>, landing whole or not at all. */
  private async storeImage(uuid: string, file: string): Promise<{ fileName: string; storageKey: string; width: number | null; height: number | null }> {
    let meta;
    try {
      // sharp is loaded for an image watermark only: the admin command line's other commands start without it.
      const { default: sharp } = await import('sharp');
      meta = await sharp(file).metadata();
    } catch (err) {
      throw invalid(`${file} is not a readable image: ${(err as Error).message}`);
    }
    const storageKey = join('watermarks', uuid + extname(file).toLowerCase());
    ensurePrivateDir(join(this.dataDir, 'watermarks'));
    const target = join(this.dataDir, storageKey);
    const partial = `${target}.${randomBytes(6).toString('hex')}.part`;
    try {
      await copyFile(file, partial);
      await chmod(partial, PRIVATE_FILE_MODE);
      await rename(partial, target);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    const fileName = file.split(/[\\/]/).pop()!.replace(/["\\\r\n]/g, '_');
    return { fileName, storageKey, width: meta.width ?? null, height: meta.height ?? null };
  }
}

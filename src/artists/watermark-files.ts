// Where watermark images live: in the medias' object store under their row's storage key, so every
// node finds them. sharp reads a path, so a node whose store is not local files keeps a copy of each
// image it drew in DATA_DIR/watermark-cache (an image never changes: a copy never goes stale), and an
// older install's DATA_DIR/<key> file is still read (docs/watermarks.md, "Where images are kept").
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { StorageBackend } from '../file-storage/backend.js';
import { isSafeKey } from '../file-storage/object-keys.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../core/private-files.js';
import { tempFileName } from '../file-storage/temp-file.js';

/** The object store, made on first use (the admin command line's other commands start without the AWS SDK). */
export type StorageSource = () => Promise<StorageBackend>;

/** The stored types of the formats watermark-rules.ts accepts, by extension. */
const CONTENT_TYPES: Readonly<Record<string, string>> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.webp': 'image/webp', '.gif': 'image/gif' };

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return false;
      throw err;
    },
  );
}

export class WatermarkFiles {
  private readonly cacheDir: string;

  constructor(
    private readonly storage: StorageSource,
    private readonly dataDir: string,
  ) {
    this.cacheDir = join(dataDir, 'watermark-cache');
  }

  /** Moves a checked image (a private temporary file under DATA_DIR) into the store under `key`. */
  async put(key: string, tmpPath: string): Promise<void> {
    const type = CONTENT_TYPES[key.slice(key.lastIndexOf('.'))];
    if (!type || !isSafeKey(key)) throw new Error(`not a watermark image key: ${key}`);
    const { size } = await stat(tmpPath);
    await (await this.storage()).putFile(key, tmpPath, size, type);
  }

  /**
   * The image as a path on this machine: the store's own file, this node's copy, a copy fetched
   * now, or the old layout's file. When there is none anywhere, the old layout's path all the
   * same: drawing it fails as it always has for a missing image. A store that does not answer
   * throws (the renditions job is then retried).
   */
  async localPath(key: string): Promise<string> {
    const legacy = join(this.dataDir, ...key.split('/'));
    if (!isSafeKey(key)) return legacy;
    const storage = await this.storage();
    const own = storage.localPath(key);
    if (own) return (await isFile(own)) ? own : legacy;
    const copy = join(this.cacheDir, ...key.split('/'));
    if (await isFile(copy)) return copy;
    const body = await storage.read(key);
    if (!body) return legacy;
    ensurePrivateDir(dirname(copy));
    // Whole or not at all: nodes drawing the same image at once each write their own file, and the last rename wins.
    const partial = join(dirname(copy), tempFileName());
    try {
      await pipeline(body, createWriteStream(partial, { mode: PRIVATE_FILE_MODE }));
      await rename(partial, copy);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    return copy;
  }

  /**
   * Removes this node's copy, the old layout's file and the stored object (that last may throw: a
   * store that does not answer). Other nodes' copies stay, unused.
   */
  async delete(key: string): Promise<void> {
    await rm(join(this.dataDir, ...key.split('/')), { force: true });
    if (!isSafeKey(key)) return;
    await rm(join(this.cacheDir, ...key.split('/')), { force: true });
    await (await this.storage()).delete([key]);
  }
}

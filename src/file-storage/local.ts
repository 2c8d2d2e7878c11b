// Local object store: files under DATA_DIR/media/<key>, folders 0700 and files
// 0600 (they are received into 0600 temporary files and moved, never copied).
// Uploads reach it through the service's own upload target (src/uploads/routes.ts).
import { link, mkdir, open, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { ObjectGone, type ObjectInfo, type StorageBackend, type StoredObject } from './backend.js';
import { isSafeKey } from './object-keys.js';
import { PRIVATE_DIR_MODE } from '../core/private-files.js';
import { readFileHead } from './file-head.js';

/** Objects per page of list(). */
const LIST_PAGE = 500;

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

export class LocalStorage implements StorageBackend {
  readonly kind = 'local' as const;
  readonly root: string;

  constructor(dataDir: string) {
    this.root = join(dataDir, 'media');
  }

  localPath(key: string): string {
    if (!isSafeKey(key)) throw new Error(`unsafe storage key ${JSON.stringify(key)}`);
    return join(this.root, ...key.split('/'));
  }

  async stat(key: string): Promise<ObjectInfo | undefined> {
    try {
      const s = await stat(this.localPath(key));
      return s.isFile() ? { size: s.size } : undefined;
    } catch (err) {
      if (errno(err) === 'ENOENT') return undefined;
      throw err;
    }
  }

  async readHead(key: string, length: number): Promise<Buffer> {
    return readFileHead(this.localPath(key), length).catch((err: unknown) => {
      // Promoted by a concurrent step 3 since it was found.
      throw errno(err) === 'ENOENT' ? new ObjectGone(key) : err;
    });
  }

  async read(key: string, range?: { start: number; end: number }, options?: { chunkBytes?: number }): Promise<Readable | undefined> {
    // Opened first, so a missing file is an answer rather than a stream error.
    const fh = await open(this.localPath(key), 'r').catch((err: unknown) => {
      if (errno(err) === 'ENOENT' || errno(err) === 'EISDIR') return undefined;
      throw err;
    });
    if (!fh) return undefined;
    return fh.createReadStream({ ...(range ? { start: range.start, end: range.end } : {}), ...(options?.chunkBytes ? { highWaterMark: options.chunkBytes } : {}) });
  }

  private async folderFor(key: string): Promise<string> {
    const target = this.localPath(key);
    await mkdir(dirname(target), { recursive: true, mode: PRIVATE_DIR_MODE });
    return target;
  }

  /** The temporary file lives in DATA_DIR/tmp, on the same file system: rename is atomic. */
  async putFile(key: string, tmpPath: string): Promise<void> {
    await rename(tmpPath, await this.folderFor(key));
  }

  /** link() fails when the name exists, where rename() would replace it: the first file stays. */
  async putFileExclusive(key: string, tmpPath: string): Promise<boolean> {
    try {
      await link(tmpPath, await this.folderFor(key));
    } catch (err) {
      if (errno(err) === 'EEXIST') return false;
      throw err;
    }
    await rm(tmpPath, { force: true });
    return true;
  }

  async promote(fromKey: string, toKey: string): Promise<void> {
    const from = this.localPath(fromKey);
    try {
      await rename(from, await this.folderFor(toKey));
    } catch (err) {
      if (errno(err) === 'ENOENT') throw new ObjectGone(fromKey);
      throw err;
    }
    await rmdir(dirname(from)).catch(() => undefined);
  }

  async *list(prefix: string): AsyncIterable<StoredObject[]> {
    let page: StoredObject[] = [];
    for await (const found of this.walk(prefix.replace(/\/+$/, ''))) {
      page.push(found);
      if (page.length >= LIST_PAGE) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }

  private async *walk(folderKey: string): AsyncGenerator<StoredObject> {
    let entries;
    try {
      entries = await readdir(this.localPath(folderKey), { withFileTypes: true });
    } catch (err) {
      if (errno(err) === 'ENOENT' || errno(err) === 'ENOTDIR') return;
      throw err;
    }
    for (const entry of entries) {
      const key = `${folderKey}/${entry.name}`;
      if (!isSafeKey(key)) continue;
      if (entry.isDirectory()) {
        yield* this.walk(key);
      } else if (entry.isFile()) {
        // Gone since the folder was read: nothing to report.
        const info = await stat(this.localPath(key)).catch(() => undefined);
        if (info) yield { key, modifiedAt: info.mtime };
      }
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      const path = this.localPath(key);
      await rm(path, { force: true });
      // Drop the media's now empty folder; a folder still in use stays.
      await rmdir(dirname(path)).catch(() => undefined);
    }
  }
}

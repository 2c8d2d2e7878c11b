// Local object store: files under DATA_DIR/media/<key>. Uploads reach it
// through the service's own upload target (upload-target-routes.ts).
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ObjectInfo, StorageBackend } from './backend.js';
import { isSafeKey } from './object-keys.js';

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
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async readHead(key: string, length: number): Promise<Buffer> {
    const fh = await open(this.localPath(key), 'r');
    try {
      const buf = Buffer.alloc(length);
      const { bytesRead } = await fh.read(buf, 0, length, 0);
      return buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  }

  /** The temporary file lives in DATA_DIR/tmp, on the same file system: rename is atomic. */
  async putFile(key: string, tmpPath: string): Promise<void> {
    const target = this.localPath(key);
    await mkdir(dirname(target), { recursive: true });
    await rename(tmpPath, target);
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      const path = this.localPath(key);
      await rm(path, { force: true });
      // Drop the media's now empty folder; a folder still in use stays.
      await rmdir(dirname(path)).catch(() => undefined);
    }
  }

  /** For serving or copying an original. */
  openRead(key: string) {
    return createReadStream(this.localPath(key));
  }
}

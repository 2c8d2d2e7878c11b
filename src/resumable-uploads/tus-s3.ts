// The studio's tus uploads when the media store is S3 (docs/studio.md, Uploads, "Files, S3
// storage"): @tus/s3-store keeps each upload in the bucket as a multipart upload under
// `resumable/<upload id>`, so any API node resumes any upload from the offset the bucket holds; the
// finished object goes through UploadsService.takeStored as the API's direct-to-S3 step 3 does.
// Loaded only with S3 storage, like the AWS SDK it needs (src/file-storage/factory.ts).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import stream from 'node:stream';
import { S3Store, type MetadataValue } from '@tus/s3-store';
import { StreamSplitter, type KvStore } from '@tus/server';
import { ensurePrivateDir } from '../core/private-files.js';
import { RESUMABLE_PREFIX } from '../file-storage/object-keys.js';
import type { S3Storage } from '../file-storage/s3.js';
import { contentProbe, wholeDigest, type RangeReader } from '../uploads/probe.js';
import type { TusFiles } from './tus-files.js';

/** Bytes per S3 part (S3's floor is 5 MiB; 10 000 parts of 8 MiB hold 80 GB, beyond which the store grows them). */
export const TUS_PART_BYTES = 8 * 1024 * 1024;

/**
 * No cache of the upload's record: every node reads `<key>.info` from the bucket on each request.
 * The store's default (a Map per process, emptied only when that process ends or removes the
 * upload) would grow on each node by every upload that ended on another.
 */
const noCache: KvStore<MetadataValue> = {
  get: async () => undefined,
  set: async () => undefined,
  delete: async () => undefined,
};

const errorName = (err: unknown): string | undefined => (typeof err === 'object' && err !== null && 'name' in err ? String(err.name) : undefined);
const isMissing = (err: unknown) => ['NotFound', 'NoSuchKey', 'NoSuchUpload'].includes(errorName(err) ?? '');

/**
 * @tus/s3-store cuts a request's body into part-sized files before sending each to the bucket,
 * in os.tmpdir() with the default modes. Here those files go into a private folder (0700) under
 * DATA_DIR instead, like every other file the service keeps.
 */
class PrivateS3Store extends S3Store {
  constructor(
    options: ConstructorParameters<typeof S3Store>[0],
    private readonly scratch: string,
  ) {
    super(options);
  }

  protected override async uniqueTmpFileName(template: string): Promise<string> {
    return join(this.scratch, `${template}${randomBytes(12).toString('hex')}`);
  }

  /**
   * @tus/s3-store 2.0.7's uploadParts (pinned in package.json), unchanged but for the folder of
   * the part files (it names os.tmpdir() inside the method, so the method is copied whole).
   */
  protected override async uploadParts(metadata: MetadataValue, readStream: stream.Readable, currentPartNumber: number, offset: number): Promise<number> {
    const size = metadata.file.size;
    const promises: Promise<void>[] = [];
    let pendingChunkFilepath: string | null = null;
    let bytesUploaded = 0;
    let permit: { release(): Promise<void> } | undefined;

    const splitterStream = new StreamSplitter({ chunkSize: this.calcOptimalPartSize(size), directory: this.scratch })
      .on('beforeChunkStarted', async () => {
        permit = await this.partUploadSemaphore.acquire();
      })
      .on('chunkStarted', (filepath: string) => {
        pendingChunkFilepath = filepath;
      })
      .on('chunkFinished', ({ path, size: partSize }: { path: string; size: number }) => {
        pendingChunkFilepath = null;
        const acquiredPermit = permit;
        const partNumber = currentPartNumber++;
        offset += partSize;
        const isFinalPart = size === offset;
        const deferred = new Promise<void>((resolve, reject) => {
          void (async () => {
            try {
              const readable = fs.createReadStream(path);
              readable.on('error', reject);
              if (partSize >= this.minPartSize || isFinalPart) await this.uploadPart(metadata, readable, partNumber);
              else await this.uploadIncompletePart(metadata.file.id, readable);
              bytesUploaded += partSize;
              resolve();
            } catch (error) {
              splitterStream.destroy(error as Error);
              reject(error);
            } finally {
              rm(path, { force: true }).catch(() => undefined);
              acquiredPermit?.release().catch(() => undefined);
            }
          })();
        });
        deferred.catch(() => undefined);
        promises.push(deferred);
      })
      .on('chunkError', () => {
        permit?.release().catch(() => undefined);
      });

    try {
      await stream.promises.pipeline(readStream, splitterStream);
    } catch (error) {
      if (pendingChunkFilepath !== null) await rm(pendingChunkFilepath, { force: true }).catch(() => undefined);
      promises.push(Promise.reject(error));
    } finally {
      await Promise.allSettled(promises);
      await Promise.all(promises);
    }
    return bytesUploaded;
  }

  /**
   * Everything of upload object `key`: the multipart upload aborted (its parts go with it), then
   * the object, the tail and, last, the record (it names the multipart upload). The store's own
   * remove leaves the tail, and fails when the record is gone already.
   */
  async discard(key: string): Promise<void> {
    let multipart: string | undefined;
    try {
      multipart = (await this.getMetadata(key))['upload-id'];
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
    if (multipart) {
      try {
        await this.client.abortMultipartUpload({ Bucket: this.bucket, Key: key, UploadId: multipart });
      } catch (err) {
        // Completed (its object is what remains) or aborted already.
        if (!isMissing(err)) throw err;
      }
    }
    for (const k of [key, this.partKey(key, true), this.infoKey(key)]) {
      try {
        await this.client.deleteObject({ Bucket: this.bucket, Key: k });
      } catch (err) {
        if (!isMissing(err)) throw err;
      }
    }
  }

  /** tus termination (DELETE by the owner): everything of the upload, as the sweep removes it. */
  override async remove(key: string): Promise<void> {
    await this.discard(key);
  }

  close(): void {
    this.client.destroy();
  }
}

/**
 * The tus files of an S3 media store: uploads in its bucket (under its prefix), part files in
 * `scratch` (created 0700) while a request's bytes are cut into parts.
 */
export function s3TusFiles(storage: S3Storage, scratch: string, expirySeconds: number): TusFiles {
  ensurePrivateDir(scratch);
  const { bucket, prefix, region, endpoint, forcePathStyle, credentials } = storage.settings;
  // The store's key of an upload, and the media store's (which adds the prefix itself).
  const keyOf = (id: string) => `${RESUMABLE_PREFIX}${id}`;
  const rangeOf =
    (id: string): RangeReader =>
    async (start, end) => {
      const body = await storage.read(keyOf(id), { start, end });
      if (!body) throw new Error(`resumable upload ${id}: its object is gone`);
      return body;
    };
  const objectPrefix = prefix ? `${prefix}/${RESUMABLE_PREFIX}` : RESUMABLE_PREFIX;
  const datastore = new PrivateS3Store(
    {
      partSize: TUS_PART_BYTES,
      cache: noCache,
      // Sent to clients as Upload-Expires; the sweep (ResumableUploadsService.sweep) removes what expired.
      expirationPeriodInMilliseconds: expirySeconds * 1000,
      // Tags are for a bucket lifecycle rule to find expired uploads by; the sweep does it here.
      useTags: false,
      s3ClientConfig: {
        bucket,
        region,
        endpoint,
        forcePathStyle,
        credentials,
        // As the media store's client: plain requests every S3-compatible server understands.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      },
    },
    scratch,
  );
  return {
    datastore,
    storeIdOf: (id) => `${objectPrefix}${id}`,
    uploadIdOf: (storeId) => (storeId.startsWith(objectPrefix) ? storeId.slice(objectPrefix.length) : undefined),
    async complete(id) {
      // The object exists only once the multipart upload was completed, with every byte.
      const stored = await storage.stat(keyOf(id));
      return stored ? { key: keyOf(id), size: stored.size, version: stored.version } : undefined;
    },
    probe: (id, size) => contentProbe(size, rangeOf(id)),
    digest: (id, size) => wholeDigest(size, rangeOf(id)),
    async received(id) {
      try {
        return (await datastore.getUpload(`${objectPrefix}${id}`)).offset;
      } catch {
        return 0;
      }
    },
    remove: (id) => datastore.discard(`${objectPrefix}${id}`),
    // A part file being written is appended to as the body arrives: one unchanged since the upload expiry belongs to nobody.
    async sweepScratch(olderThanMs) {
      let removed = 0;
      for (const name of await readdir(scratch).catch(() => [] as string[])) {
        const info = await stat(join(scratch, name)).catch(() => undefined);
        if (info?.isFile() && info.mtimeMs <= olderThanMs) {
          await rm(join(scratch, name), { force: true });
          removed++;
        }
      }
      return removed;
    },
    close: () => datastore.close(),
  };
}

// S3-compatible object store. Clients upload straight to it with a presigned
// POST to an incoming key; the service reads back what arrived (HEAD, ranged
// GET) in step 3, because not every S3-compatible server enforces the POST
// policy, then copies it to its final key with the type the bytes have.
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { ObjectGone, servedInline, type ObjectInfo, type StorageBackend, type StoredObject, type UploadSpec, type UploadTarget } from './backend.js';

export interface S3Settings {
  bucket: string;
  /** Prepended to every key (`s3://bucket/prefix`), without a trailing slash. */
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

const statusOf = (err: unknown) => (err instanceof S3ServiceException ? err.$metadata?.httpStatusCode : undefined);

function isNotFound(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  return err.$metadata?.httpStatusCode === 404 || err.name === 'NotFound' || err.name === 'NoSuchKey';
}

/** A conditional request lost: the object exists already, or is not the version asked for. */
function isPreconditionFailure(err: unknown): boolean {
  const status = statusOf(err);
  return status === 412 || (status === 409 && (err as Error).name === 'ConditionalRequestConflict');
}

/** Never sent to the bucket for what clients upload: incoming objects are not served. */
const INCOMING_TYPE = 'application/octet-stream';

export class S3Storage implements StorageBackend {
  readonly kind = 's3' as const;
  readonly client: S3Client;

  constructor(readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      // Plain requests that every S3-compatible server understands.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private objectKey(key: string): string {
    return this.settings.prefix ? `${this.settings.prefix}/${key}` : key;
  }

  private keyOf(objectKey: string): string {
    return this.settings.prefix ? objectKey.slice(this.settings.prefix.length + 1) : objectKey;
  }

  /**
   * The bucket cannot make a presigned POST single-use or stop it from pinning
   * the client's Content-Type: it names an incoming key, which is never served
   * and which step 3 only ever copies from.
   */
  async directPostTarget(spec: UploadSpec): Promise<UploadTarget> {
    const seconds = Math.max(1, Math.floor((spec.expiresAt.getTime() - Date.now()) / 1000));
    const post = await createPresignedPost(this.client, {
      Bucket: this.settings.bucket,
      Key: this.objectKey(spec.key),
      Conditions: [
        ['content-length-range', spec.minSize, spec.maxSize],
        ['eq', '$Content-Type', spec.contentType],
      ],
      Fields: { 'Content-Type': spec.contentType },
      Expires: seconds,
    });
    return { url: post.url, method: 'POST', params: post.fields, fileParam: 'file' };
  }

  async stat(key: string): Promise<ObjectInfo | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
      return { size: Number(head.ContentLength ?? 0), version: head.ETag };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async readHead(key: string, length: number, version?: string): Promise<Buffer> {
    try {
      const got = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key), Range: `bytes=0-${length - 1}`, IfMatch: version }),
      );
      const bytes = await got.Body!.transformToByteArray();
      // A server that ignores Range sends everything: keep what was asked for.
      return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, length));
    } catch (err) {
      // An empty object has no byte 0: a 416.
      if (statusOf(err) === 416) return Buffer.alloc(0);
      if (isNotFound(err) || isPreconditionFailure(err)) throw new ObjectGone(key);
      throw err;
    }
  }

  async read(key: string, range?: { start: number; end: number }): Promise<Readable | undefined> {
    try {
      const got = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      return got.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  localPath(): undefined {
    return undefined;
  }

  async putFile(key: string, tmpPath: string, size: number, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: this.objectKey(key),
        Body: createReadStream(tmpPath),
        ContentLength: size,
        ContentType: contentType,
        ContentDisposition: servedInline(contentType) ? undefined : 'attachment',
      }),
    );
    await rm(tmpPath, { force: true });
  }

  /**
   * If-None-Match: * makes the write conditional where the server supports it
   * (AWS S3, MinIO, R2…). Some servers ignore it (s3rver): the HEAD first then
   * refuses every write after the first one landed, leaving only two writes
   * racing each other; both are the client's own bytes under an incoming key,
   * and step 3 checks and copies whichever is there.
   */
  async putFileExclusive(key: string, tmpPath: string, size: number): Promise<boolean> {
    if (await this.stat(key)) return false;
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.objectKey(key),
          Body: createReadStream(tmpPath),
          ContentLength: size,
          ContentType: INCOMING_TYPE,
          IfNoneMatch: '*',
        }),
      );
    } catch (err) {
      if (isPreconditionFailure(err)) return false;
      throw err;
    }
    return true;
  }

  /**
   * A server-side copy that replaces the metadata: the type is the sniffed one
   * whatever the upload declared, and what a browser must not render in place
   * is an attachment. Pinned to the version step 3 checked (CopySourceIfMatch),
   * so a replayed POST landing meanwhile is not what gets published.
   */
  async promote(fromKey: string, toKey: string, contentType: string, version?: string): Promise<void> {
    const source = `${this.settings.bucket}/${this.objectKey(fromKey).split('/').map(encodeURIComponent).join('/')}`;
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.objectKey(toKey),
          CopySource: source,
          CopySourceIfMatch: version,
          MetadataDirective: 'REPLACE',
          ContentType: contentType,
          ContentDisposition: servedInline(contentType) ? undefined : 'attachment',
        }),
      );
    } catch (err) {
      if (isNotFound(err) || isPreconditionFailure(err)) throw new ObjectGone(fromKey);
      throw err;
    }
    // Left behind, the incoming object is removed by the cleanup sweep once no upload waits for it.
    await this.delete([fromKey]).catch(() => undefined);
  }

  async *list(prefix: string): AsyncIterable<StoredObject[]> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: this.objectKey(prefix), ContinuationToken: token }),
      );
      const found = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ key: this.keyOf(o.Key), modifiedAt: o.LastModified ?? new Date(0) }] : []));
      if (found.length > 0) yield found;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      try {
        await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  close(): void {
    this.client.destroy();
  }
}

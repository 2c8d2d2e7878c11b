// S3-compatible object store. Clients upload straight to it with a presigned
// POST; the service reads back what arrived (HEAD, ranged GET) in step 3,
// because not every S3-compatible server enforces the POST policy.
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import type { ObjectInfo, StorageBackend, UploadSpec, UploadTarget } from './backend.js';

export interface S3Settings {
  bucket: string;
  /** Prepended to every key (`s3://bucket/prefix`), without a trailing slash. */
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

function isNotFound(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  return err.$metadata?.httpStatusCode === 404 || err.name === 'NotFound' || err.name === 'NoSuchKey';
}

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
      return { size: Number(head.ContentLength ?? 0) };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async readHead(key: string, length: number): Promise<Buffer> {
    try {
      const got = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key), Range: `bytes=0-${length - 1}` }),
      );
      const bytes = await got.Body!.transformToByteArray();
      // A server that ignores Range sends everything: keep what was asked for.
      return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, length));
    } catch (err) {
      // An empty object has no byte 0: a 416.
      if (err instanceof S3ServiceException && err.$metadata?.httpStatusCode === 416) return Buffer.alloc(0);
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
      }),
    );
    await rm(tmpPath, { force: true });
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

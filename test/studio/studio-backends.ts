// The two set-ups the studio must work on ("a photographer who never opens a terminal can do
// everything on SQLite with local files and on PostgreSQL with S3"): the studio's browser suites
// run once per set-up with describe.each(BACKENDS). PostgreSQL needs TEST_DATABASE_URL (the test
// setup says loudly when it is missing, and CI refuses to run without it); S3 is s3rver, started here.
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startS3, type LocalS3 } from '../api/uploads-support.js';
import { PG_URL, type DbKind } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';

export interface Backend {
  name: string;
  db: DbKind;
  storage: 'local' | 's3';
}

export const SQLITE_LOCAL: Backend = { name: 'SQLite + local files', db: 'sqlite', storage: 'local' };
export const POSTGRES_S3: Backend = { name: 'PostgreSQL + S3', db: 'postgres', storage: 's3' };
export const BACKENDS: Backend[] = PG_URL ? [SQLITE_LOCAL, POSTGRES_S3] : [SQLITE_LOCAL];

export interface BackendWorld {
  w: World;
  /** The bucket's server, on S3. */
  s3?: LocalS3;
  close(): Promise<void>;
}

/** A world on the set-up: a fresh SQLite directory or PostgreSQL database, the local store or a fresh s3rver bucket. */
export async function startOn(b: Backend, env: Record<string, string> = {}): Promise<BackendWorld> {
  const s3 = b.storage === 's3' ? await startS3() : undefined;
  try {
    const w = await startWorld(b.db, { ...s3?.env, ...env });
    return {
      w,
      s3,
      async close() {
        await w.svc.close();
        await s3?.close();
      },
    };
  } catch (e) {
    await s3?.close();
    throw e;
  }
}

/** A client of the bucket, as the service's own (path-style, s3rver's credentials). */
export function bucketClient(s3: LocalS3): S3Client {
  return new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
}

/** The size of the object under `key` in the bucket, undefined when there is none. */
export async function bucketObjectSize(s3: LocalS3, key: string): Promise<number | undefined> {
  const client = bucketClient(s3);
  try {
    return (await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }))).ContentLength;
  } catch (e) {
    if ((e as { name?: string }).name === 'NotFound') return undefined;
    throw e;
  } finally {
    client.destroy();
  }
}

/** The size of the stored object under `key` in the set-up's store (the bucket, or the file under DATA_DIR/media), undefined when there is none. */
export async function storedSize(on: BackendWorld, key: string): Promise<number | undefined> {
  if (on.s3) return bucketObjectSize(on.s3, key);
  const info = await stat(join(on.w.svc.config.dataDir, 'media', ...key.split('/'))).catch(() => undefined);
  return info?.size;
}

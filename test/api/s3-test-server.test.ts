// The tests' S3 server (s3rver, test/api/uploads-support.ts) must not be the flaky part of a run.
// s3rver removes a folder when a delete empties it; a put into that folder at the same moment had
// created it just before, then found it gone when opening its file: an ENOENT on a write stream
// with no listener, an uncaught exception in the test process (seen in CI, where a finished tus
// upload's record was deleted while the next upload's record was written under `resumable/`).
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3, type LocalS3 } from './uploads-support.js';

describe('the test S3 server', () => {
  let s3: LocalS3;
  let client: S3Client;
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);

  beforeAll(async () => {
    s3 = await startS3();
    client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    process.on('uncaughtException', onUncaught);
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    client?.destroy();
    await s3?.close();
  });

  it('puts into a folder while a delete empties it, 300 times: every put lands, nothing is thrown', async () => {
    const Bucket = s3.bucket;
    const failures: string[] = [];
    for (let i = 0; i < 300; i++) {
      await client.send(new PutObjectCommand({ Bucket, Key: `race/${i}.info`, Body: `record ${i}` }));
      const [put, del] = await Promise.allSettled([
        client.send(new PutObjectCommand({ Bucket, Key: `race/${i + 1}.next`, Body: `next ${i}` })),
        client.send(new DeleteObjectCommand({ Bucket, Key: `race/${i}.info` })),
      ]);
      if (put.status === 'rejected') failures.push(`put ${i}: ${String(put.reason)}`);
      if (del.status === 'rejected') failures.push(`delete ${i}: ${String(del.reason)}`);
      await client.send(new DeleteObjectCommand({ Bucket, Key: `race/${i + 1}.next` }));
    }
    expect(failures).toEqual([]);
    expect(uncaught).toEqual([]);
    // Deletes still delete, and the folder lists as empty.
    const listed = await client.send(new ListObjectsV2Command({ Bucket, Prefix: 'race/' }));
    expect(listed.KeyCount ?? 0).toBe(0);
    await client.send(new PutObjectCommand({ Bucket, Key: 'race/last', Body: 'last' }));
    const got = await client.send(new GetObjectCommand({ Bucket, Key: 'race/last' }));
    expect(await got.Body?.transformToString()).toBe('last');
  });
});

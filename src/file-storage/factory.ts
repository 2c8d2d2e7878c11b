// Chooses the object store from STORAGE_URL (operations.md): unset means local
// files under DATA_DIR; `s3://bucket[/prefix]?endpoint=…&region=…&forcePathStyle=true`
// means S3-compatible storage, with credentials from AWS_ACCESS_KEY_ID /
// AWS_SECRET_ACCESS_KEY (or the AWS SDK's default chain when those are unset).
import type { Config } from '../config.js';
import type { StorageBackend } from './backend.js';
import { LocalStorage } from './local.js';
import type { S3Settings } from './s3.js';

export function parseS3Url(storageUrl: string, credentials?: Config['storageCredentials']): S3Settings {
  let url: URL;
  try {
    url = new URL(storageUrl);
  } catch {
    throw new Error(`STORAGE_URL is not a URL: ${storageUrl}`);
  }
  if (url.protocol !== 's3:') throw new Error(`STORAGE_URL must start with s3://, got ${url.protocol}//…`);
  const bucket = decodeURIComponent(url.hostname);
  if (!bucket) throw new Error('STORAGE_URL must name a bucket: s3://bucket?…');
  const q = url.searchParams;
  const forcePathStyle = q.get('forcePathStyle') ?? q.get('force_path_style');
  return {
    bucket,
    prefix: decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, ''),
    endpoint: q.get('endpoint') || undefined,
    region: q.get('region') || 'us-east-1',
    // An explicit endpoint is nearly always a server without virtual-host buckets.
    forcePathStyle: forcePathStyle === null ? q.has('endpoint') : forcePathStyle === 'true' || forcePathStyle === '1',
    credentials,
  };
}

// The AWS SDK (~22 MiB of memory) is loaded only when S3 is used.
export async function createStorage(config: Pick<Config, 'dataDir' | 'storageUrl' | 'storageCredentials'>): Promise<StorageBackend> {
  if (!config.storageUrl || config.storageUrl === 'local') return new LocalStorage(config.dataDir);
  const { S3Storage } = await import('./s3.js');
  return new S3Storage(parseS3Url(config.storageUrl, config.storageCredentials));
}

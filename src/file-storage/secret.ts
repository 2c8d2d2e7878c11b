// The server secret that signs upload policies. UPLOAD_SECRET when set;
// otherwise a random secret generated once and kept in DATA_DIR/upload-secret
// (mode 0600), so restarts and processes sharing DATA_DIR agree. Processes on
// several machines (PostgreSQL + S3) must share UPLOAD_SECRET instead.
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../core/private-files.js';

export function loadUploadSecret(config: Pick<Config, 'uploadSecret' | 'dataDir'>): Buffer {
  if (config.uploadSecret) return Buffer.from(config.uploadSecret, 'utf8');
  const file = join(config.dataDir, 'upload-secret');
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  ensurePrivateDir(config.dataDir);
  // Written whole under a private name, then linked into place: the link fails
  // if another process got there first, and then both use the winner's secret.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: PRIVATE_FILE_MODE });
  try {
    linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(draft, { force: true });
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8');
}

// The process's upload machinery (object store, signing secret, temp folder),
// built on first use and kept in services.features. Building it creates
// DATA_DIR and its folders private (0700), tightening older ones.
import { join } from 'node:path';
import type { Services } from '../http/context.js';
import type { StorageBackend } from './backend.js';
import { createStorage } from './factory.js';
import { ensurePrivateDir } from './private-files.js';
import { loadUploadSecret } from './secret.js';
import { tempDirOf } from './temp-file.js';

export interface UploadServices {
  storage: StorageBackend;
  secret: Buffer;
  /** Where upload bodies are received before they are moved into the store. */
  tmpDir: string;
}

const KEY = 'uploads';

export function uploadServicesOf(services: Pick<Services, 'config' | 'features'>): UploadServices {
  let found = services.features.get(KEY) as UploadServices | undefined;
  if (!found) {
    const { dataDir } = services.config;
    ensurePrivateDir(dataDir);
    const storage = createStorage(services.config);
    if (storage.kind === 'local') ensurePrivateDir(join(dataDir, 'media'));
    const tmpDir = tempDirOf(dataDir);
    ensurePrivateDir(tmpDir);
    found = { storage, secret: loadUploadSecret(services.config), tmpDir };
    services.features.set(KEY, found);
  }
  return found;
}

export function storageOf(services: Pick<Services, 'config' | 'features'>): StorageBackend {
  return uploadServicesOf(services).storage;
}

/** Releases the store's connections (called when the service stops). */
export function closeUploadServices(services: Pick<Services, 'features'>): void {
  const found = services.features.get(KEY) as UploadServices | undefined;
  found?.storage.close?.();
  services.features.delete(KEY);
}

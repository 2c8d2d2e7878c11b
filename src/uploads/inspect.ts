// Step 3's look at the bytes: the real type (refused with stop-with-error when
// it is nothing the service accepts) and the facts read from an image.
import { readFileHead } from '../file-storage/file-head.js';
import { ApiError } from '../core/errors.js';
import type { StorageBackend } from '../file-storage/backend.js';
import { readMediaFacts, type MediaFacts } from './media-facts.js';
import { SNIFF_BYTES, sniffType, type SniffedType } from './sniff.js';

export interface Inspection {
  type: SniffedType;
  facts: MediaFacts;
}

function refusedType(): ApiError {
  return new ApiError('unprocessable', 'the file is not an image, video or PDF document of a type the service accepts', { stopWithError: true });
}

async function inspect(head: Buffer, input: string | Buffer): Promise<Inspection> {
  const type = await sniffType(head);
  if (!type) throw refusedType();
  return { type, facts: await readMediaFacts(type, input, head) };
}

/** An object already in the store (that version, when given): a local path when there is one, else its first bytes. */
export async function inspectStoredObject(storage: StorageBackend, key: string, version?: string): Promise<Inspection> {
  const head = await storage.readHead(key, SNIFF_BYTES, version);
  return inspect(head, storage.localPath(key) ?? head);
}

/** A file received on this machine, before it goes into the store. */
export async function inspectLocalFile(path: string): Promise<Inspection> {
  const head = await readFileHead(path, SNIFF_BYTES);
  return inspect(head, path);
}

// What the studio's tus endpoint (tus-endpoint.ts) needs of the store its uploads arrive in:
// the file store (local storage) or the S3 store (tus-s3.ts, loaded only with S3 storage).
import type { Server } from '@tus/server';
import type { ReceivedFiles } from './service.js';

export type Datastore = ConstructorParameters<typeof Server>[0]['datastore'];

/** The tus datastore, and what ResumableUploadsService needs of what it received. */
export interface TusFiles extends ReceivedFiles {
  datastore: Datastore;
  /** The datastore's name of upload `id` (S3: its object key, under the store's prefix). */
  storeIdOf(id: string): string;
  /** The upload id a datastore name stands for; undefined for any other name. */
  uploadIdOf(storeId: string): string | undefined;
  /**
   * Files this node keeps only while a request is being received (S3: a body's part files), left
   * behind by a process that died: those unchanged since `olderThanMs` go. Returns how many.
   */
  sweepScratch?(olderThanMs: number): Promise<number>;
  close?(): void;
}

// What a route handler is given: the services of the process and the request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Readable } from 'node:stream';
import type { Access } from '../access/access.js';
import type { Config } from '../config.js';
import type { StorageBackend } from '../storage/backend.js';
import type { Db, Store } from '../store/db.js';
import type { JobRow, UserRow } from '../store/schema.js';
import type { Params } from './params.js';
import type { SessionStore } from './sessions.js';
import type { AppRow } from '../store/schema.js';

/**
 * The process's dependencies, built once by the composition root (src/app.ts)
 * and given to the route handlers that still read them from their context.
 */
export interface Services {
  config: Config;
  store: Store;
  db: Db;
  sessions: SessionStore;
  log: Logger;
  storage: StorageBackend;
  /** Signs upload policies and raw-upload URLs. */
  uploadSecret: Buffer;
  /** Where upload bodies are received before they are moved into the store. */
  tmpDir: string;
  /** The job queue (src/jobs/service.ts): enqueueing also wakes this process's worker. */
  jobs: {
    enqueue(ownerId: number, kind: string, payload: unknown, total: number): Promise<JobRow>;
    purgeFinished(finishedBefore: Date): Promise<number>;
  };
  /** Which things named by a request the user may use (src/access). */
  access: Access;
}

export interface UploadedFile {
  field: string;
  fileName: string;
  mimeType: string;
  stream: Readable;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RequestContext {
  services: Services;
  /** The method the request acts as (`_method` applied). */
  method: HttpMethod;
  params: Params;
  /** Path parameters (`:urlname`, `:uuid`), decoded. */
  path: Record<string, string>;
  app?: AppRow;
  user?: UserRow;
  /** The multipart file part, when the route accepts one (the request's stream: read it once). */
  file?: UploadedFile;
  req: FastifyRequest;
  reply: FastifyReply;
  /** HTTP status of the reply (default 200). */
  status: number;
}

/** The signed-in user; routes declared with auth 'user' always have one. */
export function userOf(ctx: RequestContext): UserRow {
  if (!ctx.user) throw new Error('route declared without auth: user');
  return ctx.user;
}

// What a route handler is given: the services of the process and the request.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { Config } from '../config.js';
import type { Db, Store } from '../store/db.js';
import type { UserRow } from '../store/schema.js';
import type { Params } from './params.js';
import type { SessionStore } from './sessions.js';
import type { AppRow } from '../store/schema.js';

/** Process-wide services, built once at start (see server.ts). Features add theirs to `features`. */
export interface Services {
  config: Config;
  store: Store;
  db: Db;
  sessions: SessionStore;
  log: FastifyBaseLogger;
  /** Feature services (storage, jobs, …) registered by their modules at start. */
  features: Map<string, unknown>;
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

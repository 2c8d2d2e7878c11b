// What a route handler is given: the request, read and authenticated.
// Handlers get the services they use from their route factory (src/app.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { UserRow } from '../database/schema.js';
import type { AppRow } from '../database/schema.js';

export interface UploadedFile {
  field: string;
  fileName: string;
  mimeType: string;
  stream: Readable;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RequestContext {
  /** The method the request acts as (`_method` applied). */
  method: HttpMethod;
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

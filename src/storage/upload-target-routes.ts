// The service's own upload target (step 2 of an upload, locations `local` and
// `local-raw`). Unsigned by the API scheme: the signed policy in the request
// is the authorisation, and it is good once, for a pending upload only: its
// key must be the incoming key of a pending upload before a byte of the body
// is read, and the file lands only where nothing landed yet. The body is
// streamed to a temporary file, checked against the policy's size range, then
// put into the store in one piece.
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { RouteSpec } from '../http/router.js';
import type { RequestContext } from '../http/context.js';
import { ApiError, badRequest, conflict } from '../http/errors.js';
import { LOCAL_UPLOAD_PATH, RAW_UPLOAD_PATH } from '../media/upload-locations.js';
import { nowIso } from '../store/db.js';
import { verifyPolicy, type UploadPolicy } from './policy.js';
import { receiveToTempFile } from './temp-file.js';

/** Room for the form fields around the file in a multipart body. */
const MULTIPART_OVERHEAD = 64 * 1024;

/**
 * All form fields of one request (key, policy, signature, Content-Type): the
 * target is unauthenticated until the policy is checked, after the fields.
 */
export const UPLOAD_FORM_LIMIT_BYTES = 64 * 1024;

function refuseEarly(ctx: RequestContext, policy: UploadPolicy, overhead: number): void {
  const header = ctx.req.headers['content-length'];
  if (header === undefined) return;
  const length = Number(header);
  if (length > policy.maxSize + overhead) throw tooLarge(policy);
  if (length < policy.minSize) throw tooSmall(policy);
}

function tooLarge(policy: UploadPolicy): ApiError {
  return new ApiError('payload_too_large', `the file is larger than the ${policy.maxSize} bytes this upload allows`);
}

function tooSmall(policy: UploadPolicy): ApiError {
  return badRequest(`the file is smaller than the ${policy.minSize} bytes this upload expects`);
}

/**
 * A completed, replaced, expired or deleted upload no longer takes a file: a
 * replay of its policy must not write anything anywhere.
 */
async function requirePending(ctx: RequestContext, policy: UploadPolicy): Promise<void> {
  const pending = await ctx.services.db
    .selectFrom('uploads')
    .select('id')
    .where('storage_key', '=', policy.key)
    .where('expires_at', '>', nowIso())
    .executeTakeFirst();
  if (!pending) throw conflict('this upload is no longer pending (completed, replaced, expired or its media deleted): start again with step 1');
}

async function receive(ctx: RequestContext, policy: UploadPolicy, source: Readable): Promise<{ key: string; size: number }> {
  const { storage, tmpDir } = ctx.services;
  const received = await receiveToTempFile(source, tmpDir, policy.maxSize, ctx.req.raw).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 413) throw tooLarge(policy);
    throw err;
  });
  try {
    if (received.size < policy.minSize) throw tooSmall(policy);
    // Never over a file that already landed: step 3 may be checking it right now.
    if (!(await storage.putFileExclusive(policy.key, received.path, received.size))) {
      throw conflict('this upload already received its file: complete it (step 3), or start again with step 1 to send another');
    }
  } finally {
    await rm(received.path, { force: true });
  }
  return { key: policy.key, size: received.size };
}

/**
 * Any refusal ends the connection with the reply: the rest of a body that will
 * not be stored is not worth reading (one upload per request anyway).
 */
async function closingOnRefusal<T>(ctx: RequestContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!ctx.req.raw.complete) ctx.reply.header('connection', 'close');
    throw err;
  }
}

function receipt(stored: { key: string; size: number }) {
  return { message: 'file received', key: stored.key, 'file-size': stored.size };
}

export function uploadTargetRoutes(): RouteSpec[] {
  return [
    // Multipart, like an S3 browser POST: key, policy, signature, Content-Type (any order), then the file.
    {
      method: 'POST',
      path: LOCAL_UPLOAD_PATH,
      auth: 'none',
      params: ['key', 'policy', 'signature', 'Content-Type', 'content-type'],
      files: true,
      formLimitBytes: UPLOAD_FORM_LIMIT_BYTES,
      handler: (ctx) => closingOnRefusal(ctx, async () => {
        const policy = verifyPolicy(ctx.params.str('policy'), ctx.params.str('signature'), ctx.services.uploadSecret);
        if (ctx.params.str('key') !== policy.key) throw new ApiError('forbidden', 'key does not match the upload policy');
        const contentType = ctx.params.str('Content-Type') ?? ctx.params.str('content-type');
        if (contentType !== undefined && policy.contentType !== undefined && contentType.toLowerCase() !== policy.contentType.toLowerCase()) {
          throw new ApiError('forbidden', `Content-Type must be ${policy.contentType}, as given in the upload parameters`);
        }
        if (!ctx.file) throw badRequest('no file: send the upload parameters first, then the file');
        refuseEarly(ctx, policy, MULTIPART_OVERHEAD);
        await requirePending(ctx, policy);
        return receipt(await receive(ctx, policy, ctx.file.stream));
      }),
    },
    // Raw bytes to a URL that carries its own authorisation (clients with the `raw` capability).
    {
      method: 'PUT',
      path: RAW_UPLOAD_PATH,
      auth: 'none',
      params: ['policy', 'signature'],
      rawBody: true,
      formLimitBytes: UPLOAD_FORM_LIMIT_BYTES,
      handler: (ctx) => closingOnRefusal(ctx, async () => {
        const policy = verifyPolicy(ctx.params.str('policy'), ctx.params.str('signature'), ctx.services.uploadSecret);
        refuseEarly(ctx, policy, 0);
        await requirePending(ctx, policy);
        return receipt(await receive(ctx, policy, ctx.req.raw));
      }),
    },
  ];
}

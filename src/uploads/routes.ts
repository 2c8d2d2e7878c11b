// The service's own upload target (step 2 of an upload, locations `local` and
// `local-raw`). Unsigned by the API scheme: the signed policy in the request
// is the authorisation (src/uploads/service.ts, receive). A refusal ends the
// connection with the reply when the body has not all arrived (server.ts).
import type { RequestContext } from '../http/context.js';
import type { RouteSpec } from '../http/router.js';
import { LOCAL_UPLOAD_PATH, RAW_UPLOAD_PATH } from './locations.js';
import type { StepTwoRequest, UploadsService } from './service.js';
import { receiptXml } from './xml.js';

/**
 * All form fields of one request (key, policy, signature, Content-Type): the
 * target is unauthenticated until the policy is checked, after the fields.
 */
export const UPLOAD_FORM_LIMIT_BYTES = 64 * 1024;

function announcedBytes(ctx: RequestContext): number | undefined {
  const header = ctx.req.headers['content-length'];
  return header === undefined ? undefined : Number(header);
}

export function uploadRoutes(uploads: UploadsService): RouteSpec[] {
  return [
    // Multipart, like an S3 browser POST: key, policy, signature, Content-Type (any order), then the file.
    {
      method: 'POST',
      path: LOCAL_UPLOAD_PATH,
      auth: 'none',
      params: ['key', 'policy', 'signature', 'Content-Type', 'content-type'],
      files: true,
      formLimitBytes: UPLOAD_FORM_LIMIT_BYTES,
      handler: async (ctx) => {
        const req: StepTwoRequest = {
          policy: ctx.params.str('policy'),
          signature: ctx.params.str('signature'),
          form: { key: ctx.params.str('key'), contentType: ctx.params.str('Content-Type') ?? ctx.params.str('content-type') },
          announcedBytes: announcedBytes(ctx),
        };
        return receiptXml(await uploads.receive(req, ctx.file?.stream, ctx.req.raw));
      },
    },
    // Raw bytes to a URL that carries its own authorisation (clients with the `raw` capability).
    {
      method: 'PUT',
      path: RAW_UPLOAD_PATH,
      auth: 'none',
      params: ['policy', 'signature'],
      rawBody: true,
      formLimitBytes: UPLOAD_FORM_LIMIT_BYTES,
      handler: async (ctx) => {
        const req: StepTwoRequest = { policy: ctx.params.str('policy'), signature: ctx.params.str('signature'), announcedBytes: announcedBytes(ctx) };
        return receiptXml(await uploads.receive(req, ctx.req.raw, ctx.req.raw));
      },
    },
  ];
}

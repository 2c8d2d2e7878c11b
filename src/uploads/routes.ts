// The service's own upload target (step 2 of an upload, locations `local` and
// `local-raw`). Unsigned by the API scheme: the signed policy in the request
// is the authorisation (src/uploads/service.ts, receive). A refusal ends the
// connection with the reply when the body has not all arrived (server.ts).
import type { RequestContext } from '../http/context.js';
import { fields, input, text } from '../http/input.js';
import { route, type RouteSpec } from '../http/router.js';
import { LOCAL_UPLOAD_PATH, RAW_UPLOAD_PATH } from './locations.js';
import type { StepTwoRequest, UploadsService } from './service.js';
import { receiptXml } from './xml.js';

/**
 * All form fields of one request (key, policy, signature, Content-Type): the
 * target is unauthenticated until the policy is checked, after the fields.
 */
export const UPLOAD_FORM_LIMIT_BYTES = 64 * 1024;

/** The signed policy that authorises the request, and its signature. */
const POLICY = { policy: text('policy'), signature: text('signature') };

function announcedBytes(ctx: RequestContext): number | undefined {
  const header = ctx.req.headers['content-length'];
  return header === undefined ? undefined : Number(header);
}

export function uploadRoutes(uploads: UploadsService): RouteSpec[] {
  return [
    // Multipart, like an S3 browser POST: key, policy, signature, Content-Type (any order), then the file.
    route({
      method: 'POST',
      path: LOCAL_UPLOAD_PATH,
      auth: 'none',
      input: fields({
        ...POLICY,
        key: text('key'),
        // S3's form field, in either spelling.
        contentType: input(['Content-Type', 'content-type'], (p) => p.str('Content-Type') ?? p.str('content-type')),
      }),
      files: true,
      formLimitBytes: UPLOAD_FORM_LIMIT_BYTES,
      handler: async (ctx, { policy, signature, key, contentType }) => {
        const req: StepTwoRequest = { policy, signature, form: { key, contentType }, announcedBytes: announcedBytes(ctx) };
        return receiptXml(await uploads.receive(req, ctx.file?.stream, ctx.req.raw));
      },
    }),
    // Raw bytes to a URL that carries its own authorisation (clients with the `raw` capability).
    route({
      method: 'PUT',
      path: RAW_UPLOAD_PATH,
      auth: 'none',
      input: fields(POLICY),
      rawBody: true,
      formLimitBytes: UPLOAD_FORM_LIMIT_BYTES,
      handler: async (ctx, { policy, signature }) => {
        const req: StepTwoRequest = { policy, signature, announcedBytes: announcedBytes(ctx) };
        return receiptXml(await uploads.receive(req, ctx.req.raw, ctx.req.raw));
      },
    }),
  ];
}

// The Stripe webhook endpoint (docs/shop.md "Card payments"): unsigned by the
// API's signature (Stripe signs it its own way, checked in StripePayments),
// its address named by the photographer's account token.
import { ApiError } from '../core/errors.js';
import { route, type RouteSpec } from '../http/router.js';
import type { StripePayments } from './stripe.js';

/** Stripe's events are a few kilobytes; anything much larger is not one. */
export const WEBHOOK_MAX_BYTES = 256 * 1024;

async function readBody(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > WEBHOOK_MAX_BYTES) throw new ApiError('payload_too_large', `a webhook body is at most ${WEBHOOK_MAX_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function paymentRoutes({ stripe }: { stripe: StripePayments }): RouteSpec[] {
  return [
    route({
      method: 'POST',
      path: '/payments/stripe/:token/webhook.xml',
      auth: 'none',
      rawBody: true,
      handler: async (ctx) => {
        const announced = Number(ctx.req.headers['content-length'] ?? 0);
        if (announced > WEBHOOK_MAX_BYTES) throw new ApiError('payload_too_large', `a webhook body is at most ${WEBHOOK_MAX_BYTES} bytes`);
        const body = await readBody(ctx.req.raw);
        const signature = ctx.req.headers['stripe-signature'];
        const r = await stripe.webhook(ctx.path.token, body, typeof signature === 'string' ? signature : undefined);
        return { event: r.event, applied: r.applied, reason: r.reason ?? null };
      },
    }),
  ];
}

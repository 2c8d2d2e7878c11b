// "Preview the mails" of a website (docs/studio.md): the page, and each mail's HTML for its frames,
// served with a CSP of its own (sandboxed, no script, framed by the studio only).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { sampleMail, SAMPLE_KINDS, SAMPLE_LABELS, type SampleKind } from '../../mail/samples.js';
import type { MailBrand } from '../../mail/shell.js';
import type { Signed, StudioContext, StudioRoute } from '../context.js';
import { mailPreviewPage } from '../pages/mails.js';

export const mailPreviewRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/websites/:urlname/mails', handler: previewScreen },
  { method: 'GET', path: '/studio/websites/:urlname/mails/:kind', handler: previewFrame },
];

const urlnameOf = (req: FastifyRequest) => (req.params as { urlname: string }).urlname;
const isKind = (k: unknown): k is SampleKind => typeof k === 'string' && (SAMPLE_KINDS as readonly string[]).includes(k);

/** The website's brand as its mails show it (the website must be the user's: 404 otherwise). */
async function brandOf(ctx: StudioContext, s: Signed, urlname: string): Promise<{ urlname: string; brand: MailBrand }> {
  const d = await ctx.websiteDetails(s, urlname);
  const w = d.website;
  const brand = (await ctx.deps.mailBrand?.(w.uuid)) ?? { title: w.title || w.urlname, accent: w.accent_color ?? null, logo: null, home: null };
  return { urlname: w.urlname, brand };
}

async function previewScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const asked = (req.query as { kind?: unknown }).kind;
  const kind: SampleKind = isKind(asked) ? asked : 'invitation';
  const { urlname, brand } = await brandOf(ctx, s, urlnameOf(req));
  const mail = sampleMail(kind, brand);
  return ctx.send(
    reply,
    200,
    mailPreviewPage({
      viewer: s.viewer,
      urlname,
      siteTitle: brand.title,
      kinds: SAMPLE_KINDS.map((k) => ({ kind: k, label: SAMPLE_LABELS[k] })),
      kind,
      label: SAMPLE_LABELS[kind],
      subject: mail.subject,
      text: mail.text,
    }),
  );
}

// The mail's own inline styles and its logo (on the service or elsewhere) are allowed here, and
// nothing else: the sandbox gives it no script and an origin of its own.
const FRAME_CSP = "default-src 'none'; img-src 'self' https: http: data:; style-src 'unsafe-inline'; sandbox; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";

async function previewFrame(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const kind = (req.params as { kind: string }).kind;
  if (!isKind(kind)) throw new ApiError('not_found', 'No such mail.');
  const { brand } = await brandOf(ctx, s, urlnameOf(req));
  return reply
    .code(200)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', FRAME_CSP)
    .header('x-frame-options', 'SAMEORIGIN')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-store')
    .header('x-robots-tag', 'noindex')
    .send(sampleMail(kind, brand).html);
}

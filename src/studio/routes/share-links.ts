// A gallery's or a lightbox's share links (docs/studio.md "Share links", docs/integrations.md):
// listed, made (the address shown once, with a copy button) and revoked through ShareLinksService,
// the form read through the link's field spec; another photographer's gallery, lightbox or link is a 404.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readFields } from '../../core/fields.js';
import { SHARE_LINK_API, SHARE_LINK_FIELDS } from '../../share-links/fields.js';
import { SHARE_TARGETS, type ShareTargetKind } from '../../share-links/service.js';
import { SMALL_FORM_BYTES, type StudioContext, type StudioRoute } from '../context.js';
import { shareLinksPage } from '../pages/share-links.js';
import { specForm } from '../spec-form.js';

const form = specForm(SHARE_LINK_FIELDS, SHARE_LINK_API, {}, { recipient: 'The recipient', expires_at: 'The expiry', max_views: 'The view limit', password: 'The password', download: 'The downloads' });
const PLURAL = { gallery: 'galleries', lightbox: 'lightboxes' } as const;
const at = (kind: ShareTargetKind, uuid: string) => `/studio/${PLURAL[kind]}/${encodeURIComponent(uuid)}/share-links`;

// The same screen for a gallery's links and a lightbox's, over the one service.
export const shareLinkStudioRoutes: StudioRoute[] = SHARE_TARGETS.flatMap((kind): StudioRoute[] => [
  { method: 'GET', path: `/studio/${PLURAL[kind]}/:uuid/share-links`, handler: (ctx, req, reply) => screen(ctx, req, reply, kind) },
  { method: 'POST', path: `/studio/${PLURAL[kind]}/:uuid/share-links`, bodyLimit: SMALL_FORM_BYTES, handler: (ctx, req, reply) => create(ctx, req, reply, kind) },
  { method: 'POST', path: `/studio/${PLURAL[kind]}/:uuid/share-links/:link/revoke`, bodyLimit: SMALL_FORM_BYTES, handler: (ctx, req, reply) => revoke(ctx, req, reply, kind) },
]);

async function screen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply, kind: ShareTargetKind) {
  const s = ctx.need(req);
  const uuid = (req.params as { uuid: string }).uuid;
  const { name, links } = await ctx.deps.shareLinks.screen(s.user, kind, uuid);
  const done = (req.query as { done?: string }).done;
  return ctx.send(reply, 200, shareLinksPage({ viewer: s.viewer, kind, uuid, name, links, notice: done === 'revoked' ? 'The link is revoked: it opens nothing any more.' : undefined }));
}

async function create(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply, kind: ShareTargetKind) {
  const { s, form: body } = ctx.signedPost(req);
  const uuid = (req.params as { uuid: string }).uuid;
  // Fields left empty are not sent: the defaults apply (30 days, no limit, no password, no downloads).
  const value = (key: string) => {
    const v = body.str(key);
    return v === undefined || v === '' ? undefined : key === 'expires_at' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T23:59:59Z` : v;
  };
  const { name } = await ctx.deps.shareLinks.screen(s.user, kind, uuid);
  try {
    const made = await ctx.deps.shareLinks.create(s.user, kind, uuid, readFields(SHARE_LINK_FIELDS, { value }, SHARE_LINK_API, 'create'));
    const { links } = await ctx.deps.shareLinks.screen(s.user, kind, uuid);
    return ctx.send(reply, 200, shareLinksPage({ viewer: s.viewer, kind, uuid, name, links, created: made.url }));
  } catch (err) {
    const error = form.refusal(err);
    const { links } = await ctx.deps.shareLinks.screen(s.user, kind, uuid);
    return ctx.send(reply, 422, shareLinksPage({ viewer: s.viewer, kind, uuid, name, links, error, form: { recipient: body.str('recipient'), expires_at: body.str('expires_at'), max_views: body.str('max_views'), download: body.str('download') } }));
  }
}

async function revoke(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply, kind: ShareTargetKind) {
  const { s } = ctx.signedPost(req);
  const { uuid, link } = req.params as { uuid: string; link: string };
  // The link must be of this gallery or lightbox of the user: the screen checks the target, the service the link's owner.
  await ctx.deps.shareLinks.targetOf(s.user, kind, uuid);
  await ctx.deps.shareLinks.revoke(s.user, link);
  return ctx.redirect(reply, `${at(kind, uuid)}?done=revoked`);
}

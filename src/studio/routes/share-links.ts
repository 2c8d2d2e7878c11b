// A gallery's share links (docs/studio.md "Share links", docs/integrations.md): listed, made (the
// address shown once, with a copy button) and revoked through ShareLinksService, the form read
// through the link's field spec; another photographer's gallery or link is a 404.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readFields } from '../../core/fields.js';
import { SHARE_LINK_API, SHARE_LINK_FIELDS } from '../../share-links/fields.js';
import { SMALL_FORM_BYTES, type StudioContext, type StudioRoute } from '../context.js';
import { shareLinksPage } from '../pages/share-links.js';
import { specForm } from '../spec-form.js';

const form = specForm(SHARE_LINK_FIELDS, SHARE_LINK_API, {}, { recipient: 'The recipient', expires_at: 'The expiry', max_views: 'The view limit', password: 'The password', download: 'The downloads' });
const at = (uuid: string) => `/studio/galleries/${encodeURIComponent(uuid)}/share-links`;

export const shareLinkStudioRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/galleries/:uuid/share-links', handler: screen },
  { method: 'POST', path: '/studio/galleries/:uuid/share-links', bodyLimit: SMALL_FORM_BYTES, handler: create },
  { method: 'POST', path: '/studio/galleries/:uuid/share-links/:link/revoke', bodyLimit: SMALL_FORM_BYTES, handler: revoke },
];

async function screen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const uuid = (req.params as { uuid: string }).uuid;
  const { galleryName, links } = await ctx.deps.shareLinks.screen(s.user, uuid);
  const done = (req.query as { done?: string }).done;
  return ctx.send(reply, 200, shareLinksPage({ viewer: s.viewer, galleryUuid: uuid, galleryName, links, notice: done === 'revoked' ? 'The link is revoked: it opens nothing any more.' : undefined }));
}

async function create(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form: body } = ctx.signedPost(req);
  const uuid = (req.params as { uuid: string }).uuid;
  // Fields left empty are not sent: the defaults apply (30 days, no limit, no password, no downloads).
  const value = (key: string) => {
    const v = body.str(key);
    return v === undefined || v === '' ? undefined : key === 'expires_at' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T23:59:59Z` : v;
  };
  const { galleryName } = await ctx.deps.shareLinks.screen(s.user, uuid);
  try {
    const made = await ctx.deps.shareLinks.create(s.user, uuid, readFields(SHARE_LINK_FIELDS, { value }, SHARE_LINK_API, 'create'));
    const { links } = await ctx.deps.shareLinks.screen(s.user, uuid);
    return ctx.send(reply, 200, shareLinksPage({ viewer: s.viewer, galleryUuid: uuid, galleryName, links, created: made.url }));
  } catch (err) {
    const error = form.refusal(err);
    const { links } = await ctx.deps.shareLinks.screen(s.user, uuid);
    return ctx.send(reply, 422, shareLinksPage({ viewer: s.viewer, galleryUuid: uuid, galleryName, links, error, form: { recipient: body.str('recipient'), expires_at: body.str('expires_at'), max_views: body.str('max_views'), download: body.str('download') } }));
  }
}

async function revoke(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s } = ctx.signedPost(req);
  const { uuid, link } = req.params as { uuid: string; link: string };
  // The link must be of this gallery of the user: the screen checks the gallery, the service the link's owner.
  await ctx.deps.shareLinks.galleryOf(s.user, uuid);
  await ctx.deps.shareLinks.revoke(s.user, link);
  return ctx.redirect(reply, `${at(uuid)}?done=revoked`);
}

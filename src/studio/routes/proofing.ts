// A gallery's proofing (issue 30, item 2; docs/studio.md "Proofing"): each client's selection
// with its picks, notes and the file names to paste into Lightroom or Capture One, the client's
// activity beside it, and "Reopen" for a sent one. A table of small handlers; the decisions are
// LightboxesService.proofing / reopenIn (only the owner of the gallery's website: 404 otherwise).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SMALL_FORM_BYTES, type StudioContext, type StudioRoute } from '../context.js';
import { proofingPage } from '../pages/proofing.js';

/** The client's latest events shown beside their selection. */
const EVENTS_SHOWN = 30;

type Handler = (ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

const pathOf = (req: FastifyRequest) => req.params as { uuid: string; lightbox?: string };
/** A query value given once and not blank (`?selection=` alone is the first selection). */
const oneString = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** The screen: the gallery's selections, one of them (`?selection=`) with its picks and its client's activity. */
const show: Handler = async (ctx, req, reply) => {
  const s = ctx.need(req);
  const q = req.query as { selection?: unknown; done?: unknown; list?: unknown };
  const proofing = await ctx.deps.lightboxes.proofing(s.user, pathOf(req).uuid, oneString(q.selection), oneString(q.list));
  const client = proofing.chosen?.lightbox.client_email;
  const activity = client ? await ctx.deps.activity.clientInGallery(s.user, proofing.gallery.uuid, client, EVENTS_SHOWN) : undefined;
  const notice = q.done === 'reopened' ? 'The selection is open again: the client can change it and send it once more. They are not told by mail; let them know.' : undefined;
  return ctx.send(reply, 200, proofingPage({ viewer: s.viewer, proofing, activity, notice }));
};

/** Reopens a sent selection (the form's token first, then the owner's 404), back to it on the screen. */
const reopen: Handler = async (ctx, req, reply) => {
  const { s } = ctx.signedPost(req);
  const { uuid, lightbox } = pathOf(req);
  const reopened = await ctx.deps.lightboxes.reopenIn(s.user, uuid, lightbox ?? '');
  return ctx.redirect(reply, `/studio/galleries/${reopened.gallery_uuid}/proofing?selection=${reopened.uuid}&done=reopened`);
};

export const proofingRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/galleries/:uuid/proofing', handler: show },
  { method: 'POST', path: '/studio/galleries/:uuid/proofing/:lightbox/reopen', bodyLimit: SMALL_FORM_BYTES, handler: reopen },
];

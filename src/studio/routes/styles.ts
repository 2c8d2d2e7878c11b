// A website's display styles (docs/display-styles.md): the studio's form fields become the
// parameters of the one input declaration the admin command reads too
// (websites/display-style-input.ts), saved by WebsitesService on the API's access rule.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUuid } from '../../core/uuid.js';
import { ApiError } from '../../core/errors.js';
import { readFields } from '../../core/fields.js';
import type { Body } from '../body.js';
import { DISPLAY_STYLE_FIELDS, DISPLAY_STYLE_PARAMS } from '../../websites/display-style-input.js';
import { specForm } from '../spec-form.js';
import { SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import { stylesPage, type StyleItem } from '../pages/styles.js';

export const styleRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/websites/:urlname/styles', handler: stylesScreen },
  { method: 'POST', path: '/studio/websites/:urlname/styles', bodyLimit: SMALL_FORM_BYTES, handler: createStyle },
  { method: 'POST', path: '/studio/websites/:urlname/styles/:uuid', bodyLimit: SMALL_FORM_BYTES, handler: changeStyle },
];

const urlnameOf = (req: FastifyRequest) => (req.params as { urlname: string }).urlname;

async function screen(ctx: StudioContext, reply: FastifyReply, s: Signed, urlname: string, status: number, extra: { notice?: string; error?: { key: string; message: string }; draft?: Omit<StyleItem, 'uuid' | 'isDefault'> } = {}) {
  const d = await ctx.websiteDetails(s, urlname);
  const rows = await ctx.deps.websites.displayStylesOf({ user: s.user }, d.website.urlname);
  const styles: StyleItem[] = rows.map((r) => ({ uuid: r.uuid, name: r.name, layout: r.layout, isDefault: r.is_default === 1, crop: r.crop === 1, spacing: r.spacing, captions: r.captions === 1 }));
  return ctx.send(reply, status, stylesPage({ viewer: s.viewer, urlname: d.website.urlname, siteTitle: d.website.title || d.website.urlname, styles, ...extra }));
}

/** The display style's spec as the form names it (its own names); a refusal at err.field. */
const STYLE_FORM = specForm(DISPLAY_STYLE_FIELDS, DISPLAY_STYLE_PARAMS);
const styleOf = (form: Body) => readFields(DISPLAY_STYLE_FIELDS, STYLE_FORM.source(form, Object.keys(DISPLAY_STYLE_FIELDS)), STYLE_FORM.words);

const draftOf = (form: Body) => ({ name: form.str('name') ?? '', layout: form.str('layout') ?? 'grid', crop: form.str('crop') === 'yes', spacing: form.str('spacing') ?? 'normal', captions: form.str('captions') === 'yes' });

async function stylesScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const done = (req.query as { done?: string }).done;
  return screen(ctx, reply, s, urlnameOf(req), 200, { notice: done === 'saved' ? 'The style was saved.' : done === 'created' ? 'The style was created.' : undefined });
}

async function createStyle(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  try {
    await ctx.deps.websites.createDisplayStyle({ user: s.user }, d.website.urlname, styleOf(form));
  } catch (err) {
    return screen(ctx, reply, s, d.website.urlname, 422, { error: { key: 'new', message: STYLE_FORM.refusal(err).message }, draft: draftOf(form) });
  }
  return ctx.redirect(reply, `/studio/websites/${d.website.urlname}/styles?done=created`);
}

async function changeStyle(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  const uuid = (req.params as { uuid: string }).uuid.toLowerCase();
  if (!isUuid(uuid)) throw new ApiError('not_found', 'There is no such display style.');
  try {
    await ctx.deps.websites.changeDisplayStyle({ user: s.user }, d.website.urlname, uuid, styleOf(form));
  } catch (err) {
    return screen(ctx, reply, s, d.website.urlname, 422, { error: { key: uuid, message: STYLE_FORM.refusal(err).message } });
  }
  return ctx.redirect(reply, `/studio/websites/${d.website.urlname}/styles?done=saved`);
}


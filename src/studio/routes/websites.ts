// A website's settings: its brand (through the API's own reader and service, so a 422 is the
// API's, shown at its field) and its Markdown pages.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { readFields } from '../../core/fields.js';
import { BRAND_API, BRAND_FIELDS, PAGE_API, PAGE_FIELDS } from '../../websites/brand.js';
import { homeUrl } from '../../websites/home-url.js';
import type { WebsiteDetails } from '../../websites/service.js';
import { socialLinksOf } from '../../websites/social-links.js';
import { specForm } from '../spec-form.js';
import { FORM_LIMIT_BYTES, SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import { pageEditPage, pagesPage, settingsPage, websitesPage, type HostnameState, type PickPage, type SettingsValues } from '../pages/websites.js';
import { challengeName } from '../../websites/hostnames.js';
import type { Entry } from '../../core/fields.js';
import type { Body } from '../body.js';
import { homeSettingsPage, type HomeValues } from '../pages/website-home.js';
import { tree } from './galleries.js';

/** Library images offered as a logo or favicon, a page at a time: the latest first. */
const PICKABLE = 24;
/** Pages of older images one may go back through (24 × 400: a library of 9 600 images). */
const PICK_PAGES = 400;
const WEBSITES_SHOWN = 200;

/** The brand's and a page's specs as the studio's forms name them. */
const BRAND_FORM = specForm(BRAND_FIELDS, BRAND_API);
const BRAND_KEYS = Object.keys(BRAND_FIELDS);
const PAGE_FORM = specForm(PAGE_FIELDS, PAGE_API);

export const websiteRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/websites', handler: websitesScreen },
  { method: 'GET', path: '/studio/websites/:urlname', handler: websiteScreen },
  { method: 'POST', path: '/studio/websites/:urlname/hostname/verify', bodyLimit: SMALL_FORM_BYTES, handler: verifyHostname },
  { method: 'POST', path: '/studio/websites/:urlname', bodyLimit: SMALL_FORM_BYTES * 4, handler: saveBrand },
  { method: 'GET', path: '/studio/websites/:urlname/home', handler: homeScreen },
  { method: 'POST', path: '/studio/websites/:urlname/home', bodyLimit: SMALL_FORM_BYTES * 4, handler: saveHome },
  { method: 'GET', path: '/studio/websites/:urlname/pages', handler: pagesScreen },
  { method: 'GET', path: '/studio/websites/:urlname/new-page', handler: newPageScreen },
  { method: 'GET', path: '/studio/websites/:urlname/pages/:slug', handler: pageScreen },
  { method: 'POST', path: '/studio/websites/:urlname/new-page', bodyLimit: FORM_LIMIT_BYTES, handler: (ctx, req, reply) => savePage(ctx, req, reply, true) },
  { method: 'POST', path: '/studio/websites/:urlname/pages/:slug', bodyLimit: FORM_LIMIT_BYTES, handler: (ctx, req, reply) => savePage(ctx, req, reply, false) },
  { method: 'POST', path: '/studio/websites/:urlname/pages/:slug/delete', bodyLimit: SMALL_FORM_BYTES, handler: deletePage },
];

/**
 * A page of the library's images to pick from, the latest first (the library lists the oldest
 * first: the page is read from its end). `page` 1 is the latest 24.
 */
async function pickable(ctx: StudioContext, s: Signed, page: number): Promise<PickPage> {
  const { total } = await ctx.deps.media.list(s.user, {}, { limit: 1, offset: 0 }, false);
  const end = Math.max(0, total - (page - 1) * PICKABLE);
  const offset = Math.max(0, end - PICKABLE);
  if (end === offset) return { images: [], page, newer: page > 1, older: false };
  const found = await ctx.deps.media.list(s.user, {}, { limit: end - offset, offset }, true);
  const images = found.records
    .filter((r) => r.mime_type?.startsWith('image/'))
    .reverse()
    .map((r) => {
      const views = (found.renditions?.get(r.id) ?? []).slice().sort((a, b) => a.width - b.width);
      return { uuid: r.uuid, label: r.title || r.file_name || r.uuid.slice(0, 8), thumb: views[0] ? `/studio/thumbs/${r.uuid}` : undefined };
    });
  return { images, page, newer: page > 1, older: offset > 0 && page < PICK_PAGES };
}
const pickPageOf = (req: FastifyRequest) => {
  const v = (req.query as { images?: unknown }).images;
  const n = typeof v === 'string' && /^\d{1,4}$/.test(v) ? Number(v) : 1;
  return Math.min(Math.max(1, n), PICK_PAGES);
};

function settingsValues(d: WebsiteDetails): SettingsValues {
  const w = d.website;
  const links = socialLinksOf(w.social_links);
  return {
    title: w.title,
    tagline: w.tagline ?? '',
    colorScheme: w.color_scheme,
    accentColor: w.accent_color ?? '',
    theme: w.theme,
    credit: w.credit ?? '',
    copyright: w.copyright ?? '',
    contactEmail: w.contact_email ?? '',
    socialLinks: links.join('\n'),
    logo: d.logoUuid ?? '',
    favicon: d.faviconUuid ?? '',
    // The name asked for while it waits: saving the form again keeps it waiting.
    hostname: w.hostname_pending ?? w.hostname ?? '',
    indexing: String(w.indexing),
  };
}

function hostnameState(d: WebsiteDetails): HostnameState {
  const w = d.website;
  const pending =
    w.hostname_pending !== null && w.hostname_token !== null
      ? { name: w.hostname_pending, record: challengeName(w.hostname_pending), token: w.hostname_token, checkedAt: w.hostname_checked_at, check: w.hostname_check }
      : null;
  return { inEffect: w.hostname, pending };
}

const urlnameOf = (req: FastifyRequest) => (req.params as { urlname: string }).urlname;

async function savePage(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply, isNew: boolean) {
  const s = ctx.need(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  const form = ctx.formOf(req);
  ctx.checkPost(req, form, s.viewer.csrf);
  const slug = isNew ? (form.str('slug') ?? '').trim().toLowerCase() : (req.params as { slug: string }).slug;
  if (!isNew) await ctx.deps.websites.page({ user: s.user }, d.website.urlname, slug);
  // The title and body are always sent (blank when left out); a blank position is none.
  const keys = (form.str('position') ?? '').trim() === '' ? ['title', 'body'] : ['title', 'body', 'position'];
  try {
    if (isNew && (await ctx.deps.websites.page({ user: s.user }, d.website.urlname, slug).then(() => true, () => false))) {
      throw new ApiError('invalid_parameter', 'a page has this address already', { field: 'slug' });
    }
    await ctx.deps.websites.putPage({ user: s.user }, d.website.urlname, slug, readFields(PAGE_FIELDS, PAGE_FORM.source(form, keys, { blank: true }), PAGE_FORM.words));
  } catch (err) {
    const refused = PAGE_FORM.refusal(err);
    // The title's field is `page_title` on the page; an existing page's address is not a field of its form: the message goes above it.
    const field = refused.field === 'title' ? 'page_title' : refused.field;
    const error = { field: isNew || field !== 'slug' ? field : '', message: refused.message };
    return ctx.send(reply, 422, pageEditPage({ viewer: s.viewer, urlname: d.website.urlname, isNew, slug, title: form.str('title') ?? '', body: form.str('body') ?? '', position: Number(form.str('position')) || 0, error }));
  }
  return ctx.redirect(reply, `/studio/websites/${d.website.urlname}/pages?done=saved`);
}

async function websitesScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const found = await ctx.deps.websites.list(s.user, { limit: WEBSITES_SHOWN, offset: 0 });
  // Each website's card shows its home gallery's thumbnail, all in one set of queries.
  const covers = await ctx.deps.galleries.coverUuids(s.user, found.websites.flatMap((w) => (w.root_uuid ? [w.root_uuid] : [])));
  const thumbOf = (root: string | null) => (root && covers.has(root) ? `/studio/thumbs/${covers.get(root)}` : undefined);
  const websites = found.websites.map((w) => ({ urlname: w.urlname, title: w.title, home: homeUrl(ctx.deps.config.publicUrl, w), thumb: thumbOf(w.root_uuid) }));
  return ctx.send(reply, 200, websitesPage({ viewer: s.viewer, websites, total: found.total }));
}

async function websiteScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  const done = (req.query as { done?: string }).done;
  const w = d.website;
  let notice: string | undefined;
  let error: { field: string; message: string } | undefined;
  if (done === 'saved') notice = 'Saved. The website shows the change within seconds.';
  else if (done === 'verified' && w.hostname) notice = `${w.hostname} is in effect: the website answers there now.`;
  else if (done === 'not-verified' && w.hostname_pending) error = { field: '', message: `The proof was not found: ${w.hostname_check ?? 'try again in a few minutes.'}` };
  return ctx.send(reply, 200, settingsPage({ viewer: s.viewer, urlname: w.urlname, home: homeUrl(ctx.deps.config.publicUrl, w), values: settingsValues(d), images: await pickable(ctx, s, pickPageOf(req)), hostname: hostnameState(d), notice, error }));
}

// "Verify now": the service looks for the pending name's TXT record (docs/studio.md "Host names").
async function verifyHostname(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  const form = ctx.formOf(req);
  ctx.checkPost(req, form, s.viewer.csrf);
  if (d.website.hostname_pending === null) return ctx.redirect(reply, `/studio/websites/${d.website.urlname}`);
  const v = await ctx.deps.websites.verifyHostname({ user: s.user }, d.website.urlname);
  return ctx.redirect(reply, `/studio/websites/${d.website.urlname}?done=${v.verified ? 'verified' : 'not-verified'}`);
}

async function saveBrand(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  const form = ctx.formOf(req);
  ctx.checkPost(req, form, s.viewer.csrf);
  // The brand's spec reads the form by its names; the links' textarea holds one address a line.
  const source = BRAND_FORM.source(form, BRAND_KEYS);
  const lines = form.str('social_links')?.split(/\r?\n/).map((x) => x.trim()).filter(Boolean);
  try {
    await ctx.deps.websites.setBrand({ user: s.user }, d.website.urlname, readFields(BRAND_FIELDS, { ...source, values: (k) => (k === 'socialLinks' ? lines : source.values!(k)) }, BRAND_FORM.words));
  } catch (err) {
    const error = BRAND_FORM.refusal(err);
    // The form again as it was sent, by the spec's keys.
    const sent = Object.fromEntries(BRAND_KEYS.map((k) => [k, source.value(k) ?? '']));
    const values = { ...sent, colorScheme: sent.colorScheme || 'light', theme: sent.theme || 'modern', indexing: form.str('indexing') ?? '1' } as SettingsValues;
    return ctx.send(reply, 422, settingsPage({ viewer: s.viewer, urlname: d.website.urlname, home: homeUrl(ctx.deps.config.publicUrl, d.website), values, images: await pickable(ctx, s, 1), hostname: hostnameState(d), error }));
  }
  return ctx.redirect(reply, `/studio/websites/${d.website.urlname}?done=saved`);
}

async function pagesScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  const done = (req.query as { done?: string }).done;
  const notice = done === 'saved' ? 'The page was saved.' : done === 'deleted' ? 'The page was deleted.' : undefined;
  const list = d.pages.map((pg) => ({ slug: pg.slug, title: pg.title, position: pg.position }));
  return ctx.send(reply, 200, pagesPage({ viewer: s.viewer, urlname: d.website.urlname, siteTitle: d.website.title || d.website.urlname, pages: list, notice }));
}

async function newPageScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  return ctx.send(reply, 200, pageEditPage({ viewer: s.viewer, urlname: d.website.urlname, isNew: true, slug: '', title: '', body: '', position: 0 }));
}

async function pageScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const { page, website } = await ctx.deps.websites.page({ user: s.user }, (await ctx.websiteDetails(s, urlnameOf(req))).website.urlname, (req.params as { slug: string }).slug);
  return ctx.send(reply, 200, pageEditPage({ viewer: s.viewer, urlname: website.urlname, isNew: false, slug: page.slug, title: page.title, body: page.body, position: page.position }));
}

async function deletePage(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  const form = ctx.formOf(req);
  ctx.checkPost(req, form, s.viewer.csrf);
  await ctx.deps.websites.deletePage({ user: s.user }, d.website.urlname, (req.params as { slug: string }).slug);
  return ctx.redirect(reply, `/studio/websites/${d.website.urlname}/pages?done=deleted`);
}


// ---- The home page (docs/studio.md "Home page"): hero and featured galleries, through the brand's spec.

const HOME_KEYS = ['hero', 'heroFit', 'heroHeadline', 'heroTagline', 'featured'];

/** What a picker shows of some media records: the latest first, with a thumbnail when they have renditions. */
function pickablesOf(records: ReadonlyArray<{ id: number; uuid: string; title: string | null; file_name: string | null }>, renditions: ReadonlyMap<number, unknown[]> | undefined) {
  return records.map((r) => ({ uuid: r.uuid, label: r.title || r.file_name || r.uuid.slice(0, 8), thumb: (renditions?.get(r.id)?.length ?? 0) > 0 ? `/studio/thumbs/${r.uuid}` : undefined }));
}

async function homeValues(ctx: StudioContext, s: Signed, d: WebsiteDetails): Promise<HomeValues> {
  const hero = await Promise.all(d.hero.map((uuid) => ctx.deps.media.get(s.user, uuid, true).then((m) => ({ id: m.record.id, uuid: m.record.uuid, title: m.record.title, file_name: m.record.file_name, views: m.renditions }))));
  const w = d.website;
  return {
    heroFit: w.hero_fit,
    heroHeadline: w.hero_headline ?? '',
    heroTagline: w.hero_tagline ?? '',
    hero: pickablesOf(hero, new Map(hero.map((h) => [h.id, h.views]))),
    featured: d.featured,
  };
}

async function homeScreenOf(ctx: StudioContext, s: Signed, req: FastifyRequest, d: WebsiteDetails, values: HomeValues, extra: { notice?: string; error?: { field: string; message: string } }) {
  const q = String((req.query as { q?: unknown }).q ?? '').trim().slice(0, 100);
  const page = pickPageOf(req);
  const images = q ? await ctx.deps.media.searchImages(s.user, q, PICKABLE * 2).then((f) => ({ images: pickablesOf(f.records, f.renditions), page: 1, newer: false, older: false })) : await pickable(ctx, s, page);
  const t = await tree(ctx, s, d.website.urlname);
  // The root gallery is the home page itself.
  const galleries = t.flat.filter((n) => n.parent !== null).map((n) => ({ uuid: n.uuid, name: n.name, depth: n.depth - 1, client: n.locked, hidden: n.hidden, photos: n.medias }));
  return homeSettingsPage({ viewer: s.viewer, urlname: d.website.urlname, home: homeUrl(ctx.deps.config.publicUrl, d.website), values, images, q, galleries, ...extra });
}

async function homeScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  const notice = (req.query as { done?: string }).done === 'saved' ? 'Saved. The home page shows the change within seconds.' : undefined;
  return ctx.send(reply, 200, await homeScreenOf(ctx, s, req, d, await homeValues(ctx, s, d), { notice }));
}

/**
 * A list the form sends as checkboxes (`name`) with an order each (`<name>_order.<uuid>`), as the
 * spec's entries (`website[<name>][<n>][<sub>]`): in the order given, ties in the form's order;
 * none checked clears the list (one blank entry).
 */
function orderedEntries(form: Body, name: string, sub: string): Entry[] {
  const uuids = [...new Set(form.list(name, 200).map((u) => u.trim().toLowerCase()))];
  const rank = (u: string) => {
    const n = Number(form.str(`${name}_order.${u}`));
    return Number.isFinite(n) && n > 0 ? n : 1000;
  };
  const sorted = uuids.map((u, i) => ({ u, i })).sort((a, b) => rank(a.u) - rank(b.u) || a.i - b.i);
  if (sorted.length === 0) return [{ id: '0', value: () => '' }];
  return sorted.map(({ u }, n) => ({ id: String(n), value: (k: string) => (k === sub ? u : undefined) }));
}

async function saveHome(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  const form = ctx.formOf(req);
  ctx.checkPost(req, form, s.viewer.csrf);
  const lists: Record<string, Entry[]> = { hero: orderedEntries(form, 'hero', 'media'), featured: orderedEntries(form, 'featured', 'gallery') };
  const source = BRAND_FORM.source(form, HOME_KEYS, { blank: true, entries: (k) => lists[k] });
  try {
    await ctx.deps.websites.setBrand({ user: s.user }, d.website.urlname, readFields(BRAND_FIELDS, source, BRAND_FORM.words));
  } catch (err) {
    const error = BRAND_FORM.refusal(err);
    const values = { ...(await homeValues(ctx, s, d)), heroFit: form.str('hero_fit') ?? 'fill', heroHeadline: form.str('hero_headline') ?? '', heroTagline: form.str('hero_tagline') ?? '' };
    return ctx.send(reply, 422, await homeScreenOf(ctx, s, req, d, values, { error }));
  }
  return ctx.redirect(reply, `/studio/websites/${d.website.urlname}/home?done=saved`);
}

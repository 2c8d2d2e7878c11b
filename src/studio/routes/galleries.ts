// A website's gallery tree: create, order, move, delete (docs/studio.md "Galleries"; a
// gallery's own settings are gallery-settings.ts). Every change goes through GalleriesService
// with a typed input read by the gallery's spec (GALLERY_FIELDS), under the form's names: a
// value the API refuses is refused here by the same rule, at the field `err.field` names.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUuid } from '../../core/uuid.js';
import { GALLERY_API, GALLERY_FIELDS, readGallery, type GalleryInput } from '../../galleries/fields.js';
import type { GalleryDetails, GalleryRecord } from '../../galleries/service.js';
import { ApiError } from '../../core/errors.js';
import { homeUrl } from '../../websites/home-url.js';
import { Body } from '../body.js';
import { specForm } from '../spec-form.js';
import { OVERVIEW_FIELDS, readOverviewQuery, type OverviewQuery } from '../../galleries/overview.js';
import { pageNumber, SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import {
  chooseWebsitePage,
  deletePage,
  gridPage,
  movePage,
  treePage,
  type GridCard,
  type GridDraft,
  type TreeNode,
} from '../pages/galleries.js';

export const uuidOf = (req: FastifyRequest) => (req.params as { uuid: string }).uuid;
const urlnameOf = (req: FastifyRequest) => (req.params as { urlname: string }).urlname;

/** The gallery's spec as the studio's forms name it: the cover's radio buttons are `cover`. */
export const GALLERY_FORM = specForm(GALLERY_FIELDS, GALLERY_API, { coverMedia: 'cover' });

export const galleryRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/galleries', handler: chooseWebsite },
  { method: 'GET', path: '/studio/websites/:urlname/galleries', handler: treeScreen },
  { method: 'GET', path: '/studio/websites/:urlname/galleries/grid', handler: gridScreen },
  { method: 'POST', path: '/studio/websites/:urlname/galleries', bodyLimit: SMALL_FORM_BYTES, handler: createGallery },
  { method: 'POST', path: '/studio/websites/:urlname/galleries/order', bodyLimit: SMALL_FORM_BYTES, handler: orderGalleries },
  { method: 'GET', path: '/studio/galleries/:uuid/move', handler: moveScreen },
  { method: 'POST', path: '/studio/galleries/:uuid/move', bodyLimit: SMALL_FORM_BYTES, handler: moveGallery },
  { method: 'GET', path: '/studio/galleries/:uuid/delete', handler: deleteScreen },
  { method: 'POST', path: '/studio/galleries/:uuid/delete', bodyLimit: SMALL_FORM_BYTES, handler: deleteGallery },
];

/** The gallery a path names and its website, through the API's access rule (404 otherwise). */
export async function located(ctx: StudioContext, s: Signed, uuid: string): Promise<{ urlname: string; d: GalleryDetails }> {
  if (!isUuid(uuid)) throw new ApiError('not_found', 'There is no such gallery.');
  const urlname = await ctx.deps.galleries.websiteOf(s.user, uuid);
  return { urlname, d: await ctx.deps.galleries.get(s.user, urlname, uuid.toLowerCase(), { medias: true }) };
}

/** The whole tree (the first GALLERY_LIST_CAP galleries), each with its counts, parents before children. */
export async function tree(ctx: StudioContext, s: Signed, urlname: string, withThumbs = false): Promise<{ roots: TreeNode[]; flat: TreeNode[]; total: number }> {
  const r = await ctx.deps.galleries.list(s.user, urlname, { page: 1, perPage: undefined, withCounts: true });
  // Every gallery's thumbnail in one set of queries, not one per row.
  // The page (with thumbnails) shows each gallery's state as the website enforces it, in one statement.
  const [covers, effective] = withThumbs ? await Promise.all([ctx.deps.galleries.coverUuids(s.user, r.records.map((g) => g.uuid)), ctx.deps.galleries.effectiveStates(s.user, urlname)]) : [];
  const nodes = new Map<string, TreeNode>();
  for (const g of r.records) nodes.set(g.uuid, { ...nodeOf(g, r.counts?.get(g.id), covers?.get(g.uuid)), effective: effective?.get(g.id) });
  const roots: TreeNode[] = [];
  // Records come in list order, which is the siblings' order (GalleriesService.place).
  for (const g of r.records) {
    const n = nodes.get(g.uuid)!;
    const parent = g.parent_uuid ? nodes.get(g.parent_uuid) : undefined;
    if (parent) parent.children.push(n);
    else roots.push(n);
  }
  const byName = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
  const flat: TreeNode[] = [];
  const walk = (list: TreeNode[], depth: number) => {
    for (const n of list) {
      if (n.orderByName) n.children.sort((a, b) => byName.compare(a.name, b.name));
      n.depth = depth;
      flat.push(n);
      walk(n.children, depth + 1);
    }
  };
  walk(roots, 0);
  return { roots, flat, total: r.total };
}

function nodeOf(g: GalleryRecord, counts: { medias: number; full: number } | undefined, cover?: string): TreeNode {
  return {
    uuid: g.uuid,
    thumb: cover ? `/studio/thumbs/${cover}` : undefined,
    name: g.name,
    parent: g.parent_uuid ?? null,
    medias: counts?.medias ?? 0,
    fullMedias: counts?.full ?? 0,
    hidden: g.hidden === 1,
    locked: g.password_hash !== null,
    closed: g.expires_at !== null && Date.parse(g.expires_at) <= Date.now(),
    orderByName: g.order_subgalleries === 1,
    depth: 0,
    children: [],
  };
}

/** Runs a change through the service; a 422 becomes the tree page again with the message. */
async function treeWith(ctx: StudioContext, s: Signed, urlname: string, notice?: string, error?: string, status = 200) {
  const d = await ctx.websiteDetails(s, urlname);
  const t = await tree(ctx, s, d.website.urlname, true);
  return {
    status,
    body: treePage({ viewer: s.viewer, urlname: d.website.urlname, siteTitle: d.website.title || d.website.urlname, home: homeUrl(ctx.deps.config.publicUrl, d.website), roots: t.roots, flat: t.flat, total: t.total, notice, error }),
  };
}

const NOTICES: Record<string, string> = {
  created: 'The gallery was created.',
  moved: 'The gallery was moved.',
  deleted: 'The gallery was deleted.',
  saved: 'Saved. The website shows the change within seconds.',
  password: 'The password was set: visitors are asked for it.',
  'password-removed': 'The password was removed.',
  expiry: 'The expiry was saved.',
  favourites: 'Favourites and lists were saved.',
  extended: 'The expiry was moved 30 days on.',
  downloads: 'The download settings were saved.',
  acl: 'The access list was saved.',
  invited: 'The client was added to the access list and invited.',
  'invite-unavailable': 'The client was added to the access list. Invitations by e-mail are not available on this service: send them the gallery’s address yourself.',
};
export const noticeOf = (req: FastifyRequest) => NOTICES[(req.query as { done?: string }).done ?? ''];
/** A move: the form's or the script's parent and position, read by the gallery's spec (its bounds, its 422s). */
async function move(ctx: StudioContext, s: Signed, urlname: string, uuid: string, body: Body): Promise<GalleryInput> {
  const input = readGallery(GALLERY_FORM.source(body, ['parent', 'position']), 'update', GALLERY_FORM.words);
  await ctx.deps.galleries.update(s.user, urlname, uuid, input);
  return input;
}

// ---- the header's "Galleries": the grid of the one website, or a choice of website
async function chooseWebsite(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const asked = (req.query as { website?: unknown }).website;
  // The grid, unless the tree was the view this browser opened last.
  const view = ctx.cookies.treeChosen(req) ? '' : '/grid';
  if (typeof asked === 'string' && /^[a-z0-9-]{1,63}$/.test(asked)) return ctx.redirect(reply, `/studio/websites/${asked}/galleries${view}`);
  const found = await ctx.deps.websites.list(s.user, { limit: 200, offset: 0 });
  if (found.websites.length === 1) return ctx.redirect(reply, `/studio/websites/${found.websites[0].urlname}/galleries${view}`);
  return ctx.send(reply, 200, chooseWebsitePage({ viewer: s.viewer, websites: found.websites.map((w) => ({ urlname: w.urlname, title: w.title })) }));
}

// ---- the overview: a page of galleries as cards with large covers, searched, sorted and filtered

/** Cards on a page of the grid: rows of 2, 3, 4 or 6 come out even. */
export const GRID_PER_PAGE = 48;
/** The grid form's names of the query's keys (overview.ts), and how its refusals word them. */
const GRID_NAMES: Record<keyof typeof OVERVIEW_FIELDS, string> = { search: 'q', sort: 'sort', state: 'state' };
const GRID_WORDS: Record<keyof typeof OVERVIEW_FIELDS, string> = { search: 'The search', sort: 'The order', state: 'The state' };

/** The grid's form as sent, and the query it stands for (read by the overview's spec), or its refusal (orders do the same). */
function gridQueryOf(req: FastifyRequest): { draft: GridDraft; query?: OverviewQuery; error?: { field: string; message: string } } {
  const q = req.query as Record<string, unknown>;
  const raw = (name: string) => (typeof q[name] === 'string' ? (q[name] as string) : '').slice(0, 300);
  const draft: GridDraft = { q: raw('q'), sort: raw('sort'), state: raw('state') };
  const names = GRID_NAMES as Record<string, string>;
  try {
    return { draft, query: readOverviewQuery((key) => raw(names[key]), (key) => (GRID_WORDS as Record<string, string>)[key]) };
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    return { draft, error: { field: err.field ? names[err.field] : '', message: `${err.message}.` } };
  }
}

async function gridScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  const urlname = d.website.urlname;
  const { draft, query, error } = gridQueryOf(req);
  const page = pageNumber(req, 100_000);
  const list = query ? await ctx.deps.galleries.overview(s.user, urlname, query, GRID_PER_PAGE, (page - 1) * GRID_PER_PAGE) : { total: 0, galleries: [] };
  // Every card's cover in one set of queries, not one per card.
  const covers = await ctx.deps.galleries.coverUuids(s.user, list.galleries.map((g) => g.uuid));
  const cards: GridCard[] = list.galleries.map((g) => ({
    uuid: g.uuid,
    name: g.name,
    home: g.parent_id === null,
    thumb: covers.has(g.uuid) ? `/studio/thumbs/${covers.get(g.uuid)}` : undefined,
    photos: g.photos,
    inside: g.subgalleries_count,
    // The home gallery holds every other: only a deeper parent is worth naming.
    parentName: g.parent_id !== null && g.grandparent_id !== null ? (g.parent_name ?? undefined) : undefined,
    locked: g.locked,
    accessList: g.access_list,
    effective: { state: g.state, from: g.state_from, hidden: g.hidden_effective, hiddenFrom: g.hidden_from },
  }));
  // The page's links keep the query; a blank field is left out of the address.
  const kept = Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== ''));
  const pageUrl = (n: number) => `/studio/websites/${urlname}/galleries/grid?${new URLSearchParams({ ...kept, page: String(n) }).toString()}`;
  const siteTitle = d.website.title || urlname;
  if (ctx.cookies.treeChosen(req)) reply.header('set-cookie', ctx.cookies.cleared(ctx.cookies.galleriesView));
  return ctx.send(
    reply,
    error ? 422 : 200,
    gridPage({ viewer: s.viewer, urlname, siteTitle, home: homeUrl(ctx.deps.config.publicUrl, d.website), cards, total: list.total, page, pageSize: GRID_PER_PAGE, draft, pageUrl, error }),
  );
}

// ---- the tree
/** A year: the choice outlives sessions. */
const VIEW_MAX_AGE = 365 * 24 * 3600;

async function treeScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const page = await treeWith(ctx, s, urlnameOf(req), noticeOf(req));
  if (!ctx.cookies.treeChosen(req)) reply.header('set-cookie', ctx.cookies.set(ctx.cookies.galleriesView, 'tree', VIEW_MAX_AGE));
  return ctx.send(reply, page.status, page.body);
}

async function createGallery(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  // A blank description is none: it is left out rather than cleared.
  const keys = (form.str('description') ?? '').trim() === '' ? ['name', 'parent'] : ['name', 'parent', 'description'];
  try {
    const created = await ctx.deps.galleries.create(s.user, d.website.urlname, readGallery(GALLERY_FORM.source(form, keys, { blank: true }), 'create', GALLERY_FORM.words));
    return ctx.redirect(reply, `/studio/websites/${d.website.urlname}/galleries?done=created#g-${created.record.uuid}`);
  } catch (err) {
    const page = await treeWith(ctx, s, d.website.urlname, undefined, GALLERY_FORM.refusal(err).message, 422);
    return ctx.send(reply, page.status, page.body);
  }
}

// Up / down among the siblings: one form around the whole tree (its buttons name the gallery).
async function orderGalleries(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  const up = form.str('up');
  const down = form.str('down');
  const uuid = (up ?? down ?? '').trim().toLowerCase();
  if (!isUuid(uuid)) throw new ApiError('bad_request', 'Choose a gallery to move.');
  const t = await tree(ctx, s, d.website.urlname);
  const node = t.flat.find((n) => n.uuid === uuid);
  if (!node || node.parent === null) throw new ApiError('not_found', 'There is no such gallery.');
  const siblings = t.flat.find((n) => n.uuid === node.parent)!.children;
  const index = siblings.indexOf(node);
  // Positions count the siblings without the one moved (GalleriesService.place): index+1 is its place now.
  const position = up !== undefined ? Math.max(1, index) : index + 2;
  await move(ctx, s, d.website.urlname, uuid, Body.of(new Map([['parent', node.parent], ['position', String(position)]])));
  return ctx.redirect(reply, `/studio/websites/${d.website.urlname}/galleries?done=moved#g-${uuid}`);
}

// ---- move: the page with the possible parents (keyboard, no script), its form, and the tree script's JSON
async function moveScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  if (d.record.parent_uuid === null) throw new ApiError('not_found', 'The root gallery cannot be moved.');
  const t = await tree(ctx, s, urlname);
  return ctx.send(reply, 200, movePage({ viewer: s.viewer, urlname, gallery: { uuid: d.record.uuid, name: d.record.name, parent: d.record.parent_uuid }, parents: possibleParents(t.flat, d.record.uuid) }));
}

async function moveGallery(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, body, json } = ctx.signedBody(req);
  if (!body.str('parent')?.trim()) throw new ApiError('invalid_parameter', 'Choose where to move the gallery.');
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  let moved: GalleryInput;
  try {
    moved = await move(ctx, s, urlname, d.record.uuid, body);
  } catch (err) {
    const { message } = GALLERY_FORM.refusal(err);
    if (json) throw new ApiError((err as ApiError).code, message);
    const t = await tree(ctx, s, urlname);
    return ctx.send(reply, 422, movePage({ viewer: s.viewer, urlname, gallery: { uuid: d.record.uuid, name: d.record.name, parent: d.record.parent_uuid }, parents: possibleParents(t.flat, d.record.uuid), error: message }));
  }
  if (json) return ctx.json(reply, 200, { moved: d.record.uuid, parent: moved.parent, position: moved.position ?? null });
  return ctx.redirect(reply, `/studio/websites/${urlname}/galleries?done=moved#g-${d.record.uuid}`);
}

// ---- delete: the count of what would go, and the choice to keep the photos
async function deleteScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  if (d.record.parent_uuid === null) throw new ApiError('not_found', 'The root gallery cannot be deleted.');
  const counts = await ctx.deps.galleries.deletion(s.user, urlname, d.record.uuid);
  return ctx.send(reply, 200, deletePage({ viewer: s.viewer, urlname, uuid: d.record.uuid, name: d.record.name, galleries: counts.galleries, medias: counts.medias }));
}

async function deleteGallery(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  const keep = form.str('medias');
  if (keep !== 'keep' && keep !== 'delete') throw new ApiError('invalid_parameter', 'Choose whether the photos stay in the library.');
  const expected = (form.str('medias_count') ?? '').trim();
  try {
    await ctx.deps.galleries.delete(s.user, urlname, d.record.uuid, { deleteMedias: keep === 'delete', expectedMediasCount: /^\d{1,9}$/.test(expected) ? Number(expected) : undefined });
  } catch (err) {
    // The count changed since the page was shown (medias_count's guard): show the new count, nothing was deleted.
    if (!(err instanceof ApiError) || err.status !== 409) throw err;
    const counts = await ctx.deps.galleries.deletion(s.user, urlname, d.record.uuid);
    return ctx.send(reply, 409, deletePage({ viewer: s.viewer, urlname, uuid: d.record.uuid, name: d.record.name, galleries: counts.galleries, medias: counts.medias, error: 'The number of photos changed since this page was shown; nothing was deleted. Check the new count and confirm again.' }));
  }
  return ctx.redirect(reply, `/studio/websites/${urlname}/galleries?done=deleted`);
}

/** Galleries a gallery may move under: any but itself and the galleries below it (the service refuses those too). */
function possibleParents(flat: TreeNode[], uuid: string): TreeNode[] {
  const out: TreeNode[] = [];
  let skipping = -1;
  for (const n of flat) {
    if (skipping >= 0 && n.depth > skipping) continue;
    skipping = -1;
    if (n.uuid === uuid) {
      skipping = n.depth;
      continue;
    }
    out.push(n);
  }
  return out;
}

// A website's gallery tree and each gallery's settings and access list (issue 21, item 3;
// docs/studio.md "Galleries"). Every change goes through GalleriesService, with the API's own
// readers: a form's fields become the API's gallery[...] parameters, read by galleryInput /
// readAcl, so a value the API refuses with a 422 is refused here with the same message.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUuid } from '../../core/uuid.js';
import { readAcl, DEFAULT_ACL_EMAIL } from '../../galleries/acl.js';
import { galleryInput } from '../../galleries/input.js';
import type { GalleryDetails, GalleryRecord } from '../../galleries/service.js';
import { ApiError } from '../../core/errors.js';
import { Params } from '../../http/params.js';
import { homeUrl } from '../../websites/home-url.js';
import { fieldError, SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import {
  chooseWebsitePage,
  deletePage,
  movePage,
  settingsPage,
  treePage,
  type AclRow,
  type SettingsForm,
  type TreeNode,
} from '../pages/galleries.js';

/** Medias offered as a cover: the gallery's first ones in its order. */
const COVER_CHOICES = 48;
const DISPLAY_STYLES_SHOWN = 100;
/** An access list form: the entries it may hold (acl.ts's bound is 1000; a form of 1000 rows is still small). */
const ACL_FORM_BYTES = 256 * 1024;

const uuidOf = (req: FastifyRequest) => (req.params as { uuid: string }).uuid;
const urlnameOf = (req: FastifyRequest) => (req.params as { urlname: string }).urlname;
const ONE_LINE = /[\r\n]/g;

export const galleryRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/galleries', handler: chooseWebsite },
  { method: 'GET', path: '/studio/websites/:urlname/galleries', handler: treeScreen },
  { method: 'POST', path: '/studio/websites/:urlname/galleries', bodyLimit: SMALL_FORM_BYTES, handler: createGallery },
  { method: 'POST', path: '/studio/websites/:urlname/galleries/order', bodyLimit: SMALL_FORM_BYTES, handler: orderGalleries },
  { method: 'GET', path: '/studio/galleries/:uuid/move', handler: moveScreen },
  { method: 'POST', path: '/studio/galleries/:uuid/move', bodyLimit: SMALL_FORM_BYTES, handler: moveGallery },
  { method: 'GET', path: '/studio/galleries/:uuid/delete', handler: deleteScreen },
  { method: 'POST', path: '/studio/galleries/:uuid/delete', bodyLimit: SMALL_FORM_BYTES, handler: deleteGallery },
  { method: 'GET', path: '/studio/galleries/:uuid', handler: settingsScreen },
  { method: 'POST', path: '/studio/galleries/:uuid', bodyLimit: SMALL_FORM_BYTES * 8, handler: saveSettings },
  { method: 'POST', path: '/studio/galleries/:uuid/password', bodyLimit: SMALL_FORM_BYTES, handler: setPassword },
  { method: 'POST', path: '/studio/galleries/:uuid/acl', bodyLimit: ACL_FORM_BYTES, handler: setAccessList },
  { method: 'POST', path: '/studio/galleries/:uuid/invite', bodyLimit: SMALL_FORM_BYTES, handler: invite },
];

/** The gallery a path names and its website, through the API's access rule (404 otherwise). */
async function located(ctx: StudioContext, s: Signed, uuid: string): Promise<{ urlname: string; d: GalleryDetails }> {
  if (!isUuid(uuid)) throw new ApiError('not_found', 'There is no such gallery.');
  const urlname = await ctx.deps.galleries.websiteOf(s.user, uuid);
  return { urlname, d: await ctx.deps.galleries.get(s.user, urlname, uuid.toLowerCase(), { medias: true }) };
}

/** The whole tree (the first GALLERY_LIST_CAP galleries), each with its counts, parents before children. */
async function tree(ctx: StudioContext, s: Signed, urlname: string): Promise<{ roots: TreeNode[]; flat: TreeNode[]; total: number }> {
  const r = await ctx.deps.galleries.list(s.user, urlname, { page: 1, perPage: undefined, withCounts: true });
  const nodes = new Map<string, TreeNode>();
  for (const g of r.records) nodes.set(g.uuid, nodeOf(g, r.counts?.get(g.id)));
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

function nodeOf(g: GalleryRecord, counts: { medias: number; full: number } | undefined): TreeNode {
  return {
    uuid: g.uuid,
    name: g.name,
    parent: g.parent_uuid ?? null,
    medias: counts?.medias ?? 0,
    fullMedias: counts?.full ?? 0,
    hidden: g.hidden === 1,
    locked: g.password_hash !== null,
    orderByName: g.order_subgalleries === 1,
    depth: 0,
    children: [],
  };
}

/** Runs a change through the service; a 422 becomes the tree page again with the message. */
async function treeWith(ctx: StudioContext, s: Signed, urlname: string, notice?: string, error?: string, status = 200) {
  const d = await ctx.websiteDetails(s, urlname);
  const t = await tree(ctx, s, d.website.urlname);
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
  acl: 'The access list was saved.',
  invited: 'The client was added to the access list and invited.',
  'invite-unavailable': 'The client was added to the access list. Invitations by e-mail are not available on this service: send them the gallery’s address yourself.',
};
const noticeOf = (req: FastifyRequest) => NOTICES[(req.query as { done?: string }).done ?? ''];
const AT: Record<string, 'password' | 'access' | 'invite'> = { password: 'password', 'password-removed': 'password', acl: 'access', invited: 'invite', 'invite-unavailable': 'invite' };
const noticeAtOf = (req: FastifyRequest) => AT[(req.query as { done?: string }).done ?? ''];

async function move(ctx: StudioContext, s: Signed, urlname: string, uuid: string, parent: string, position: string | undefined) {
  const p = new Params();
  p.add('gallery[parent]', parent);
  if (position !== undefined) p.add('gallery[position]', position);
  await ctx.deps.galleries.update(s.user, urlname, uuid, galleryInput('update').read(p, undefined));
}

// ---- settings
async function settingsOf(ctx: StudioContext, 
  s: Signed,
  urlname: string,
  d: GalleryDetails,
  form?: SettingsForm,
  error?: { field: string; message: string },
  notice?: string,
  noticeAt?: 'password' | 'access' | 'invite',
  inviteLink?: { email: string; link: string },
) {
  const site = await ctx.websiteDetails(s, urlname);
  const styles = await ctx.deps.websites.displayStyles(s.user, urlname, { limit: DISPLAY_STYLES_SHOWN, offset: 0 });
  const home = homeUrl(ctx.deps.config.publicUrl, site.website);
  const r = d.record;
  const values: SettingsForm = form ?? {
    name: r.name,
    description: r.description ?? '',
    displayStyle: r.display_style_uuid ?? '',
    cover: r.cover_media_uuid ?? '',
    contentOrder: r.content_order,
    direction: r.content_order_direction,
    hidden: r.hidden === 1,
    indexing: String(r.indexing),
  };
  const acl: AclRow[] = d.acl.map((e) => ({ position: e.position, email: e.email, read: e.read, comp: e.compDownload, hires: e.hiresDownload }));
  return settingsPage({
    viewer: s.viewer,
    urlname,
    siteTitle: site.website.title || urlname,
    uuid: r.uuid,
    isRoot: r.parent_uuid === null,
    publicUrl: r.full_url_path === '' ? home : `${home}/-/${r.full_url_path}`,
    values,
    styles: styles.styles.map((x) => ({ uuid: x.uuid, name: x.name, isDefault: x.is_default === 1 })),
    covers: (d.medias ?? []).slice(0, COVER_CHOICES),
    mediasCount: d.counts.medias,
    locked: r.password_hash !== null,
    acl,
    invitations: ctx.deps.invite !== undefined,
    inviteLink,
    error,
    notice,
    noticeAt,
  });
}

// ---- the header's "Galleries": the tree of the one website, or a choice of website
async function chooseWebsite(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const asked = (req.query as { website?: unknown }).website;
  if (typeof asked === 'string' && /^[a-z0-9-]{1,63}$/.test(asked)) return ctx.redirect(reply, `/studio/websites/${asked}/galleries`);
  const found = await ctx.deps.websites.list(s.user, { limit: 200, offset: 0 });
  if (found.websites.length === 1) return ctx.redirect(reply, `/studio/websites/${found.websites[0].urlname}/galleries`);
  return ctx.send(reply, 200, chooseWebsitePage({ viewer: s.viewer, websites: found.websites.map((w) => ({ urlname: w.urlname, title: w.title })) }));
}

// ---- the tree
async function treeScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const page = await treeWith(ctx, s, urlnameOf(req), noticeOf(req));
  return ctx.send(reply, page.status, page.body);
}

async function createGallery(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const d = await ctx.websiteDetails(s, urlnameOf(req));
  const p = new Params();
  p.add('gallery[name]', form.str('name') ?? '');
  p.add('gallery[parent]', form.str('parent') ?? '');
  const description = form.str('description');
  if (description !== undefined && description.trim() !== '') p.add('gallery[description]', description);
  try {
    const created = await ctx.deps.galleries.create(s.user, d.website.urlname, galleryInput('create').read(p, undefined));
    return ctx.redirect(reply, `/studio/websites/${d.website.urlname}/galleries?done=created#g-${created.record.uuid}`);
  } catch (err) {
    const page = await treeWith(ctx, s, d.website.urlname, undefined, fieldError(err, 'gallery').message, 422);
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
  await move(ctx, s, d.website.urlname, uuid, node.parent, String(position));
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
  const parent = body.str('parent')?.trim().toLowerCase();
  if (!parent) throw new ApiError('invalid_parameter', 'Choose where to move the gallery.');
  // The position's bounds are the service's (GalleryInput): its refusal is shown like any other.
  const position = body.str('position')?.trim() || undefined;
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  try {
    await move(ctx, s, urlname, d.record.uuid, parent, position);
  } catch (err) {
    const { message } = fieldError(err, 'gallery');
    if (json) throw new ApiError((err as ApiError).code, message);
    const t = await tree(ctx, s, urlname);
    return ctx.send(reply, 422, movePage({ viewer: s.viewer, urlname, gallery: { uuid: d.record.uuid, name: d.record.name, parent: d.record.parent_uuid }, parents: possibleParents(t.flat, d.record.uuid), error: message }));
  }
  if (json) return ctx.json(reply, 200, { moved: d.record.uuid, parent, position: position === undefined ? null : Number(position) });
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

async function settingsScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  return ctx.send(reply, 200, await settingsOf(ctx, s, urlname, d, undefined, undefined, noticeOf(req), noticeAtOf(req)));
}

async function saveSettings(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  const values: SettingsForm = {
    name: form.str('name') ?? '',
    description: form.str('description') ?? '',
    displayStyle: form.str('display_style') ?? '',
    cover: form.str('cover') ?? '',
    contentOrder: form.str('content_order') ?? '',
    direction: form.str('content_order_direction') ?? '',
    hidden: form.str('hidden') === '1',
    indexing: form.str('indexing') ?? '',
  };
  const p = new Params();
  p.add('gallery[name]', values.name);
  p.add('gallery[description]', values.description);
  p.add('gallery[display_style]', values.displayStyle);
  p.add('gallery[cover_media]', values.cover);
  p.add('gallery[content_order]', values.contentOrder);
  p.add('gallery[content_order_direction]', values.direction);
  p.add('gallery[hidden]', values.hidden ? '1' : '0');
  p.add('gallery[indexing]', values.indexing);
  try {
    await ctx.deps.galleries.update(s.user, urlname, d.record.uuid, galleryInput('update').read(p, undefined));
  } catch (err) {
    return ctx.send(reply, 422, await settingsOf(ctx, s, urlname, d, values, fieldError(err, 'gallery', { media: 'cover', cover_media: 'cover' })));
  }
  return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}?done=saved`);
}

async function setPassword(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  const remove = form.str('remove') === '1';
  const password = form.str('password') ?? '';
  if (!remove && password === '') return ctx.send(reply, 422, await settingsOf(ctx, s, urlname, d, undefined, { field: 'password', message: 'Type the password visitors will be asked for.' }));
  const p = new Params();
  p.add('gallery[password]', remove ? '' : password);
  try {
    await ctx.deps.galleries.update(s.user, urlname, d.record.uuid, galleryInput('update').read(p, undefined));
  } catch (err) {
    return ctx.send(reply, 422, await settingsOf(ctx, s, urlname, d, undefined, { ...fieldError(err, 'gallery'), field: 'password' }));
  }
  return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}?done=${remove ? 'password-removed' : 'password'}#password`);
}

// ---- the access list: DEFAULT first, then the clients; the whole list is replaced (GalleriesService.setAcl, read by acl.ts)
async function setAccessList(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  const p = new Params();
  // How many entries a list may hold is the service's rule (acl.ts); the body's bound keeps the form small.
  const rows = form.list('entry');
  // DEFAULT: entry 0; each client row keeps its number; the new row takes the next free one.
  const flags = (prefix: string, row: string) => {
    for (const right of ['read', 'comp_download', 'hires_download']) p.add(`${prefix}[${right}]`, form.str(`${row}_${right}`) === '1' ? '1' : '0');
  };
  p.add('gallery[acl][0][email]', DEFAULT_ACL_EMAIL);
  flags('gallery[acl][0]', 'default');
  let next = 1;
  for (const row of rows) if (/^\d{1,9}$/.test(row)) next = Math.max(next, Number(row) + 1);
  for (const row of rows) {
    if (!/^\d{1,9}$/.test(row) || row === '0' || form.str(`${row}_remove`) === '1') continue;
    p.add(`gallery[acl][${row}][email]`, (form.str(`${row}_email`) ?? '').replace(ONE_LINE, ''));
    flags(`gallery[acl][${row}]`, row);
  }
  const added = (form.str('new_email') ?? '').trim();
  if (added !== '') {
    p.add(`gallery[acl][${next}][email]`, added);
    flags(`gallery[acl][${next}]`, 'new');
  }
  try {
    await ctx.deps.galleries.setAcl(s.user, urlname, d.record.uuid, readAcl(p) ?? []);
  } catch (err) {
    return ctx.send(reply, 422, await settingsOf(ctx, s, urlname, d, undefined, { ...fieldError(err, 'gallery'), field: 'acl' }));
  }
  return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}?done=acl#access`);
}

// ---- invite a client: an entry on the access list, then the mail (the lead's InvitationsService, through deps.invite)
async function invite(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const { urlname, d } = await located(ctx, s, uuidOf(req));
  const email = (form.str('email') ?? '').trim();
  const message = (form.str('message') ?? '').slice(0, 2000);
  const comp = form.str('comp_download') === '1';
  const hires = form.str('hires_download') === '1';
  // The current list plus this client (an existing entry for the address gets the new rights), read by acl.ts.
  const p = new Params();
  const current = d.acl.length ? d.acl : [{ position: 0, email: DEFAULT_ACL_EMAIL, read: true, compDownload: false, hiresDownload: false }];
  let next = 1;
  let found = false;
  for (const e of current) {
    next = Math.max(next, e.position + 1);
    const mine = e.email.toLowerCase() === email.toLowerCase();
    found ||= mine;
    p.add(`gallery[acl][${e.position}][email]`, e.email);
    p.add(`gallery[acl][${e.position}][read]`, mine || e.read ? '1' : '0');
    p.add(`gallery[acl][${e.position}][comp_download]`, (mine ? comp : e.compDownload) ? '1' : '0');
    p.add(`gallery[acl][${e.position}][hires_download]`, (mine ? hires : e.hiresDownload) ? '1' : '0');
  }
  if (!found) {
    p.add(`gallery[acl][${next}][email]`, email);
    p.add(`gallery[acl][${next}][read]`, '1');
    p.add(`gallery[acl][${next}][comp_download]`, comp ? '1' : '0');
    p.add(`gallery[acl][${next}][hires_download]`, hires ? '1' : '0');
  }
  try {
    if (email === '') throw new ApiError('invalid_parameter', 'gallery[acl][email] is required');
    await ctx.deps.galleries.setAcl(s.user, urlname, d.record.uuid, readAcl(p) ?? []);
  } catch (err) {
    return ctx.send(reply, 422, await settingsOf(ctx, s, urlname, d, undefined, { ...fieldError(err, 'gallery'), field: 'invite_email' }));
  }
  // INTEGRATION POINT (lead): StudioDeps.invite mails the sign-in link (the InvitationsService).
  if (!ctx.deps.invite) return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}?done=invite-unavailable#invite`);
  let sent: Awaited<ReturnType<NonNullable<typeof ctx.deps.invite>>>;
  try {
    sent = await ctx.deps.invite(s.user, d.record.uuid, { email: email.toLowerCase(), message, comp, hires });
  } catch (err) {
    // The service's refusals of the mail (an operator stopped it, a count is spent) at the invitation's field: nothing was sent.
    if (!(err instanceof ApiError) || (err.status !== 403 && err.status !== 429)) throw err;
    if (err.extra.retryAfter) reply.header('retry-after', String(err.extra.retryAfter));
    return ctx.send(reply, err.status, await settingsOf(ctx, s, urlname, (await located(ctx, s, uuidOf(req))).d, undefined, { field: 'invite_email', message: `${err.message[0].toUpperCase()}${err.message.slice(1)}.` }));
  }
  if (sent.mailed) return ctx.redirect(reply, `/studio/galleries/${d.record.uuid}?done=invited#invite`);
  // No mail server: this answer (not a redirect: the link is the client's secret, kept out of addresses) shows the link to hand over.
  const { d: now } = await located(ctx, s, d.record.uuid);
  const page = await settingsOf(ctx, s, urlname, now, undefined, undefined, `${email.toLowerCase()} was added to the access list.`, 'invite', { email: email.toLowerCase(), link: sent.link });
  reply.header('cache-control', 'no-store');
  return ctx.send(reply, 200, page);
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

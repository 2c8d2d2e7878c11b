// The media library (docs/studio.md "Media"): the grid of a user's medias or of one gallery in
// its order, the batch edit of a selection (MediaService.batchUpdate, read by the batch spec),
// its job's progress, the manual order (GalleriesService.moveMedias), one media's edit, replacing a file and
// deleting. The screen works as forms; browser/media.js adds the virtualised grid, the
// selection, drag and drop and the job's progress.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { isUuid } from '../../core/uuid.js';
import { bracketNames, paramOf, readFields } from '../../core/fields.js';
import type { JobRow } from '../../database/schema.js';
import { MEDIA_FIELDS, MEDIAS_BATCH_FIELDS, mediaInput } from '../../media/metadata.js';
import type { MediaRecord } from '../../media/repository.js';
import type { CameraFacts } from '../../uploads/file-metadata.js';
import type { BatchInput, MediaPage } from '../../media/service.js';
import type { Body } from '../body.js';
import { specForm } from '../spec-form.js';
import { pageNumber, SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import { jobPage, mediaDetailPage, mediaPage, type GalleryChoice, type GridItem, type JobView, type MediaDetail, type MediaEditValues, type ScopeView } from '../pages/media.js';

/** Medias per server-rendered page (without script), and at most per items.json page. */
export const PAGE_SIZE = 60;
export const ITEMS_MAX = 500;
/** UUIDs one JSON selection may name (the JSON body is bounded at 256 kB): a bigger one is "select all". */
export const MAX_SELECTED = 5000;
const WEBSITES_FOR_CHOICES = 20;
const GALLERIES_PER_WEBSITE = 300;
/** Galleries named on one media's screen (a photo is in a handful; the API allows 1000). */
const GALLERIES_SHOWN = 50;

/** One media's edit form over the API's single-media spec (its bounds, its 422s), under the spec's own names. */
const MEDIA_FORM = specForm(MEDIA_FIELDS, bracketNames('media', MEDIA_FIELDS), {}, { description: 'The caption', altText: 'The alt text' });
const EDIT_KEYS = ['title', 'description', 'altText', 'keywords'] as const;

/** The grid's scope (at most one of each; the API's filters, which intersect). */
interface Scope {
  gallery?: string;
  group?: string;
  lightbox?: string;
}

/** What a batch edit asks. */
interface BatchAsk {
  /** 'all': every medias of the scope (the gallery, else the library). */
  select: 'all' | string[];
  gallery?: string;
  /** A collection's or a client's selection (lightbox) as the scope, as the grid shows them. */
  group?: string;
  lightbox?: string;
  /** The number of medias the screen showed: a changed scope is a 409, nothing done. */
  count?: number;
  title?: string;
  description?: string;
  location?: string;
  keywords?: string;
  keywordsMode?: string;
  publish?: string;
  unpublish?: string;
  /** A price list to attach to, or take off, the medias (the API's add_pricing_profiles[]). */
  addPrice?: string;
  removePrice?: string;
  delete?: boolean;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function uuidOrNotFound(v: string | undefined, what: string): string | undefined {
  if (v === undefined || v === '') return undefined;
  if (!isUuid(v)) throw new ApiError('not_found', `There is no such ${what}.`);
  return v.toLowerCase();
}

/** The ask as the batch update's typed input, read by its spec (MEDIAS_BATCH_FIELDS: its bounds, its 422s). */
function batchInput(ask: BatchAsk): BatchInput {
  const sent: Record<string, string> = {};
  for (const key of ['title', 'description', 'location'] as const) if (ask[key] !== undefined && ask[key].trim() !== '') sent[key] = ask[key].trim();
  if (ask.keywords !== undefined && ask.keywords.trim() !== '') sent[ask.keywordsMode === 'remove' ? 'removeKeywords' : ask.keywordsMode === 'replace' ? 'keywords' : 'addKeywords'] = ask.keywords;
  if (ask.publish) sent.publishToGalleries = ask.publish;
  if (ask.unpublish) sent.unpublishFromGalleries = ask.unpublish;
  if (ask.addPrice) sent.addPricingProfiles = ask.addPrice;
  if (ask.removePrice) sent.removePricingProfiles = ask.removePrice;
  if (ask.delete) sent.delete = '1';
  const attributes = mediaInput(readFields(MEDIAS_BATCH_FIELDS, (key) => sent[key], (key) => paramOf(MEDIAS_BATCH_FIELDS, key).replace(/_/g, ' ')), 'medias');
  const selection = ask.select === 'all' ? { select: 'all' } : { select: ask.select.join(','), selectList: ask.select };
  return { attributes, selection, filter: { gallery: ask.gallery, group: ask.group, lightbox: ask.lightbox }, expectedCount: ask.count };
}

function jobView(job: JobRow, placeInLine?: number): JobView {
  return { uuid: job.uuid, state: job.state, total: Number(job.total), processed: Number(job.processed), failed: Number(job.failed), placeInLine };
}

/** Price lists the batch edit offers (a photographer keeps a handful). */
const PRICE_LISTS_FOR_CHOICES = 200;

export const mediaRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/media', handler: mediaScreen },
  { method: 'GET', path: '/studio/media/items.json', handler: itemsJson },
  { method: 'POST', path: '/studio/media/batch', bodyLimit: SMALL_FORM_BYTES * 16, handler: batchEdit },
  { method: 'GET', path: '/studio/media/jobs/:uuid', handler: jobScreen },
  { method: 'POST', path: '/studio/media/move', bodyLimit: SMALL_FORM_BYTES * 16, handler: moveMedias },
  { method: 'GET', path: '/studio/media/:uuid', handler: oneMediaScreen },
  { method: 'POST', path: '/studio/media/:uuid/edit', bodyLimit: SMALL_FORM_BYTES * 16, handler: editMedia },
  { method: 'POST', path: '/studio/media/:uuid/replace', handler: replaceFile },
  { method: 'POST', path: '/studio/media/:uuid/delete', bodyLimit: SMALL_FORM_BYTES, handler: deleteMedia },
];

/** A page of the scope's medias as the grid shows them (the API's listing: a slice of its memo, cost of the page); a selection's notes beside its medias. */
async function items(ctx: StudioContext, s: Signed, scope: Scope, offset: number, limit: number): Promise<{ total: number; items: GridItem[] }> {
  const found: MediaPage = await ctx.deps.media.list(s.user, scope, { limit, offset }, true);
  const notes = scope.lightbox ? await ctx.deps.lightboxes.notes(s.user, scope.lightbox, found.records.map((r) => r.id)) : undefined;
  return {
    total: found.total,
    items: found.records.map((r) => ({
      uuid: r.uuid,
      title: r.title ?? '',
      name: r.file_name,
      thumb: (found.renditions?.get(r.id) ?? []).some((v) => /^image\/(jpeg|png|webp|avif)$/.test(v.type)),
      keywords: found.relations?.get(r.id)?.keywords ?? [],
      ...(notes ? { note: notes.get(r.id) ?? null } : {}),
    })),
  };
}

/** Galleries to publish to or remove from: those of the user's websites (bounded), by path. */
async function choices(ctx: StudioContext, s: Signed): Promise<GalleryChoice[]> {
  const sites = await ctx.deps.websites.list(s.user, { limit: WEBSITES_FOR_CHOICES, offset: 0 });
  const lists = await Promise.all(
    sites.websites.map((w) => ctx.deps.galleries.list(s.user, w.urlname, { page: 1, perPage: GALLERIES_PER_WEBSITE, withCounts: false }).then((g) => ({ w, g }))),
  );
  return lists.flatMap(({ w, g }) => g.records.map((r) => ({ uuid: r.uuid, label: `${w.title || w.urlname} / ${r.parent_id === null ? '(home)' : r.full_url_path}` })));
}

/** The grid's scope: a gallery, a collection (`group`) or a client's selection (`lightbox`); a malformed UUID is a 404, as another user's (MediaService). */
const scopeOf = (req: FastifyRequest): Scope => {
  const q = req.query as Record<string, unknown>;
  return {
    gallery: uuidOrNotFound(str(q.gallery), 'gallery'),
    group: uuidOrNotFound(str(q.group), 'collection'),
    lightbox: uuidOrNotFound(str(q.lightbox), 'selection'),
  };
};

/** What the screen's heading says of a collection or a selection (404 for another user's). */
async function scopeView(ctx: StudioContext, s: Signed, scope: Scope): Promise<ScopeView | undefined> {
  if (scope.lightbox) {
    const l = await ctx.deps.lightboxes.get(s.user, scope.lightbox);
    return {
      kind: 'lightbox',
      uuid: l.uuid,
      name: l.name,
      client: l.client_name || l.client_email ? { name: l.client_name ?? undefined, email: l.client_email ?? undefined, verified: l.client_verified === 1 } : undefined,
      gallery: l.gallery_uuid ? { uuid: l.gallery_uuid, name: l.gallery_name ?? '' } : undefined,
      state: l.gallery_uuid ? (l.state === 'sent' ? 'sent' : 'open') : undefined,
      sentAt: l.sent_at ?? undefined,
    };
  }
  if (scope.group) {
    const { group } = await ctx.deps.groups.get(s.user, scope.group, false);
    return { kind: group.kind === 'smart' ? 'smart' : 'collection', uuid: group.uuid, name: group.name };
  }
  return undefined;
}

const mediaUuid = (req: FastifyRequest) => uuidOrNotFound((req.params as { uuid: string }).uuid, 'media')!;

// ---- the screen: the library, or one gallery's medias in its order
async function mediaScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const q = req.query as Record<string, unknown>;
  const scoped = scopeOf(req);
  const gallery = scoped.gallery;
  const [scope, other] = await Promise.all([gallery ? ctx.deps.galleries.summary(s.user, gallery) : undefined, scopeView(ctx, s, scoped)]);
  const pageNo = pageNumber(req, 1_000_000);
  const offset = (pageNo - 1) * PAGE_SIZE;
  // One before and one after the page: the neighbours "earlier"/"later" move next to.
  const before = offset > 0 ? 1 : 0;
  const [list, galleryChoices, lists] = await Promise.all([items(ctx, s, scoped, offset - before, PAGE_SIZE + before + 1), choices(ctx, s), ctx.deps.pricingProfiles.list(s.user, PRICE_LISTS_FOR_CHOICES, 0)]);
  const job = uuidOrNotFound(str(q.job), 'job');
  const jobStatus = job ? await ctx.deps.jobs.status(s.user, job) : undefined;
  return ctx.send(
    reply,
    200,
    mediaPage({
      viewer: s.viewer,
      gallery: scope,
      scope: other,
      total: list.total,
      page: pageNo,
      pageSize: PAGE_SIZE,
      offset,
      items: list.items.slice(before, before + PAGE_SIZE),
      previous: before ? list.items[0] : undefined,
      following: list.items.slice(before + PAGE_SIZE + 1, before + PAGE_SIZE + 2)[0],
      choices: galleryChoices,
      priceLists: lists.profiles.map((l) => ({ uuid: l.uuid, label: `${l.name} (${l.kind === 'print' ? 'prints' : 'downloads'}, ${l.currency})` })),
      job: jobStatus ? jobView(jobStatus.job, jobStatus.placeInLine) : undefined,
      notice: str(q.done) === 'deleted' ? 'The media was deleted.' : str(q.done) === 'moved' ? 'Moved.' : undefined,
    }),
  );
}

// The grid's data, a page at a time (offset into the scope's order).
async function itemsJson(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const q = req.query as Record<string, unknown>;
  const whole = (v: string | undefined, fallback: number) => (v === undefined ? fallback : /^\d{1,9}$/.test(v) ? Number(v) : -1);
  const offset = whole(str(q.offset), 0);
  const limit = whole(str(q.limit), ITEMS_MAX);
  if (offset < 0 || limit < 1 || limit > ITEMS_MAX) {
    throw new ApiError('invalid_parameter', `offset must be 0 or more and limit 1 to ${ITEMS_MAX}`);
  }
  return ctx.json(reply, 200, { offset, ...(await items(ctx, s, scopeOf(req), offset, limit)) });
}

/** What a batch edit asks, read alike from the form and from the screen's script (by the form's names). */
function batchAsk(body: Body): BatchAsk {
  const all = body.checked('all');
  const count = body.str('count');
  const ask: BatchAsk = {
    select: all ? 'all' : body.list('media', MAX_SELECTED),
    gallery: uuidOrNotFound(body.str('gallery'), 'gallery'),
    group: uuidOrNotFound(body.str('group'), 'collection'),
    lightbox: uuidOrNotFound(body.str('lightbox'), 'selection'),
    count: all && count && /^\d{1,9}$/.test(count) ? Number(count) : undefined,
    title: body.str('title'),
    description: body.str('description'),
    location: body.str('location'),
    keywords: body.str('keywords'),
    keywordsMode: body.str('keywords_mode'),
    publish: uuidOrNotFound(body.str('publish'), 'gallery'),
    unpublish: uuidOrNotFound(body.str('unpublish'), 'gallery'),
    addPrice: uuidOrNotFound(body.str('add_price_list'), 'price list'),
    removePrice: uuidOrNotFound(body.str('remove_price_list'), 'price list'),
    delete: body.checked('delete'),
  };
  if (ask.delete && body.str('confirm_delete') !== 'yes') throw new ApiError('invalid_parameter', 'Tick "Yes, delete the selected medias" to delete them.');
  // A deletion is only that: the fields filled in beside it are not applied to medias about to go.
  if (ask.delete) return { select: ask.select, gallery: ask.gallery, group: ask.group, lightbox: ask.lightbox, count: ask.count, delete: true };
  if (ask.select !== 'all' && ask.select.length === 0) throw new ApiError('invalid_parameter', 'Select at least one media.');
  return ask;
}

// ---- the batch edit: a form (no script) or a script's JSON; the API's batch job either way
async function batchEdit(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, body, json } = ctx.signedBody(req);
  const ask = batchAsk(body);
  const { job, count } = await ctx.deps.media.batchUpdate(s.user, batchInput(ask));
  if (json) return ctx.json(reply, 200, { job: jobView(job), count });
  const back = new URLSearchParams();
  if (ask.gallery) back.set('gallery', ask.gallery);
  if (ask.group) back.set('group', ask.group);
  if (ask.lightbox) back.set('lightbox', ask.lightbox);
  back.set('job', job.uuid);
  return ctx.redirect(reply, `/studio/media?${back.toString()}`);
}

// A job's progress: JSON for the screen's script, a page otherwise (the API's rule: only its owner sees it).
async function jobScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const uuid = uuidOrNotFound((req.params as { uuid: string }).uuid, 'job')!;
  const { job, placeInLine } = await ctx.deps.jobs.status(s.user, uuid);
  const view = jobView(job, placeInLine);
  if ((req.headers.accept ?? '').startsWith('application/json')) return ctx.json(reply, 200, view);
  return ctx.send(reply, 200, jobPage({ viewer: s.viewer, job: view }));
}

// ---- the manual order of a gallery: one move (drag and drop, or earlier/later), from the form or the script
async function moveMedias(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, body, json } = ctx.signedBody(req);
  const g = uuidOrNotFound(body.str('gallery'), 'gallery');
  if (!g) throw new ApiError('not_found', 'There is no such gallery.');
  const moving = body.list('media', MAX_SELECTED);
  const before = body.str('before');
  if (moving.length === 0 || !moving.every(isUuid)) throw new ApiError('invalid_parameter', 'Name the medias to move.');
  if (before !== undefined && before !== '' && !isUuid(before)) throw new ApiError('invalid_parameter', 'before must name a media of the gallery.');
  await ctx.deps.galleries.moveMedias(s.user, g, moving, before ? before : null);
  if (json) return ctx.json(reply, 200, { moved: moving.length });
  const back = new URLSearchParams({ gallery: g, done: 'moved' });
  const page = body.str('page');
  if (page && /^\d{1,7}$/.test(page)) back.set('page', page);
  return ctx.redirect(reply, `/studio/media?${back.toString()}`);
}

// ---- one media: details and its edit, replace its file, delete it
const utc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** What the file said (or the API set since) that the screen shows, only what is present. */
function factsOf(r: MediaRecord): Array<[string, string]> {
  const place = [r.location, r.city, r.state, r.country].filter((v) => v).join(', ');
  const facts: Array<[string, string | null | undefined]> = [
    ['Type', r.mime_type],
    ['Pixels', r.width && r.height ? `${r.width} × ${r.height}` : undefined],
    ['Shot', r.shot_at ? utc(r.shot_at) : undefined],
    ['Author', r.author],
    ['Copyright', r.copyright],
    ['Licence', r.license],
    ['Place', place],
    ['Position', r.latitude !== null && r.longitude !== null ? `${r.latitude}, ${r.longitude}` : undefined],
    ...cameraRows(r.camera),
  ];
  return facts.filter((f): f is [string, string] => typeof f[1] === 'string' && f[1] !== '');
}

/** Camera, lens and exposure from the stored EXIF facts, as a photographer reads them: "50 mm · ƒ/2.8 · 1/250 s · ISO 400". */
function cameraRows(json: string | null): Array<[string, string | undefined]> {
  if (!json) return [];
  let c: CameraFacts;
  try {
    c = JSON.parse(json) as CameraFacts;
  } catch {
    return [];
  }
  const seconds = (t: number) => (t < 1 ? `1/${Math.round(1 / t)} s` : `${Math.round(t * 10) / 10} s`);
  const exposure = [
    c.focalLength !== undefined ? `${c.focalLength} mm` : undefined,
    c.fNumber !== undefined ? `ƒ/${c.fNumber}` : undefined,
    c.exposure !== undefined ? seconds(c.exposure) : undefined,
    c.iso !== undefined ? `ISO ${c.iso}` : undefined,
  ].filter((v) => v !== undefined);
  return [
    ['Camera', c.camera],
    ['Lens', c.lens],
    ['Exposure', exposure.length > 0 ? exposure.join(' · ') : undefined],
  ];
}

async function detailOf(ctx: StudioContext, s: Signed, uuid: string): Promise<MediaDetail> {
  const m = await ctx.deps.media.get(s.user, uuid, true);
  const r = m.record;
  // The gallery names; one gone meanwhile (or on a website no longer shared) is left out.
  const galleries = await Promise.all(m.relations.galleries.slice(0, GALLERIES_SHOWN).map((g) => ctx.deps.galleries.summary(s.user, g).catch(() => undefined)));
  return {
    uuid: r.uuid,
    title: r.title ?? '',
    name: r.file_name,
    description: r.description ?? '',
    altText: r.alt_text ?? '',
    keywords: m.relations.keywords,
    thumb: m.renditions.length > 0,
    status: r.status,
    size: r.file_size === null ? null : Number(r.file_size),
    facts: factsOf(r),
    galleries: galleries.flatMap((g) => (g ? [{ uuid: g.uuid, name: g.name }] : [])),
  };
}

async function oneMediaScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const done = str((req.query as Record<string, unknown>).done);
  return ctx.send(
    reply,
    200,
    mediaDetailPage({
      viewer: s.viewer,
      media: await detailOf(ctx, s, mediaUuid(req)),
      notice: done === 'replaced' ? 'The file was replaced; its renditions follow within seconds.' : done === 'saved' ? 'Saved.' : undefined,
    }),
  );
}

// Title, caption, alt text, keywords: the API's PUT /medias/<uuid>.xml with those attributes (a
// blank one clears it, as in the API); a refusal shows the form again with what was sent.
async function editMedia(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const uuid = mediaUuid(req);
  try {
    const fields = readFields(MEDIA_FIELDS, MEDIA_FORM.source(form, EDIT_KEYS, { blank: true }), MEDIA_FORM.words);
    await ctx.deps.media.update(s.user, uuid, { attributes: mediaInput(fields, 'media') });
  } catch (err) {
    const error = MEDIA_FORM.refusal(err);
    const values: MediaEditValues = { title: form.str('title') ?? '', description: form.str('description') ?? '', alt_text: form.str('alt_text') ?? '', keywords: form.str('keywords') ?? '' };
    return ctx.send(reply, 422, mediaDetailPage({ viewer: s.viewer, media: await detailOf(ctx, s, uuid), values, error }));
  }
  return ctx.redirect(reply, `/studio/media/${uuid}?done=saved`);
}

// A new file for the media, as the API's PUT /medias/<uuid>.xml with media[content] (a direct
// upload through the uploads service: streamed to a temporary file, bounded by MAX_UPLOAD_BYTES).
async function replaceFile(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const uuid = mediaUuid(req);
  await ctx.deps.media.get(s.user, uuid, false);
  const { taken } = await ctx.signedFile(req, s, (file) =>
    ctx.deps.media.update(s.user, uuid, { attributes: mediaInput({}, 'media'), direct: { fileName: file.fileName || 'upload', stream: file.stream } }, req.raw),
  );
  if (!taken) throw new ApiError('invalid_parameter', 'Choose a file.');
  await taken;
  return ctx.redirect(reply, `/studio/media/${uuid}?done=replaced`);
}

async function deleteMedia(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const uuid = mediaUuid(req);
  if (form.str('confirm') !== 'yes') throw new ApiError('invalid_parameter', 'Tick "Yes, delete this media" to delete it.');
  await ctx.deps.media.delete(s.user, uuid);
  return ctx.redirect(reply, '/studio/media?done=deleted');
}


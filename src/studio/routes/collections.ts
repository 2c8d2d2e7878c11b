// Collections and smart collections (GroupsService, the API's access rule: another user's is a
// 404) with their rules (read by the API's own rules reader), and the user's lightboxes
// (LightboxesService.list). Their medias are the grid's: /studio/media?group=… / ?lightbox=….
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUuid } from '../../core/uuid.js';
import { ApiError } from '../../core/errors.js';
import { readFields, type Entry } from '../../core/fields.js';
import { GROUP_API, GROUP_CREATE_FIELDS, MAX_RULES, RULES_FIELDS } from '../../groups/fields.js';
import { parseStoredRules } from '../../groups/smart-rules.js';
import type { Body } from '../body.js';
import { specForm } from '../spec-form.js';
import { SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import { collectionPage, collectionsPage } from '../pages/collections.js';

const GROUPS_SHOWN = 500;
const LIGHTBOXES_SHOWN = 200;
/** A collection's spec as its forms say it: a name, and a smart collection's rules. */
const GROUP_FORM = specForm(GROUP_CREATE_FIELDS, GROUP_API, {}, { collectionName: 'The name', smartName: 'The name', rules: 'The rules', rulesMatch: 'The match' });

export const collectionRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/collections', handler: collectionsScreen },
  { method: 'POST', path: '/studio/collections', bodyLimit: SMALL_FORM_BYTES, handler: createCollection },
  { method: 'GET', path: '/studio/collections/:uuid', handler: collectionScreen },
  { method: 'POST', path: '/studio/collections/:uuid', bodyLimit: SMALL_FORM_BYTES * 4, handler: saveCollection },
  { method: 'POST', path: '/studio/collections/:uuid/delete', bodyLimit: SMALL_FORM_BYTES, handler: deleteCollection },
];

async function listScreen(ctx: StudioContext, reply: FastifyReply, s: Signed, status: number, extra: { notice?: string; error?: { field: string; message: string }; draft?: { name: string; kind: string } } = {}) {
  const [found, boxes] = await Promise.all([ctx.deps.groups.list(s.user, undefined, { limit: GROUPS_SHOWN, offset: 0 }, true), ctx.deps.lightboxes.list(s.user, LIGHTBOXES_SHOWN, 0)]);
  const groups = found.groups.map((g) => ({ uuid: g.uuid, name: g.name, smart: g.kind === 'smart', medias: found.counts.get(g.id) ?? 0 }));
  const lightboxes = boxes.rows.map((l) => ({ uuid: l.uuid, name: l.state === 'sent' ? `${l.name} (sent)` : l.name, medias: l.count }));
  return ctx.send(reply, status, collectionsPage({ viewer: s.viewer, groups, total: found.total, lightboxes, lightboxTotal: boxes.total, ...extra }));
}
const uuidOf = (req: FastifyRequest) => {
  const uuid = (req.params as { uuid: string }).uuid.toLowerCase();
  if (!isUuid(uuid)) throw new ApiError('not_found', 'There is no such collection.');
  return uuid;
};
async function oneScreen(ctx: StudioContext, reply: FastifyReply, s: Signed, uuid: string, status: number, extra: { notice?: string; error?: { field: string; message: string } } = {}) {
  const { group, mediasCount } = await ctx.deps.groups.get(s.user, uuid, false);
  const rules = parseStoredRules(group.rules);
  return ctx.send(reply, status, collectionPage({ viewer: s.viewer, uuid: group.uuid, name: group.name, smart: group.kind === 'smart', medias: mediasCount, match: rules.match, rules: rules.rules, ...extra }));
}

async function collectionsScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const done = (req.query as { done?: string }).done;
  return listScreen(ctx, reply, s, 200, { notice: done === 'deleted' ? 'The collection was deleted.' : undefined });
}

async function createCollection(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const name = form.str('name') ?? '';
  const kind = form.str('kind') === 'smart' ? 'smart' : 'collection';
  let created;
  try {
    created = await ctx.deps.groups.create(s.user, kind === 'smart' ? { smartName: name } : { collectionName: name });
  } catch (err) {
    return listScreen(ctx, reply, s, 422, { error: { field: 'name', message: GROUP_FORM.refusal(err).message }, draft: { name: name.slice(0, 255), kind } });
  }
  return ctx.redirect(reply, `/studio/collections/${created.group.uuid}?done=created`);
}

async function collectionScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const done = (req.query as { done?: string }).done;
  return oneScreen(ctx, reply, s, uuidOf(req), 200, { notice: done === 'created' ? 'The collection was created.' : done === 'saved' ? 'Saved.' : undefined });
}

async function saveCollection(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const uuid = uuidOf(req);
  const { group } = await ctx.deps.groups.get(s.user, uuid, false);
  const smart = group.kind === 'smart';
  const rows = smart ? ruleRows(form) : [];
  try {
    const name = form.str('name') ?? '';
    const rules = smart ? readFields(RULES_FIELDS, { value: (k) => (k === 'rulesMatch' ? (form.str('match') ?? 'all') : undefined), entries: () => rows }, GROUP_FORM.words).rules : undefined;
    await ctx.deps.groups.update(s.user, uuid, smart ? { smartName: name, rules } : { collectionName: name });
  } catch (err) {
    const { field, message } = GROUP_FORM.refusal(err);
    // A rule is named by its row for people: "Rule 2's value".
    const worded = rows.reduce((m, e) => ['field', 'operator', 'value'].reduce((t, sub) => t.split(`${GROUP_FORM.words('rules')}[${e.id}][${sub}]`).join(`Rule ${Number(e.id) + 1}'s ${sub}`), m), message);
    return oneScreen(ctx, reply, s, uuid, 422, { error: { field: field === 'rules' || field === 'rules_match' ? 'rules' : 'name', message: worded } });
  }
  return ctx.redirect(reply, `/studio/collections/${uuid}?done=saved`);
}

/** The form's rule rows as the rules' entries, numbered from 0; a row with no field is left out (at most a few past the bound, which the spec checks). */
function ruleRows(form: Body): Entry[] {
  const rows: Entry[] = [];
  for (let i = 0; i < MAX_RULES + 10 && rows.length <= MAX_RULES; i++) {
    if ((form.str(`rules[${i}][field]`) ?? '').trim() === '') continue;
    const row = i;
    rows.push({ id: String(rows.length), value: (sub) => form.str(`rules[${row}][${sub}]`) ?? '' });
  }
  return rows;
}

async function deleteCollection(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const uuid = uuidOf(req);
  const expected = form.str('medias_count');
  const deleteMedias = form.str('delete_medias') === '1';
  try {
    // With the medias: only if the count the page showed still holds (the API's medias_count rule).
    await ctx.deps.groups.delete(s.user, uuid, { deleteMedias, expectedCount: deleteMedias && expected !== undefined && /^\d{1,9}$/.test(expected) ? Number(expected) : undefined });
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'count_mismatch') throw err;
    return oneScreen(ctx, reply, s, uuid, 409, { error: { field: '', message: 'The collection changed since the page was loaded: nothing was deleted. Check the count and try again.' } });
  }
  return ctx.redirect(reply, '/studio/collections?done=deleted');
}


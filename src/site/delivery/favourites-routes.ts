// Favourites (docs/delivery.md) under `<home>/_favourites`, rows of the route table
// (../routes.ts): the visitor's selections, one selection and its `_archive.zip`,
// the posts `pick`, `identify`, `send`. Posts come from the website itself only;
// `Accept: application/json` (the gallery page's script) gets JSON. Every page is
// the visitor's own: never cached, never in the micro-cache.
import { isUuid } from '../../core/uuid.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import type { Client } from '../../lightboxes/service.js';
import { pickListsOf } from '../../lightboxes/lists.js';
import { backUnder, cookiePath, type SiteAddress } from '../address.js';
import type { SiteHelpers, SiteRoute, WebsiteDeps } from '../plugin-deps.js';
import { ConfirmSendPage, IdentifyPage, SelectionPage, SelectionsPage } from '../pages/favourites.js';
import { render } from '../pages/layout.js';
import { passCookie } from '../signin/pass-cookie.js';
import type { VisitorPass } from '../signin/pass.js';
import type { FavouriteGallery, Refusal } from '../service.js';
import { MAX_EMAIL_LENGTH, normaliseEmail } from '../signin/service.js';
import { notFound, only, visiting, type Visit } from '../visit.js';
import { clientKeyOf } from './download-controls.js';
import { Downloads } from './download-routes.js';

export const FAVOURITES = '_favourites';
/** A name typed to choose favourites. */
export const MAX_CLIENT_NAME_LENGTH = 100;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
/** The last segment of a selection's archive: `<home>/_favourites/<gallery>/_archive.zip`. */
const ARCHIVE = '_archive.zip';
/** A favourites form: a note of 500 characters, each up to 12 bytes percent-encoded, and the rest. */
const FAVOURITES_FORM_BYTES = 16 * 1024;

/** Who chooses with this pass: the proved address first, else the name and address the visitor typed. */
export function clientOf(pass: VisitorPass | undefined): Client | undefined {
  if (!pass) return undefined;
  if (pass.email) return { key: pass.email, email: pass.email, name: pass.guest?.name ?? null, verified: true };
  if (pass.guest) return { key: `guest:${pass.id}`, email: pass.guest.email, name: pass.guest.name, verified: false };
  return undefined;
}

/** The favourites' rows of the route table: the path below the home is checked as sent. */
export function favouriteRoutes(helpers: SiteHelpers, deps: WebsiteDeps): SiteRoute[] {
  const f = new Favourites(helpers, deps);
  const below = (rest: string) => rest.startsWith(`${FAVOURITES}/`);
  const sub = (v: Visit) => v.rest.slice(FAVOURITES.length + 1);
  return [
    { method: 'GET', path: `/${FAVOURITES}`, handler: visiting(helpers, deps, only((rest) => rest === FAVOURITES, (_req, reply, v) => f.get(reply, v, ''))) },
    {
      method: 'GET',
      path: `/${FAVOURITES}/*`,
      handler: visiting(helpers, deps, only(below, (req, reply, v) => {
        const [gallery, last, ...more] = sub(v).split('/');
        return last === ARCHIVE && more.length === 0 && isUuid(gallery!) ? f.archive(req, reply, v, gallery!) : f.get(reply, v, sub(v));
      })),
    },
    { method: 'POST', path: `/${FAVOURITES}/*`, bodyLimit: FAVOURITES_FORM_BYTES, handler: visiting(helpers, deps, only(below, (req, reply, v) => f.post(req, reply, v, sub(v)))) },
  ];
}

const pickAction = (at: SiteAddress) => `${at.homePath}/${FAVOURITES}/pick`;
const selectionHref = (at: SiteAddress, galleryUuid: string) => `${at.homePath}/${FAVOURITES}/${galleryUuid.toLowerCase()}`;

/** The favourites' handlers. */
class Favourites {
  private readonly downloads: Downloads;

  constructor(
    private readonly helpers: SiteHelpers,
    private readonly deps: WebsiteDeps,
  ) {
    this.downloads = new Downloads(helpers, deps);
  }

  private personal(reply: FastifyReply, status: number, html: string) {
    return this.helpers.html(reply, status, html, { personal: true });
  }

  /** The gallery a form or page names, as this visitor may see it; anything else is a 404 (what one cannot see is not there). */
  private async galleryOf(v: Visit, uuid: string | undefined): Promise<FavouriteGallery> {
    const g: FavouriteGallery | Refusal = uuid ? await this.deps.site.favouriteGallery(v.at, uuid, v.pass) : { kind: 'not-found' };
    if (g.kind === 'closed') throw new ApiError('gone', 'This gallery has closed.');
    if (g.kind !== 'favourites') throw notFound();
    // Favourites off in this gallery: refused whatever a page shows (docs/delivery.md).
    if (g.selection.favourites === false) throw new ApiError('forbidden', 'Favourites are not offered in this gallery.');
    return g;
  }

  private identifyPage(reply: FastifyReply, v: Visit, back: string, o: { status?: number; pending?: { gallery: string; pick: string }; name?: string; email?: string; error?: string } = {}) {
    return this.personal(
      reply,
      o.status ?? 200,
      render(
        IdentifyPage({
          frame: this.helpers.frameOf(v.at),
          action: `${v.at.homePath}/${FAVOURITES}/identify`,
          signinHref: `${v.at.homePath}/_signin?back=${encodeURIComponent(back)}`,
          back,
          pending: o.pending,
          name: o.name,
          email: o.email,
          error: o.error,
        }),
      ),
    );
  }

  async get(reply: FastifyReply, v: Visit, sub: string) {
    const here = sub === '' ? `${v.at.homePath}/${FAVOURITES}` : selectionHref(v.at, sub);
    // One address per page, as the other pages: whatever a visitor adds goes there first.
    if ([...v.query.keys()].length > 0 || (sub !== '' && sub !== sub.toLowerCase())) return reply.code(301).header('location', here).send();
    if (sub !== '' && !isUuid(sub)) throw notFound();
    const client = clientOf(v.pass);
    if (sub !== '') {
      const g = await this.galleryOf(v, sub);
      if (!client) return this.identifyPage(reply, v, here);
      const view = await this.deps.lightboxes.view(g.selection, client);
      const notes = new Map(view.picks.map((p) => [p.media_id, p.note]));
      const lists = new Map(view.picks.map((p) => [p.media_id, pickListsOf(p.lists)]));
      const items = (await g.items(view.picks.map((p) => p.media_id))).map((m) => ({ ...m, note: notes.get(m.id) ?? null, lists: lists.get(m.id) ?? [] }));
      const page = SelectionPage({
        frame: this.helpers.frameOf(v.at),
        client,
        gallery: { uuid: g.uuid, title: g.title, href: g.href, crumbs: g.crumbs },
        state: view.state,
        count: view.count,
        limit: view.limit,
        items,
        pickAction: pickAction(v.at),
        lists: view.listCounts,
        listAction: `${v.at.homePath}/${FAVOURITES}/list`,
        sendAction: `${v.at.homePath}/${FAVOURITES}/send`,
        here,
        archiveHref: g.rights.compDownload || g.rights.hiresDownload ? `${here}/${ARCHIVE}` : undefined,
      });
      return this.personal(reply, 200, render(page));
    }
    if (!client) return this.identifyPage(reply, v, here);
    // Only the galleries this visitor may still open are listed (a new password closes one).
    const rows = await this.deps.lightboxes.selectionsOnWebsite(client, v.at.website.id);
    const selections = [];
    for (const s of rows) {
      const g = await this.deps.site.favouriteGallery(v.at, s.gallery_uuid, v.pass);
      if (g.kind !== 'favourites' || g.selection.favourites === false) continue;
      selections.push({ title: g.title, href: selectionHref(v.at, g.uuid), count: s.count, limit: g.selection.pickLimit, state: s.state === 'sent' ? ('sent' as const) : ('open' as const), sentAt: s.sent_at });
    }
    return this.personal(reply, 200, render(SelectionsPage({ frame: this.helpers.frameOf(v.at), client, selections })));
  }

  /**
   * `<home>/_favourites/<gallery>/_archive.zip`: the client's picks in that gallery as one streamed
   * ZIP (archives.ts), in the order picked, at their rights there (none: 403), decided when it starts.
   */
  async archive(req: FastifyRequest, reply: FastifyReply, v: Visit, galleryUuid: string) {
    const href = `${selectionHref(v.at, galleryUuid)}/${ARCHIVE}`;
    if ([...v.query.keys()].length > 0 || galleryUuid !== galleryUuid.toLowerCase()) return reply.code(301).header('location', href).header('cache-control', 'no-store').send();
    if (!isUuid(galleryUuid)) throw notFound();
    const g = await this.galleryOf(v, galleryUuid);
    const client = clientOf(v.pass);
    if (!client) return this.identifyPage(reply, v, selectionHref(v.at, g.uuid));
    if (!g.rights.compDownload && !g.rights.hiresDownload) throw new ApiError('forbidden', 'This gallery offers no downloads.');
    // The gallery's download controls hold here too (docs/delivery.md): its PIN first, then its limit.
    reply.header('cache-control', 'no-store');
    if (!this.deps.site.pinOpened(v.pass, g.uuid, g.controls.pin)) return this.downloads.pinPage(reply, v, { gallery: g.uuid, galleryName: g.title, back: href, cancel: selectionHref(v.at, g.uuid), crumbs: g.crumbs, wrong: false });
    if (g.controls.limit !== null && (await this.downloads.spent(g.selection.id, g.controls.limit, v.pass!))) return this.downloads.limitPage(reply, v, { galleryName: g.title, limit: g.controls.limit, back: g.href, crumbs: g.crumbs });
    const selection = await this.deps.lightboxes.selectionOf(g.selection.ownerId, g.selection.id, client.key);
    if (!selection || selection.mediaIds.length === 0) throw new ApiError('not_found', 'You have not chosen any photo in this gallery yet.');
    return this.deps.archives.streamArchive(req, reply, {
      limit: g.controls.limit ?? undefined,
      clientKey: clientKeyOf(v.pass!),
      pass: v.pass,
      websiteId: v.at.website.id,
      galleryId: g.selection.id,
      galleryUuid: g.uuid,
      rights: g.rights,
      medias: selection.mediaIds,
      name: `${g.title} - favourites`,
    });
  }

  private async pick(req: FastifyRequest, reply: FastifyReply, v: Visit, form: URLSearchParams) {
    const json = wantsJson(req);
    const galleryUuid = one(form, 'gallery');
    const picked = one(form, 'pick');
    const unpicked = one(form, 'unpick');
    const note = one(form, 'note');
    const media = unpicked ?? picked;
    if (media === undefined) throw new ApiError('missing_parameter', 'Choose a photo.');
    const g = await this.galleryOf(v, galleryUuid);
    const back = backUnder(v.at.homePath, one(form, 'back')) ?? g.href;
    // A photo not in this gallery is not there, before anything names it back (the identify page keeps the pick).
    const id = (await g.idsOf([media])).get(media.toLowerCase());
    if (id === undefined) throw notFound();
    const client = clientOf(v.pass);
    if (!client) {
      if (json) return reply.code(403).header('cache-control', 'no-store').send({ identify: true, error: 'Tell the photographer who you are first.' });
      return this.identifyPage(reply, v, back, { pending: unpicked === undefined ? { gallery: g.uuid, pick: media } : undefined });
    }
    const r = unpicked !== undefined ? await this.deps.lightboxes.unpick(g.selection, client, id) : await this.deps.lightboxes.pick(g.selection, client, id, note);
    if (json) return reply.code(200).header('cache-control', 'no-store').send(r);
    return reply.code(303).header('location', back).header('cache-control', 'no-store').send();
  }

  /** A photo put in one of the gallery's named lists (`on=1`, picking it when it is not), or taken out (`on=0`). */
  private async list(req: FastifyRequest, reply: FastifyReply, v: Visit, form: URLSearchParams) {
    const json = wantsJson(req);
    const media = one(form, 'media');
    const list = one(form, 'list');
    const on = one(form, 'on');
    if (media === undefined) throw new ApiError('missing_parameter', 'Choose a photo.');
    if (list === undefined || list === '') throw new ApiError('missing_parameter', 'Choose a list.', { field: 'list' });
    if (on !== '0' && on !== '1') throw new ApiError('invalid_parameter', 'on must be 1 or 0.', { field: 'on' });
    const g = await this.galleryOf(v, one(form, 'gallery'));
    const back = backUnder(v.at.homePath, one(form, 'back')) ?? g.href;
    const id = (await g.idsOf([media])).get(media.toLowerCase());
    if (id === undefined) throw notFound();
    const client = clientOf(v.pass);
    if (!client) {
      if (json) return reply.code(403).header('cache-control', 'no-store').send({ identify: true, error: 'Tell the photographer who you are first.' });
      return this.identifyPage(reply, v, back);
    }
    const r = await this.deps.lightboxes.setList(g.selection, client, id, list, on === '1');
    if (json) return reply.code(200).header('cache-control', 'no-store').send(r);
    return reply.code(303).header('location', back).header('cache-control', 'no-store').send();
  }

  private async identify(req: FastifyRequest, reply: FastifyReply, v: Visit, form: URLSearchParams) {
    const back = backUnder(v.at.homePath, one(form, 'back')) ?? `${v.at.homePath}/`;
    const name = (one(form, 'name') ?? '').replace(/\s+/g, ' ').trim();
    const rawEmail = one(form, 'email') ?? '';
    const email = normaliseEmail(rawEmail);
    const gallery = one(form, 'gallery');
    const pending = one(form, 'pick');
    const again = (error: string) =>
      this.identifyPage(reply, v, back, { status: 422, error, name: name.slice(0, MAX_CLIENT_NAME_LENGTH), email: rawEmail.slice(0, MAX_EMAIL_LENGTH), pending: gallery && pending ? { gallery, pick: pending } : undefined });
    if (name === '' || name.length > MAX_CLIENT_NAME_LENGTH || /[\x00-\x1f\x7f]/.test(name)) return again(`Enter your name (at most ${MAX_CLIENT_NAME_LENGTH} characters).`);
    if (!email) return again('Enter an e-mail address.');
    const pass = this.deps.passes.withGuest(v.pass ?? this.deps.passes.fresh(v.at.website.uuid), name, email);
    reply.header('set-cookie', passCookie(this.deps.passes, pass, cookiePath(v.at), this.deps.config.publicUrl.startsWith('https:')));
    // The heart that brought the visitor here is picked now, when its gallery and photo are still theirs to see.
    if (gallery && pending) {
      const g = await this.deps.site.favouriteGallery(v.at, gallery, pass);
      const client = clientOf(pass);
      const id = g.kind === 'favourites' ? (await g.idsOf([pending])).get(pending.toLowerCase()) : undefined;
      try {
        if (g.kind === 'favourites' && client && id !== undefined) await this.deps.lightboxes.pick(g.selection, client, id);
      } catch (err) {
        // Full or sent already: the visitor lands on the page, which says so when they pick again.
        if (!(err instanceof ApiError)) throw err;
      }
    }
    return reply.code(303).header('location', back).header('cache-control', 'no-store').send();
  }

  private async send(_req: FastifyRequest, reply: FastifyReply, v: Visit, form: URLSearchParams) {
    const g = await this.galleryOf(v, one(form, 'gallery'));
    const client = clientOf(v.pass);
    const here = selectionHref(v.at, g.uuid);
    if (!client) return this.identifyPage(reply, v, here);
    if (one(form, 'confirm') !== 'yes') {
      const view = await this.deps.lightboxes.view(g.selection, client);
      const page = ConfirmSendPage({ frame: this.helpers.frameOf(v.at), gallery: { uuid: g.uuid, title: g.title }, count: view.count, action: `${v.at.homePath}/${FAVOURITES}/send`, back: here });
      return this.personal(reply, 200, render(page));
    }
    const sent = await this.deps.lightboxes.send(g.selection, client);
    if (sent.ownerEmail) {
      const lists = (g.selection.lists ?? []).length ? (await this.deps.lightboxes.view(g.selection, client)).listCounts : [];
      this.deps.mailer.sendSelection({
        to: sent.ownerEmail,
        siteTitle: v.at.website.title || v.at.website.urlname,
        galleryName: g.title,
        clientName: client.name,
        clientEmail: client.email,
        verified: client.verified,
        count: sent.count,
        lightboxUuid: sent.uuid,
        url: `${this.deps.config.publicUrl}/lightboxes/${sent.uuid}.xml`,
        lists,
      });
    }
    return reply.code(303).header('location', here).header('cache-control', 'no-store').send();
  }

  async post(req: FastifyRequest, reply: FastifyReply, v: Visit, sub: string) {
    // A cross-site page must not pick, send or name a visitor in their stead.
    if (!this.helpers.fromOwnSite(req, v.at)) throw new ApiError('forbidden', 'This form can only be sent from the website itself.');
    const form = formOf(req);
    try {
      if (sub === 'pick') return await this.pick(req, reply, v, form);
      if (sub === 'list') return await this.list(req, reply, v, form);
      if (sub === 'identify') return await this.identify(req, reply, v, form);
      if (sub === 'send') return await this.send(req, reply, v, form);
    } catch (err) {
      // The script reads a refusal (the limit reached, a sent selection) as JSON.
      if (err instanceof ApiError && wantsJson(req) && err.status < 500) return reply.code(err.status).header('cache-control', 'no-store').send({ error: err.message, ...(err.field ? { field: err.field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) } : {}) });
      throw err;
    }
    throw notFound();
  }
}

function wantsJson(req: FastifyRequest): boolean {
  return (req.headers.accept ?? '').includes('application/json');
}

/** One field of the form: absent, or given once. */
export function one(form: URLSearchParams, name: string): string | undefined {
  const all = form.getAll(name);
  if (all.length > 1) throw new ApiError('bad_request', `${name} is given more than once`);
  return all[0];
}

export function formOf(req: FastifyRequest): URLSearchParams {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('application/x-www-form-urlencoded')) throw new ApiError('unsupported_media_type', 'Send the form as application/x-www-form-urlencoded.');
  if (req.body !== undefined && req.body !== null && !Buffer.isBuffer(req.body)) throw new ApiError('bad_request', 'The form could not be read.');
  try {
    return new URLSearchParams(req.body ? strictUtf8.decode(req.body) : '');
  } catch {
    throw new ApiError('bad_encoding', 'The form is not valid UTF-8.');
  }
}

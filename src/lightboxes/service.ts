// Lightboxes (spec 2.4): named selections of a user's medias, which listings and batch updates filter
// on; the admin command makes them, and clients by choosing favourites. The rules of a selection (pick
// limit, notes, read-only once sent, reopened by the photographer) live here only; what a visitor may
// see is the website's decision (docs/delivery.md, "Favourites"; docs/architecture.md, "Where a
// feature's rules stop").
import type { Access } from '../access/access.js';
import { ApiError, conflict, invalid, notFound } from '../core/errors.js';
import { bracketNames, custom, missingField, refuse, type InputOf } from '../core/fields.js';
import type { UserRow } from '../database/schema.js';
import type { Unit } from '../database/unit-of-work.js';
import { isUuid } from '../core/uuid.js';
import { fileNameLists } from './file-names.js';
import { listNamesOf, pickListsOf } from './lists.js';
import type { LightboxesRepository, LightboxListRow, OwnedGallery, PickRow, ProofPickRow, SelectionRow } from './repository.js';

export type { LightboxListRow, OwnedGallery, PickRow, ProofPickRow } from './repository.js';

/** A note on a pick: a short remark ("crop tighter"), not a letter. */
export const NOTE_MAX_LENGTH = 500;
/** Picks in one selection at most, whatever the gallery's pick limit (none included). */
export const MAX_PICKS = 5000;

export const LIGHTBOX_STATES = ['open', 'sent'] as const;
/** A lightbox's state change: open, the client may change the selection again; sent, it is read-only for them. */
export const LIGHTBOX_STATE_FIELDS = {
  state: custom<(typeof LIGHTBOX_STATES)[number]>((v, at) => {
    if (v === undefined || v === '') throw missingField(at);
    if (!(LIGHTBOX_STATES as readonly string[]).includes(v)) throw refuse(at, `parameter ${at.name} must be one of ${LIGHTBOX_STATES.join(', ')}, got ${JSON.stringify(v)}`);
    return v as (typeof LIGHTBOX_STATES)[number];
  }),
};
export type LightboxStateInput = InputOf<typeof LIGHTBOX_STATE_FIELDS>;
export const LIGHTBOX_API = bracketNames('lightbox', LIGHTBOX_STATE_FIELDS);
/** A visitor's selections listed on their "my favourites" page at most (one per gallery). */
export const MAX_SELECTIONS_LISTED = 200;
/** The most a photographer may set as a gallery's pick limit. */
export const MAX_PICK_LIMIT = MAX_PICKS;

/** Who chooses: a client proved by a sign-in link (verified), or a visitor who typed a name and an address. */
export interface Client {
  /** Names the selection: the proved address, or `guest:<pass id>` (migration 014). */
  key: string;
  email: string;
  name: string | null;
  verified: boolean;
}

/** The gallery a selection is made in, as the website found it for this visitor. */
export interface SelectionGallery {
  id: number;
  /** The photographer: the website's owner, who owns the lightbox. */
  ownerId: number;
  name: string;
  pickLimit: number | null;
  /** Favourites offered here (lists.ts favouritesOn); undefined: on. Off, every change is refused (403). */
  favourites?: boolean;
  /** The named lists offered here ("Album", "Prints"); none: []. */
  lists?: readonly string[];
}

/** Clients' selections of one gallery listed on the proofing screen at most (the newest first). */
export const PROOFING_SELECTIONS = 500;

/** One gallery's proofing (docs/studio.md): its clients' selections, and one of them with its picks. */
export interface Proofing {
  gallery: OwnedGallery;
  /** Sent ones first (the latest sent first), then those still open (the latest change first). */
  selections: LightboxListRow[];
  /** The one asked for, else the first. */
  chosen?: {
    lightbox: LightboxListRow;
    /** The picks shown: all of them, or those of `list`. */
    picks: ProofPickRow[];
    names: ReturnType<typeof fileNameLists>;
    /** All the client's picks, and each named list with its count: the gallery's lists first, then any the client used that it no longer offers. */
    total: number;
    lists: Array<{ name: string; count: number }>;
    /** The list shown; undefined: all the picks. */
    list?: string;
  };
}

/** A client's selection of a gallery as its pages show it. */
export interface SelectionView {
  uuid?: string;
  state: 'open' | 'sent';
  count: number;
  /** The gallery's pick limit; null: none (MAX_PICKS still holds). */
  limit: number | null;
  picks: PickRow[];
  /** The picks in each of the gallery's lists, in the gallery's order of its lists. */
  listCounts: Array<{ name: string; count: number }>;
}

/** What happened to a selection, for whoever records activity (docs/delivery.md). */
export interface SelectionEvent {
  lightboxId: number;
  ownerId: number;
  galleryId: number;
  client: Client;
  mediaId?: number;
  count: number;
}

/** Called after the change is stored; a listener that throws does not undo it (errors are its own). */
export interface SelectionEvents {
  onPick?(e: SelectionEvent): void;
  onUnpick?(e: SelectionEvent): void;
  onSent?(e: SelectionEvent): void;
  /**
   * In the transaction that sends the selection (its selection.sent webhook event, docs/integrations.md):
   * a throw undoes the sending, so the selection is sent exactly when its event exists.
   */
  sentIn?(unit: Unit, e: SelectionEvent): Promise<void>;
}

export class LightboxesService {
  constructor(
    private readonly repo: LightboxesRepository,
    private readonly access: Access,
    private readonly events: SelectionEvents = {},
  ) {}

  /** A client's data on request (docs/delivery.md): the selections they made in the owner's galleries, notes included; how many. */
  forgetClient(ownerId: number, email: string): Promise<number> {
    return this.repo.forgetClient(ownerId, email.toLowerCase());
  }

  /** A lightbox of `owner` holding `mediaUuids` (theirs, else 422) in that order. */
  async create(owner: Pick<UserRow, 'id'>, name: string, mediaUuids: readonly string[] = []): Promise<{ uuid: string }> {
    const mediaIds = await this.access.require(owner, 'media', mediaUuids, { invalid: 'media' });
    return { uuid: await this.repo.create(owner.id, name, mediaIds) };
  }

  // ---- a client's selection (favourites)

  /**
   * A client's selection of a gallery as media ids in the order they were picked (for archives,
   * activity): undefined when the client has picked nothing there yet.
   */
  async selectionOf(ownerId: number, galleryId: number, clientKey: string): Promise<{ uuid: string; state: 'open' | 'sent'; mediaIds: number[] } | undefined> {
    const s = await this.repo.selection(ownerId, galleryId, clientKey);
    if (!s) return undefined;
    return { uuid: s.uuid, state: stateOf(s), mediaIds: (await this.repo.picks(s.id)).map((p) => p.media_id) };
  }

  /** The client's selection of the gallery with its picks (an empty open one when there is none yet). */
  async view(g: SelectionGallery, client: Client): Promise<SelectionView> {
    const s = await this.repo.selection(g.ownerId, g.id, client.key);
    const counts = (picks: PickRow[]) => (g.lists ?? []).map((name) => ({ name, count: picks.filter((p) => pickListsOf(p.lists).includes(name)).length }));
    if (!s) return { state: 'open', count: 0, limit: g.pickLimit, picks: [], listCounts: counts([]) };
    const picks = await this.repo.picks(s.id, MAX_PICKS);
    return { uuid: s.uuid, state: stateOf(s), count: s.count, limit: g.pickLimit, picks, listCounts: counts(picks) };
  }

  /** The client's selections of a website's galleries (their counts and states), one query; at most MAX_SELECTIONS_LISTED. */
  selectionsOnWebsite(client: Client, websiteId: number): Promise<Array<SelectionRow & { gallery_uuid: string }>> {
    return this.repo.selectionsOnWebsite(client.key, websiteId, MAX_SELECTIONS_LISTED);
  }

  /**
   * Picks a photo (`mediaId`: one the website found visible to this visitor in the gallery), with
   * a note when given; picking one already picked changes only its note. Refused (409) when the
   * selection was sent or is full.
   */
  async pick(g: SelectionGallery, client: Client, mediaId: number, note?: string): Promise<{ count: number; limit: number | null; picked: boolean }> {
    offered(g);
    const clean = note === undefined ? undefined : checkNote(note);
    const limit = Math.min(g.pickLimit ?? MAX_PICKS, MAX_PICKS);
    const r = await this.repo.pick(
      { ownerId: g.ownerId, galleryId: g.id, clientKey: client.key, clientEmail: client.email, clientName: client.name, verified: client.verified, name: lightboxName(client, g.name) },
      mediaId,
      clean,
      limit,
    );
    if (r.kind === 'sent') throw sentError();
    if (r.kind === 'full') {
      // Names the gallery's field (pickLimit, `pick_limit` on the website's JSON): the refusal is that limit's.
      const message = g.pickLimit !== null && g.pickLimit <= MAX_PICKS ? `You have chosen ${r.count} photos: the most this gallery allows is ${g.pickLimit}. Remove one to choose another.` : `A selection holds at most ${MAX_PICKS} photos.`;
      throw new ApiError('conflict', message, { field: 'pickLimit' });
    }
    if (r.kind === 'picked') this.emit('onPick', { lightboxId: r.selectionId!, ownerId: g.ownerId, galleryId: g.id, client, mediaId, count: r.count });
    return { count: r.count, limit: g.pickLimit, picked: true };
  }

  /** Removes a pick (nothing when it was not picked); 409 once sent. */
  async unpick(g: SelectionGallery, client: Client, mediaId: number): Promise<{ count: number; limit: number | null; picked: boolean }> {
    offered(g);
    const s = await this.repo.selection(g.ownerId, g.id, client.key);
    if (!s) return { count: 0, limit: g.pickLimit, picked: false };
    if (!(await this.repo.change(s.id, mediaId, { unpick: true }))) throw sentError();
    const after = await this.repo.selection(g.ownerId, g.id, client.key);
    this.emit('onUnpick', { lightboxId: s.id, ownerId: g.ownerId, galleryId: g.id, client, mediaId, count: after?.count ?? 0 });
    return { count: after?.count ?? 0, limit: g.pickLimit, picked: false };
  }

  /**
   * Sends the selection: read-only for the client from now on. Refused when it is empty or was
   * sent already. What the photographer is mailed is the caller's (the website's mailer).
   */
  async send(g: SelectionGallery, client: Client): Promise<{ uuid: string; count: number; ownerEmail: string | undefined }> {
    offered(g);
    const s = await this.repo.selection(g.ownerId, g.id, client.key);
    if (!s || s.count === 0) throw conflict('Choose at least one photo before sending your selection.');
    const e: SelectionEvent = { lightboxId: s.id, ownerId: g.ownerId, galleryId: g.id, client, count: s.count };
    if (!(await this.repo.send(s.id, this.events.sentIn && ((unit) => this.events.sentIn!(unit, e))))) throw sentError();
    this.emit('onSent', e);
    return { uuid: s.uuid, count: s.count, ownerEmail: await this.repo.ownerEmail(g.ownerId) };
  }

  /**
   * Puts a photo in one of the gallery's named lists (`on`, picking it first when it is not: the
   * limit holds), or takes it out (the pick stays). A name the gallery does not offer is a 422
   * naming `list`; a sent selection a 409.
   */
  async setList(g: SelectionGallery, client: Client, mediaId: number, list: string, on: boolean): Promise<{ lists: string[]; listCounts: SelectionView['listCounts']; count: number }> {
    offered(g);
    if (!(g.lists ?? []).includes(list)) throw new ApiError('invalid_parameter', `list must be one of the gallery's lists (${(g.lists ?? []).join(', ') || 'none'})`, { field: 'list' });
    if (on) await this.pick(g, client, mediaId);
    const s = await this.repo.selection(g.ownerId, g.id, client.key);
    if (!s) return { lists: [], listCounts: (await this.view(g, client)).listCounts, count: 0 };
    const r = await this.repo.setList(s.id, mediaId, list, on);
    if (r === 'sent') throw sentError();
    const view = await this.view(g, client);
    return { lists: r, listCounts: view.listCounts, count: view.count };
  }

  // ---- the photographer's side (API extensions, docs/delivery.md)

  /** A page of the user's lightboxes. */
  list(user: Pick<UserRow, 'id'>, limit: number, offset: number): Promise<{ rows: LightboxListRow[]; total: number }> {
    return this.repo.list(user.id, limit, offset);
  }

  /** One of the user's lightboxes (404 otherwise). */
  async get(user: Pick<UserRow, 'id'>, uuid: string): Promise<LightboxListRow> {
    return this.repo.one(await this.access.requireOne(user, 'lightbox', uuid, { notFound: 'lightbox' }));
  }

  /** One of the user's lightboxes with a page of its medias, notes and when they were picked. */
  async details(user: Pick<UserRow, 'id'>, uuid: string, limit: number, offset: number): Promise<{ lightbox: LightboxListRow; picks: PickRow[] }> {
    const lightbox = await this.get(user, uuid);
    return { lightbox, picks: await this.repo.picks(lightbox.id, limit, offset) };
  }

  /** The client's notes on some medias of one of the user's lightboxes (404 for another's), by media id. */
  async notes(user: Pick<UserRow, 'id'>, uuid: string, mediaIds: readonly number[]): Promise<Map<number, string>> {
    return this.repo.notes(await this.access.requireOne(user, 'lightbox', uuid, { notFound: 'lightbox' }), mediaIds);
  }

  /** Reopens a sent selection (`open`: the client may change it again), or closes it (`sent`). */
  async setState(user: Pick<UserRow, 'id'>, uuid: string, state: 'open' | 'sent'): Promise<LightboxListRow> {
    const lightbox = await this.get(user, uuid);
    if (lightbox.state !== state) await this.repo.setState(lightbox.id, state);
    return this.repo.one(lightbox.id);
  }

  /**
   * A gallery's proofing for its photographer: only the owner of the gallery's website (the owner
   * of its selections) sees it; anyone else, a member of a shared website included, gets a 404.
   * `selection` (a lightbox UUID) picks the one shown with its picks; one not of this gallery is a 404.
   */
  async proofing(user: Pick<UserRow, 'id'>, galleryUuid: string, selection?: string, list?: string): Promise<Proofing> {
    const gallery = await this.ownedGallery(user, galleryUuid);
    const selections = (await this.repo.ofGallery(user.id, gallery.id, PROOFING_SELECTIONS)).sort(proofingOrder);
    const lightbox = selection === undefined ? selections[0] : selections.find((l) => l.uuid === selection.toLowerCase());
    if (selection !== undefined && !lightbox) throw notFound(`selection ${selection.slice(0, 36)}`);
    if (!lightbox) return { gallery, selections };
    const all = await this.repo.proofPicks(lightbox.id, MAX_PICKS);
    const lists = listsOfPicks(listNamesOf(gallery.favourite_lists), all);
    if (list !== undefined && !lists.some((l) => l.name === list)) throw notFound(`list ${list.slice(0, 40)}`);
    const picks = list === undefined ? all : all.filter((p) => pickListsOf(p.lists).includes(list));
    return { gallery, selections, chosen: { lightbox, picks, names: fileNameLists(picks.map((p) => p.file_name)), total: all.length, lists, list } };
  }

  /** Reopens a client's sent selection of the gallery (the API's `lightbox[state]=open`); 404 unless it is one of the owner's gallery's. */
  async reopenIn(user: Pick<UserRow, 'id'>, galleryUuid: string, lightboxUuid: string): Promise<LightboxListRow> {
    const gallery = await this.ownedGallery(user, galleryUuid);
    const lightbox = isUuid(lightboxUuid) ? await this.get(user, lightboxUuid) : undefined;
    if (!lightbox || lightbox.gallery_uuid !== gallery.uuid) throw notFound(`selection ${lightboxUuid.slice(0, 36)}`);
    return this.setState(user, lightbox.uuid, 'open');
  }

  private async ownedGallery(user: Pick<UserRow, 'id'>, galleryUuid: string): Promise<OwnedGallery> {
    const gallery = isUuid(galleryUuid) ? await this.repo.ownedGallery(user.id, galleryUuid.toLowerCase()) : undefined;
    if (!gallery) throw notFound(`gallery ${galleryUuid.slice(0, 36)}`);
    return gallery;
  }

  private emit(name: 'onPick' | 'onUnpick' | 'onSent', e: SelectionEvent): void {
    try {
      this.events[name]?.(e);
    } catch {
      // A listener's failure is its own: the client's change is stored.
    }
  }
}

/** "<client name or e-mail> — <gallery name>". */
export function lightboxName(client: Pick<Client, 'name' | 'email'>, galleryName: string): string {
  return `${client.name || client.email} — ${galleryName}`.slice(0, 255);
}

/** A note as stored: trimmed, at most NOTE_MAX_LENGTH characters, no control characters but line breaks. */
export function checkNote(note: string): string {
  const t = note.replace(/\r\n?/g, '\n').trim();
  if (t.length > NOTE_MAX_LENGTH) throw invalid(`note must be at most ${NOTE_MAX_LENGTH} characters long`);
  if (/[\x00-\x09\x0B-\x1F\x7F]/.test(t)) throw invalid('note must not contain control characters');
  return t;
}

/** Each list with its count: the gallery's own lists (empty ones too), then any other a pick is in (a list renamed since). */
function listsOfPicks(offered: readonly string[], picks: readonly ProofPickRow[]): Array<{ name: string; count: number }> {
  const counts = new Map<string, number>(offered.map((n) => [n, 0]));
  for (const p of picks) for (const n of pickListsOf(p.lists)) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts].map(([name, count]) => ({ name, count }));
}

/** Sent selections first, the latest sent first; then open ones, the latest change first. */
function proofingOrder(a: LightboxListRow, b: LightboxListRow): number {
  if ((a.state === 'sent') !== (b.state === 'sent')) return a.state === 'sent' ? -1 : 1;
  const at = (l: LightboxListRow) => (l.state === 'sent' ? l.sent_at : l.updated_at) ?? l.created_at;
  return at(b).localeCompare(at(a)) || b.id - a.id;
}

function stateOf(s: Pick<SelectionRow, 'state'>): 'open' | 'sent' {
  return s.state === 'sent' ? 'sent' : 'open';
}

/** Favourites off in this gallery: every change is refused, whatever a page shows. */
function offered(g: SelectionGallery): void {
  if (g.favourites === false) throw new ApiError('forbidden', 'Favourites are not offered in this gallery.');
}

function sentError(): ApiError {
  return conflict('This selection has been sent: it can no longer be changed. Ask the photographer to reopen it.');
}

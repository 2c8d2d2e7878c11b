// The gallery operations (spec 4.3, docs/galleries.md): list, details,
// create, update, delete (optionally with the caller's medias, through the
// media feature), sub-gallery listings, and what a visitor of the public
// website may do with a gallery. Writes lock the website's tree and run in
// one transaction, so a refusal leaves nothing changed.
import type { WebhookEmitter } from '../webhooks/events.js';
import { randomUUID } from 'node:crypto';
import type { Access } from '../access/access.js';
import { isUuid } from '../core/uuid.js';
import { conflict, invalid, notFound } from '../core/errors.js';
import { hashPassword } from '../users/passwords.js';
import { nowIso } from '../database/db.js';
import type { GalleryRow, UserRow, WebsiteRow } from '../database/schema.js';
import type { Unit } from '../database/unit-of-work.js';
import { sortByContentOrder } from './content-order.js';
import { clientEmail, DEFAULT_ACL_EMAIL, MAX_ACL_ENTRIES, type AclEntryInput } from './acl.js';
import { galleryKey, type GalleryInput } from './fields.js';
import { checkDepth, checkFullUrlPathLength, levelOf, MAX_GALLERIES_PER_WEBSITE } from './limits.js';
import type { AclEntry, GalleriesRepository, GalleryChanges, GalleryRecord, GalleryShown, MediaCounts, OverviewRow } from './repository.js';
import type { OverviewQuery, OverviewState } from './overview.js';
import { baseUrlPath, childFullUrlPath, slugify, uniqueUrlPath } from './url-path.js';

export type { AclEntry, GalleryRecord, GalleryShown, MediaCounts } from './repository.js';

export const MAX_SUBGALLERIES = 1000;

type User = Pick<UserRow, 'id'>;

export interface CountedGallery {
  record: GalleryShown;
  counts: MediaCounts;
}

export interface GalleryDetails extends CountedGallery {
  website: Pick<WebsiteRow, 'urlname'>;
  acl: AclEntry[];
  /** Media UUIDs in the gallery's order, when asked for. */
  medias?: string[];
  /** Direct sub-galleries in the gallery's order, when asked for. */
  subgalleries?: CountedGallery[];
}

/** A gallery of the studio's overview: its row and its photos (distinct live medias in its sub-tree). */
export interface OverviewGallery extends OverviewRow {
  photos: number;
}

export interface GalleryPage {
  total: number;
  records: GalleryRecord[];
  /** When asked for. */
  counts?: Map<number, MediaCounts>;
}

export interface SubgalleryPage {
  ancestors: GalleryRecord[];
  gallery: CountedGallery;
  page: number;
  /** The page asked for. */
  children: CountedGallery[];
  /** Sub-galleries that pass the filter, and the page size used. */
  total: number;
  perPage: number;
}

export interface ListInput {
  page: number;
  /** undefined: the first listCap galleries. */
  perPage?: number;
  withCounts: boolean;
}

export interface SubgalleriesInput {
  /** Part of the name, any case. */
  filter?: string;
  page: number;
  /** undefined: every sub-gallery. */
  perPage?: number;
}

export interface DeleteInput {
  deleteMedias: boolean;
  /** medias_count: the number of medias the client expects the delete to concern. */
  expectedMediasCount?: number;
}

export interface DeleteResult {
  galleriesDeleted: number;
  mediasDeleted: number;
}

/** The stored rows of an access list. */
function aclRowsOf(galleryId: number, acl: readonly AclEntryInput[], now: string) {
  return acl.map((e) => ({
    gallery_id: galleryId,
    position: e.position,
    email: e.email,
    can_read: e.read ? 1 : 0,
    comp_download: e.compDownload ? 1 : 0,
    hires_download: e.hiresDownload ? 1 : 0,
    created_at: now,
  }));
}

const byName = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/** The attribute a full url path comes from, to name in a refusal: the url path sent, else the name. */
function pathSource(input: GalleryInput): string {
  return input.urlPath !== undefined && slugify(input.urlPath) !== '' ? 'gallery[url_path]' : 'gallery[name]';
}

/** The password hashed before any transaction starts (argon2 is slow). undefined: unchanged; null: removed. */
async function hashed(input: GalleryInput): Promise<string | null | undefined> {
  if (input.password === undefined) return undefined;
  return input.password === null ? null : hashPassword(input.password);
}

/**
 * What a gallery deleted with its medias needs of a media file's life (src/media/file-life.ts,
 * FileLife.deleteIn): the medias deleted in the gallery's own unit of work. A port, so that the
 * galleries feature stays below the media feature, which publishes into galleries.
 */
export interface MediaDeletion {
  /** `goneGalleries`: deleted in the same unit, so told of nothing (their medias' other galleries are). */
  deleteIn(unit: Unit, ownerId: number, ids: readonly number[], goneGalleries?: readonly number[]): Promise<number>;
}

export class GalleriesService {
  constructor(
    private readonly repo: GalleriesRepository,
    private readonly access: Access,
    private readonly fileLife: MediaDeletion,
    /** How many galleries an unpaginated list shows (spec 8, 9). */
    private readonly listCap: number,
    /** gallery.published and gallery.updated, in the change's unit (docs/integrations.md "Webhooks"). */
    private readonly events?: WebhookEmitter,
  ) {}

  /** The website a request names, or its 404 (a route's `found`, src/http/router.ts). */
  async website(user: User, urlname: string): Promise<void> {
    await this.access.website(user, urlname);
  }

  /** Page `page` of a website's galleries in list order; `perPage` undefined: the first listCap. */
  async list(user: User, urlname: string, { page, perPage, withCounts }: ListInput): Promise<GalleryPage & { perPage: number }> {
    const website = await this.access.website(user, urlname);
    const size = perPage ?? this.listCap;
    const first = (page - 1) * size + 1;
    const [total, records] = await Promise.all([this.repo.total(website.id), this.repo.byListPos(website.id, first, first + size - 1)]);
    return { total, records, perPage: size, counts: withCounts ? await this.mediaCounts(this.repo, records) : undefined };
  }

  /**
   * A page of the website's galleries for the studio's overview: those the query asks for, in its
   * order, each with its photos (distinct live medias in its sub-tree) and whether its parent is
   * the home gallery. A fixed number of statements, whatever the page (GalleriesRepository.overview).
   */
  async overview(user: User, urlname: string, query: OverviewQuery, limit: number, offset: number): Promise<{ total: number; galleries: OverviewGallery[] }> {
    const website = await this.access.website(user, urlname);
    const { total, rows } = await this.repo.overview(website.id, query, nowIso(), limit, offset);
    const counts = await this.mediaCounts(this.repo, rows);
    return { total, galleries: rows.map((r) => ({ ...r, photos: counts.get(r.id)!.full })) };
  }

  /** Every gallery's state of a website as the website enforces it (the tree's badges; GalleriesRepository.effectiveStates), by id. */
  async effectiveStates(user: User, urlname: string): Promise<Map<number, { state: OverviewState; from: string | null; hidden: boolean; hiddenFrom: string | null }>> {
    const website = await this.access.website(user, urlname);
    return this.repo.effectiveStates(website.id, nowIso());
  }

  /** A thumbnail's media UUID for each gallery of the user's websites (studio lists; set-based, GalleriesRepository.coverUuids). */
  async coverUuids(user: User, galleryUuids: readonly string[]): Promise<Map<string, string>> {
    return this.repo.coverUuids(user.id, galleryUuids);
  }

  /** One gallery with its counts and access list; its medias and sub-galleries when asked for. */
  async get(user: User, urlname: string, uuid: string, want: { medias?: boolean; subgalleries?: boolean } = {}): Promise<GalleryDetails> {
    const id = this.galleryUuid(uuid);
    const found = id === undefined ? undefined : this.repo.details(user.id, urlname, id);
    const row = found instanceof Promise ? await found : found;
    if (!row) {
      // Which of the two is missing decides the message.
      await this.access.website(user, urlname);
      throw notFound(`gallery ${uuid}`);
    }
    const website = { urlname };
    // A leaf without an access list, details only (the usual read): the one statement answered it all.
    const more = row.subgalleries_count > 0 || row.acl_entries > 0 || want.medias || want.subgalleries;
    const [full, acls, medias, subgalleries] = more
      ? await Promise.all([
          row.subgalleries_count > 0 ? this.repo.fullMediaCounts([row.id]) : undefined,
          row.acl_entries > 0 ? this.repo.acls([row.id]) : undefined,
          want.medias ? this.orderedMediaUuids(row) : undefined,
          want.subgalleries ? this.orderedChildren(row).then((c) => this.counted(c.map((x) => x.id))) : undefined,
        ])
      : [];
    return {
      website,
      record: row,
      counts: { medias: row.own_medias, full: full?.get(row.id) ?? row.own_medias },
      acl: acls?.get(row.id) ?? [],
      medias,
      subgalleries,
    };
  }

  /** A page of a gallery's direct sub-galleries (filtered by name), with the gallery and its ancestors. */
  async subgalleries(user: User, urlname: string, uuid: string, { filter, page, perPage }: SubgalleriesInput): Promise<SubgalleryPage> {
    const website = await this.access.website(user, urlname);
    const g = await this.record(website, uuid);
    let children = await this.orderedChildren(g);
    const wanted = filter?.trim().toLowerCase();
    if (wanted) children = children.filter((c) => c.name.toLowerCase().includes(wanted));
    // Without pagination every sub-gallery is listed (1000 at most).
    const size = perPage ?? Math.max(1, children.length);
    const pageIds = children.slice((page - 1) * size, page * size).map((c) => c.id);
    const [ancestors, rows] = await Promise.all([this.repo.ancestors(g), this.counted([g.id, ...pageIds])]);
    return { ancestors, gallery: rows[0], children: rows.slice(1), page, total: children.length, perPage: size };
  }

  async create(user: User, urlname: string, input: GalleryInput): Promise<GalleryDetails> {
    const website = await this.access.website(user, urlname);
    const passwordHash = await hashed(input);
    const id = await this.repo.inTransaction(async (repo, unit) => {
      const made = await this.insert(repo, website, input, passwordHash ?? null, nowIso());
      await this.events?.emitIn(unit, 'gallery.published', { gallery: made });
      return made;
    });
    return this.reread(website, id);
  }

  async update(user: User, urlname: string, uuid: string, input: GalleryInput): Promise<GalleryDetails> {
    const website = await this.access.website(user, urlname);
    const existing = await this.row(this.repo, website, uuid);
    const passwordHash = await hashed(input);
    await this.repo.inTransaction(async (repo, unit) => {
      // Lock, then re-read: the tree may have changed since the first read.
      const now = nowIso();
      await repo.lockWebsite(website.id, now);
      await this.change(repo, website, await this.row(repo, website, uuid), input, passwordHash, now);
      await this.updated(unit, existing.id);
    });
    return this.reread(website, existing.id);
  }

  /**
   * Moves a gallery's expiry `days` on (the studio's "Extend 30 days"): from the expiry when it is
   * still ahead, else from now, so a gallery already closed opens again for that long.
   */
  async extendExpiry(user: User, urlname: string, uuid: string, days: number): Promise<GalleryDetails> {
    const website = await this.access.website(user, urlname);
    const existing = await this.row(this.repo, website, uuid);
    await this.repo.inTransaction(async (repo, unit) => {
      const now = nowIso();
      await repo.lockWebsite(website.id, now);
      const g = await this.row(repo, website, uuid);
      const from = Math.max(g.expires_at === null ? 0 : Date.parse(g.expires_at), Date.parse(now));
      await this.change(repo, website, g, { expiresAt: new Date(from + days * 86_400_000).toISOString() }, undefined, now);
      await this.updated(unit, g.id);
    });
    return this.reread(website, existing.id);
  }

  /**
   * Replaces a gallery's access list (an extension: the API sets one on create only; the
   * studio edits it). The entries come from acl.ts's reader (DEFAULT first); none: no list.
   * Only the DEFAULT entry, granting read and nothing more, given to a gallery with no list is
   * no list either: everyone reads, and its children still inherit their downloads.
   */
  async setAcl(user: User, urlname: string, uuid: string, acl: readonly AclEntryInput[]): Promise<GalleryDetails> {
    const website = await this.access.website(user, urlname);
    const plain = acl.length === 1 && acl[0].read && !acl[0].compDownload && !acl[0].hiresDownload;
    const id = await this.repo.inTransaction(async (repo, unit) => {
      const now = nowIso();
      await repo.lockWebsite(website.id, now);
      const g = await this.row(repo, website, uuid);
      const none = plain && ((await repo.acls([g.id])).get(g.id) ?? []).length === 0;
      await repo.deleteAcl(g.id);
      await repo.insertAcl(aclRowsOf(g.id, none ? [] : acl, now));
      await repo.update(g.id, { updated_at: now });
      await this.updated(unit, g.id);
      return g.id;
    });
    return this.reread(website, id);
  }

  /**
   * A client added to a gallery's access list with read and these downloads, or an entry for the
   * address given them (the studio's invitation; an extension). A gallery with no list gets one
   * whose DEFAULT lets everyone read, as before. Read and written under the website's lock.
   */
  async grant(user: User, urlname: string, uuid: string, client: { email: string; compDownload: boolean; hiresDownload: boolean }): Promise<GalleryDetails> {
    const email = clientEmail(client.email);
    if (email === undefined) throw invalid(`the client's address must be an e-mail address, got ${JSON.stringify(client.email.trim())}`, 'acl');
    const website = await this.access.website(user, urlname);
    const id = await this.repo.inTransaction(async (repo, unit) => {
      const now = nowIso();
      await repo.lockWebsite(website.id, now);
      const g = await this.row(repo, website, uuid);
      const current = (await repo.acls([g.id])).get(g.id) ?? [];
      const list: AclEntryInput[] = current.length ? current.map((e) => ({ ...e })) : [{ position: 0, email: DEFAULT_ACL_EMAIL, read: true, compDownload: false, hiresDownload: false }];
      const mine = list.find((e) => e.position !== 0 && e.email === email);
      if (mine) Object.assign(mine, { read: true, compDownload: client.compDownload, hiresDownload: client.hiresDownload });
      else if (list.length >= MAX_ACL_ENTRIES) throw invalid(`the access list may hold at most ${MAX_ACL_ENTRIES} entries`, 'acl');
      else list.push({ position: Math.max(...list.map((e) => e.position)) + 1, email, read: true, compDownload: client.compDownload, hiresDownload: client.hiresDownload });
      await repo.deleteAcl(g.id);
      await repo.insertAcl(aclRowsOf(g.id, list, now));
      await repo.update(g.id, { updated_at: now });
      await this.updated(unit, g.id);
      return g.id;
    });
    return this.reread(website, id);
  }

  /** The website (urlname) of a gallery the user may see, by the gallery's UUID alone; 404 otherwise. */
  async websiteOf(user: User, uuid: string): Promise<string> {
    if (this.galleryUuid(uuid) === undefined) throw notFound(`gallery ${uuid}`);
    const id = await this.access.requireOne(user, 'gallery', uuid, { notFound: 'gallery' });
    const urlname = await this.repo.urlnameOf(id);
    if (urlname === undefined) throw notFound(`gallery ${uuid}`);
    return urlname;
  }

  /** What delete would remove: the galleries (itself and below) and the caller's medias published there (as delete counts them). */
  async deletion(user: User, urlname: string, uuid: string): Promise<{ galleries: number; medias: number }> {
    const website = await this.access.website(user, urlname);
    const g = await this.row(this.repo, website, uuid);
    if (g.parent_id === null) throw invalid('the root gallery cannot be deleted');
    const [subtree, medias] = await Promise.all([this.repo.subtree(g.id), this.repo.subtreeMediaIds(g.id, user.id)]);
    return { galleries: subtree.length, medias: medias.length };
  }

  /**
   * Deletes a gallery with everything below it, and with deleteMedias the
   * caller's live medias published there (on a shared website the sub-tree may
   * hold other users' medias: only the caller's are counted and deleted). The
   * medias_count guard compares before anything is changed.
   */
  async delete(user: User, urlname: string, uuid: string, opts: DeleteInput): Promise<DeleteResult> {
    const website = await this.access.website(user, urlname);
    if (this.galleryUuid(uuid) === undefined) throw notFound(`gallery ${uuid}`);
    return this.repo.inTransaction(async (repo, unit) => {
      const now = nowIso();
      await repo.lockWebsite(website.id, now);
      const g = await this.row(repo, website, uuid);
      if (g.parent_id === null) throw invalid('the root gallery cannot be deleted');
      const mediaIds = await repo.subtreeMediaIds(g.id, user.id);
      if (opts.expectedMediasCount !== undefined && opts.expectedMediasCount !== mediaIds.length) {
        throw conflict(
          `medias_count is ${opts.expectedMediasCount} but ${mediaIds.length} medias of yours are published in this gallery and its sub-galleries: nothing was deleted`,
          'count_mismatch',
        );
      }
      const subtree = await repo.subtree(g.id);
      // Before anything below locks a gallery: the medias deleted, then the owners' stamps (PostgreSQL's lock order of the page stamps).
      await repo.lockForDelete(g.id, opts.deleteMedias ? user.id : undefined);
      // The owner of the files' life deletes the medias (covers cleared, uploads ended, files recorded, then removed after the commit) in this unit.
      if (opts.deleteMedias) await this.fileLife.deleteIn(unit, user.id, mediaIds, subtree.map((s) => s.id));
      // One gallery.deleted per gallery of the sub-tree, read before the rows go, in the delete's unit.
      await this.events?.emitIn(unit, 'gallery.deleted', { galleries: subtree.map((s) => s.id) });
      await repo.deleteSubtree(g.id);
      await repo.releaseSubgallerySlot(g.parent_id);
      await repo.closeListGaps(website.id, subtree.map((s) => s.list_pos));
      return { galleriesDeleted: subtree.length, mediasDeleted: opts.deleteMedias ? mediaIds.length : 0 };
    });
  }

  /**
   * A gallery the user may see, by its UUID alone (the studio's media grid of one gallery):
   * its name and whether its content order is manual; a 404 otherwise, as the API's.
   */
  async summary(user: User, uuid: string): Promise<{ uuid: string; name: string; contentOrder: string; manual: boolean }> {
    const id = await this.access.requireOne(user, 'gallery', uuid, { notFound: 'gallery' });
    const g = await this.repo.findById(id);
    if (!g) throw notFound(`gallery ${uuid}`);
    return { uuid: g.uuid, name: g.name, contentOrder: g.content_order, manual: g.content_order.startsWith('manual') };
  }

  /**
   * Moves `moving` (medias published in the gallery, in this order) to just before `before`
   * (one of its medias not moved), or to the end when null: the manual order of
   * gallery[medias_order], for one drag and drop of the studio without sending the whole order
   * (a gallery may hold 10 000 medias). Only the positions that change are written.
   */
  async moveMedias(user: User, uuid: string, moving: readonly string[], before: string | null): Promise<void> {
    const id = await this.access.requireOne(user, 'gallery', uuid, { notFound: 'gallery' });
    if (moving.length === 0) throw invalid('nothing to move: name the medias to move');
    await this.repo.inTransaction(async (repo, unit) => {
      const g = await repo.findById(id);
      if (!g) throw notFound(`gallery ${uuid}`);
      await repo.lockWebsite(g.website_id, nowIso());
      const rows = await repo.manualOrder(id);
      const byUuid = new Map(rows.map((r) => [r.uuid.toLowerCase(), r]));
      const moved = [...new Set(moving.map((u) => u.toLowerCase()))].map((u) => {
        const row = byUuid.get(u);
        if (!row) throw notFound(`media ${u} in this gallery`);
        return row;
      });
      const movedIds = new Set(moved.map((r) => r.media_id));
      const rest = rows.filter((r) => !movedIds.has(r.media_id));
      let at = rest.length;
      if (before !== null) {
        at = rest.findIndex((r) => r.uuid.toLowerCase() === before.toLowerCase());
        if (at < 0) throw invalid('before: the media to move before is not in this gallery, or is one of those moved');
      }
      const order = [...rest.slice(0, at), ...moved, ...rest.slice(at)];
      const moves = order.map((r, i) => ({ id: r.media_id, position: i + 1, old: r.position })).filter((c) => c.position !== c.old);
      await repo.setPositions(id, moves);
      if (moves.length > 0) await this.updated(unit, id);
    });
  }

  /** gallery.updated in the change's unit: every write that changes what the gallery is or shows tells it here. */
  private async updated(unit: Unit, galleryId: number): Promise<void> {
    await this.events?.emitIn(unit, 'gallery.updated', { gallery: galleryId });
  }

  // ---- reads

  /** The UUID lower-cased; undefined when it cannot name a gallery. */
  private galleryUuid(uuid: string): string | undefined {
    return isUuid(uuid) ? uuid.toLowerCase() : undefined;
  }

  private async record(website: WebsiteRow, uuid: string): Promise<GalleryRecord> {
    const id = this.galleryUuid(uuid);
    const g = id === undefined ? undefined : await this.repo.record(website.id, id);
    if (!g) throw notFound(`gallery ${uuid}`);
    return g;
  }

  private async row(repo: GalleriesRepository, website: WebsiteRow, uuid: string): Promise<GalleryRow> {
    const id = this.galleryUuid(uuid);
    const g = id === undefined ? undefined : await repo.find(website.id, id);
    if (!g) throw notFound(`gallery ${uuid}`);
    return g;
  }

  /** A gallery just written, as create and update show it. */
  private async reread(website: WebsiteRow, id: number): Promise<GalleryDetails> {
    const [record] = await this.repo.byIds([id]);
    const [counts, acls] = await Promise.all([this.mediaCounts(this.repo, [record]), this.repo.acls([id])]);
    return { website, record, counts: counts.get(id)!, acl: acls.get(id) ?? [] };
  }

  /**
   * medias-count and full-medias-count of several galleries: one grouped query
   * for the galleries' own medias, and a recursive one only for those that have
   * sub-galleries (a leaf's full count is its own count).
   */
  private async mediaCounts(repo: GalleriesRepository, galleries: ReadonlyArray<Pick<GalleryRow, 'id' | 'subgalleries_count'>>): Promise<Map<number, MediaCounts>> {
    const out = new Map<number, MediaCounts>();
    if (galleries.length === 0) return out;
    const own = await repo.ownMediaCounts(galleries.map((g) => g.id));
    for (const g of galleries) {
      const n = own.get(g.id) ?? 0;
      out.set(g.id, { medias: n, full: n });
    }
    const parents = galleries.filter((g) => g.subgalleries_count > 0).map((g) => g.id);
    for (const [id, full] of await repo.fullMediaCounts(parents)) out.get(id)!.full = full;
    return out;
  }

  /** Galleries in the order of `ids`, with their media counts: a fixed number of queries whatever the number. */
  private async counted(ids: readonly number[]): Promise<CountedGallery[]> {
    const byId = new Map((await this.repo.byIds(ids)).map((r) => [r.id, r]));
    const rows = ids.map((id) => byId.get(id)!);
    const counts = await this.mediaCounts(this.repo, rows);
    return rows.map((record) => ({ record, counts: counts.get(record.id)! }));
  }

  /** Direct sub-galleries in the parent's order: by name when order_subgalleries is set, else by creation. */
  private async orderedChildren(g: Pick<GalleryRow, 'id' | 'order_subgalleries'>) {
    const children = await this.repo.children(g.id);
    if (g.order_subgalleries === 1) children.sort((a, b) => byName.compare(a.name, b.name) || a.id - b.id);
    return children;
  }

  private async orderedMediaUuids(g: Pick<GalleryRow, 'id' | 'content_order' | 'content_order_direction'>): Promise<string[]> {
    return sortByContentOrder(await this.repo.publishedMedias(g.id), g.content_order, g.content_order_direction).map((r) => r.uuid);
  }

  // ---- writes, in the caller's transaction

  private async parent(repo: GalleriesRepository, websiteId: number, uuid: string): Promise<GalleryRow> {
    const parent = await repo.find(websiteId, uuid);
    if (!parent) throw invalid(`gallery[parent]: ${uuid} is not a gallery of this website`, 'parent');
    return parent;
  }

  private async displayStyle(repo: GalleriesRepository, websiteId: number, uuid: string | null): Promise<number | null> {
    const id = await repo.displayStyleId(websiteId, uuid);
    if (id === undefined && uuid !== null) throw invalid(`gallery[display_style]: ${uuid} is not a display style of this website`, 'displayStyle');
    return id ?? null;
  }

  private async coverMedia(repo: GalleriesRepository, website: WebsiteRow, uuid: string | null, param = 'gallery[cover_media]'): Promise<number | null> {
    if (uuid === null) return null;
    const id = await repo.ownerMediaId(website, uuid);
    if (id === undefined) throw invalid(`${param}: ${uuid} is not a media of this website's owner`, galleryKey(param));
    return id;
  }

  /** Takes one of the parent's 1000 sub-gallery places, atomically. */
  private async takeSlot(repo: GalleriesRepository, parent: GalleryRow): Promise<void> {
    if (!(await repo.takeSubgallerySlot(parent.id, MAX_SUBGALLERIES))) {
      throw invalid(`gallery[parent]: gallery ${parent.uuid} already holds ${MAX_SUBGALLERIES} sub-galleries, the most a gallery may hold`, 'parent');
    }
  }

  /** Refuses `adding` more galleries when the website would hold more than the limit. Run it with the website locked. */
  private async checkWebsiteRoom(repo: GalleriesRepository, websiteId: number, adding: number): Promise<void> {
    const total = await repo.total(websiteId);
    if (total + adding > MAX_GALLERIES_PER_WEBSITE) {
      throw invalid(`gallery[parent]: the website holds ${total} galleries; it may hold at most ${MAX_GALLERIES_PER_WEBSITE} galleries`, 'parent');
    }
  }

  /**
   * How far a gallery's sub-tree reaches below it: the levels and the full url
   * path characters its deepest and its longest descendants add to its own. One
   * query, and none for a gallery without sub-galleries.
   */
  private async subtreeReach(repo: GalleriesRepository, g: GalleryRow): Promise<{ levels: number; chars: number }> {
    if (g.subgalleries_count === 0) return { levels: 0, chars: 0 };
    const extent = await repo.subtreeExtent(g.id);
    if (!extent) return { levels: 0, chars: 0 };
    return {
      levels: Math.max(0, extent.slashes + 1 - levelOf(g.full_url_path)),
      chars: Math.max(0, extent.longest - g.full_url_path.length),
    };
  }

  private async insert(repo: GalleriesRepository, website: WebsiteRow, input: GalleryInput, passwordHash: string | null, now: string): Promise<number> {
    await repo.lockWebsite(website.id, now);
    const parent = await this.parent(repo, website.id, input.parent!);
    checkDepth(levelOf(parent.full_url_path) + 1, parent.uuid);
    await this.checkWebsiteRoom(repo, website.id, 1);
    const displayStyleId = await this.displayStyle(repo, website.id, input.displayStyle ?? null);
    const coverMediaId = await this.coverMedia(repo, website, input.coverMedia ?? null);
    const publicCoverMediaId = await this.coverMedia(repo, website, input.publicCoverMedia ?? null, 'gallery[public_cover_media]');
    const urlPath = uniqueUrlPath(baseUrlPath(input.urlPath, input.name!), await repo.siblingUrlPaths(parent.id));
    const fullUrlPath = childFullUrlPath(parent.full_url_path, urlPath);
    checkFullUrlPathLength(fullUrlPath.length, pathSource(input));
    await this.takeSlot(repo, parent);
    const id = await repo.insert({
      uuid: randomUUID(),
      website_id: website.id,
      parent_id: parent.id,
      list_pos: await repo.nextListPos(website.id),
      name: input.name!,
      url_path: urlPath,
      url_path_auto: input.urlPath === undefined || slugify(input.urlPath) === '' ? 1 : 0,
      full_url_path: fullUrlPath,
      description: input.description ?? null,
      hidden: input.hidden ? 1 : 0,
      indexing: input.indexing ?? 1,
      pick_limit: input.pickLimit ?? null,
      favourites: input.favourites ?? null,
      favourite_lists: input.favouriteLists ? input.favouriteLists.join('\n') : null,
      expires_at: input.expiresAt ?? null,
      download_pin: input.downloadPin ?? null,
      download_limit: input.downloadLimit ?? null,
      download_size: input.downloadSize ?? null,
      password_hash: passwordHash,
      content_order: input.contentOrder ?? 'manual-last',
      content_order_direction: input.contentOrderDirection ?? 'asc',
      order_subgalleries: input.orderSubgalleries ? 1 : 0,
      display_style_id: displayStyleId,
      cover_media_id: coverMediaId,
      public_cover_media_id: publicCoverMediaId,
      published_at: now,
      created_at: now,
      updated_at: now,
    });
    if (input.acl) await repo.insertAcl(aclRowsOf(id, input.acl, now));
    return id;
  }

  /** Applies an update; attributes not sent stay as they are (client-compat: partial updates). */
  private async change(repo: GalleriesRepository, website: WebsiteRow, gallery: GalleryRow, input: GalleryInput, passwordHash: string | null | undefined, now: string): Promise<void> {
    const isRoot = gallery.parent_id === null;
    const changes: GalleryChanges = { updated_at: now };

    let parent: GalleryRow | undefined;
    let moving = false;
    if (input.parent !== undefined) {
      if (isRoot) throw invalid('gallery[parent]: the root gallery cannot be moved', 'parent');
      parent = await this.parent(repo, website.id, input.parent);
      if (parent.id !== gallery.parent_id) {
        if (parent.id === gallery.id || parent.full_url_path.startsWith(`${gallery.full_url_path}/`)) {
          throw invalid('gallery[parent]: a gallery cannot be moved under itself or one of its own sub-galleries', 'parent');
        }
        moving = true;
      }
    }
    if (input.displayStyle !== undefined) changes.display_style_id = await this.displayStyle(repo, website.id, input.displayStyle);
    if (input.coverMedia !== undefined) changes.cover_media_id = await this.coverMedia(repo, website, input.coverMedia);
    if (input.publicCoverMedia !== undefined) changes.public_cover_media_id = await this.coverMedia(repo, website, input.publicCoverMedia, 'gallery[public_cover_media]');
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    if (input.hidden !== undefined) changes.hidden = input.hidden ? 1 : 0;
    if (input.indexing !== undefined) changes.indexing = input.indexing;
    if (input.pickLimit !== undefined) changes.pick_limit = input.pickLimit;
    if (input.favourites !== undefined) changes.favourites = input.favourites;
    if (input.favouriteLists !== undefined) changes.favourite_lists = input.favouriteLists ? input.favouriteLists.join('\n') : null;
    if (input.expiresAt !== undefined) changes.expires_at = input.expiresAt;
    if (input.downloadPin !== undefined) changes.download_pin = input.downloadPin;
    if (input.downloadLimit !== undefined) changes.download_limit = input.downloadLimit;
    if (input.downloadSize !== undefined) changes.download_size = input.downloadSize;
    if (passwordHash !== undefined) changes.password_hash = passwordHash;
    if (input.contentOrder !== undefined) changes.content_order = input.contentOrder;
    if (input.contentOrderDirection !== undefined) changes.content_order_direction = input.contentOrderDirection;
    if (input.mediasOrder) await this.reorderMedias(repo, gallery.id, input.mediasOrder);

    if (isRoot) {
      // The root's url path is '' and stays so: its address is the website's.
      if (input.urlPath !== undefined && input.urlPath.trim() !== '') throw invalid('gallery[url_path]: the root gallery has no url path', 'urlPath');
    } else {
      const newName = input.name ?? gallery.name;
      const renamed = input.name !== undefined && input.name !== gallery.name;
      if (moving || input.urlPath !== undefined || (renamed && gallery.url_path_auto === 1)) {
        const target = parent ?? (await repo.findById(gallery.parent_id!))!;
        let base: string;
        if (input.urlPath !== undefined) {
          changes.url_path_auto = slugify(input.urlPath) === '' ? 1 : 0;
          base = baseUrlPath(input.urlPath, newName);
        } else {
          // A derived path follows the name; one the user chose is kept.
          base = gallery.url_path_auto === 1 ? baseUrlPath(undefined, newName) : gallery.url_path;
        }
        const urlPath = uniqueUrlPath(base, await repo.siblingUrlPaths(target.id, gallery.id));
        const fullUrlPath = childFullUrlPath(target.full_url_path, urlPath);
        if (fullUrlPath !== gallery.full_url_path) {
          // Every gallery below moves and grows along with this one.
          const reach = await this.subtreeReach(repo, gallery);
          if (moving) checkDepth(levelOf(target.full_url_path) + 1 + reach.levels, target.uuid, levelOf(gallery.full_url_path) + reach.levels);
          checkFullUrlPathLength(fullUrlPath.length + reach.chars, moving ? 'gallery[parent]' : pathSource(input), gallery.full_url_path.length + reach.chars);
        }
        if (moving) {
          await this.takeSlot(repo, target);
          await repo.releaseSubgallerySlot(gallery.parent_id!);
          changes.parent_id = target.id;
        }
        changes.url_path = urlPath;
        changes.full_url_path = fullUrlPath;
        if (fullUrlPath !== gallery.full_url_path) await repo.rewriteDescendantPaths(website.id, gallery.full_url_path, fullUrlPath);
      }
    }
    await repo.update(gallery.id, changes);
    if (input.position !== undefined) {
      if (isRoot) throw invalid('gallery[position]: the root gallery has no siblings', 'position');
      await this.place(repo, website.id, gallery.id, changes.parent_id ?? gallery.parent_id!, input.position);
    }
  }

  /**
   * Puts a gallery at `position` (1 = first, past the end = last) among its siblings by
   * handing the siblings' own list positions round in the new order: the website's list stays
   * dense and every other gallery keeps its place. A parent ordering by name still shows names.
   */
  private async place(repo: GalleriesRepository, websiteId: number, galleryId: number, parentId: number, position: number): Promise<void> {
    const siblings = await repo.children(parentId);
    const slots = siblings.map((c) => c.list_pos).sort((a, b) => a - b);
    const others = siblings.filter((c) => c.id !== galleryId);
    const me = siblings.find((c) => c.id === galleryId)!;
    const at = Math.min(position, others.length + 1) - 1;
    const order = [...others.slice(0, at), me, ...others.slice(at)];
    await repo.setListPositions(
      websiteId,
      order.map((c, i) => ({ id: c.id, list_pos: slots[i], old: c.list_pos })).filter((c) => c.list_pos !== c.old),
    );
  }

  /**
   * gallery[medias_order]: the listed medias (all published in the gallery)
   * come first, in the order given; the others keep their order after them.
   */
  private async reorderMedias(repo: GalleriesRepository, galleryId: number, uuids: readonly string[]): Promise<void> {
    if (uuids.length === 0) return;
    const rows = await repo.manualOrder(galleryId);
    const byUuid = new Map(rows.map((r) => [r.uuid.toLowerCase(), r]));
    const listed = uuids.map((u) => {
      const row = byUuid.get(u);
      if (!row) throw invalid(`gallery[medias_order]: media ${u} is not published in this gallery`, 'mediasOrder');
      return row;
    });
    const listedIds = new Set(listed.map((r) => r.media_id));
    const order = [...listed, ...rows.filter((r) => !listedIds.has(r.media_id))];
    await repo.setPositions(
      galleryId,
      order.map((r, i) => ({ id: r.media_id, position: i + 1, old: r.position })).filter((c) => c.position !== c.old),
    );
  }
}

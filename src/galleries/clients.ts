// A client entry added to a gallery's access list after its creation (an invitation; the API takes an
// access list on create only), by acl.ts's rules: the DEFAULT entry at position 0, one entry per
// address. A gallery without a list first gets a DEFAULT entry that keeps it as open as it was
// (docs/delivery.md, "Invitations").
import type { Access } from '../access/access.js';
import { nowIso } from '../database/db.js';
import type { UserRow } from '../database/schema.js';
import { DEFAULT_ACL_EMAIL, MAX_ACL_ENTRIES } from './acl.js';
import { invalid, notFound } from '../core/errors.js';
import type { GalleriesRepository } from './repository.js';
import type { WebhookEmitter } from '../webhooks/events.js';

export interface ClientRights {
  compDownload: boolean;
  hiresDownload: boolean;
}

/** A gallery the user may manage, as an invitation needs it. */
export interface ClientGallery {
  id: number;
  uuid: string;
  name: string;
  fullUrlPath: string;
  websiteUuid: string;
  ownerId: number;
}

export class GalleryClients {
  constructor(
    private readonly repo: GalleriesRepository,
    private readonly access: Access,
    /** gallery.updated with a new entry, in its transaction (docs/integrations.md "Webhooks"). */
    private readonly events?: WebhookEmitter,
  ) {}

  /** A gallery the user may manage; 404 otherwise. */
  async gallery(user: Pick<UserRow, 'id'>, galleryUuid: string): Promise<ClientGallery> {
    const id = await this.access.requireOne(user, 'gallery', galleryUuid, { notFound: 'gallery' });
    const g = await this.repo.invitationTarget(id);
    if (!g) throw notFound(`gallery ${galleryUuid}`);
    return { id, uuid: g.uuid, name: g.name, fullUrlPath: g.full_url_path, websiteUuid: g.website_uuid, ownerId: g.owner_id };
  }

  /** Makes sure the gallery's access list has an entry for the (lower-cased) address; false when it had one (left as it was). */
  async ensure(gallery: Pick<ClientGallery, 'id'>, email: string, rights: ClientRights): Promise<boolean> {
    const id = gallery.id;
    try {
      const created = await this.repo.inTransaction(async (repo, unit) => {
        const entries = (await repo.acls([id])).get(id) ?? [];
        if (entries.some((e) => e.email === email)) return false;
        if (entries.length >= MAX_ACL_ENTRIES) throw invalid(`the gallery's access list holds ${MAX_ACL_ENTRIES} entries already`);
        const now = nowIso();
        const rows = [];
        if (entries.length === 0) rows.push({ gallery_id: id, position: 0, email: DEFAULT_ACL_EMAIL, can_read: 1, comp_download: 0, hires_download: 0, created_at: now });
        const position = Math.max(0, ...entries.map((e) => e.position)) + 1;
        rows.push({ gallery_id: id, position, email, can_read: 1, comp_download: rights.compDownload ? 1 : 0, hires_download: rights.hiresDownload ? 1 : 0, created_at: now });
        await repo.insertAcl(rows);
        await this.events?.emitIn(unit, 'gallery.updated', { gallery: id });
        return true;
      });
      return created;
    } catch (err) {
      // Another invitation to the same gallery at the same moment took the position or the
      // address (unique on both): when the address is now listed, the entry exists — as asked.
      const entries = (await this.repo.acls([id])).get(id) ?? [];
      if (entries.some((e) => e.email === email)) return false;
      throw err;
    }
  }
}

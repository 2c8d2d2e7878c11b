// Lightboxes (spec 2.4): named selections of a user's medias, which media
// listings and batch updates filter on (`lightbox_id`). The admin command
// line creates them.
import type { Access } from '../access/access.js';
import type { UserRow } from '../store/schema.js';
import type { LightboxesRepository } from './repository.js';

export class LightboxesService {
  constructor(
    private readonly repo: LightboxesRepository,
    private readonly access: Access,
  ) {}

  /** A lightbox of `owner` holding `mediaUuids` (theirs, else 422) in that order. */
  async create(owner: Pick<UserRow, 'id'>, name: string, mediaUuids: readonly string[] = []): Promise<{ uuid: string }> {
    const mediaIds = await this.access.require(owner, 'media', mediaUuids, { invalid: 'media' });
    return { uuid: await this.repo.create(owner.id, name, mediaIds) };
  }

  /** A page of the owner's lightboxes, newest first, with the number of medias in each, and how many in all. */
  async list(owner: Pick<UserRow, 'id'>, window: { limit: number; offset: number }): Promise<{ total: number; lightboxes: Array<{ uuid: string; name: string; created_at: string; medias: number }> }> {
    const [total, lightboxes] = await Promise.all([this.repo.countOwned(owner.id), this.repo.listOwned(owner.id, window.limit, window.offset)]);
    return { total, lightboxes };
  }
}

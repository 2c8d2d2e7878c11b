// The one place that answers "which of these things named by a request may
// this user use": every feature resolves the UUIDs (and website urlnames) of
// a request here, and chooses what a refusal is. A thing the user may not
// see is answered exactly as one that does not exist.
import { invalid, notFound } from '../core/errors.js';
import type { UserRow, WebsiteRow } from '../database/schema.js';
import { AccessRepository, type Kind } from './repository.js';
import { isUuid } from '../core/uuid.js';

export type { Kind } from './repository.js';

/**
 * What an unknown (or not visible) UUID is: a 404 when it names the
 * resource a path or filter addresses, a 422 naming the parameter when it is
 * a value of an attribute.
 */
/** How a missing or foreign reference is refused: a 404, or a 422 worded with `invalid` at the spec key `field`. */
export type Refusal = { notFound: string } | { invalid: string; field?: string };

const WHAT: Record<Kind, string> = {
  gallery: 'gallery',
  media: 'media',
  artist: 'media library',
  collection: 'collection',
  group: 'medias group',
  'pricing-profile': 'pricing profile',
  watermark: 'watermark',
  lightbox: 'lightbox',
  job: 'job',
};

function refuse(refusal: Refusal, kind: Kind, uuid: string): Error {
  return 'notFound' in refusal ? notFound(`${refusal.notFound} ${uuid}`) : invalid(`${refusal.invalid}: unknown ${WHAT[kind]} ${uuid}`, refusal.field);
}

export class Access {
  constructor(private readonly repo: AccessRepository) {}

  /** A website the user owns or was given; 404 otherwise. */
  async website(user: Pick<UserRow, 'id'>, urlname: string): Promise<WebsiteRow> {
    const website = await this.repo.website(user.id, urlname);
    if (!website) throw notFound(`website ${urlname}`);
    return website;
  }

  /** Ids of `uuids` of `kind`, in their order, duplicates dropped; any the user may not use is refused. */
  async require(user: Pick<UserRow, 'id'>, kind: Kind, uuids: readonly string[], refusal: Refusal): Promise<number[]> {
    if (uuids.length === 0) return [];
    const wanted = [...new Set(uuids.map((u) => u.trim().toLowerCase()))];
    const malformed = wanted.find((u) => !isUuid(u));
    if (malformed !== undefined) throw refuse(refusal, kind, malformed);
    const byUuid = new Map((await this.repo.find(user.id, kind, wanted)).map((r) => [r.uuid.toLowerCase(), r.id]));
    const ids: number[] = [];
    for (const u of wanted) {
      const id = byUuid.get(u);
      if (id === undefined) throw refuse(refusal, kind, u);
      ids.push(id);
    }
    return ids;
  }

  /** The id of one thing of `kind` the user may use; refused otherwise. */
  async requireOne(user: Pick<UserRow, 'id'>, kind: Kind, uuid: string, refusal: Refusal): Promise<number> {
    const [id] = await this.require(user, kind, [uuid], refusal);
    return id;
  }

  /** The user's default media library. */
  async defaultArtist(user: Pick<UserRow, 'id'>): Promise<number> {
    const id = await this.repo.defaultArtistId(user.id);
    if (id === undefined) throw invalid('the user has no media library');
    return id;
  }
}

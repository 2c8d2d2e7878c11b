// Media groups of a user: finding them and turning one into a media scope.

import { notFound } from '../http/errors.js';
import type { Db } from '../store/db.js';
import type { GroupScope } from '../media/selection.js';
import { parseStoredRules } from './rules.js';
import type { GroupRow } from '../store/schema.js';

export type GroupKind = 'collection' | 'smart';

export function findOwnedGroup(db: Db, ownerId: number, uuid: string): Promise<GroupRow | undefined> {
  return db.selectFrom('media_groups').selectAll().where('uuid', '=', uuid.toLowerCase()).where('owner_id', '=', ownerId).executeTakeFirst();
}

export function groupScope(g: GroupRow): GroupScope {
  return { id: g.id, kind: g.kind === 'smart' ? 'smart' : 'collection', rules: parseStoredRules(g.rules), artistId: g.artist_id };
}

/** A group named by a filter or a path: unknown or foreign is a 404. */
export async function requireOwnedGroup(db: Db, ownerId: number, uuid: string): Promise<GroupRow> {
  const g = await findOwnedGroup(db, ownerId, uuid);
  if (!g) throw notFound(`medias group ${uuid}`);
  return g;
}

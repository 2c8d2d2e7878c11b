// How a media group looks in replies (docs/media-groups.md).
import { xmlArray, type XmlObject } from '../http/xml.js';
import { parseStoredRules } from './smart-rules.js';
import type { GroupRow } from '../database/schema.js';

export type GroupView = 'list' | 'details';

/** The `type` of a group, also the stem of its element names on create. */
export function groupType(g: Pick<GroupRow, 'kind'>): 'medias_collection' | 'medias_smart_collection' {
  return g.kind === 'smart' ? 'medias_smart_collection' : 'medias_collection';
}

export function groupLocation(g: Pick<GroupRow, 'uuid'>): string {
  return `/medias_groups/${g.uuid}.xml`;
}

export function groupXml(g: GroupRow & { artist_uuid: string | null }, mediasCount: number, view: GroupView): XmlObject {
  const base: XmlObject = { uuid: g.uuid, name: g.name, type: groupType(g) };
  if (view === 'list') return base;
  const out: XmlObject = {
    ...base,
    'medias-count': mediasCount,
    'artist-uuid': g.artist_uuid,
    'created-at': new Date(g.created_at),
    'updated-at': new Date(g.updated_at),
  };
  if (g.kind === 'smart') {
    const rules = parseStoredRules(g.rules);
    out.match = rules.match;
    out.rules = xmlArray(
      'rule',
      rules.rules.map((r) => ({ field: r.field, operator: r.operator, value: r.value })),
    );
  }
  return out;
}

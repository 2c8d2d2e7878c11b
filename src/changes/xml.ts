// How the change feed looks in a reply (API extension, docs/api.md): `<changes>` of `<change>`,
// then `<next-cursor>`, and `<has-more>` when the page was full.
import { xmlArray, type XmlObject } from '../http/xml.js';
import { encodeCursor, type Cursor } from './cursor.js';
import type { ChangePage } from './service.js';

export function cursorXml(c: Cursor): XmlObject {
  return { 'next-cursor': encodeCursor(c) };
}

export function changesXml(p: ChangePage): XmlObject {
  return {
    changes: xmlArray('change', p.changes.map((c) => ({ kind: c.kind, uuid: c.uuid, action: c.action }))),
    'next-cursor': encodeCursor(p.next),
    ...(p.hasMore ? { 'has-more': true } : {}),
  };
}

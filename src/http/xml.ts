// The one place that decides how a reply becomes XML. Purpose-built string
// concatenation: a generic XML builder costs ~15x more per reply.

const ARRAY = Symbol('xml-array');

export type XmlScalar = string | number | boolean | Date | null | undefined;
export interface XmlArray {
  readonly [ARRAY]: true;
  readonly item: string;
  readonly items: readonly XmlValue[];
}
export interface XmlObject {
  [name: string]: XmlValue;
}
export type XmlValue = XmlScalar | XmlObject | XmlArray;

/** `<name type="array">` holding one `<item>` element per entry. */
export function xmlArray(item: string, items: readonly XmlValue[]): XmlArray {
  return { [ARRAY]: true, item, items };
}

const NEEDS_ESCAPE = /[&<>"'\r\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;
// A raw CR would be folded into LF by every XML parser: send it as a reference.
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#13;' };

export function escapeXml(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  // Control characters are not allowed in XML 1.0 at all: drop them rather than emit an unparsable reply.
  return text.replace(/[&<>"'\r\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/g, (c) => ESCAPES[c] ?? '');
}

/** ISO 8601 with an explicit UTC offset, second precision. */
export function formatTimestamp(d: Date): string {
  return d.toISOString().slice(0, 19) + '+00:00';
}

function isArray(v: unknown): v is XmlArray {
  return typeof v === 'object' && v !== null && (v as XmlArray)[ARRAY] === true;
}

function writeElement(out: string[], name: string, value: XmlValue): void {
  if (value === undefined) return;
  if (value === null) {
    out.push('<', name, ' nil="true"/>');
    return;
  }
  switch (typeof value) {
    case 'string':
      out.push('<', name, '>', escapeXml(value), '</', name, '>');
      return;
    case 'number':
      if (Number.isInteger(value)) out.push('<', name, ' type="integer">', String(value), '</', name, '>');
      else out.push('<', name, '>', String(value), '</', name, '>');
      return;
    case 'boolean':
      out.push('<', name, '>', value ? 'true' : 'false', '</', name, '>');
      return;
  }
  if (value instanceof Date) {
    out.push('<', name, '>', formatTimestamp(value), '</', name, '>');
    return;
  }
  if (isArray(value)) {
    out.push('<', name, ' type="array">');
    for (const item of value.items) writeElement(out, value.item, item);
    out.push('</', name, '>');
    return;
  }
  out.push('<', name, '>');
  writeChildren(out, value as XmlObject);
  out.push('</', name, '>');
}

function writeChildren(out: string[], obj: XmlObject): void {
  for (const key in obj) writeElement(out, key, obj[key]);
}

/** A whole reply document: declaration, `<reply>`, the given children in order. */
export function renderReply(children: XmlObject): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n<reply>'];
  writeChildren(out, children);
  out.push('</reply>\n');
  return out.join('');
}

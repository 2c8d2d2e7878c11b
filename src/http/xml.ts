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
export type XmlValue = XmlScalar | XmlObject | XmlArray | XmlFragment;

/**
 * An element's content rendered once (renderFragment) and kept by its feature for replies that
 * repeat it (whoami's user, issue 31): written as it is, never escaped again.
 */
export class XmlFragment {
  constructor(readonly xml: string) {}
}

/** The content of an element holding `obj`'s children, rendered as every reply renders them. */
export function renderFragment(obj: XmlObject): XmlFragment {
  return new XmlFragment(children(obj));
}

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

const STORED_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/;

/**
 * A timestamp as the store keeps it (ISO 8601 in UTC, see nowIso), written as
 * formatTimestamp would write it without parsing it into a Date: replies with
 * several timestamps spent a measurable share of their time doing that.
 */
export function storedTimestamp(stored: string): string {
  return STORED_UTC.test(stored) ? stored.slice(0, 19) + '+00:00' : formatTimestamp(new Date(stored));
}

function isArray(v: unknown): v is XmlArray {
  return typeof v === 'object' && v !== null && (v as XmlArray)[ARRAY] === true;
}

/** An element's tags, made once per name (names are the service's own: a bounded set). */
interface Tags {
  open: string;
  close: string;
  integer: string;
  nil: string;
  array: string;
}
const TAGS = new Map<string, Tags>();
const MAX_TAGS = 10_000;

function tagsOf(name: string): Tags {
  let t = TAGS.get(name);
  if (t === undefined) {
    t = { open: `<${name}>`, close: `</${name}>`, integer: `<${name} type="integer">`, nil: `<${name} nil="true"/>`, array: `<${name} type="array">` };
    if (TAGS.size < MAX_TAGS) TAGS.set(name, t);
  }
  return t;
}

// Plain string concatenation: V8 builds ropes, cheaper here than pushing
// parts into an array and joining them.
function element(name: string, value: XmlValue): string {
  if (value === undefined) return '';
  const t = tagsOf(name);
  if (value === null) return t.nil;
  switch (typeof value) {
    case 'string':
      return t.open + escapeXml(value) + t.close;
    case 'number':
      return (Number.isInteger(value) ? t.integer : t.open) + value + t.close;
    case 'boolean':
      return t.open + (value ? 'true' : 'false') + t.close;
  }
  if (value instanceof Date) return t.open + formatTimestamp(value) + t.close;
  if (value instanceof XmlFragment) return t.open + value.xml + t.close;
  if (isArray(value)) {
    let items = '';
    for (const item of value.items) items += element(value.item, item);
    return t.array + items + t.close;
  }
  return t.open + children(value as XmlObject) + t.close;
}

function children(obj: XmlObject): string {
  let out = '';
  for (const key in obj) out += element(key, obj[key]);
  return out;
}

/** A whole reply document: declaration, `<reply>`, the given children in order. */
export function renderReply(body: XmlObject): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<reply>${children(body)}</reply>\n`;
}

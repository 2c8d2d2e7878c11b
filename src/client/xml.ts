// The SDK's XML reader (spec 2.1): saxes, a strict XML 1.0 parser, checks the document (well-formedness,
// the five entities, character references, line ends); this file builds the plain tree the helpers
// below walk, free functions so that a node's `children` field and the `children(node, name)` helper
// coexist. DTDs are refused; no namespaces (docs/architecture.md, "Folders": src/client).
import { SaxesParser } from 'saxes';

export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  /** Concatenated direct character data (entities decoded). */
  text: string;
}

export class XmlParseError extends Error {
  constructor(message: string, readonly position: number) {
    super(`${message} at offset ${position}`);
    this.name = 'XmlParseError';
  }
}

/** Parses a document and returns its root element (for this service, `<reply>`). */
export function parseXml(source: string): XmlNode {
  const parser = new SaxesParser<{ xmlns: false; position: true }>({ xmlns: false, position: true });
  const fail = (message: string): never => {
    throw new XmlParseError(message, parser.position);
  };
  const open: Array<{ node: XmlNode; text: string[] }> = [];
  let root: XmlNode | undefined;
  // saxes reports each error here and would go on; the first one ends the parse.
  parser.on('error', (err) => fail(err.message.replace(/^\d+:\d+: /, '').replace(/\.$/, '')));
  // An internal subset could declare entities: refused, as replies never carry one.
  parser.on('doctype', () => fail('DTDs are not supported'));
  parser.on('opentag', (tag) => {
    const node: XmlNode = { name: tag.name, attrs: { ...tag.attributes }, children: [], text: '' };
    const parent = open.at(-1);
    if (parent) parent.node.children.push(node);
    else root = node;
    open.push({ node, text: [] });
  });
  // Text outside the root can only be whitespace (saxes refuses anything else).
  const addText = (text: string) => open.at(-1)?.text.push(text);
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const { node, text } = open.pop()!;
    node.text = text.join('');
  });
  parser.write(source).close();
  return root ?? fail('expected the root element');
}

// ---- helpers -------------------------------------------------------------

/** First direct child element called `name`. */
export function child(node: XmlNode, name: string): XmlNode | undefined {
  return node.children.find((c) => c.name === name);
}

/** All direct child elements called `name` (all children when omitted). */
export function children(node: XmlNode, name?: string): XmlNode[] {
  return name === undefined ? node.children.slice() : node.children.filter((c) => c.name === name);
}

/**
 * Every element reached by a slash path of child names, e.g.
 * 'galleries/gallery'. A leading '/' names the node itself first, so
 * '/reply/user/email' works on the `<reply>` root as written in the docs.
 */
export function all(node: XmlNode, path: string): XmlNode[] {
  let steps = path.split('/').filter((s) => s !== '' && s !== '.');
  if (path.startsWith('/')) {
    if (steps[0] !== node.name) return [];
    steps = steps.slice(1);
  }
  let current = [node];
  for (const step of steps) current = current.flatMap((n) => children(n, step));
  return current;
}

/** First element reached by `path`. */
export function find(node: XmlNode, path: string): XmlNode | undefined {
  return all(node, path)[0];
}

/** `nil="true"`: the element stands for a null value. */
export function isNil(node: XmlNode): boolean {
  return node.attrs.nil === 'true';
}

/** Text of the first element at `path`; undefined when missing or nil. */
export function text(node: XmlNode, path: string): string | undefined {
  const found = find(node, path);
  return found === undefined || isNil(found) ? undefined : found.text;
}

/** Integer value at `path`; undefined when missing, nil or not an integer. */
export function int(node: XmlNode, path: string): number | undefined {
  const t = text(node, path)?.trim();
  return t !== undefined && /^[-+]?\d+$/.test(t) ? Number(t) : undefined;
}

/** The words true/false at `path`; undefined otherwise. */
export function bool(node: XmlNode, path: string): boolean | undefined {
  const t = text(node, path)?.trim();
  return t === 'true' ? true : t === 'false' ? false : undefined;
}

/** Item elements of a `type="array"` container (or any container) at `path`. */
export function items(node: XmlNode, path: string): XmlNode[] {
  const container = find(node, path);
  return container ? container.children.slice() : [];
}

// ---- JSON ------------------------------------------------------------------

export type JsonValue = string | number | boolean | null | JsonValue[] | { [name: string]: JsonValue };

/**
 * A reply as JSON, for scripts (`npm run api -- --json`, docs/api.md "Replies
 * as JSON"). The mapping follows the reply conventions (spec 2.1) and nothing
 * else, so it is the same for every endpoint:
 * - an element with `nil="true"` is null;
 * - a `type="array"` container is an array of its items' values (the item
 *   element's name, always the same within one array, is dropped);
 * - `type="integer"` (and `float`/`decimal`) is a number, `type="boolean"` a
 *   boolean; an element without a type is its text, a string, even when the
 *   text reads `true` or `12` (the XML does not say it is more);
 * - any other element with child elements is an object keyed by the child
 *   names as written (dashed: `root-gallery-uuid`); a name repeated outside an
 *   array container gives an array under that key;
 * - an element with neither children nor text is the empty string.
 * Integers beyond 2^53 stay strings rather than lose digits.
 */
export function xmlToJson(node: XmlNode): JsonValue {
  if (isNil(node)) return null;
  const type = node.attrs.type;
  if (type === 'array') return node.children.map(xmlToJson);
  if (node.children.length > 0) {
    const groups = new Map<string, JsonValue[]>();
    for (const c of node.children) {
      const group = groups.get(c.name);
      if (group) group.push(xmlToJson(c));
      else groups.set(c.name, [xmlToJson(c)]);
    }
    // No prototype: a child named `__proto__` is a key like any other.
    const out: { [name: string]: JsonValue } = Object.create(null);
    for (const [name, values] of groups) out[name] = values.length === 1 ? values[0] : values;
    return out;
  }
  const t = node.text;
  if (type === 'integer') {
    const s = t.trim();
    return /^[-+]?\d+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : t;
  }
  if (type === 'float' || type === 'decimal') {
    const s = t.trim();
    return s !== '' && Number.isFinite(Number(s)) ? Number(s) : t;
  }
  if (type === 'boolean') {
    const s = t.trim();
    return s === 'true' ? true : s === 'false' ? false : t;
  }
  return t;
}

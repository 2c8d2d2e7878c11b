// The XML reader of the SDK for the replies of this service (spec 2.1):
// saxes, a strict XML 1.0 parser, reads the document (well-formedness, the
// five entities, character references, line ends); this file builds the
// plain tree the helpers below walk. DTDs are refused; no namespaces.
// The helpers are free functions so that a node's `children` field and the
// `children(node, name)` helper can coexist.
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

// A small, dependency-free XML reader for the replies of this service
// (spec 2.1): declaration, elements, attributes, text, the five standard
// entities and numeric character references. No DTDs, no namespaces.
// The tree is plain data; the helpers below are free functions so that a
// node's `children` field and the `children(node, name)` helper can coexist.

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

const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const NAME = /[A-Za-z_:][-A-Za-z0-9_:.\u00B7\u00C0-\uFFFF]*/y;
const SPACE = /[ \t\r\n]*/y;

/** Decodes entity and character references; throws on anything unknown. */
export function decodeEntities(raw: string, offset = 0): string {
  if (!raw.includes('&')) return raw;
  let out = '';
  let i = 0;
  for (;;) {
    const amp = raw.indexOf('&', i);
    if (amp < 0) return out + raw.slice(i);
    out += raw.slice(i, amp);
    const semi = raw.indexOf(';', amp);
    if (semi < 0) throw new XmlParseError('unterminated entity reference', offset + amp);
    const ref = raw.slice(amp + 1, semi);
    out += decodeReference(ref, offset + amp);
    i = semi + 1;
  }
}

function decodeReference(ref: string, position: number): string {
  const named = NAMED_ENTITIES[ref];
  if (named !== undefined) return named;
  let code = NaN;
  if (/^#[0-9]+$/.test(ref)) code = Number.parseInt(ref.slice(1), 10);
  else if (/^#x[0-9A-Fa-f]+$/.test(ref)) code = Number.parseInt(ref.slice(2), 16);
  const allowed =
    code === 0x9 || code === 0xa || code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
  if (!allowed) throw new XmlParseError(`invalid reference &${ref};`, position);
  return String.fromCodePoint(code);
}

/** XML 1.0 section 2.11: literal CR LF and lone CR become LF (references are untouched). */
function normalizeNewlines(raw: string): string {
  return raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw;
}

class Reader {
  private pos = 0;
  constructor(private readonly src: string) {}

  parseDocument(): XmlNode {
    if (this.src.charCodeAt(0) === 0xfeff) this.pos = 1;
    this.skipMisc();
    if (this.src.startsWith('<!DOCTYPE', this.pos)) this.fail('DTDs are not supported');
    if (this.src[this.pos] !== '<') this.fail('expected the root element');
    const root = this.parseElement();
    this.skipMisc();
    if (this.pos < this.src.length) this.fail('content after the root element');
    return root;
  }

  /** Whitespace, comments and processing instructions (the declaration included). */
  private skipMisc(): void {
    for (;;) {
      this.skipSpace();
      if (this.src.startsWith('<?', this.pos)) this.pos = this.after('?>');
      else if (this.src.startsWith('<!--', this.pos)) this.pos = this.after('-->');
      else return;
    }
  }

  private parseElement(): XmlNode {
    this.pos++; // '<'
    const node: XmlNode = { name: this.readName(), attrs: {}, children: [], text: '' };
    for (;;) {
      const hadSpace = this.skipSpace();
      const c = this.src[this.pos];
      if (c === '/') {
        this.expect('/>');
        return node;
      }
      if (c === '>') {
        this.pos++;
        break;
      }
      if (c === undefined) this.fail(`unterminated start tag <${node.name}>`);
      if (!hadSpace) this.fail('expected whitespace before attribute');
      this.readAttribute(node);
    }
    this.parseContent(node);
    return node;
  }

  private readAttribute(node: XmlNode): void {
    const name = this.readName();
    this.skipSpace();
    this.expect('=');
    this.skipSpace();
    const quote = this.src[this.pos];
    if (quote !== '"' && quote !== "'") this.fail('expected a quoted attribute value');
    const start = this.pos + 1;
    const end = this.src.indexOf(quote, start);
    if (end < 0) this.fail('unterminated attribute value');
    const raw = this.src.slice(start, end);
    if (raw.includes('<')) this.fail('"<" in attribute value');
    if (Object.hasOwn(node.attrs, name)) this.fail(`duplicate attribute ${name}`);
    node.attrs[name] = decodeEntities(raw, start);
    this.pos = end + 1;
  }

  private parseContent(node: XmlNode): void {
    const text: string[] = [];
    for (;;) {
      const lt = this.src.indexOf('<', this.pos);
      if (lt < 0) this.fail(`missing </${node.name}>`);
      if (lt > this.pos) text.push(decodeEntities(normalizeNewlines(this.src.slice(this.pos, lt)), this.pos));
      this.pos = lt;
      if (this.src.startsWith('</', lt)) {
        this.pos += 2;
        const name = this.readName();
        if (name !== node.name) this.fail(`expected </${node.name}>, found </${name}>`);
        this.skipSpace();
        this.expect('>');
        node.text = text.join('');
        return;
      }
      if (this.src.startsWith('<!--', lt)) this.pos = this.after('-->');
      else if (this.src.startsWith('<![CDATA[', lt)) {
        const end = this.after(']]>');
        text.push(normalizeNewlines(this.src.slice(lt + 9, end - 3)));
        this.pos = end;
      } else if (this.src.startsWith('<?', lt)) this.pos = this.after('?>');
      else node.children.push(this.parseElement());
    }
  }

  private readName(): string {
    NAME.lastIndex = this.pos;
    const m = NAME.exec(this.src);
    if (!m) this.fail('expected a name');
    this.pos += m[0].length;
    return m[0];
  }

  private skipSpace(): boolean {
    SPACE.lastIndex = this.pos;
    const m = SPACE.exec(this.src);
    const n = m ? m[0].length : 0;
    this.pos += n;
    return n > 0;
  }

  private expect(s: string): void {
    if (!this.src.startsWith(s, this.pos)) this.fail(`expected "${s}"`);
    this.pos += s.length;
  }

  /** Position just past the next `marker`. */
  private after(marker: string): number {
    const i = this.src.indexOf(marker, this.pos);
    if (i < 0) this.fail(`expected "${marker}"`);
    return i + marker.length;
  }

  private fail(message: string): never {
    throw new XmlParseError(message, this.pos);
  }
}

/** Parses a document and returns its root element (for this service, `<reply>`). */
export function parseXml(source: string): XmlNode {
  return new Reader(source).parseDocument();
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

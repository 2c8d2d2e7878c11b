import { describe, expect, it } from 'vitest';
import { all, bool, child, children, find, int, isNil, items, parseXml, text, XmlParseError } from '../../src/client/xml.js';

const DECL = '<?xml version="1.0" encoding="UTF-8"?>\n';

// Independent escaper for the round-trip test: the five entities, plus CR as
// a character reference because literal CRs are normalised away by XML; in an
// attribute value literal tabs and line feeds are too (XML 1.0 section 3.3.3).
function escape(s: string, attribute = false): string {
  const refs: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#13;', '\t': '&#9;', '\n': '&#10;' };
  return s.replace(attribute ? /[&<>"'\r\t\n]/g : /[&<>"'\r]/g, (c) => refs[c]);
}

describe('client xml reader', () => {
  it('parses the declaration, nested elements and attributes', () => {
    const doc = parseXml(`${DECL}<reply><websites type="array"><website><uuid>u1</uuid><title>One</title></website><website><uuid>u2</uuid></website></websites><total-pages type="integer">3</total-pages></reply>`);
    expect(doc.name).toBe('reply');
    expect(child(doc, 'websites')?.attrs).toEqual({ type: 'array' });
    expect(all(doc, 'websites/website/uuid').map((n) => n.text)).toEqual(['u1', 'u2']);
    expect(text(doc, 'websites/website/title')).toBe('One');
    expect(int(doc, 'total-pages')).toBe(3);
    expect(items(doc, 'websites')).toHaveLength(2);
    expect(children(doc)).toHaveLength(2);
  });

  it('decodes the five entities and numeric references in text and attributes', () => {
    const doc = parseXml(`<reply><t a="&quot;x&apos; &amp; &#60;">&lt;b&gt; &amp;amp; &quot;q&quot; &apos;s&apos; &#233;&#xE9; &#x1F600; &#10;</t></reply>`);
    const t = find(doc, 't');
    expect(t?.text).toBe(`<b> &amp; "q" 's' éé 😀 \n`);
    expect(t?.attrs.a).toBe(`"x' & <`);
  });

  it('treats nil="true" as null and keeps empty strings distinct', () => {
    const doc = parseXml(`<reply><description nil="true"/><name></name><cover-media-uuid nil="true"></cover-media-uuid></reply>`);
    expect(text(doc, 'description')).toBeUndefined();
    expect(isNil(find(doc, 'description')!)).toBe(true);
    expect(text(doc, 'name')).toBe('');
    expect(text(doc, 'cover-media-uuid')).toBeUndefined();
    expect(text(doc, 'missing')).toBeUndefined();
  });

  it('handles empty arrays, booleans and absolute paths', () => {
    const doc = parseXml(`${DECL}<reply><galleries type="array"/><tile>true</tile><default>false</default><user><email>a@b.c</email></user></reply>`);
    expect(items(doc, 'galleries')).toEqual([]);
    expect(all(doc, 'galleries/gallery')).toEqual([]);
    expect(bool(doc, 'tile')).toBe(true);
    expect(bool(doc, 'default')).toBe(false);
    expect(text(doc, '/reply/user/email')).toBe('a@b.c');
    expect(text(doc, '/other/user/email')).toBeUndefined();
  });

  it('skips comments and processing instructions, reads CDATA and normalises CRLF', () => {
    const doc = parseXml(`\uFEFF${DECL}<!-- c --><reply><!-- in --><a>x<![CDATA[<&>]]>y</a><b>1\r\n2\r3</b></reply><!-- after -->`);
    expect(text(doc, 'a')).toBe('x<&>y');
    expect(text(doc, 'b')).toBe('1\n2\n3');
  });

  it('round-trips arbitrary escaped text', () => {
    // Deterministic pseudo-random strings over awkward characters.
    const alphabet = ['<', '>', '&', '"', "'", ';', '#', '\n', '\r', '\t', ' ', 'a', 'Z', '0', 'é', '漢', '😀', '&amp;', ']]>', '<!--', '\u00A0'];
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 300; i++) {
      const value = Array.from({ length: Math.floor(rnd() * 40) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
      const doc = parseXml(`${DECL}<reply><title>${escape(value)}</title><x k="${escape(value, true)}"/></reply>`);
      expect(text(doc, 'title')).toBe(value);
      expect(find(doc, 'x')?.attrs.k).toBe(value);
    }
  });

  it('rejects malformed documents', () => {
    for (const bad of [
      '<reply><a></b></reply>',
      '<reply>&unknown;</reply>',
      '<reply>&#0;</reply>',
      '<reply>a & b</reply>',
      '<reply><a x=1/></reply>',
      '<reply a="1" a="2"/>',
      '<reply>',
      '<reply/><other/>',
      '<!DOCTYPE reply [<!ENTITY x "y">]><reply/>',
      'not xml',
    ]) {
      expect(() => parseXml(bad), bad).toThrow(XmlParseError);
    }
  });
});

// The JSON form of a reply (`npm run api -- --json`, docs/api.md "Replies as
// JSON"): the mapping of spec 2.1's conventions, checked on replies written by
// the service's own XML writer.
import { describe, expect, it } from 'vitest';
import { parseXml, xmlToJson } from '../../src/client/xml.js';
import { renderReply, xmlArray } from '../../src/http/xml.js';

const json = (xml: string) => xmlToJson(parseXml(xml));

describe('xmlToJson', () => {
  it('maps a list reply: arrays for type="array", numbers for type="integer", strings for the rest, keys as written', () => {
    const xml = renderReply({
      websites: xmlArray('website', [
        { uuid: 'u1', urlname: 'ann', title: 'Ann & Co <photos>', hostname: null, 'root-gallery-uuid': 'g1', 'medias-count': 12 },
        { uuid: 'u2', urlname: 'bob', title: '', hostname: 'bob.example.com', 'root-gallery-uuid': 'g2', 'medias-count': 0 },
      ]),
      'total-pages': 1,
      request: 'GET /websites.xml',
      'query-string': 'view=details',
    });
    expect(json(xml)).toEqual({
      websites: [
        { uuid: 'u1', urlname: 'ann', title: 'Ann & Co <photos>', hostname: null, 'root-gallery-uuid': 'g1', 'medias-count': 12 },
        { uuid: 'u2', urlname: 'bob', title: '', hostname: 'bob.example.com', 'root-gallery-uuid': 'g2', 'medias-count': 0 },
      ],
      'total-pages': 1,
      request: 'GET /websites.xml',
      'query-string': 'view=details',
    });
  });

  it('keeps an empty array an array, and an array of scalars or of objects as such', () => {
    expect(json(renderReply({ galleries: xmlArray('gallery', []), keywords: xmlArray('keyword', ['sea', 'dunes']), medias: xmlArray('media', [{ uuid: 'm1' }]) }))).toEqual({
      galleries: [],
      keywords: ['sea', 'dunes'],
      medias: [{ uuid: 'm1' }],
    });
  });

  it('reads booleans and text that looks like numbers as the strings they are, unless the XML types them', () => {
    const out = json(renderReply({ watermark: { default: true, tile: false, strength: '50', width: 40 } }));
    expect(out).toEqual({ watermark: { default: 'true', tile: 'false', strength: '50', width: 40 } });
    expect(json('<reply><a type="boolean">true</a><b type="boolean">false</b><c type="float">1.5</c><d type="integer">-7</d></reply>')).toEqual({ a: true, b: false, c: 1.5, d: -7 });
  });

  it('keeps integers beyond 2^53 as strings, and a malformed typed value as its text', () => {
    expect(json('<reply><n type="integer">9007199254740993</n><m type="integer">12a</m><e type="integer"></e></reply>')).toEqual({ n: '9007199254740993', m: '12a', e: '' });
  });

  it('maps nil="true" to null, whatever the element would otherwise be', () => {
    expect(json('<reply><a nil="true"/><b type="integer" nil="true"/><c type="array" nil="true"/></reply>')).toEqual({ a: null, b: null, c: null });
  });

  it('collects a name repeated outside an array container into an array under that key', () => {
    expect(json('<reply><error>one</error><error>two</error><request>GET /x.xml</request></reply>')).toEqual({ error: ['one', 'two'], request: 'GET /x.xml' });
  });

  it('maps an error reply', () => {
    const xml = renderReply({ error: 'no gallery 7', 'error-code': 'not_found', request: 'GET /websites/ann/galleries/7.xml' });
    expect(json(xml)).toEqual({ error: 'no gallery 7', 'error-code': 'not_found', request: 'GET /websites/ann/galleries/7.xml' });
  });

  it('makes an element named __proto__ a key like any other, without touching prototypes', () => {
    const out = json('<reply><__proto__><polluted>yes</polluted></__proto__></reply>') as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":"yes"}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps text with markup, entities and line breaks exact', () => {
    expect(json('<reply><t>a &lt;b&gt; &amp; "q"&#13;\nz</t></reply>')).toEqual({ t: 'a <b> & "q"\r\nz' });
  });
});

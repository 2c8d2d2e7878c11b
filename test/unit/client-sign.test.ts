import { afterEach, describe, expect, it } from 'vitest';
import { MediaPortfolioClient } from '../../src/client/client.js';
import { encodeParams, toPairs } from '../../src/client/params.js';
import { formatTimestamp, isoLocal, signatureHeaders } from '../../src/client/sign.js';
import { computeSignature, parseTimestamp } from '../../src/http/signing.js';
import { KEYS, reply, startServer, type Recorded, type TestServer } from './client-test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What a server must do: recompute over the raw request line, untouched. */
function verify(req: Recorded): boolean {
  const [path, query = ''] = req.url.split(/\?(.*)/s);
  const [key, sig] = String(req.headers['x-service-authorization']).split(':');
  const ts = String(req.headers['x-service-timestamp']);
  return key === KEYS.apiKey && sig === computeSignature(req.method, path, query, KEYS.apiSecret, ts);
}

describe('client signing and parameter encoding', () => {
  it('encodes names and values with encodeURIComponent, arrays as repeated name[]', () => {
    const q = encodeParams({ 'filter[name]': 'Summer & Sea', ids: ['a', 'b'], page: 2, skip: undefined, none: null });
    expect(q).toBe('filter%5Bname%5D=Summer%20%26%20Sea&ids%5B%5D=a&ids%5B%5D=b&page=2');
    expect(toPairs({ 'g[]': ['x'], flag: true, off: false })).toEqual([['g[]', 'x'], ['flag', '1'], ['off', '0']]);
  });

  it('matches a hand-computed SHA-1 and MD5 over the five lines', () => {
    const h = signatureHeaders({
      method: 'GET',
      path: '/websites/my-site/galleries.xml',
      query: 'filter%5Bname%5D=Summer%20%26%20Sea&ids%5B%5D=a&ids%5B%5D=b&page=2',
      apiKey: 'KEY',
      apiSecret: 's3cr3t',
      timestamp: 'Sat, 21 Nov 2026 13:03:07 +0000',
    });
    // printf 'GET\n/websites/my-site/galleries.xml\n<query>\ns3cr3t\n<timestamp>\n' | sha1sum
    expect(h['X-Service-Authorization']).toBe('KEY:8d73ea5ed8ef6a09fdc13e31c69f23726d1e12f5');
    expect(h['X-Service-Timestamp']).toBe('Sat, 21 Nov 2026 13:03:07 +0000');
    const md5 = signatureHeaders({ method: 'POST', path: '/ping.xml', query: '', apiKey: 'K', apiSecret: 'secret', timestamp: '1790000000', algorithm: 'md5' });
    expect(md5['X-Service-Authorization']).toBe('K:8490737ffb9603383d04bf401ea51b36');
  });

  it('formats the three timestamp forms so the server can parse them', () => {
    const d = new Date('2026-11-21T13:03:07Z');
    expect(formatTimestamp('posix', d)).toBe('1795266187');
    expect(formatTimestamp('rfc2822', d)).toBe('Sat, 21 Nov 2026 13:03:07 +0000');
    expect(isoLocal(d)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    for (const f of ['posix', 'rfc2822', 'iso'] as const) expect(parseTimestamp(formatTimestamp(f, d))).toBe(d.getTime());
  });

  it('signs GET query strings exactly as sent on the wire', async () => {
    server = await startServer((_req, res) => reply(res, 200, '<message>OK</message>'));
    for (const timestampFormat of ['rfc2822', 'iso', 'posix'] as const) {
      const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS, timestampFormat });
      const r = await client.request('GET', '/websites/s/galleries.xml', { 'filter[name]': "O'Hara (1)*", view: 'details', ids: ['a b', 'c'] });
      expect(r.status).toBe(200);
      expect(r.requestId).toBe('req-test');
    }
    for (const req of server.requests) {
      expect(req.url).toContain('filter%5Bname%5D=');
      expect(req.url).toContain('ids%5B%5D=a%20b&ids%5B%5D=c');
      expect(verify(req)).toBe(true);
    }
  });

  it('sends POST/PUT/DELETE parameters as an urlencoded body, signed with an empty query line', async () => {
    server = await startServer((_req, res) => reply(res, 201, '<message>created</message>'));
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS });
    await client.createGallery('my-site', { name: 'Été & <co>', parent: 'P', hidden: true, acl: [{ email: 'DEFAULT', read: true }, { email: 'c@x.y', id: 7, hires_download: 0 }] });
    await client.request('DELETE', '/websites/my-site/galleries/G.xml');
    const [post, del] = server.requests;
    expect(post.method).toBe('POST');
    expect(post.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect([...new URLSearchParams(post.body.toString())]).toEqual([
      ['gallery[name]', 'Été & <co>'],
      ['gallery[parent]', 'P'],
      ['gallery[hidden]', '1'],
      ['gallery[acl][0][email]', 'DEFAULT'],
      ['gallery[acl][0][read]', '1'],
      ['gallery[acl][7][email]', 'c@x.y'],
      ['gallery[acl][7][hires_download]', '0'],
    ]);
    expect(del.method).toBe('DELETE');
    expect(del.body.length).toBe(0);
    expect(verify(post) && verify(del)).toBe(true);
  });

  it('method override: POST on the wire, _method first, signed as POST', async () => {
    server = await startServer((_req, res) => reply(res, 200, '<message>ok</message>'));
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS });
    await client.request('PUT', '/websites/s/galleries/G.xml', { 'gallery[name]': 'N' }, { methodOverride: true });
    const [req] = server.requests;
    expect(req.method).toBe('POST');
    expect(req.body.toString()).toBe('_method=PUT&gallery%5Bname%5D=N');
    expect(verify(req)).toBe(true);
  });

  it('multipart: fields in order, then the file', async () => {
    server = await startServer((_req, res) => reply(res, 200, '<message>ok</message>'));
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS });
    const data = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('JPEGDATA'));
        c.close();
      },
    });
    await client.request('PUT', '/medias/M.xml', { 'media[title]': 'T', 'media[galleries]': ['g1', 'g2'] }, {
      methodOverride: true,
      file: { field: 'media[content]', fileName: 'a.jpg', contentType: 'image/jpeg', data },
    });
    const [req] = server.requests;
    expect(req.method).toBe('POST');
    expect(String(req.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    const body = req.body.toString();
    const names = [...body.matchAll(/; name="([^"]+)"/g)].map((m) => m[1]);
    expect(names).toEqual(['_method', 'media[title]', 'media[galleries][]', 'media[galleries][]', 'media[content]']);
    expect(body).toContain('filename="a.jpg"');
    expect(body).toContain('Content-Type: image/jpeg');
    expect(body).toContain('JPEGDATA');
    expect(verify(req)).toBe(true);
  });
});

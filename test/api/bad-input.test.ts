// Malformed requests get a 4xx XML error that says what was wrong, nothing
// changes, and the service keeps serving.
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { eachDatabase, TestService, type TestApp } from '../support/service.js';
import { signedInWorld } from '../support/world.js';
import { parseReply, replyOf } from '../support/xml.js';

function rawHttp(port: number, request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d) => (out += d.toString('utf8')));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
    socket.write(request);
  });
}

eachDatabase((kind) => {
  let svc: TestService;
  let app: TestApp;
  let cookie: string;
  let site: { urlname: string; rootGalleryUuid: string };
  beforeAll(async () => {
    ({ svc, app, site, cookie } = await signedInWorld(kind));
  });
  afterAll(() => svc?.close());

  const galleryCount = async () => Number((await svc.db.selectFrom('galleries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const port = () => Number(new URL(svc.url).port);

  it('a NUL character in a path segment, a query value or a form value is a 400, whatever the database', async () => {
    const before = await galleryCount();
    const inPath = await replyOf(await svc.raw(app, 'GET', '/websites/%00/galleries.xml', { headers: { cookie } }));
    expect(inPath.status).toBe(400);
    expect(text(inPath.doc, 'error-code')).toBe('bad_encoding');
    const inQuery = await replyOf(await svc.raw(app, 'GET', '/ping.xml?text=a%00b', { headers: { cookie } }));
    expect(inQuery.status).toBe(400);
    const inForm = await replyOf(
      await svc.raw(app, 'POST', `/websites/${site.urlname}/galleries.xml`, {
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: `gallery[parent]=${site.rootGalleryUuid}&gallery[name]=a%00b`,
      }),
    );
    expect(inForm.status).toBe(400);
    expect(await galleryCount()).toBe(before);
  });

  it('bad percent-encoding in the query string is a 400', async () => {
    const r = await replyOf(await svc.raw(app, 'GET', '/ping.xml?text=%E9%ZZ'));
    expect(r.status).toBe(400);
    expect(text(r.doc, 'error')).toMatch(/percent-encoded UTF-8/);
  });

  it('a form body that is not UTF-8 is a 400 and creates nothing', async () => {
    const before = await galleryCount();
    const body = Buffer.concat([Buffer.from(`gallery[parent]=${site.rootGalleryUuid}&gallery[name]=`), Buffer.from([0xff, 0xfe, 0x41])]);
    const r = await replyOf(await svc.raw(app, 'POST', `/websites/${site.urlname}/galleries.xml`, { headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body }));
    expect(r.status).toBe(400);
    expect(text(r.doc, 'error')).toMatch(/UTF-8/);
    expect(await galleryCount()).toBe(before);
  });

  it('an unknown parameter is a 400 naming it, and nothing is created', async () => {
    const before = await galleryCount();
    const r = await replyOf(
      await svc.raw(app, 'POST', `/websites/${site.urlname}/galleries.xml`, {
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: `gallery[name]=X&gallery[parent]=${site.rootGalleryUuid}&gallery[colour]=red`,
      }),
    );
    expect(r.status).toBe(400);
    expect(text(r.doc, 'error')).toContain('gallery[colour]');
    expect(await galleryCount()).toBe(before);
    const q = await replyOf(await svc.raw(app, 'GET', '/ping.xml?txt=1'));
    expect(q.status).toBe(400);
    expect(text(q.doc, 'error')).toContain('txt');
  });

  it('a value of the wrong type is a 422 naming the parameter', async () => {
    for (const query of ['page=abc', 'page=0', 'per_page=1.5', 'view=everything']) {
      const r = await replyOf(await svc.raw(app, 'GET', `/websites.xml?${query}`, { headers: { cookie } }));
      expect(r.status).toBe(422);
      expect(text(r.doc, 'error')).toContain(query.split('=')[0]);
    }
  });

  it('an oversized header is a 431 XML reply', async () => {
    const reply = await rawHttp(port(), `GET /ping.xml HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 431/);
    expect(reply).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
    const body = reply.slice(reply.indexOf('\r\n\r\n') + 4);
    expect(text(parseReply(body), 'error')).toMatch(/headers are too large/);
  });

  it('an oversized form body is a 413 XML reply and creates nothing', async () => {
    const before = await galleryCount();
    const body = `gallery[parent]=${site.rootGalleryUuid}&gallery[name]=${'x'.repeat(5 * 1024 * 1024)}`;
    const r = await replyOf(await svc.raw(app, 'POST', `/websites/${site.urlname}/galleries.xml`, { headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body }));
    expect(r.status).toBe(413);
    expect(await galleryCount()).toBe(before);
  });

  it('garbage instead of HTTP is a 400 XML reply and the service keeps serving', async () => {
    const reply = await rawHttp(port(), 'THIS IS NOT HTTP\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect(reply).toContain('<?xml version="1.0" encoding="UTF-8"?>');
    expect((await svc.raw(app, 'GET', '/ping.xml')).status).toBe(200);
  });

  it('an unsupported content type is a 415', async () => {
    const r = await replyOf(await svc.raw(app, 'POST', `/websites/${site.urlname}/galleries.xml`, { headers: { cookie, 'content-type': 'application/json' }, body: '{"gallery":{"name":"x"}}' }));
    expect(r.status).toBe(415);
  });

  it('a malformed multipart body is a 400', async () => {
    const r = await replyOf(
      await svc.raw(app, 'POST', `/websites/${site.urlname}/galleries.xml`, {
        headers: { cookie, 'content-type': 'multipart/form-data; boundary=XYZ' },
        body: '--XYZ\r\nContent-Disposition: form-data; name="gallery[name]"\r\n\r\nabc\r\n--XY',
      }),
    );
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });

  it('a method the endpoint does not have is a 4xx, including through _method', async () => {
    const r = await replyOf(await svc.raw(app, 'POST', '/websites.xml', { headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: 'view=list' }));
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    const m = await replyOf(
      await svc.raw(app, 'POST', `/websites/${site.urlname}/galleries.xml`, { headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: '_method=PATCH' }),
    );
    expect(m.status).toBe(400);
    expect(text(m.doc, 'error')).toMatch(/_method/);
  });
});

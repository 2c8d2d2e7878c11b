// Reply conventions (spec 2.1, client-compat "Transport and envelope").
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, find, text } from '../../src/client/xml.js';
import { eachDatabase, TestService, type TestApp, type TestUser } from '../support/service.js';
import { signedInWorld } from '../support/world.js';
import { replyOf } from '../support/xml.js';

eachDatabase((kind) => {
  let svc: TestService;
  let app: TestApp;
  let user: TestUser;
  let cookie: string;
  let site: { urlname: string; rootGalleryUuid: string };
  beforeAll(async () => {
    ({ svc, app, user, site, cookie } = await signedInWorld(kind));
  });
  afterAll(() => svc?.close());

  it('every reply, errors included, is XML with a declaration and an X-Request-Id', async () => {
    const replies = [
      await svc.raw(app, 'GET', '/ping.xml'),
      await svc.raw(app, 'GET', '/whoami.xml'),
      await svc.raw(app, 'GET', '/no-such-endpoint.xml'),
      await svc.raw(app, 'GET', '/ping.xml', { sign: false }),
    ];
    const ids = new Set<string>();
    for (const res of replies) {
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      ids.add(id!);
      expect(res.headers.get('status')).toBeNull();
      const { doc } = await replyOf(res);
      expect(text(doc, 'request')).toMatch(/^GET \//);
    }
    expect(ids.size).toBe(replies.length);
    const notFound = await replyOf(await svc.raw(app, 'GET', '/no-such-endpoint.xml'));
    expect(notFound.status).toBe(404);
    expect(text(notFound.doc, 'error')).toMatch(/no-such-endpoint/);
  });

  it('echoes the request and the query string, with dashed names, arrays, integers and nil', async () => {
    const res = await svc.raw(app, 'GET', '/websites.xml?view=details&page=1&per_page=10', { headers: { cookie } });
    const { status, doc, body } = await replyOf(res);
    expect(status).toBe(200);
    expect(text(doc, 'request')).toBe('GET /websites.xml');
    expect(text(doc, 'query-string')).toBe('view=details&page=1&per_page=10');
    expect(body).toContain('<websites type="array">');
    expect(body).toContain('<total-pages type="integer">1</total-pages>');
    expect(body).toContain('<hostname nil="true"/>');
    const w = find(doc, 'websites/website')!;
    expect(text(w, 'urlname')).toBe(site.urlname);
    expect(text(w, 'root-gallery-uuid')).toBe(site.rootGalleryUuid);
    expect(text(w, 'home-url')).toMatch(/^http/);
    expect(text(w, 'created-at')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
  });

  it('paginates websites and refuses per_page over the maximum', async () => {
    const owner = await svc.user();
    for (let i = 0; i < 3; i++) await svc.website(owner);
    const c = svc.client(app, owner);
    const page2 = await c.request('GET', '/websites.xml', { page: 2, per_page: 2 });
    expect(all(page2.doc, 'websites/website')).toHaveLength(1);
    expect(text(page2.doc, 'total-pages')).toBe('2');
    const tooMany = await replyOf(await svc.raw(app, 'GET', '/websites.xml?per_page=101', { headers: { cookie } }));
    expect(tooMany.status).toBe(422);
    expect(text(tooMany.doc, 'error')).toMatch(/per_page/);
    expect((await replyOf(await svc.raw(app, 'GET', '/artists.xml?per_page=100', { headers: { cookie } }))).status).toBe(200);
  });

  it('never redirects: a trailing-slash or unknown path is a 404, not a 3xx', async () => {
    const res = await svc.raw(app, 'GET', '/websites.xml/', { headers: { cookie } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.redirected).toBe(false);
  });

  it('_method turns a POST into a PUT or DELETE, urlencoded or multipart, signed as POST', async () => {
    const c = svc.client(app, user);
    const created = await c.createGallery(site.urlname, { name: 'Summer', parent: site.rootGalleryUuid });
    const uuid = text(created.doc, 'gallery/uuid')!;
    const path = `/websites/${site.urlname}/galleries/${uuid}.xml`;
    const form = await svc.raw(app, 'POST', path, {
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: '_method=PUT&gallery%5Bname%5D=Summer+2026',
    });
    expect(form.status).toBe(200);
    expect(text((await replyOf(form)).doc, 'gallery/name')).toBe('Summer 2026');

    const fd = new FormData();
    fd.append('_method', 'PUT');
    fd.append('gallery[description]', 'Beach days');
    const multi = await svc.raw(app, 'POST', path, { headers: { cookie }, body: fd as unknown as string });
    expect(multi.status).toBe(200);
    const details = await c.gallery(site.urlname, uuid, 'details');
    expect(text(details.doc, 'gallery/description')).toBe('Beach days');

    const del = await svc.raw(app, 'POST', path, { headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: '_method=DELETE' });
    expect(del.status).toBe(200);
    expect((await svc.raw(app, 'GET', path, { headers: { cookie } })).status).toBe(404);
  });

  it('accepts raw UTF-8 and unencoded quotes and angle brackets in form bodies, and an empty DELETE body', async () => {
    const c = svc.client(app, user);
    const res = await svc.raw(app, 'POST', `/websites/${site.urlname}/galleries.xml`, {
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: Buffer.from(`gallery[name]=Été "à <Paris>"&gallery[parent]=${site.rootGalleryUuid}`, 'utf8'),
    });
    const r = await replyOf(res);
    expect(r.status).toBe(200);
    expect(text(r.doc, 'gallery/name')).toBe('Été "à <Paris>"');
    expect(text(r.doc, 'gallery/url-path')).toBe('ete-a-paris');
    const uuid = text(r.doc, 'gallery/uuid')!;
    const del = await svc.raw(app, 'DELETE', `/websites/${site.urlname}/galleries/${uuid}.xml`, {
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(del.status).toBe(200);
    await expect(c.gallery(site.urlname, uuid)).rejects.toMatchObject({ status: 404 });
  });
});

// What clients in the field send: fully percent-encoded query strings,
// `_method` overrides with raw UTF-8 form bodies, and bursts of concurrent
// creates from several publishing threads.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, text } from '../../src/client/xml.js';
import { openStore } from '../../src/database/db.js';
import { eachDatabase } from '../support/service.js';
import { replyOf } from '../support/xml.js';
import { create, details, publishMedias, startWorld, type GalleryWorld } from './galleries-fixtures.js';

eachDatabase((kind) => {
  let w: GalleryWorld;
  let cookie: string;
  beforeAll(async () => {
    w = await startWorld(kind);
    await w.client.whoami();
    cookie = `_ficelle_session=${await w.client.sessionCookie()}`;
  });
  afterAll(() => w?.svc.close());

  it('decodes a query string where every character but letters and digits is percent-encoded', async () => {
    const g = await create(w, 'Encoded');
    const [m] = await publishMedias(w.svc.db, w.user, g, ['e.jpg']);
    const res = await replyOf(await w.svc.raw(w.app, 'GET', `/websites/${w.urlname}/galleries/${g}.xml?view=details%5Fwith%5Fmedias`, { headers: { cookie } }));
    expect(res.status).toBe(200);
    expect(text(res.doc, 'gallery/medias/media/uuid')).toBe(m);
    const list = await replyOf(await w.svc.raw(w.app, 'GET', `/websites/${w.urlname}/galleries.xml?per%5Fpage=2&page=1&view=details`, { headers: { cookie } }));
    expect(all(list.doc, 'galleries/gallery')).toHaveLength(2);
  });

  it('answers a bad view on a missing gallery with the 404, as every route does (404 before 422: not-found-first.test.ts)', async () => {
    const res = await replyOf(await w.svc.raw(w.app, 'GET', `/websites/${w.urlname}/galleries/00000000-0000-4000-8000-000000000000.xml?view=bogus`, { headers: { cookie } }));
    expect(res.status).toBe(404);
    const missing = await replyOf(await w.svc.raw(w.app, 'GET', `/websites/${w.urlname}/galleries/00000000-0000-4000-8000-000000000000.xml?view=details`, { headers: { cookie } }));
    expect(missing.status).toBe(404);
  });

  it('takes an update sent as POST with _method=PUT and a raw UTF-8 body', async () => {
    const g = await create(w, 'Override me');
    const body = Buffer.from(`_method=PUT&gallery[name]=Caf\u00e9 "<Noir>"&gallery[description]=a & b`.replace(' & b', '%20%26%20b'), 'utf8');
    const res = await replyOf(
      await w.svc.raw(w.app, 'POST', `/websites/${w.urlname}/galleries/${g}.xml`, {
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      }),
    );
    expect(res.status).toBe(200);
    expect(text(res.doc, 'gallery/name')).toBe('Café "<Noir>"');
    expect(text(res.doc, 'gallery/url-path')).toBe('cafe-noir');
    expect(text(res.doc, 'gallery/description')).toBe('a & b');
    expect(text(res.doc, 'request')).toBe(`POST /websites/${w.urlname}/galleries/${g}.xml`);
  });

  it('serves reads and writes of one gallery interleaved on many connections: every write lands, and the reads after its reply see it', async () => {
    // On SQLite the reads of one event-loop turn share a read transaction (src/database/read-turn.ts):
    // a write arriving in the same turn as reads must still run, in its own transaction, and be seen.
    const g = await create(w, 'Busy reads');
    for (let round = 0; round < 10; round++) {
      const reads = () => Array.from({ length: 4 }, () => details(w, g));
      const replies = await Promise.all([...reads(), w.client.request('PUT', `/websites/${w.urlname}/galleries/${g}.xml`, { 'gallery[name]': `Round ${round}` }), ...reads()]);
      expect(replies.map((r) => r.status)).toEqual(Array(9).fill(200));
      expect(text((await details(w, g)).doc, 'gallery/name')).toBe(`Round ${round}`);
    }
  });

  it('a gallery read again after another process changed it (the admin command line, a second node) shows the change', async () => {
    // On SQLite the reads of one event-loop turn share a read transaction (src/database/read-turn.ts): a commit
    // by another connection must be seen by the next request's read, its counts included.
    const g = await create(w, 'Seen elsewhere');
    const [m] = await publishMedias(w.svc.db, w.user, g, ['elsewhere.jpg']);
    for (let i = 0; i < 3; i++) expect(text((await details(w, g)).doc, 'gallery/name')).toBe('Seen elsewhere');
    const elsewhere = openStore({ dataDir: w.svc.config.dataDir, databaseUrl: w.svc.config.databaseUrl });
    try {
      await elsewhere.db.updateTable('galleries').set({ name: 'Renamed elsewhere' }).where('uuid', '=', g).execute();
      let reply = await details(w, g);
      expect(text(reply.doc, 'gallery/name')).toBe('Renamed elsewhere');
      expect(text(reply.doc, 'gallery/medias-count')).toBe('1');
      await elsewhere.db.updateTable('medias').set({ status: 'deleted' }).where('uuid', '=', m).execute();
      reply = await details(w, g);
      expect(text(reply.doc, 'gallery/medias-count')).toBe('0');
    } finally {
      await elsewhere.close();
    }
  });

  it('keeps url paths unique and list positions dense under concurrent creates', async () => {
    const parent = await create(w, 'Busy');
    const replies = await Promise.all(Array.from({ length: 12 }, () => w.client.createGallery(w.urlname, { name: 'Same name', parent })));
    const paths = replies.map((r) => text(r.doc, 'gallery/url-path'));
    expect(new Set(paths).size).toBe(12);
    expect(paths).toContain('same-name');
    expect(paths).toContain('same-name-12');
    const stats = await w.svc.db
      .selectFrom('galleries')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('list_pos').as('max')])
      .executeTakeFirstOrThrow();
    expect(Number(stats.max)).toBe(Number(stats.n));
    expect(text((await details(w, parent)).doc, 'gallery/subgalleries-count')).toBe('12');
  });
});

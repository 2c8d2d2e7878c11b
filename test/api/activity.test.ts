// What clients did (docs/delivery.md "Activity", an API extension), as the
// photographer reads it: a signed-in client's gallery views and downloads as
// events, anonymous views as a day's count, one client's events across
// galleries, a client's data deleted on request, the retention sweep, the
// admin command. On SQLite and PostgreSQL.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { int, items, text } from '../../src/client/xml.js';
import type { XmlNode } from '../../src/client/xml.js';
import { childEnv, runBuilt } from '../support/processes.js';
import { eachDatabase, type DbKind } from '../support/service.js';
import { cookieOf, uploadPhoto, visit } from '../site/site-support.js';
import { failure, startWorld, worldOn, type World } from '../support/world.js';

const uniqueEmail = (name: string) => `${name}-${randomBytes(4).toString('hex')}@example.com`;

type Acl = Array<{ email: string; read: 0 | 1; comp_download: 0 | 1; hires_download: 0 | 1 }>;

async function gallery(w: World, acl?: Acl): Promise<{ uuid: string; path: string }> {
  const r = await w.client.createGallery(w.urlname, { name: `Shoot ${randomBytes(3).toString('hex')}`, parent: w.rootUuid, ...(acl ? { acl } : {}) });
  return { uuid: text(r.doc, 'gallery-uuid')!, path: text(r.doc, 'gallery/full-url-path')! };
}

const eventsOf = (doc: XmlNode) =>
  items(doc, 'events').map((e) => ({ kind: text(e, 'kind'), client: text(e, 'client'), gallery: text(e, 'gallery-uuid'), media: text(e, 'media-uuid'), bytes: int(e, 'bytes') }));

eachDatabase((kind: DbKind) => {
  describe('activity', () => {
    let w: World;
    const client = uniqueEmail('client');
    let proofs: { uuid: string; path: string };
    let open: { uuid: string; path: string };
    let media: string;
    let cookie: string;
    let downloaded: number;

    beforeAll(async () => {
      w = await startWorld(kind, { SITE_CACHE_SECONDS: '60' });
      proofs = await gallery(w, [
        { email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 },
        { email: client, read: 1, comp_download: 0, hires_download: 1 },
      ]);
      open = await gallery(w);
      media = await uploadPhoto(w, proofs.uuid, 1, 800);
      // The client signs in with a link (as an invitation or the website's form gives one).
      const link = await w.svc.core.visitorLinks.createFor(w.urlname, client, `/sites/${w.urlname}/-/${proofs.path}`);
      cookie = cookieOf(await visit(w.svc, new URL(link.url).pathname))!;
      expect(cookie).toMatch(/^mps_visitor=/);
    }, 60_000);
    afterAll(async () => {
      await w?.svc.close();
    });

    const home = () => `/sites/${w.urlname}`;
    const settle = () => w.svc.service.core.activity.idle();

    it("records a signed-in client's gallery view once per half hour, and their download with its size", async () => {
      for (let i = 0; i < 3; i++) expect((await visit(w.svc, `${home()}/-/${proofs.path}`, { cookie })).status).toBe(200);
      const page = await visit(w.svc, `${home()}/-/${proofs.path}/_/${media}`, { cookie });
      expect(page.status).toBe(200);
      const href = /href="([^"]*\/files\/[^"]*d=1[^"]*)"/.exec(page.body)?.[1]?.replace(/&amp;/g, '&');
      expect(href, 'the original offered for download').toBeDefined();
      // The address does not carry the client's e-mail address in clear.
      expect(decodeURIComponent(href!)).not.toContain(client);
      const file = await visit(w.svc, href!.replace(/^https?:\/\/[^/]+/, ''));
      expect(file.status).toBe(200);
      expect(String(file.headers['content-disposition'])).toMatch(/^attachment/);
      downloaded = Number(file.headers['content-length']);
      // A resumed download (a range further on) is not another download.
      expect((await visit(w.svc, href!.replace(/^https?:\/\/[^/]+/, ''), { headers: { range: 'bytes=100-' } })).status).toBe(206);
      await settle();

      const r = await w.client.request('GET', `/galleries/${proofs.uuid}/activity.xml`);
      expect(eventsOf(r.doc)).toEqual([
        { kind: 'download', client, gallery: proofs.uuid, media, bytes: downloaded },
        { kind: 'view', client, gallery: proofs.uuid, media: undefined, bytes: undefined },
      ]);
      expect(int(r.doc, 'total-entries')).toBe(2);
      const summary = items(r.doc, 'clients');
      expect(summary.map((c) => text(c, 'email'))).toEqual([client]);
      expect(text(summary[0], 'verified')).toBe('true');
      expect(items(summary[0], 'kinds').map((k) => [text(k, 'name'), int(k, 'count'), int(k, 'bytes')])).toEqual([
        ['download', 1, downloaded],
        ['view', 1, 0],
      ]);
      // Nothing anonymous in this gallery.
      expect(items(r.doc, 'anonymous')).toEqual([]);
    });

    it('counts anonymous views per gallery and day, from the page cache too, with no row per view', async () => {
      for (let i = 0; i < 4; i++) expect((await visit(w.svc, `${home()}/-/${open.path}`)).status).toBe(200);
      // A HEAD shows nothing: not a view.
      expect((await visit(w.svc, `${home()}/-/${open.path}`, { method: 'HEAD' })).status).toBe(200);
      await settle();
      const r = await w.client.request('GET', `/galleries/${open.uuid}/activity.xml`);
      expect(eventsOf(r.doc)).toEqual([]);
      const days = items(r.doc, 'anonymous');
      expect(days.map((d) => [text(d, 'day'), text(d, 'kind'), int(d, 'count')])).toEqual([[new Date().toISOString().slice(0, 10), 'view', 4]]);
      const rows = await w.svc.db.selectFrom('activity_daily').selectAll().execute();
      expect(rows.length).toBe(1);
      // Refused pages count nothing.
      expect((await visit(w.svc, `${home()}/-/${proofs.path}`)).status).toBe(403);
      await settle();
      expect(items((await w.client.request('GET', `/galleries/${proofs.uuid}/activity.xml`)).doc, 'anonymous')).toEqual([]);
    });

    it("lists one client's events across the owner's galleries, paged, and pages a gallery's", async () => {
      // The client opens the open gallery too (their pass goes along).
      expect((await visit(w.svc, `${home()}/-/${open.path}`, { cookie })).status).toBe(200);
      await settle();
      const r = await w.client.request('GET', '/activity.xml', { client: client.toUpperCase() });
      expect(text(r.doc, 'client')).toBe(client);
      expect(eventsOf(r.doc).map((e) => [e.kind, e.gallery])).toEqual([
        ['view', open.uuid],
        ['download', proofs.uuid],
        ['view', proofs.uuid],
      ]);
      const p2 = await w.client.request('GET', '/activity.xml', { client, page: 2, per_page: 2 });
      expect(eventsOf(p2.doc).map((e) => e.kind)).toEqual(['view']);
      expect(int(p2.doc, 'total-pages')).toBe(2);
      const one = await w.client.request('GET', `/galleries/${proofs.uuid}/activity.xml`, { client, per_page: 1 });
      expect(eventsOf(one.doc).map((e) => e.kind)).toEqual(['download']);
    });

    it("answers another owner's gallery 404 and their client's events empty; bad input 4xx", async () => {
      const other = await worldOn(w.svc);
      expect((await failure(other.client.request('GET', `/galleries/${proofs.uuid}/activity.xml`))).status).toBe(404);
      expect((await failure(other.client.request('GET', `/galleries/${proofs.uuid}/activity.xml`, { client: 'nope' }))).status).toBe(404);
      expect(eventsOf((await other.client.request('GET', '/activity.xml', { client })).doc)).toEqual([]);
      const r = await other.client.request('DELETE', '/activity.xml', { client });
      expect(int(r.doc, 'deleted-events')).toBe(0);
      expect((await failure(w.client.request('GET', '/activity.xml'))).status).toBe(422);
      expect((await failure(w.client.request('GET', '/activity.xml', { client: 'not-an-address' }))).status).toBe(422);
      expect((await failure(w.client.request('GET', `/galleries/${proofs.uuid}/activity.xml`, { client: 'x' }))).status).toBe(422);
      expect((await failure(w.client.request('GET', `/galleries/${proofs.uuid}/activity.xml`, { per_page: 501 }))).status).toBe(422);
      expect((await failure(w.client.request('GET', `/galleries/${proofs.uuid}/activity.xml`, { ip: '1' }))).status).toBe(400);
      expect((await failure(w.client.request('DELETE', '/activity.xml'))).status).toBe(422);
      // Still there for their owner.
      expect(eventsOf((await w.client.request('GET', '/activity.xml', { client })).doc)).toHaveLength(3);
    });

    it('the admin command lists them', async () => {
      const env = childEnv({ DATA_DIR: w.svc.config.dataDir, DATABASE_URL: w.svc.config.databaseUrl });
      const res = await runBuilt('cli/admin.js', ['activity', 'list', '--owner', w.user.email, '--client', client, '--json'], { env });
      expect(res.stderr).toBe('');
      const out = JSON.parse(res.stdout) as { total: number; events: Array<{ kind: string; client: string }> };
      expect(out.total).toBe(3);
      expect(out.events.map((e) => e.kind)).toEqual(['view', 'download', 'view']);
      const bad = await runBuilt('cli/admin.js', ['activity', 'list', '--owner', w.user.email], { env });
      expect(bad.code).not.toBe(0);
    });

    it("deletes a client's data on request: events and sign-in links", async () => {
      const pending = await w.svc.core.visitorLinks.createFor(w.urlname, client);
      expect(pending.url).toContain('/_signin/');
      const r = await w.client.request('DELETE', '/activity.xml', { client });
      expect(text(r.doc, 'client')).toBe(client);
      expect(int(r.doc, 'deleted-events')).toBe(3);
      // The one used to sign in, and the pending one.
      expect(int(r.doc, 'deleted-signin-links')).toBe(2);
      expect(eventsOf((await w.client.request('GET', '/activity.xml', { client })).doc)).toEqual([]);
      expect(await w.svc.db.selectFrom('visitor_links').select('id').where('email', '=', client).execute()).toEqual([]);
      // The anonymous counters are no one's data: they stay.
      expect(items((await w.client.request('GET', `/galleries/${open.uuid}/activity.xml`)).doc, 'anonymous')).toHaveLength(1);
    });

    it('the sweep deletes what is older than ACTIVITY_RETENTION_DAYS (400)', async () => {
      expect((await visit(w.svc, `${home()}/-/${open.path}`, { cookie })).status).toBe(200);
      await settle();
      const soon = await w.svc.service.sweep(new Date(Date.now() + 399 * 86_400_000));
      expect(soon.activity).toBe(0);
      const late = await w.svc.service.sweep(new Date(Date.now() + 402 * 86_400_000));
      expect(late.activity).toBe(2);
      expect(await w.svc.db.selectFrom('activity_events').select('id').execute()).toEqual([]);
      expect(await w.svc.db.selectFrom('activity_daily').select('day').execute()).toEqual([]);
    });
  });
});

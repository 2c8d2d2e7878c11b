// Webhook events written with the change that causes them (docs/integrations.md "Webhooks", "How it
// is kept"), on SQLite and PostgreSQL. A fault injected into the outbox (a trigger refusing one event
// type's row) stands for a crash between a change and its event: the change must not stand without
// its event — an order placed, a selection sent, an archive's record. And gallery.updated for every
// write path that changes what a gallery is or shows (API, studio, the admin command), each delivered to a real receiver
// and verified with the Standard Webhooks verifier.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, childEnv, runBuilt } from '../support/processes.js';
import { text } from '../../src/client/xml.js';
import { eachDatabase, TestService, type DbKind } from '../support/service.js';
import { openShop, placeOrder } from '../support/shop.js';
import { worldOn, type World } from '../support/world.js';
import { cookieOf, uploadPhoto, visit, waitForRenditions } from '../site/site-support.js';
import { StudioBrowser } from '../studio/studio-support.js';
import { FAST_WEBHOOKS, Receiver, settled, until } from '../support/webhook-receiver.js';

/** Makes every insert of a `type` event fail, as a crash before the event's write would leave it. */
async function refuseEvents(w: World, kind: DbKind, type: string): Promise<void> {
  const t = sql.lit(type);
  if (kind === 'sqlite') {
    await sql`CREATE TRIGGER inject_refusal BEFORE INSERT ON webhook_events WHEN NEW.type = ${t} BEGIN SELECT RAISE(ABORT, 'injected: no event'); END`.execute(w.svc.db);
  } else {
    await sql`CREATE OR REPLACE FUNCTION inject_refusal() RETURNS trigger AS $$ BEGIN IF NEW.type = ${t} THEN RAISE EXCEPTION 'injected: no event'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`.execute(w.svc.db);
    await sql`CREATE TRIGGER inject_refusal BEFORE INSERT ON webhook_events FOR EACH ROW EXECUTE FUNCTION inject_refusal()`.execute(w.svc.db);
  }
}

async function acceptEvents(w: World, kind: DbKind): Promise<void> {
  if (kind === 'sqlite') await sql`DROP TRIGGER inject_refusal`.execute(w.svc.db);
  else await sql`DROP TRIGGER inject_refusal ON webhook_events`.execute(w.svc.db);
}

async function createEndpoint(w: World, url: string, events: string): Promise<{ uuid: string; secret: string }> {
  const res = await w.client.request('POST', '/webhooks.xml', { 'webhook[url]': url, 'webhook[events]': events });
  return { uuid: text(res.doc, 'webhook/uuid')!, secret: text(res.doc, 'webhook/secret')! };
}

// The admin command's invitation runs the built command.
beforeAll(buildIfStale, 300_000);

eachDatabase((kind) => {
  describe('webhook events in the change\'s transaction', () => {
    let w: World;
    const receiver = new Receiver();
    let verifier: Webhook;
    let gallery: { uuid: string; path: string };
    let media: string;

    beforeAll(async () => {
      await receiver.start();
      w = await worldOn(await TestService.start(kind, FAST_WEBHOOKS));
      verifier = new Webhook((await createEndpoint(w, receiver.url, 'order.created,selection.sent,archive.downloaded')).secret);
      const r = await w.client.createGallery(w.urlname, { name: `Outbox ${randomBytes(3).toString('hex')}`, parent: w.rootUuid, acl: [{ email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 }] });
      gallery = { uuid: text(r.doc, 'gallery-uuid')!, path: text(r.doc, 'gallery/full-url-path')! };
      media = await uploadPhoto(w, gallery.uuid, 1, 600);
      expect(await waitForRenditions(w, [media])).toBe(true);
    }, 90_000);
    afterAll(async () => {
      await w?.svc.close();
      await receiver.close();
    });

    /** The delivered events of `type`, each verified as a receiver would. */
    const delivered = (type: string) =>
      receiver
        .delivered()
        .filter((d) => d.type === type)
        .map((d) => ({ ...d, verified: verifier.verify(d.raw.body, d.raw.headers as Record<string, string>) }));

    it('order.created: an order whose event cannot be written is not placed; placed, its event is delivered', async () => {
      const shop = await openShop(w.svc.core, w.user);
      const orders = async () => (await w.svc.db.selectFrom('orders').select('uuid').where('owner_id', '=', w.user.id).execute()).length;
      const before = await orders();
      await refuseEvents(w, kind, 'order.created');
      try {
        await expect(placeOrder(w.svc.core, shop)).rejects.toThrow(/injected/);
      } finally {
        await acceptEvents(w, kind);
      }
      expect(await orders()).toBe(before);
      const uuid = await placeOrder(w.svc.core, shop);
      const got = await until('order.created', () => delivered('order.created').find((d) => (d.data.order as { uuid: string }).uuid === uuid));
      expect(got.verified).toMatchObject({ type: 'order.created', data: { order: { uuid, status: 'pending' } } });
      expect(await orders()).toBe(before + 1);
    }, 60_000);

    it('selection.sent: a selection whose event cannot be written stays open; sent, its event is delivered', async () => {
      const g = await w.svc.db.selectFrom('galleries').select('id').where('uuid', '=', gallery.uuid).executeTakeFirstOrThrow();
      const m = await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', media).executeTakeFirstOrThrow();
      const sg = { id: g.id, ownerId: w.user.id, name: 'Outbox', pickLimit: null };
      const client = { key: 'bea@example.com', email: 'bea@example.com', name: 'Bea', verified: true };
      await w.svc.core.lightboxes.pick(sg, client, m.id);
      const state = async () => (await w.svc.db.selectFrom('lightboxes').select('state').where('gallery_id', '=', g.id).where('client_email', '=', client.email).executeTakeFirstOrThrow()).state;
      await refuseEvents(w, kind, 'selection.sent');
      try {
        await expect(w.svc.core.lightboxes.send(sg, client)).rejects.toThrow(/injected/);
      } finally {
        await acceptEvents(w, kind);
      }
      expect(await state()).toBe('open');
      const sent = await w.svc.core.lightboxes.send(sg, client);
      expect(await state()).toBe('sent');
      const got = await until('selection.sent', () => delivered('selection.sent').find((d) => (d.data.lightbox as { uuid: string }).uuid === sent.uuid));
      expect(got.verified).toMatchObject({ type: 'selection.sent', data: { gallery: { uuid: gallery.uuid }, client: client.email, count: 1 } });
    }, 60_000);

    it("archive.downloaded: written with the archive's activity record, or neither stands; a complete archive's event is delivered", async () => {
      const link = await w.client.request('POST', `/galleries/${gallery.uuid}/share_links.xml`, { 'share_link[recipient]': 'cleo@example.com', 'share_link[download]': 'originals' });
      const opened = await visit(w.svc, new URL(text(link.doc, 'share-link/url')!).pathname);
      expect(opened.status).toBe(303);
      const cookie = cookieOf(opened);
      const archiveOf = async () => {
        const zip = await visit(w.svc, `/sites/${w.urlname}/-/${gallery.path}/_archive.zip`, { cookie });
        expect(zip.status).toBe(200);
        await w.svc.service.core.activity.idle();
      };
      const records = async () =>
        (await w.svc.db.selectFrom('activity_events as e').innerJoin('galleries as g', 'g.id', 'e.gallery_id').select('e.id').where('g.uuid', '=', gallery.uuid).where('e.kind', '=', 'archive').execute()).length;
      await refuseEvents(w, kind, 'archive.downloaded');
      try {
        await archiveOf();
      } finally {
        await acceptEvents(w, kind);
      }
      expect(await records()).toBe(0);
      await archiveOf();
      expect(await records()).toBe(1);
      const got = await until('archive.downloaded', () => delivered('archive.downloaded')[0]);
      expect(got.verified).toMatchObject({ type: 'archive.downloaded', data: { gallery: { uuid: gallery.uuid }, client: 'cleo@example.com', files: 1, bytes: expect.any(Number) } });
      await settled(w);
      expect(delivered('archive.downloaded').length).toBe(1);
    }, 60_000);
  });

  describe('gallery.updated for every change of a gallery', () => {
    let w: World;
    let b: StudioBrowser;
    const receiver = new Receiver();
    let verifier: Webhook;

    beforeAll(async () => {
      await receiver.start();
      w = await worldOn(await TestService.start(kind, FAST_WEBHOOKS));
      b = await new StudioBrowser(w.svc).signIn(w.user);
      verifier = new Webhook((await createEndpoint(w, receiver.url, 'gallery.updated')).secret);
    }, 60_000);
    afterAll(async () => {
      await w?.svc.close();
      await receiver.close();
    });

    it('delivers a verified gallery.updated for each change through the API and the studio', async () => {
      const g = text((await w.client.createGallery(w.urlname, { name: 'Changing', parent: w.rootUuid })).doc, 'gallery-uuid')!;
      const other = text((await w.client.createGallery(w.urlname, { name: 'Elsewhere', parent: w.rootUuid })).doc, 'gallery-uuid')!;
      const list = await w.svc.core.pricingProfiles.createList(w.user, { name: 'Files', kind: 'download', currency: 'EUR', items: [{ param: 'a', label: 'Web', longEdge: 1200, price: 900, options: [] }] });
      const updatesOf = (uuid: string) => receiver.delivered().filter((d) => d.type === 'gallery.updated' && (d.data.gallery as { uuid: string }).uuid === uuid).length;
      const page = `/studio/galleries/${g}`;
      const seen: string[] = [];
      /** Runs a change and waits for a new gallery.updated of the gallery. */
      const step = async (label: string, change: () => Promise<unknown>, uuid = g) => {
        await settled(w);
        const before = updatesOf(uuid);
        const res = (await change()) as { status?: number } | undefined;
        if (res && typeof res.status === 'number') expect(res.status, label).toBeLessThan(400);
        await until(`gallery.updated after ${label}`, () => updatesOf(uuid) > before, 20_000);
        seen.push(label);
      };
      // The medias' PUT takes multipart/form-data only (spec 4.7).
      const put = (path: string, params: Record<string, unknown>) => w.client.request('PUT', path, params as Record<string, string>, { methodOverride: true, multipart: path.startsWith('/medias/') });

      // Medias added: a new upload going live in the gallery, an existing media published there (one, a batch).
      let m1 = '';
      await step('API: upload into the gallery', async () => (m1 = await uploadPhoto(w, g, 1, 400)));
      const m2 = await uploadPhoto(w, other, 2, 400);
      const m3 = await uploadPhoto(w, other, 3, 400);
      await step('API: media published to the gallery', () => put(`/medias/${m2}.xml`, { 'media[publish_to_galleries]': [g] }));
      await step('API: batch update publishing to the gallery', () => w.client.request('PUT', '/medias/batch_update.xml', { select: m3, 'medias[publish_to_galleries]': [g] }, { multipart: true, methodOverride: true }));
      // Attributes, cover, order.
      await step('API: attributes (PUT)', () => put(`/websites/${w.urlname}/galleries/${g}.xml`, { 'gallery[description]': 'changed' }));
      await step('API: cover', () => put(`/websites/${w.urlname}/galleries/${g}.xml`, { 'gallery[cover_media]': m2 }));
      await step('API: medias order', () => put(`/websites/${w.urlname}/galleries/${g}.xml`, { 'gallery[medias_order]': [m3, m1] }));
      // Sale and access.
      await step('API: sold whole', () => put(`/galleries/${g}/sale.xml`, { 'sale[pricing_profile]': list.uuid, 'sale[item]': 'Web', 'sale[price]': '5000' }));
      await step('API: invitation (a new access-list entry)', () => w.client.request('POST', `/galleries/${g}/invitations.xml`, { 'invitation[email]': 'dora@example.com' }));
      await step('admin command: invitation (a new access-list entry)', async () => {
        const env = childEnv({ DATA_DIR: w.svc.config.dataDir, DATABASE_URL: w.svc.config.databaseUrl, PUBLIC_URL: w.svc.url });
        const res = await runBuilt('cli/admin.js', ['client', 'invite', '--owner', w.user.email, '--gallery', g, '--email', 'finn@example.com', '--json'], { env });
        expect(res.code, res.stderr).toBe(0);
      });
      // The studio's cards.
      await step('studio: expiry', () => b.submit(page, `${page}/expiry`, { expires_at: '2090-01-01T00:00' }));
      await step('studio: extend 30 days', () => b.submit(page, `${page}/extend`, {}));
      await step('studio: download controls', () => b.submit(page, `${page}/downloads`, { download_pin: '0427', download_limit: '25', download_size: 'web' }));
      await step('studio: favourites settings', () => b.submit(page, `${page}/favourites`, { favourites: 'on', favourite_lists: 'Album', pick_limit: '10' }));
      await step('studio: access list', () => b.submit(page, `${page}/acl`, { default_read: '1', new_email: 'eve@example.com', new_read: '1' }));
      await step('studio: invite an address already listed (new rights)', () => b.submit(page, `${page}/invite`, { email: 'eve@example.com', hires_download: '1' }));
      await step('studio: medias reordered', () => b.submit(`/studio/media?gallery=${g}`, '/studio/media/move', { gallery: g, media: m1, before: m3 }));
      await step('studio: sale stopped', () => b.submit(page, `${page}/sale`, { do: 'stop' }));
      // Medias removed: unpublished, and deleted.
      await step('API: media unpublished from the gallery', () => put(`/medias/${m2}.xml`, { 'media[unpublish_from_galleries]': [g] }));
      await step('API: media deleted (gone from the gallery)', () => w.client.request('DELETE', `/medias/${m3}.xml`, {}, { methodOverride: true }));

      expect(seen.length).toBe(19);
      // Every delivery signed as the verifier checks, and naming the gallery.
      for (const d of receiver.delivered()) expect(verifier.verify(d.raw.body, d.raw.headers as Record<string, string>)).toMatchObject({ type: 'gallery.updated', data: { gallery: { uuid: expect.any(String), name: expect.any(String), website: w.urlname } } });
    }, 180_000);
  });

  describe('gallery.deleted for a gallery and every gallery below it', () => {
    let w: World;
    const receiver = new Receiver();
    let verifier: Webhook;

    beforeAll(async () => {
      await receiver.start();
      w = await worldOn(await TestService.start(kind, FAST_WEBHOOKS));
      verifier = new Webhook((await createEndpoint(w, receiver.url, 'gallery.deleted')).secret);
    }, 60_000);
    afterAll(async () => {
      await w?.svc.close();
      await receiver.close();
    });

    const create = async (name: string, parent: string) => text((await w.client.createGallery(w.urlname, { name, parent })).doc, 'gallery-uuid')!;
    const deleted = () => receiver.delivered().filter((d) => d.type === 'gallery.deleted').map((d) => (d.data.gallery as { uuid: string }).uuid);

    it('through the API: one verified event per gallery of the sub-tree, none for a refused delete', async () => {
      const top = await create('Wedding', w.rootUuid);
      const child = await create('Ceremony', top);
      const grandchild = await create('Rings', child);
      const kept = await create('Kept', w.rootUuid);
      // A refused delete (the medias_count guard) writes nothing.
      await expect(w.client.request('DELETE', `/websites/${w.urlname}/galleries/${top}.xml`, { medias_count: '5' }, { methodOverride: true })).rejects.toMatchObject({ status: 409 });
      expect((await w.client.request('DELETE', `/websites/${w.urlname}/galleries/${top}.xml`, {}, { methodOverride: true })).status).toBe(200);
      await until('three gallery.deleted', () => deleted().length >= 3);
      await settled(w);
      expect(deleted().sort()).toEqual([top, child, grandchild].sort());
      expect(deleted()).not.toContain(kept);
      for (const d of receiver.delivered()) {
        expect(verifier.verify(d.raw.body, d.raw.headers as Record<string, string>)).toMatchObject({ type: 'gallery.deleted', data: { gallery: { uuid: expect.any(String), name: expect.any(String), website: w.urlname } } });
      }
      expect(receiver.delivered().find((d) => (d.data.gallery as { uuid: string }).uuid === child)?.data).toMatchObject({ gallery: { name: 'Ceremony' } });
    }, 60_000);

    it('through the studio, and not when the delete rolls back', async () => {
      const b = await new StudioBrowser(w.svc).signIn(w.user);
      const g = await create('Studio gone', w.rootUuid);
      const page = `/studio/galleries/${g}/delete`;
      const res = await b.submit(page, page, { medias: 'keep' });
      expect(res.status).toBeLessThan(400);
      await until('gallery.deleted from the studio', () => deleted().includes(g));
      // A fault in the outbox rolls the delete back: the gallery stands, no event.
      const h = await create('Survivor', w.rootUuid);
      await refuseEvents(w, kind, 'gallery.deleted');
      try {
        await expect(w.client.request('DELETE', `/websites/${w.urlname}/galleries/${h}.xml`, {}, { methodOverride: true })).rejects.toMatchObject({ status: 500 });
      } finally {
        await acceptEvents(w, kind);
      }
      expect((await w.client.request('GET', `/websites/${w.urlname}/galleries/${h}.xml`)).status).toBe(200);
      await settled(w);
      expect(deleted()).not.toContain(h);
    }, 60_000);
  });
});

// Signed webhooks (docs/integrations.md "Webhooks", an API extension and admin commands): a receiver
// in the test gets every event type signed as the Standard Webhooks verifier wants; one failing then
// recovering gets each event once after retries, with every attempt in the log; a forged or replayed
// delivery is refused by the verifier; private addresses are refused unless allowed, redirects are not
// followed; on PostgreSQL two workers deliver each event once.
import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { find, items, text } from '../../src/client/xml.js';
import { create } from './galleries-fixtures.js';
import { postUpload, uploadParamsOf } from './uploads-support.js';
import { buildIfStale, childEnv, runBuilt } from '../support/processes.js';
import { eachDatabase, PG_URL, TestService } from '../support/service.js';
import { openShop, placeOrder } from '../support/shop.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { worldOn, type World } from '../support/world.js';
import { photo } from '../site/site-support.js';
import { FAST_WEBHOOKS, Receiver, settled, until } from '../support/webhook-receiver.js';

beforeAll(buildIfStale, 300_000);

const FAST = FAST_WEBHOOKS;
const KEY = randomBytes(32).toString('hex');

async function createEndpoint(w: World, url: string, events: string): Promise<{ uuid: string; secret: string }> {
  const res = await w.client.request('POST', '/webhooks.xml', { 'webhook[url]': url, 'webhook[events]': events });
  expect(res.status).toBe(200);
  return { uuid: text(res.doc, 'webhook/uuid')!, secret: text(res.doc, 'webhook/secret')! };
}

async function upload(w: World, gallery: string, data: Buffer, name: string): Promise<string> {
  const r1 = await w.client.request('POST', '/medias.xml', {
    'media[content][upload_location]': 'REQUEST',
    'media[content][file_name]': name,
    'media[content][file_size]': data.length,
    'media[content][mime_type]': 'image/jpeg',
    'media[publish_to_galleries]': gallery,
  });
  const media = find(r1.doc, 'media')!;
  const r2 = await postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: text(media, 'upload-file-param')!, data, name, type: 'image/jpeg' });
  expect(r2.status).toBeLessThan(300);
  await w.client.completeUpload(media, data.length);
  return text(media, 'uuid')!;
}

eachDatabase((kind) => {
  describe('webhooks', () => {
    let w: World;
    const receiver = new Receiver();
    const admin = (...args: string[]) => runBuilt('cli/admin.js', args, { env: childEnv({ DATA_DIR: w.svc.config.dataDir, DATABASE_URL: w.svc.config.databaseUrl, PAYMENT_SECRETS_KEY: KEY }) });

    beforeAll(async () => {
      await receiver.start();
      w = await worldOn(await TestService.start(kind, { ...FAST, PAYMENT_SECRETS_KEY: KEY }));
    }, 60_000);
    afterAll(async () => {
      await w?.svc.close();
      await receiver.close();
    });

    it('delivers every event type, each signed as the Standard Webhooks verifier checks', async () => {
      const { uuid, secret } = await createEndpoint(w, receiver.url, '*');
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      // Shown once: not in the endpoint's own reply, sealed at rest.
      const again = await w.client.request('GET', `/webhooks/${uuid}.xml`);
      expect(text(again.doc, 'webhook/secret')).toBeUndefined();
      const stored = await w.svc.db.selectFrom('webhook_endpoints').select('secret').where('uuid', '=', uuid).executeTakeFirstOrThrow();
      expect(stored.secret).not.toContain(secret.slice(6));

      const gallery = await create(w, 'Hooks', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 1, comp_download: 0, hires_download: 1 }] });
      expect((await w.client.request('PUT', `/websites/${w.urlname}/galleries/${gallery}.xml`, { 'gallery[description]': 'changed' }, { methodOverride: true })).status).toBe(200);
      const good = await photo(1, 600);
      const media = await upload(w, gallery, good, 'good.jpg');
      await upload(w, gallery, Buffer.concat([good.subarray(0, 20), Buffer.alloc(4000, 0x5a)]), 'corrupt.jpg');
      await until('renditions', async () => (await w.svc.db.selectFrom('medias').select('renditions_state').where('owner_id', '=', w.user.id).execute()).every((m) => m.renditions_state === 'ready' || m.renditions_state === 'failed'));
      // A visitor's archive of the gallery (originals).
      const zip = await fetch(`${w.svc.url}/sites/${w.urlname}/-/hooks/_archive.zip`);
      expect(zip.status).toBe(200);
      await zip.arrayBuffer();
      // A client's selection, sent.
      const g = await w.svc.db.selectFrom('galleries').select('id').where('uuid', '=', gallery).executeTakeFirstOrThrow();
      const m = await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', media).executeTakeFirstOrThrow();
      const sg = { id: g.id, ownerId: w.user.id, name: 'Hooks', pickLimit: null };
      const client = { key: 'ann@example.com', email: 'ann@example.com', name: 'Ann', verified: true };
      await w.svc.core.lightboxes.pick(sg, client, m.id);
      await w.svc.core.lightboxes.send(sg, client);
      // An order placed, then marked paid through the API.
      const shop = await openShop(w.svc.core, w.user);
      const order = await placeOrder(w.svc.core, shop);
      expect((await w.client.request('PUT', `/orders/${order}.xml`, { 'order[status]': 'paid' }, { methodOverride: true })).status).toBe(200);
      expect((await w.client.request('DELETE', `/medias/${media}.xml`, {}, { methodOverride: true })).status).toBe(200);

      const all = ['media.ready', 'media.failed', 'media.deleted', 'gallery.published', 'gallery.updated', 'selection.sent', 'archive.downloaded', 'order.created', 'order.paid', 'upload.completed'];
      await until('every event type', () => all.every((t) => receiver.delivered().some((d) => d.type === t)));
      const verifier = new Webhook(secret);
      for (const r of receiver.got) {
        const payload = verifier.verify(r.body, r.headers as Record<string, string>) as { type: string; timestamp: string; data: unknown };
        expect(all).toContain(payload.type);
        expect(Date.parse(payload.timestamp)).not.toBeNaN();
      }
      const byType = new Map(receiver.delivered().map((d) => [d.type, d.data]));
      expect(byType.get('gallery.published')).toMatchObject({ gallery: { uuid: gallery, name: 'Hooks', website: w.urlname } });
      expect(byType.get('media.deleted')).toMatchObject({ media: { uuid: media } });
      expect(byType.get('media.failed')).toMatchObject({ reason: expect.any(String) });
      expect(byType.get('order.paid')).toMatchObject({ order: { uuid: order, status: 'paid' } });
      expect(byType.get('selection.sent')).toMatchObject({ gallery: { uuid: gallery }, client: 'ann@example.com', count: 1 });
      expect(byType.get('archive.downloaded')).toMatchObject({ gallery: { uuid: gallery }, files: expect.any(Number), bytes: expect.any(Number) });
      // The log, through the API: every delivery delivered on its first attempt.
      await settled(w);
      const log = await w.client.request('GET', `/webhooks/${uuid}/deliveries.xml`, { per_page: 100 });
      const deliveries = items(log.doc, 'deliveries');
      expect(deliveries.map((d) => text(d, "event-type")).sort(), JSON.stringify(receiver.got.map((g) => [g.headers["webhook-id"], JSON.parse(g.body).type]))).toEqual(receiver.delivered().map((d) => d.type).sort());
      for (const d of deliveries) {
        expect(text(d, 'state')).toBe('delivered');
        expect(text(d, 'attempts/attempt/status-code')).toBe('200');
      }
      expect((await w.client.request('DELETE', `/webhooks/${uuid}.xml`, {}, { methodOverride: true })).status).toBe(200);
    }, 180_000);

    it('a receiver that fails then recovers gets each event once, every attempt in the log; a replay sends it again (admin command)', async () => {
      const flaky = await new Receiver().start();
      flaky.failFirst = 4;
      try {
        const made = await admin('webhook', 'create', '--owner', w.user.email, '--url', flaky.url, '--events', 'gallery.published,gallery.updated', '--json');
        expect(made.code, made.stderr).toBe(0);
        const { uuid, secret } = JSON.parse(made.stdout) as { uuid: string; secret: string };
        expect(secret).toMatch(/^whsec_/);
        expect(made.stderr).toBe('');
        const names = ['One', 'Two', 'Three'];
        const galleries = [];
        for (const n of names) galleries.push(await create(w, `Flaky ${n}`));
        await until('three deliveries', () => flaky.delivered().length >= 3);
        const delivered = flaky.delivered();
        expect(delivered.map((d) => d.type)).toEqual(['gallery.published', 'gallery.published', 'gallery.published']);
        expect(new Set(delivered.map((d) => d.id)).size).toBe(3);
        expect(new Set(delivered.map((d) => (d.data.gallery as { uuid: string }).uuid))).toEqual(new Set(galleries));
        // Nothing more arrives for them.
        await new Promise((r) => setTimeout(r, 600));
        expect(flaky.delivered().length).toBe(3);
        const verifier = new Webhook(secret);
        for (const r of flaky.got) verifier.verify(r.body, r.headers as Record<string, string>);
        // Retries keep the message's id: four failures and three successes over three ids.
        expect(flaky.got.length).toBe(7);

        await settled(w);
        const log = await admin('webhook', 'deliveries', '--owner', w.user.email, '--uuid', uuid, '--json');
        expect(log.code, log.stderr).toBe(0);
        const { deliveries } = JSON.parse(log.stdout) as { deliveries: Array<{ uuid: string; state: string; attempts: Array<{ status_code: number | null; response_excerpt: string | null; latency_ms: number }> }> };
        expect(deliveries.every((d) => d.state === 'delivered')).toBe(true);
        const attempts = deliveries.flatMap((d) => d.attempts);
        expect(attempts.filter((a) => a.status_code === 500).length).toBe(4);
        expect(attempts.filter((a) => a.status_code === 200).length).toBe(3);
        // The 5000-byte answers are kept to 1 KiB.
        for (const a of attempts.filter((x) => x.status_code === 500)) expect(a.response_excerpt!.length).toBe(1024);
        expect(attempts.every((a) => a.latency_ms >= 0)).toBe(true);

        const replay = await admin('webhook', 'replay', '--owner', w.user.email, '--uuid', uuid, '--delivery', deliveries[0].uuid, '--json');
        expect(replay.code, replay.stderr).toBe(0);
        await until('the replay', () => flaky.delivered().length === 4);
        const last = flaky.delivered()[3];
        expect(last.id).toBe(delivered.find((d) => d.id === last.id)?.id);

        const list = await admin('webhook', 'list', '--owner', w.user.email, '--json');
        expect((JSON.parse(list.stdout) as { webhooks: unknown[] }).webhooks).toContainEqual({ uuid, url: flaky.url, events: ['gallery.published', 'gallery.updated'], enabled: true, failingSince: null, disabledAt: null });
        const gone = await admin('webhook', 'delete', '--owner', w.user.email, '--uuid', uuid, '--json');
        expect(gone.code, gone.stderr).toBe(0);
        const bad = await admin('webhook', 'create', '--owner', w.user.email, '--url', flaky.url, '--events', 'media.readyy');
        expect(bad.code).toBe(1);
        expect(bad.stderr).toMatch(/^--events has an unknown event "media.readyy"/);
      } finally {
        await flaky.close();
      }
    }, 120_000);

    it('refuses a forged delivery and a replayed one with the verifier', async () => {
      const r = await new Receiver().start();
      try {
        const { uuid, secret } = await createEndpoint(w, r.url, 'gallery.published');
        await create(w, 'Forgery');
        await until('a delivery', () => r.got.length >= 1);
        const { body, headers } = r.got[0];
        const h = headers as Record<string, string>;
        const verifier = new Webhook(secret);
        expect(verifier.verify(body, h)).toMatchObject({ type: 'gallery.published' });
        // Forged: another body, another signature, another secret.
        expect(() => verifier.verify(body.replace('Forgery', 'Forgerx'), h)).toThrow(WebhookVerificationError);
        expect(() => verifier.verify(body, { ...h, 'webhook-signature': `v1,${randomBytes(32).toString('base64')}` })).toThrow(WebhookVerificationError);
        expect(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(body, h)).toThrow(WebhookVerificationError);
        // Replayed ten minutes later: outside the verifier's tolerance.
        vi.useFakeTimers({ toFake: ['Date'] });
        try {
          vi.setSystemTime(Date.now() + 10 * 60_000);
          expect(() => verifier.verify(body, h)).toThrow(/too old/i);
        } finally {
          vi.useRealTimers();
        }
        await w.client.request('DELETE', `/webhooks/${uuid}.xml`, {}, { methodOverride: true });
      } finally {
        await r.close();
      }
    }, 60_000);

    it('does not follow a redirect (even to an allowed address)', async () => {
      const target = await new Receiver().start();
      const redirecting = await new Receiver().start();
      redirecting.answer = () => ({ status: 307, headers: { location: target.url } });
      try {
        const { uuid } = await createEndpoint(w, redirecting.url, 'gallery.published');
        await create(w, 'Redirected');
        await until('two attempts', () => redirecting.got.length >= 2);
        expect(target.got.length).toBe(0);
        const log = await w.client.request('GET', `/webhooks/${uuid}/deliveries.xml`);
        expect(text(log.doc, 'deliveries/delivery/attempts/attempt/error')).toMatch(/^redirect to http:\/\/127\.0\.0\.1:\d+\/hook not followed$/);
        expect(text(log.doc, 'deliveries/delivery/state')).toBe('pending');
        await w.client.request('DELETE', `/webhooks/${uuid}.xml`, {}, { methodOverride: true });
      } finally {
        await target.close();
        await redirecting.close();
      }
    }, 60_000);

    it('refuses bad endpoints with 422s naming the parameter, and other users see none', async () => {
      const bad = async (params: Record<string, string>) => {
        const res = await w.client.request('POST', '/webhooks.xml', params).catch((e: { status: number; message: string }) => e);
        return res as { status: number; message: string };
      };
      expect(await bad({ 'webhook[url]': 'ftp://example.com/x', 'webhook[events]': '*' })).toMatchObject({ status: 422, message: expect.stringContaining('webhook[url] must be an http or https address') });
      expect(await bad({ 'webhook[url]': 'https://u:p@example.com/', 'webhook[events]': '*' })).toMatchObject({ status: 422 });
      expect(await bad({ 'webhook[url]': 'https://example.com/', 'webhook[events]': 'media.ready,*' })).toMatchObject({ status: 422, message: expect.stringContaining('webhook[events]') });
      expect(await bad({ 'webhook[events]': '*' })).toMatchObject({ status: 422, message: expect.stringContaining('webhook[url] is required') });
      const { uuid } = await createEndpoint(w, 'https://example.com/hook', 'media.ready');
      const other = await worldOn(w.svc);
      const res = await other.client.request('GET', `/webhooks/${uuid}.xml`).catch((e: { status: number }) => e);
      expect((res as { status: number }).status).toBe(404);
      expect(items((await other.client.request('GET', '/webhooks.xml')).doc, 'webhooks')).toEqual([]);
      await w.client.request('DELETE', `/webhooks/${uuid}.xml`, {}, { methodOverride: true });
    });
  });

  describe('without WEBHOOKS_ALLOW_PRIVATE', () => {
    let w: World;
    const receiver = new Receiver();
    beforeAll(async () => {
      await receiver.start();
      w = await worldOn(await TestService.start(kind, { ...FAST, WEBHOOKS_ALLOW_PRIVATE: '0' }));
    }, 60_000);
    afterAll(async () => {
      await w?.svc.close();
      await receiver.close();
    });

    it('sends nothing to a loopback address, by number or by a name resolving to it', async () => {
      const port = new URL(receiver.url).port;
      const endpoints = [];
      for (const url of [receiver.url, `http://localhost:${port}/hook`]) endpoints.push((await createEndpoint(w, url, 'gallery.published')).uuid);
      await create(w, 'Private');
      for (const uuid of endpoints) {
        const error = await until('a refused attempt', async () => {
          const log = await w.client.request('GET', `/webhooks/${uuid}/deliveries.xml`);
          return text(log.doc, 'deliveries/delivery/attempts/attempt/error');
        });
        expect(error).toMatch(/is not allowed/);
      }
      expect(receiver.got).toEqual([]);
    }, 60_000);
  });

  describe('an endpoint failing for too long', () => {
    let w: World;
    let smtp: TestSmtp;
    const receiver = new Receiver();
    beforeAll(async () => {
      await receiver.start();
      receiver.failFirst = Number.MAX_SAFE_INTEGER;
      smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
      w = await worldOn(await TestService.start(kind, { ...FAST, WEBHOOK_DISABLE_AFTER_SECONDS: '1', SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'photos@example.com' }));
    }, 60_000);
    afterAll(async () => {
      await w?.svc.close();
      await receiver.close();
      await smtp?.close();
    });

    it('is disabled and its photographer mailed; enabled again, a replay delivers what it missed', async () => {
      const { uuid } = await createEndpoint(w, receiver.url, 'gallery.published');
      await create(w, 'Unlucky');
      const disabled = await until('the endpoint disabled', async () => text((await w.client.request('GET', `/webhooks/${uuid}.xml`)).doc, 'webhook/enabled') === 'false');
      expect(disabled).toBe(true);
      const mail = await until('the mail', () => smtp.mails.find((m) => m.to.includes(w.user.email)));
      expect(mail.raw).toContain('A webhook endpoint was disabled');
      expect(mail.raw).toContain(receiver.url);
      const log = await w.client.request('GET', `/webhooks/${uuid}/deliveries.xml`);
      expect(text(log.doc, 'deliveries/delivery/state')).toBe('failed');
      const failed = text(log.doc, 'deliveries/delivery/uuid')!;
      // Disabled: nothing more is queued for it, and a replay is refused until it is enabled.
      await create(w, 'Unseen');
      expect(items((await w.client.request('GET', `/webhooks/${uuid}/deliveries.xml`)).doc, 'deliveries').length).toBe(1);
      const refused = await w.client.request('POST', `/webhooks/${uuid}/deliveries/${failed}/replay.xml`).catch((e: { status: number }) => e);
      expect((refused as { status: number }).status).toBe(409);
      receiver.failFirst = 0;
      receiver.answer = () => ({ status: 200, body: 'ok' });
      const on = await w.client.request('PUT', `/webhooks/${uuid}.xml`, { 'webhook[enabled]': 'yes' }, { methodOverride: true });
      expect([text(on.doc, 'webhook/enabled'), text(on.doc, 'webhook/failing-since')]).toEqual(['true', undefined]);
      expect((await w.client.request('POST', `/webhooks/${uuid}/deliveries/${failed}/replay.xml`)).status).toBe(200);
      await until('the replay delivered', () => receiver.delivered().length === 1);
      expect(receiver.delivered()[0].data).toMatchObject({ gallery: { name: 'Unlucky' } });
    }, 60_000);
  });

  if (kind === 'postgres' && PG_URL) {
    describe('two workers on one PostgreSQL database', () => {
      let a: World;
      let b: TestService;
      const receiver = new Receiver();
      beforeAll(async () => {
        await receiver.start();
        receiver.delayMs = 20;
        a = await worldOn(await TestService.start('postgres', { ...FAST, WEBHOOK_CONCURRENCY: '4' }));
        b = await TestService.start('sqlite', { ...FAST, WEBHOOK_CONCURRENCY: '4', DATABASE_URL: a.svc.config.databaseUrl! });
      }, 60_000);
      afterAll(async () => {
        await b?.close();
        await a?.svc.close();
        await receiver.close();
      });

      it('delivers each event once', async () => {
        await createEndpoint(a, receiver.url, 'gallery.published');
        const made: string[] = [];
        await Promise.all(
          Array.from({ length: 4 }, async (_, t) => {
            for (let i = 0; i < 10; i++) made.push(await create(a, `Both ${t}-${i}`));
          }),
        );
        await until('40 deliveries', () => receiver.delivered().length >= 40);
        await settled(a);
        await new Promise((r) => setTimeout(r, 300));
        const ids = receiver.got.map((g) => String(g.headers['webhook-id']));
        expect(ids.length).toBe(40);
        expect(new Set(ids).size).toBe(40);
        expect(new Set(receiver.delivered().map((d) => (d.data.gallery as { uuid: string }).uuid))).toEqual(new Set(made));
        const rows = await a.svc.db.selectFrom('webhook_deliveries').select(['state', 'attempts']).execute();
        expect(rows.every((r) => r.state === 'delivered' && r.attempts === 1)).toBe(true);
      }, 120_000);
    });
  }
});

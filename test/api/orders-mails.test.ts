// The mails of a new order (docs/shop.md "Mails"), real SMTP server: a checkout through the
// website's forms mails the buyer "order received" (items, total, how to pay) and the
// photographer a notice with the order's API address, one each. With the mail server down
// the order is placed all the same and the failures logged (without the SMTP password).
import { randomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { until } from '../support/crash.js';
import { freePort } from '../support/processes.js';
import { eachDatabase, TestService, type DbKind } from '../support/service.js';
import { attachProfile } from '../support/shop.js';
import { partsOf, startSmtp, type ReceivedMail, type TestSmtp } from '../support/smtp.js';
import { worldOn, type World } from '../support/world.js';
import { uploadPhoto, waitForRenditions } from '../site/site-support.js';

const INSTRUCTIONS = 'Bank transfer to IBAN DE00 1234 5678\nReference: your order number';

interface Site {
  w: World;
  home: string;
  title: string;
  websiteId: number;
  profile: string;
  photo: string;
}

/** A world whose website sells one uploaded photo at two download sizes (a 20 % tax included). */
async function sellingSite(svc: TestService): Promise<Site> {
  const w = await worldOn(svc);
  const g = await w.client.createGallery(w.urlname, { name: 'Prints', parent: w.rootUuid });
  const photo = await uploadPhoto(w, text(g.doc, 'gallery/uuid')!, 0, 1800);
  expect(await waitForRenditions(w, [photo])).toBe(true);
  const list = await svc.core.pricingProfiles.createList(w.user, {
    name: 'Downloads',
    kind: 'download',
    currency: 'EUR',
    items: [
      { param: 'a', label: 'Web', longEdge: 1200, price: 900, options: [] },
      { param: 'b', label: 'Original', longEdge: null, price: 4900, options: [] },
    ],
  });
  await attachProfile(svc.db, photo, list.uuid);
  const site = await svc.db.selectFrom('websites').select(['id', 'title']).where('urlname', '=', w.urlname).executeTakeFirstOrThrow();
  await svc.core.shopSettings.update(w.user, w.urlname, { taxRate: 2000, taxIncluded: true, manualInstructions: INSTRUCTIONS });
  return { w, home: `${svc.url}/sites/${w.urlname}`, title: site.title, websiteId: site.id, profile: list.uuid, photo };
}

/** A form posted from the website's own pages, with the cart cookie; the reply. */
async function post(s: Site, path: string, form: Record<string, string>, cookie?: string): Promise<Response> {
  return fetch(`${s.home}/_cart/${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(s.home).origin, ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(form).toString(),
  });
}

/** Web and Original of the photo in a new cart, checked out by hand as `email`; the order's UUID. */
async function checkout(s: Site, email: string): Promise<string> {
  const added = await post(s, 'add', { media: s.photo, choice: `${s.profile}:Web` });
  expect(added.status).toBe(303);
  const cookie = /cart=[^;]+/.exec(added.headers.get('set-cookie') ?? '')![0];
  expect((await post(s, 'add', { media: s.photo, choice: `${s.profile}:Original` }, cookie)).status).toBe(303);
  const placed = await post(s, 'checkout', { email, name: 'Ann Buyer', method: 'manual' }, cookie);
  expect(placed.status).toBe(303);
  return /\/_cart\/order\/([0-9a-f-]{36})$/.exec(placed.headers.get('location') ?? '')![1];
}

const textOf = (m: ReceivedMail) => (partsOf(m.raw).get('text/plain') ?? '').replace(/\r\n/g, '\n');
const htmlOf = (m: ReceivedMail) => partsOf(m.raw).get('text/html') ?? '';
const subjectOf = (m: ReceivedMail) => /^Subject: (.*)$/m.exec(m.raw)?.[1].trim();

eachDatabase((kind: DbKind) => {
  describe('the mails of a new order', () => {
    let smtp: TestSmtp;
    let s: Site;

    beforeAll(async () => {
      smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
      const svc = await TestService.start(kind, {
        SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`,
        MAIL_FROM: 'photos@example.com',
        VISITOR_RATE_LIMIT: 'off',
        SITE_CACHE_SECONDS: '0',
        PAYMENT_SECRETS_KEY: randomBytes(32).toString('hex'),
      });
      s = await sellingSite(svc);
    }, 180_000);
    afterAll(async () => {
      await s?.w.svc.close();
      await smtp?.close();
    });

    const settled = () => s.w.svc.service.visitors.mailer.idle();
    const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));

    it('mails the buyer "order received" (items, total, how to pay) and the photographer a notice with the order in the API, once each', { timeout: 60_000 }, async () => {
      const buyer = `ann-${kind}@example.com`;
      const before = smtp.mails.length;
      const uuid = await checkout(s, buyer);
      await settled();
      const toBuyer = mailsTo(buyer);
      const toOwner = mailsTo(s.w.user.email).filter((m) => m.raw.includes(uuid));
      expect([toBuyer.length, toOwner.length, smtp.mails.length - before]).toEqual([1, 1, 2]);

      const mine = textOf(toBuyer[0]);
      expect(subjectOf(toBuyer[0])).toBe(`Your order from ${s.title}`);
      expect(mine).toContain(`Thank you for your order from ${s.title}`);
      expect(mine).toContain(uuid);
      expect(mine).toContain('UPLOAD_0001.jpg: Web (1200 px) × 1 — 9.00 EUR');
      expect(mine).toContain('UPLOAD_0001.jpg: Original (original file) × 1 — 49.00 EUR');
      // 58.00 with 20 % tax included: 58.00 × 20 / 120 = 9.67.
      expect(mine).toContain('Tax included (20 %): 9.67 EUR');
      expect(mine).toContain('Total: 58.00 EUR');
      expect(mine).toContain(`How to pay:\n${INSTRUCTIONS}\n`);
      expect(mine).not.toContain('by card');
      // Nothing of what the buyer typed: anyone may type anyone's address at a checkout.
      expect(mine).not.toContain('Ann Buyer');
      expect(htmlOf(toBuyer[0])).toContain('Bank transfer to IBAN DE00 1234 5678<br/>Reference: your order number');

      const theirs = textOf(toOwner[0]);
      expect(subjectOf(toOwner[0])).toBe(`New order on ${s.title}: 58.00 EUR`);
      expect(theirs).toContain(`Ann Buyer <${buyer}> ordered on ${s.title}`);
      expect(theirs).toContain('Total: 58.00 EUR');
      const link = `${s.w.svc.url}/studio/shop/orders/${uuid}`;
      expect(theirs).toContain(link);
      expect(theirs).toContain('PUT /orders/<uuid>.xml');
      // The link is the order's page in the studio; the API's order is the photographer's own too.
      const order = await s.w.client.request('GET', `/orders/${uuid}.xml`);
      expect([text(order.doc, 'order/status'), text(order.doc, 'order/email')]).toEqual(['pending', buyer]);

      // Paid by hand: the downloads mail follows (saying the payment was received), no second "order received".
      await s.w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'paid' });
      const paid = await until('the downloads mail', () => mailsTo(buyer).find((m) => subjectOf(m)?.startsWith('Your downloads')));
      expect(textOf(paid)).toContain('Payment received');
      await s.w.svc.jobsSettled();
      await settled();
      expect(mailsTo(buyer)).toHaveLength(2);
      expect(mailsTo(s.w.user.email).filter((m) => m.raw.includes(uuid))).toHaveLength(1);
    });

    it('gives the default words without instructions, and says a card payment is confirmed apart when the website takes cards', { timeout: 60_000 }, async () => {
      await s.w.svc.core.shopSettings.update(s.w.user, s.w.urlname, { taxRate: 0, taxIncluded: true, manualInstructions: null });
      const bob = `bob-${kind}@example.com`;
      await checkout(s, bob);
      await settled();
      const plain = textOf(mailsTo(bob)[0]);
      expect(plain).toContain('How to pay:\nThe photographer will contact you by e-mail about the payment.');
      expect(plain).not.toContain('Tax');

      await s.w.svc.core.stripe.configure(s.w.user, { secretKey: `sk_test_${randomBytes(16).toString('hex')}`, webhookSecret: `whsec_${randomBytes(16).toString('hex')}` });
      const cy = `cy-${kind}@example.com`;
      await checkout(s, cy);
      await settled();
      const card = textOf(mailsTo(cy)[0]);
      expect(card).toContain('If you paid by card, you get a second mail once the payment is confirmed. If you chose to pay otherwise:\nThe photographer will contact you');
    });
  });

  describe('the mails of a new order with the mail server down', () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger: Logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
    let s: Site;

    beforeAll(async () => {
      const port = await freePort();
      const svc = await TestService.start(kind, { SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${port}`, VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' }, logger);
      s = await sellingSite(svc);
    }, 180_000);
    afterAll(() => s?.w.svc.close());

    it('places the order all the same and logs both failures, without the SMTP password', { timeout: 60_000 }, async () => {
      const uuid = await checkout(s, `dan-${kind}@example.com`);
      const order = await s.w.client.request('GET', `/orders/${uuid}.xml`);
      expect(text(order.doc, 'order/status')).toBe('pending');
      await s.w.svc.service.visitors.mailer.idle();
      const failed = await until('the logged failures', () => {
        const f = lines.filter((l) => l.msg === 'order received mail could not be sent' || l.msg === 'new order mail could not be sent');
        return f.length === 2 ? f : undefined;
      });
      expect(failed.map((f) => f.level)).toEqual([50, 50]);
      expect(JSON.stringify(lines)).not.toContain('s3cret');
      // The website still sells.
      expect((await fetch(`${s.home}/_cart`)).status).toBe(200);
    });
  });
});

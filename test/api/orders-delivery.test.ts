// Delivery of a paid order's downloads (docs/shop.md "Delivery") on a started
// service with its worker and a real SMTP server: nothing before payment; once
// paid, the job makes each bought file from the original (an sRGB JPEG at the
// item's long edge, or the original byte for byte) and the buyer gets one mail
// with one link to the order's page; links stop after 30 days and after a refund.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { find, text } from '../../src/client/xml.js';
import { startS3, type LocalS3 } from './uploads-support.js';
import { until } from '../support/crash.js';
import { eachDatabase } from '../support/service.js';
import { openShop, placeOrder, type Shop } from '../support/shop.js';
import { partsOf, startSmtp, type ReceivedMail, type TestSmtp } from '../support/smtp.js';
import { failure, startWorld, worldOn, type World } from '../support/world.js';
import { TestService } from '../support/service.js';

const PAGE = /https?:\/\/[^\s"<>]+\/downloads\/[A-Za-z0-9_-]{32}/;
const isDownloadsMail = (m: ReceivedMail) => /^Subject: Your downloads from /m.test(m.raw);

/** A photo-like JPEG in Display P3-free sRGB with EXIF credits, 2400 × 1600. */
async function photo(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="2400" height="1600"><defs><linearGradient id="g"><stop offset="0" stop-color="#2060a0"/><stop offset="1" stop-color="#e0c040"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 85 }).withExif({ IFD0: { Copyright: 'Copyright Jane Doe', Artist: 'Jane Doe' } }).toBuffer();
}

eachDatabase((kind) => {
  let smtp: TestSmtp;
  let w: World;
  let shop: Shop;
  let original: Buffer;

  beforeAll(async () => {
    smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
    w = await startWorld(kind, { SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'photos@example.com' });
    original = await photo();
    const res = await w.client.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'harbour.jpg', data: original } });
    const media = text(res.doc, 'media/uuid')!;
    await w.svc.jobsSettled();
    shop = await openShop(w.svc.core, w.user, { media });
  }, 120_000);
  afterAll(async () => {
    await w?.svc.close();
    await smtp?.close();
  });

  // The downloads mails: each order's buyer also gets "order received" when it is placed (orders-mails.test.ts).
  const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email) && isDownloadsMail(m));

  it('delivers nothing before payment; once paid, mails one link to a page of files at their sizes and the original byte for byte', { timeout: 60_000 }, async () => {
    const email = `buyer-${kind}@example.com`;
    const uuid = await placeOrder(w.svc.core, shop, { email, lines: [{ item: 'Web' }, { item: 'Original file' }, { profile: shop.prints, item: 'Paper', option: 'A3' }] });
    const pending = await w.svc.core.orders.get(shop.owner, uuid);
    expect(pending.download_token).toBeNull();
    expect(await w.svc.db.selectFrom('jobs').select('id').where('kind', '=', 'order-delivery').execute()).toEqual([]);

    await w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'paid' });
    const mail = await until('the downloads mail', () => mailsTo(email)[0]);
    const textPart = partsOf(mail.raw).get('text/plain') ?? '';
    const link = PAGE.exec(textPart)?.[0];
    expect(link, textPart).toBeDefined();
    expect(link!.startsWith(w.svc.url)).toBe(true);

    const page = await fetch(link!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    // Each file (the page's "all as one ZIP" link apart).
    const hrefs = [...html.matchAll(/href="(\/downloads\/[^"]+\/\d+)"/g)].map((m) => m[1]);
    expect(hrefs).toHaveLength(2);
    expect(html).toContain('/all.zip');

    const sized = await fetch(w.svc.url + hrefs[0]);
    expect([sized.status, sized.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
    expect(sized.headers.get('content-disposition')).toMatch(/^attachment; filename="harbour-1200px\.jpg"/);
    const meta = await sharp(Buffer.from(await sized.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height, meta.space]).toEqual(['jpeg', 1200, 800, 'srgb']);
    expect(meta.icc).toBeDefined();

    const whole = await fetch(w.svc.url + hrefs[1]);
    expect(whole.headers.get('content-disposition')).toMatch(/^attachment; filename="harbour\.jpg"/);
    expect(Buffer.from(await whole.arrayBuffer()).equals(original)).toBe(true);

    const delivered = await w.svc.core.orders.get(shop.owner, uuid);
    expect(delivered.delivered_at).not.toBeNull();
    // One mail, however the job ran.
    await w.svc.jobsSettled();
    expect(mailsTo(email)).toHaveLength(1);
  });

  it('answers 404 for an unknown or unpaid token and 410 once the 30 days are over; the photographer extends and resends; a refund takes the files away', { timeout: 60_000 }, async () => {
    expect((await fetch(`${w.svc.url}/downloads/${'A'.repeat(32)}`)).status).toBe(404);
    expect((await fetch(`${w.svc.url}/downloads/..%2F..%2Fetc`)).status).toBe(404);
    const email = `late-${kind}@example.com`;
    const uuid = await placeOrder(w.svc.core, shop, { email, lines: [{ item: 'Web' }] });
    await w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'paid' });
    const link = PAGE.exec(partsOf((await until('the mail', () => mailsTo(email)[0])).raw).get('text/plain') ?? '')![0];
    expect((await fetch(`${link}/1`)).status).toBe(200);
    expect((await fetch(`${link}/2`)).status).toBe(404);
    expect((await fetch(`${link}/0`)).status).toBe(404);
    const order = await w.svc.core.orders.get(shop.owner, uuid);
    await w.svc.db.updateTable('orders').set({ downloads_expire_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', order.id).execute();
    expect((await fetch(link)).status).toBe(410);
    expect((await fetch(`${link}/1`)).status).toBe(410);
    // The photographer extends the links and mails them again: the page opens, a second mail names the new end.
    const extended = find((await w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[download_days]': 10, 'order[resend]': 1 })).doc, 'order')!;
    expect(new Date(text(extended, 'downloads-expire-at')!).getTime()).toBeGreaterThan(Date.now() + 9 * 86_400_000);
    expect((await fetch(link)).status).toBe(200);
    const again = await until('the second mail', () => mailsTo(email)[1]);
    expect(partsOf(again.raw).get('text/plain')).toContain(link);
    expect(partsOf(again.raw).get('text/plain')).toContain(new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10));
    expect((await failure(w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[download_days]': 366 }))).status).toBe(422);
    await w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'refunded' });
    expect((await failure(w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[resend]': 1 }))).status).toBe(409);
    expect((await fetch(link)).status).toBe(404);
    expect((await fetch(`${link}/1`)).status).toBe(404);
  });
});

describe('with the files in S3', () => {
  let s3: LocalS3;
  let smtp: TestSmtp;
  let w: World;

  beforeAll(async () => {
    s3 = await startS3();
    smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
    w = await worldOn(await TestService.start('sqlite', { ...s3.env, SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'photos@example.com' }));
  }, 120_000);
  afterAll(async () => {
    await w?.svc.close();
    await smtp?.close();
    await s3?.close();
  });

  it('makes the sized file and copies the original byte for byte from the bucket', { timeout: 60_000 }, async () => {
    const original = await photo();
    const res = await w.client.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'harbour.jpg', data: original } });
    await w.svc.jobsSettled();
    const shop = await openShop(w.svc.core, w.user, { media: text(res.doc, 'media/uuid')! });
    const uuid = await placeOrder(w.svc.core, shop, { email: 's3@example.com', lines: [{ item: 'Web' }, { item: 'Original file' }] });
    await w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'paid' });
    const mail = await until('the downloads mail', () => smtp.mails.find((m) => m.to.includes('s3@example.com') && isDownloadsMail(m)));
    const link = PAGE.exec(partsOf(mail.raw).get('text/plain') ?? '')![0];
    const keys = (await w.svc.core.orders.get(shop.owner, uuid)).items.map((i) => i.file_key);
    expect(keys.every((k) => k?.startsWith(`orders/${uuid}/`))).toBe(true);
    const sized = Buffer.from(await (await fetch(`${link}/1`)).arrayBuffer());
    expect(await sharp(sized).metadata()).toMatchObject({ format: 'jpeg', width: 1200, height: 800, space: 'srgb' });
    expect(Buffer.from(await (await fetch(`${link}/2`)).arrayBuffer()).equals(original)).toBe(true);
  });
});

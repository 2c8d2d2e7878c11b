// Prints and whole galleries through HTTP (docs/shop.md "Prints", "Whole galleries"), on a
// started service with its worker and a real SMTP server: a visitor buys two downloads and a
// print on the website, pays by hand; the lab gets the order sheet by mail, the photographer
// marks the order shipped and the buyer is mailed the tracking link; the sheet's signed file
// links; a gallery sold whole is delivered as a ZIP of all its photos; tampered forms and API
// fields are 4xx, never 5xx, and write nothing.
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, find, text } from '../../src/client/xml.js';
import { until } from '../support/crash.js';
import { updateMedia } from '../support/media.js';
import { eachDatabase } from '../support/service.js';
import { partsOf, startSmtp, type TestSmtp } from '../support/smtp.js';
import { failure, rejection, startWorld, type World } from '../support/world.js';
import { readZip } from '../site/archive-support.js';
import { cookieOf, uploadPhoto, visit, waitForRenditions } from '../site/site-support.js';

const PAGE = /https?:\/\/[^\s"<>]+\/downloads\/[A-Za-z0-9_-]{32}/;
const ADDRESS = { ship_name: 'Ann Buyer', ship_line1: '1 Harbour Lane', ship_line2: '', ship_postcode: 'SW1A 1AA', ship_city: 'London', ship_country: 'United Kingdom' };

/** Every leaf part of a MIME message (nested multiparts opened), by content type. */
function leafParts(raw: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (chunk: string) => {
    for (const [type, body] of partsOf(chunk)) {
      if (type.startsWith('multipart/')) continue;
      out.set(type, body);
    }
    const boundary = /boundary="?([^";\r\n]+)"?/i.exec(chunk)?.[1];
    if (!boundary) return;
    for (const c of chunk.split(`--${boundary}`).slice(1, -1)) if (/content-type:\s*multipart\//i.test(c.slice(0, c.indexOf('\r\n\r\n')))) walk(c.slice(c.indexOf('\r\n') + 2));
  };
  walk(raw);
  return out;
}

/** A signed GET of a reply that is not XML (the sheet's CSV): its status, type and body. */
async function rawGet(client: World['client'], path: string): Promise<{ status: number; type: string | null; body: string }> {
  const e = await rejection(client.request('GET', path));
  return { status: e.status, type: e.headers?.get('content-type') ?? null, body: e.body };
}

/** A semicolon CSV as the service writes it (every value quoted, CRLF). */
function csvRows(csv: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < csv.length) {
    if (csv[i] === '"') {
      let v = '';
      i++;
      for (;;) {
        if (csv[i] === '"' && csv[i + 1] === '"') (v += '"'), (i += 2);
        else if (csv[i] === '"') break;
        else v += csv[i++];
      }
      i++;
      row.push(v);
    }
    if (csv[i] === ';') i++;
    else if (csv[i] === '\r' && csv[i + 1] === '\n') {
      rows.push(row);
      row = [];
      i += 2;
    } else if (i < csv.length && csv[i] !== '"') throw new Error(`bad CSV at ${i}`);
  }
  return rows;
}

eachDatabase((kind) => {
  let smtp: TestSmtp;
  let w: World;
  let gallery: string;
  let downloads: string;
  let prints: string;
  const photos: string[] = [];
  const origin = () => ({ origin: w.svc.url });
  const site = (sub: string) => `/sites/${w.urlname}/_cart${sub}`;
  const mailsTo = (to: string, subject: RegExp) => smtp.mails.filter((m) => m.to.includes(to) && subject.test(m.raw));
  const orderCount = async () => Number((await w.svc.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
    w = await startWorld(kind, { SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'photos@example.com', VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0', JOB_POLL_MS: '50' });
    gallery = text((await w.client.createGallery(w.urlname, { name: 'Prints', parent: w.rootUuid })).doc, 'gallery/uuid')!;
    for (let i = 0; i < 3; i++) photos.push(await uploadPhoto(w, gallery, i, 1800));
    expect(await waitForRenditions(w, photos)).toBe(true);
    const created = async (params: Record<string, string>) => text((await w.client.request('POST', '/pricing_profiles.xml', params)).doc, 'pricing-profile/uuid')!;
    downloads = await created({
      'pricing_profile[name]': 'Downloads',
      'pricing_profile[kind]': 'download',
      'pricing_profile[currency]': 'EUR',
      'pricing_profile[items][0][label]': 'Web',
      'pricing_profile[items][0][long_edge]': '1200',
      'pricing_profile[items][0][price]': '900',
      'pricing_profile[items][1][label]': 'Original',
      'pricing_profile[items][1][long_edge]': '',
      'pricing_profile[items][1][price]': '4900',
    });
    prints = await created({
      'pricing_profile[name]': 'Fine art prints',
      'pricing_profile[kind]': 'print',
      'pricing_profile[currency]': 'EUR',
      'pricing_profile[minimum_price]': '2500',
      'pricing_profile[items][0][label]': 'Photo Rag',
      'pricing_profile[items][0][price]': '10000',
      'pricing_profile[items][0][options][0][label]': 'A4',
      'pricing_profile[items][0][options][0][ratio]': '200',
      'pricing_profile[items][0][options][1][label]': 'A3',
      'pricing_profile[items][0][options][1][ratio]': '300',
    });
    for (const p of photos.slice(0, 2)) await updateMedia(w.client, p, { 'media[add_pricing_profiles]': [downloads, prints] });
    await w.client.request('PUT', '/lab.xml', { 'lab[email]': 'lab@example.com', 'lab[auto]': '1' });
  }, 180_000);
  afterAll(async () => {
    await w?.svc.close();
    await smtp?.close();
  });

  /** A cart of this website holding `choices` (media, choice), through the website's own forms: its cookie. */
  async function cartOf(choices: Array<[string, string]>): Promise<string> {
    let cookie: string | undefined;
    for (const [media, choice] of choices) {
      const res = await visit(w.svc, site('/add'), { form: { media, choice }, cookie, headers: origin() });
      expect(res.status, res.body).toBe(303);
      cookie ??= cookieOf(res);
    }
    return cookie!;
  }

  it('sells two downloads and a print: the address asked, the lab mailed the sheet, the buyer mailed when shipped', { timeout: 90_000 }, async () => {
    const buyer = `buyer-${kind}@example.com`;
    const cookie = await cartOf([
      [photos[0], `${downloads}:Web`],
      [photos[1], `${downloads}:Original`],
      [photos[0], `${prints}:Photo Rag\tA3`],
    ]);
    const cart = await visit(w.svc, site(''), { cookie });
    expect(cart.body).toContain('Delivery address (for your prints)');
    expect(cart.body).toContain('Print: Photo Rag, A3');
    expect(cart.body).toContain('€150.00');
    expect(cart.body).toContain('€208.00');

    // No address: a 422 naming the part, the cart kept, no order.
    const before = await orderCount();
    const refused = await visit(w.svc, site('/checkout'), { form: { email: buyer, method: 'manual' }, cookie, headers: origin() });
    expect(refused.status).toBe(422);
    expect(refused.body).toContain('The name for delivery');
    expect(await orderCount()).toBe(before);

    const placed = await visit(w.svc, site('/checkout'), { form: { email: buyer, name: 'Ann Buyer', method: 'manual', ...ADDRESS }, cookie, headers: origin() });
    expect(placed.status, placed.body).toBe(303);
    const uuid = /order\/([0-9a-f-]{36})$/.exec(String(placed.headers.location))![1];
    const orderPage = await visit(w.svc, site(`/order/${uuid}`), { cookie: String(placed.headers['set-cookie']).match(/orders=[^;]+/)![0] });
    expect(orderPage.body).toContain('1 Harbour Lane');

    const order = find((await w.client.request('GET', `/orders/${uuid}.xml`)).doc, 'order')!;
    expect(text(order, 'total')).toBe('20800');
    expect(['name', 'line1', 'postcode', 'city', 'country'].map((p) => text(order, `address/${p}`))).toEqual(['Ann Buyer', '1 Harbour Lane', 'SW1A 1AA', 'London', 'United Kingdom']);
    expect(all(order, 'items/item/kind').map((n) => n.text)).toEqual(['download', 'download', 'print']);

    // Shipping before payment is refused; paid, the lab gets the sheet, the buyer the downloads.
    expect((await failure(w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'shipped', 'order[tracking_url]': 'https://track.example/1' }))).status).toBe(409);
    await w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'paid' });
    const labMail = await until('the lab mail', () => mailsTo('lab@example.com', new RegExp(`Subject: Print order ${uuid.slice(0, 8).toUpperCase()}`))[0]);
    const attached = leafParts(labMail.raw).get('text/csv')!;
    expect(labMail.raw).toMatch(/filename="?order_[0-9a-f]{8}_prints\.csv/);
    const rows = csvRows(attached);
    expect(rows).toHaveLength(2);
    const head = rows[0];
    const row = Object.fromEntries(head.map((h, n) => [h, rows[1][n]]));
    expect(row).toMatchObject({ 'order id': uuid, 'media uuid': photos[0], product: 'Photo Rag', option: 'A3', quantity: '1', name: 'Ann Buyer', address: '1 Harbour Lane', postcode: 'SW1A 1AA', city: 'London', country: 'United Kingdom' });
    expect(row.pixels).toMatch(/^1800x\d+$/);
    const link = row['file link'];
    expect(link.startsWith(`${w.svc.url}/print-files/${uuid}/3?`)).toBe(true);
    const file = await fetch(link);
    expect([file.status, file.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
    expect((await sharp(Buffer.from(await file.arrayBuffer())).metadata()).width).toBe(1800);
    // A tampered or moved link opens nothing.
    expect((await fetch(link.replace(/s=[^&]+/, 's=AAAA'))).status).toBe(404);
    expect((await fetch(link.replace('/3?', '/1?'))).status).toBe(404);
    expect((await fetch(link.replace(/e=\d+/, 'e=9999999999'))).status).toBe(404);
    expect(text(find((await w.client.request('GET', `/orders/${uuid}.xml`)).doc, 'order')!, 'lab-sent-at')).toBeTruthy();

    // The same sheet from the API.
    const sheet = await rawGet(w.client, `/orders/${uuid}/sheet.csv`);
    expect(sheet.status).toBe(200);
    expect(sheet.type).toBe('text/csv; charset=utf-8');
    expect(csvRows(sheet.body).map((r) => r.slice(0, 7))).toEqual(rows.map((r) => r.slice(0, 7)));

    const dl = await until('the downloads mail', () => mailsTo(buyer, /^Subject: Your downloads from /m)[0]);
    const page = PAGE.exec(partsOf(dl.raw).get('text/plain') ?? '')![0];

    // Shipped: the tracking link checked, the buyer mailed.
    for (const bad of ['javascript:alert(1)', 'ftp://track.example/1', 'track.example/1', `https://${'a'.repeat(2100)}.example`, 'https://user:pw@track.example/']) {
      expect((await failure(w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'shipped', 'order[tracking_url]': bad }))).status).toBe(422);
    }
    expect((await failure(w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[tracking_url]': 'https://track.example/1' }))).status).toBe(422);
    const shipped = find((await w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'shipped', 'order[tracking_url]': 'https://track.example/parcel?id=42' })).doc, 'order')!;
    expect([text(shipped, 'status'), text(shipped, 'tracking-url')]).toEqual(['shipped', 'https://track.example/parcel?id=42']);
    const shippedMail = await until('the shipped mail', () => mailsTo(buyer, /on their way/)[0]);
    expect(partsOf(shippedMail.raw).get('text/plain')).toContain('https://track.example/parcel?id=42');
    expect(partsOf(shippedMail.raw).get('text/plain')).toContain('SW1A 1AA London');
    // A shipped order's downloads still open; the export says paid and lists the address under the buyer.
    expect((await fetch(page)).status).toBe(200);
    expect(all((await w.client.request('GET', '/orders.xml', { status: 'shipped' })).doc, 'orders/order/uuid').map((n) => n.text)).toContain(uuid);
    const exported = csvRows((await w.svc.core.orders.export(w.user)).report);
    const line = exported.find((r) => r[0] === uuid)!;
    expect(line[1].split('\n')).toEqual(['Ann Buyer', buyer, '1 Harbour Lane', 'SW1A 1AA London', 'United Kingdom']);
    expect(line[2]).toBe('paid');
  });

  it('sells a gallery whole: set through the API, bought on its page, delivered as a ZIP of every photo at the size', { timeout: 90_000 }, async () => {
    const sale = (params: Record<string, string>) => w.client.request('PUT', `/galleries/${gallery}/sale.xml`, params);
    const bad: Array<Record<string, string>> = [
      { 'sale[pricing_profile]': downloads, 'sale[item]': 'Web', 'sale[price]': '-1' },
      { 'sale[pricing_profile]': downloads, 'sale[item]': 'Web', 'sale[price]': '1.5' },
      { 'sale[pricing_profile]': downloads, 'sale[item]': 'Nope', 'sale[price]': '100' },
      { 'sale[pricing_profile]': prints, 'sale[item]': 'Photo Rag', 'sale[price]': '100' },
      { 'sale[pricing_profile]': '0c6f5a8e-0000-4000-8000-000000000000', 'sale[item]': 'Web', 'sale[price]': '100' },
      { 'sale[pricing_profile]': downloads, 'sale[price]': '100' },
    ];
    for (const params of bad) expect((await failure(sale(params))).status, JSON.stringify(params)).toBe(422);
    // A price beyond the spec's bound (orders/fields.ts), refused at sale[price] as the studio's card refuses it.
    expect(await failure(sale({ 'sale[pricing_profile]': downloads, 'sale[item]': 'Web', 'sale[price]': '1000000001' }))).toEqual({ status: 422, message: 'parameter sale[price] must be at most 1000000000' });
    expect((await failure(sale({ 'sale[price]': '100', 'sale[evil]': '1' }))).status).toBe(400);
    expect((await failure(w.client.request('PUT', '/galleries/0c6f5a8e-0000-4000-8000-000000000000/sale.xml', bad[0]))).status).toBe(404);
    expect(text((await w.client.request('GET', `/galleries/${gallery}/sale.xml`)).doc, 'sale/for-sale')).toBe('false');
    const set = find((await sale({ 'sale[pricing_profile]': downloads, 'sale[item]': 'Web', 'sale[price]': '5000' })).doc, 'sale')!;
    expect([text(set, 'for-sale'), text(set, 'price'), text(set, 'long-edge'), text(set, 'medias')]).toEqual(['true', '5000', '1200', '3']);

    const pageHtml = (await visit(w.svc, `/sites/${w.urlname}/-/prints`)).body;
    expect(pageHtml).toContain('Buy the whole gallery');
    expect(pageHtml).toContain('€50.00');
    const added = await visit(w.svc, site('/gallery'), { form: { gallery }, headers: origin() });
    expect(added.status).toBe(303);
    const cookie = cookieOf(added)!;
    // Twice is still once.
    await visit(w.svc, site('/gallery'), { form: { gallery }, cookie, headers: origin() });
    const cart = await visit(w.svc, site(''), { cookie });
    expect(cart.body).toContain('The whole gallery: Web (1200 px)');
    expect(cart.body).not.toContain('Delivery address');
    expect(cart.body).toContain('Place the order · €50.00');
    const buyer = `gallery-${kind}@example.com`;
    const placed = await visit(w.svc, site('/checkout'), { form: { email: buyer, method: 'manual' }, cookie, headers: origin() });
    expect(placed.status).toBe(303);
    const uuid = /order\/([0-9a-f-]{36})$/.exec(String(placed.headers.location))![1];
    const order = find((await w.client.request('GET', `/orders/${uuid}.xml`)).doc, 'order')!;
    expect([text(order, 'total'), text(order, 'items/item/kind'), text(order, 'items/item/gallery-uuid'), text(order, 'items/item/gallery-name')]).toEqual(['5000', 'gallery', gallery, 'Prints']);
    expect(find(order, 'address')?.attrs.nil).toBe('true');

    await w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'paid' });
    const mail = await until('the downloads mail', () => mailsTo(buyer, /^Subject: Your downloads from /m)[0]);
    const link = PAGE.exec(partsOf(mail.raw).get('text/plain') ?? '')![0];
    const html = await (await fetch(link)).text();
    expect([...html.matchAll(/href="\/downloads\/[^/"]+\/g\d+"/g)]).toHaveLength(3);
    const zip = await fetch(`${link}/all.zip`);
    expect([zip.status, zip.headers.get('content-type')]).toEqual([200, 'application/zip']);
    const { entries, files } = await readZip(Buffer.from(await zip.arrayBuffer()));
    expect(entries.map((e) => e.name).sort()).toEqual(['UPLOAD_0001-1200px.jpg', 'UPLOAD_0002-1200px.jpg', 'UPLOAD_0003-1200px.jpg']);
    for (const bytes of files.values()) expect((await sharp(bytes).metadata()).width).toBe(1200);
    // The lab is not bothered with an order without prints.
    expect(mailsTo('lab@example.com', new RegExp(uuid.slice(0, 8).toUpperCase()))).toEqual([]);
    // Stopping the sale takes the button off.
    await sale({ 'sale[price]': '' });
    expect((await visit(w.svc, `/sites/${w.urlname}/-/prints`)).body).not.toContain('Buy the whole gallery');
    expect((await visit(w.svc, site('/gallery'), { form: { gallery }, headers: origin() })).status).toBe(422);
  });

  it('refuses tampered forms and fields with a 4xx, never a 5xx, and writes nothing', { timeout: 60_000 }, async () => {
    const cookie = await cartOf([[photos[0], `${prints}:Photo Rag\tA4`]]);
    const before = await orderCount();
    const forms: Array<[string, Record<string, string>, number]> = [
      ['/add', { media: photos[0], choice: `${prints}:Photo Rag\tA9` }, 422],
      ['/add', { media: photos[0], choice: `${prints}:Photo Rag\tA4\tA3` }, 422],
      ['/add', { media: photos[0], choice: `${prints}:Nope` }, 422],
      ['/add', { media: photos[0], choice: `${downloads}:Web\tA4` }, 422],
      ['/add', { media: photos[2], choice: `${prints}:Photo Rag\tA4` }, 422],
      ['/add', { media: '0c6f5a8e-0000-4000-8000-000000000000', choice: `${prints}:Photo Rag\tA4` }, 404],
      ['/update', { media: photos[0], choice: `${prints}:Photo Rag\tA4`, quantity: '-1' }, 422],
      ['/update', { media: photos[0], choice: `${prints}:Photo Rag\tA4`, quantity: '101' }, 422],
      ['/update', { media: photos[0], choice: `${prints}:Photo Rag\tA3`, quantity: '2' }, 422],
      ['/update', { gallery, remove: '1' }, 422],
      ['/gallery', { gallery: '0c6f5a8e-0000-4000-8000-000000000000' }, 404],
      ['/gallery', { gallery: 'x' }, 404],
      ['/checkout', { email: 'a@example.com', method: 'manual', ...ADDRESS, ship_line1: 'x'.repeat(201) }, 422],
      ['/checkout', { email: 'a@example.com', method: 'manual', ...ADDRESS, ship_city: 'Lon\u0000don' }, 422],
      ['/checkout', { email: 'a@example.com', method: 'manual', ...ADDRESS, ship_postcode: '<script>' }, 422],
      ['/checkout', { email: 'a@example.com', method: 'manual', ...ADDRESS, ship_country: 'X' }, 422],
      ['/checkout', { email: 'a@example.com', method: 'manual', ...ADDRESS, ship_city: '' }, 422],
    ];
    for (const [sub, form, status] of forms) {
      const res = await visit(w.svc, site(sub), { form, cookie, headers: origin() });
      expect(res.status, `${sub} ${JSON.stringify(form)}: ${res.body.slice(0, 200)}`).toBe(status);
    }
    expect(await orderCount()).toBe(before);
    // The cart is as it was: the one A4 print.
    const cart = await visit(w.svc, site(''), { cookie });
    expect(cart.body).toContain('Print: Photo Rag, A4');
    expect(cart.body).toContain('€100.00');

    // The API's new fields.
    const download = await (async () => {
      const c = await cartOf([[photos[0], `${downloads}:Web`]]);
      const res = await visit(w.svc, site('/checkout'), { form: { email: 'dl@example.com', method: 'manual' }, cookie: c, headers: origin() });
      return /order\/([0-9a-f-]{36})$/.exec(String(res.headers.location))![1];
    })();
    await w.client.request('PUT', `/orders/${download}.xml`, { 'order[status]': 'paid' });
    // Thunks: a request starts when its turn comes (a refusal waiting unobserved is an unhandled rejection).
    const refusals: Array<[() => Promise<unknown>, number]> = [
      [() => w.client.request('PUT', `/orders/${download}.xml`, { 'order[status]': 'shipped', 'order[tracking_url]': 'https://track.example/1' }), 409],
      [() => w.client.request('PUT', `/orders/${download}.xml`, { 'order[status]': 'shipped' }), 422],
      [() => w.client.request('PUT', `/orders/${download}.xml`, { 'order[send_to_lab]': '1' }), 409],
      [() => w.client.request('PUT', `/orders/${download}.xml`, { 'order[send_to_lab]': 'maybe' }), 422],
      [() => w.client.request('GET', `/orders/${download}/sheet.csv`), 409],
      [() => w.client.request('GET', '/orders/0c6f5a8e-0000-4000-8000-000000000000/sheet.csv'), 404],
      [() => w.client.request('PUT', '/lab.xml', { 'lab[email]': 'not an address' }), 422],
      [() => w.client.request('PUT', '/lab.xml', { 'lab[auto]': 'perhaps' }), 422],
      [() => w.client.request('PUT', '/lab.xml', { 'lab[email]': `${'a'.repeat(250)}@example.com` }), 422],
    ];
    for (const [call, status] of refusals) expect((await failure(call())).status).toBe(status);
    // Worded with the field's API name, as the lab's spec (orders/fields.ts) words it on every face.
    expect(await failure(w.client.request('PUT', '/lab.xml', { 'lab[email]': 'not an address' }))).toEqual({ status: 422, message: 'lab[email] must be an e-mail address such as orders@lab.example' });
    expect(text((await w.client.request('GET', '/lab.xml')).doc, 'lab/email')).toBe('lab@example.com');
    // Another photographer sees none of it.
    const other = await w.svc.user();
    const theirs = w.svc.client(w.app, other);
    expect((await failure(theirs.request('GET', `/galleries/${gallery}/sale.xml`))).status).toBe(404);
    expect((await failure(theirs.request('PUT', `/orders/${download}.xml`, { 'order[send_to_lab]': '1' }))).status).toBe(404);
    expect((await rawGet(theirs, `/orders/${download}/sheet.csv`)).status).toBe(404);
  });
});

// The studio's coupons, tax and terms, lab, a print order shipped and a gallery sold whole, in
// Chromium (docs/studio.md "Shop") at 1280×800 and 390×844 with touch, axe clean on every screen,
// nothing wider than the phone, no console error. SQLite + local files. Screenshots in
// /tmp/shots-shop2/ and test-artifacts/studio/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axe, chromiumPresent, launchChromium, uploadRealistic, waitForRenditions } from '../site/site-support.js';
import { openShop, placeOrder, type Shop } from '../support/shop.js';
import type { World } from '../support/world.js';
import { BACKENDS, startOn, type BackendWorld } from './studio-backends.js';
import { signInBrowser } from './studio-support.js';

const SHOTS = '/tmp/shots-shop2';
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'studio');
const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, phone: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, phone: true },
];

describe.skipIf(!chromiumPresent)('the studio’s coupons, tax, lab, shipping and whole-gallery sale in a browser', () => {
  let bw: BackendWorld;
  let w: World;
  let browser: Browser;
  let shop: Shop;

  beforeAll(async () => {
    bw = await startOn(BACKENDS[0]!);
    w = bw.w;
    const photo = await uploadRealistic(w, w.rootUuid, 1);
    await waitForRenditions(w, [photo]);
    shop = await openShop(w.svc.core, w.user, { media: photo });
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await bw?.close();
  });

  async function signedIn(size: (typeof SIZES)[number]) {
    const context = await browser.newContext({ viewport: size.viewport, isMobile: size.phone, hasTouch: size.phone, deviceScaleFactor: size.phone ? 2 : 1 });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400 && r.status() !== 422) problems.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().includes('status of 422')) problems.push(m.text());
    });
    await signInBrowser(page, w.svc.url, w.user);
    return { context, page, problems };
  }

  const click = (page: Page, phone: boolean, locator: ReturnType<Page['locator']>) => (phone ? locator.tap() : locator.click());
  async function shot(page: Page, size: string, name: string, fullPage = false) {
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} is wider than the screen`).toBeLessThanOrEqual(page.viewportSize()!.width);
    await page.screenshot({ path: join(SHOTS, `${name}-${size}.png`), fullPage });
    await page.screenshot({ path: join(ARTIFACTS, `shop-${name}-${size}.png`), fullPage });
    expect(await axe(page), name).toEqual([]);
  }

  for (const size of SIZES) {
    it(`runs coupons, tax and terms, the lab, shipping and the whole-gallery sale at ${size.name} size`, async () => {
      const phone = size.phone;
      const { context, page, problems } = await signedIn(size);
      await page.goto(`${w.svc.url}/studio/shop`);
      await click(page, phone, page.getByRole('navigation', { name: 'Shop' }).getByRole('link', { name: 'Coupons' }));
      await page.getByRole('heading', { name: 'Coupons', level: 1 }).waitFor();
      await page.goto(`${w.svc.url}/studio/shop/coupons?website=${shop.urlname}`);

      // A coupon refused at its field, then made.
      const code = `SPRING${size.name === 'phone' ? 'P' : 'D'}`;
      await page.getByLabel('Code').fill(code);
      await page.getByLabel('Amount off').fill('5.999');
      await page.getByLabel('Currency of the amount').selectOption('EUR');
      await click(page, phone, page.getByRole('button', { name: 'Create the coupon' }));
      await page.locator('#amount-error').waitFor();
      await shot(page, size.name, 'coupon-error', true);
      await page.getByLabel('Amount off').fill('');
      await page.getByLabel('Currency of the amount').selectOption('');
      await page.getByLabel('Percent off').fill('15');
      await page.getByLabel('Valid until (UTC)').fill('2027-03-31');
      await page.getByLabel('Maximum uses').fill('100');
      await click(page, phone, page.getByRole('button', { name: 'Create the coupon' }));
      await page.getByText('The coupon was created.').waitFor();
      expect(await page.locator('.cp-list').textContent()).toContain(code);
      await shot(page, size.name, 'coupons');
      await click(page, phone, page.getByRole('link', { name: code }));
      await page.getByRole('heading', { name: `Coupon ${code}` }).waitFor();
      await shot(page, size.name, 'coupon');
      await page.goBack();

      // Tax and terms; the lab.
      await click(page, phone, page.getByRole('navigation', { name: 'Shop' }).getByRole('link', { name: 'Tax, terms & lab' }));
      // The tab's own navigation ends before the next one starts (else the two race under load).
      await page.getByRole('heading', { name: 'Tax, terms & lab', level: 1 }).waitFor();
      await page.goto(`${w.svc.url}/studio/shop/settings?website=${shop.urlname}`);
      await page.getByLabel('Tax rate (%)').fill('20');
      await page.getByLabel('Its name on receipts').fill('VAT');
      await page.getByLabel('Terms of sale (Markdown)').fill('# Terms of sale\n\nPrints ship within **10 days**.');
      await click(page, phone, page.getByRole('button', { name: 'Save tax and terms' }));
      await page.getByText('Tax and terms were saved.').waitFor();
      await page.getByLabel(/Lab.s e-mail/).fill('orders@lab.example');
      await page.getByLabel('Send paid print orders automatically').check();
      await click(page, phone, page.getByRole('button', { name: 'Save the lab' }));
      await page.getByText('The lab was saved.').waitFor();
      expect(await page.getByLabel('Its name on receipts').inputValue()).toBe('VAT');
      await shot(page, size.name, 'settings', true);

      // A paid print order: the address, the sheet, the lab, shipped with a tracking link.
      const uuid = await placeOrder(w.svc.core, shop, { acceptTerms: true, email: `ann-${size.name}@example.com` });
      await w.svc.core.orders.setStatus(shop.owner, uuid, 'paid');
      await page.goto(`${w.svc.url}/studio/shop/orders/${uuid}`);
      await page.getByRole('heading', { name: 'Prints' }).waitFor();
      expect(await page.locator('.or-address').textContent()).toContain('1 Harbour Lane');
      await page.getByLabel('Tracking link').fill('javascript:alert(1)');
      await click(page, phone, page.getByRole('button', { name: 'Mark shipped' }));
      await page.locator('#tracking_url-error').waitFor();
      await page.getByLabel('Tracking link').fill('https://track.example/parcel/42');
      await click(page, phone, page.getByRole('button', { name: 'Mark shipped' }));
      await page.getByText('Marked shipped').waitFor();
      await page.locator('.or-prints').scrollIntoViewIfNeeded();
      await shot(page, size.name, 'order-shipped');
      const download = page.waitForEvent('download');
      await click(page, phone, page.getByRole('link', { name: 'Download the order sheet (CSV)' }));
      expect((await download).suggestedFilename()).toMatch(/^order_[0-9a-f]{8}_prints\.csv$/);

      // The whole-gallery sale beside "Sell these photos".
      await page.goto(`${w.svc.url}/studio/galleries/${w.rootUuid}`);
      await page.getByLabel('Size of the files').selectOption({ label: 'Downloads: Web (1200 px), EUR' });
      await page.getByLabel('Price of the whole gallery').fill('49');
      await click(page, phone, page.getByRole('button', { name: /Sell the gallery whole|Save the sale/ }));
      await page.locator('#whole-state').getByText('For sale whole').waitFor();
      await page.locator('#whole-sale').scrollIntoViewIfNeeded();
      await shot(page, size.name, 'gallery-sale');
      expect(problems).toEqual([]);
      await context.close();
    }, 180_000);
  }
});

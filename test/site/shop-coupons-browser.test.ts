// Coupons, taxes and terms on the website's cart (docs/shop.md "Coupons, taxes and terms"), in a
// real browser at desktop and phone sizes, axe clean: coupons refused with their reason, applied and
// removed; an added VAT line; checkout refused on the server without the terms, placed with them;
// the terms page. Then the cart's forms fuzzed over HTTP: 4xx, never 5xx, nothing half-written.
// SQLite and PostgreSQL. Screenshots go to test-artifacts/site/coupons-<database>-*.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { find, text } from '../../src/client/xml.js';
import { attachProfile } from '../support/shop.js';
import { eachDatabase, type DbKind } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { ARTIFACTS, axe, CHROMIUM, chromiumPresent, cookieOf, launchChromium, uploadPhoto, visit, waitForRenditions } from './site-support.js';

const TERMS = '## Licence\n\nDownloads are for **personal use** only. Questions: [the studio](https://example.com/contact).\n\n<script>alert(1)</script>';

if (!chromiumPresent && process.env.CI) {
  describe('coupons, taxes and terms in a browser', () => {
    it('finds chromium', () => {
      expect.fail(`${CHROMIUM} is missing: .ci/run installs the chromium package`);
    });
  });
}

eachDatabase((kind: DbKind) =>
  describe.skipIf(!chromiumPresent)('coupons, taxes and terms in a browser', () => {
    let w: World;
    let browser: Browser;
    let home: string;
    let profile: string;
    let photo: string;
    const errors: string[] = [];
    const shot = (p: Page, name: string) => p.screenshot({ path: join(ARTIFACTS, `coupons-${kind}-${name}.png`), fullPage: true });
    const orderCount = async () => Number((await w.svc.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

    async function newPage(width: number, height: number): Promise<Page> {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(`${m.text()} at ${m.location().url}`);
      });
      return page;
    }

    async function add(page: Page, item: string) {
      await page.goto(`${home}/-/prints/_/${photo}`);
      await page.locator('.offer label', { hasText: item }).locator('input').check();
      await Promise.all([page.waitForURL(`${home}/_cart`), page.locator('.offer button', { hasText: 'Add to cart' }).click()]);
    }

    async function applyCoupon(page: Page, code: string) {
      await page.locator('#coupon').fill(code);
      await Promise.all([page.waitForLoadState('load'), page.locator('form.inline button', { hasText: 'Apply' }).click()]);
    }

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      w = await startWorld(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0', JOB_POLL_MS: '50' });
      home = `${w.svc.url}/sites/${w.urlname}`;
      const g = await w.client.createGallery(w.urlname, { name: 'Prints', parent: w.rootUuid });
      photo = await uploadPhoto(w, text(g.doc, 'gallery/uuid')!, 0, 1800);
      expect(await waitForRenditions(w, [photo])).toBe(true);
      const list = await w.svc.core.pricingProfiles.createList(w.user, {
        name: 'Digital downloads',
        kind: 'download',
        currency: 'EUR',
        items: [
          { param: 'a', label: 'Web', longEdge: 1200, price: 900, options: [] },
          { param: 'b', label: 'Original', longEdge: null, price: 4900, options: [] },
        ],
      });
      profile = list.uuid;
      await attachProfile(w.svc.db, photo, profile);
      // Written as a photographer does: through the API.
      const at = `/websites/${w.urlname}`;
      await w.client.request('POST', `${at}/coupons.xml`, { 'coupon[code]': 'Spring15', 'coupon[percent]': '15' });
      await w.client.request('POST', `${at}/coupons.xml`, { 'coupon[code]': 'OLD', 'coupon[amount]': '500', 'coupon[currency]': 'EUR', 'coupon[valid_until]': '2020-01-01T00:00:00Z' });
      await w.client.request('POST', `${at}/coupons.xml`, { 'coupon[code]': 'GONE', 'coupon[percent]': '50', 'coupon[max_uses]': '1' });
      await w.svc.db.updateTable('coupons').set({ times_used: 1 }).where('code', '=', 'GONE').execute();
      await w.client.request('PUT', `${at}/shop_settings.xml`, { 'shop_settings[tax_rate]': '2000', 'shop_settings[tax_included]': '0', 'shop_settings[tax_label]': 'VAT', 'shop_settings[terms]': TERMS });
      browser = await launchChromium();
    }, 300_000);

    afterAll(async () => {
      await browser?.close();
      await w?.svc.close();
    });

    it('says why a coupon is refused, applies and removes one, adds the VAT, and checks out only with the terms accepted (desktop)', async () => {
      const page = await newPage(1280, 800);
      await add(page, 'Web');
      await add(page, 'Original');
      for (const [code, words] of [
        ['NOPE', 'This coupon code is not valid.'],
        ['old', 'This coupon has expired.'],
        ['gone', 'This coupon has been used up.'],
        ["<b>'x'</b>", 'This coupon code is not valid.'],
      ]) {
        await applyCoupon(page, code);
        expect(await page.locator('p.error[role="alert"]').textContent(), code).toBe(words);
        expect(await page.locator('#coupon').getAttribute('aria-invalid')).toBe('true');
      }
      expect(await axe(page)).toEqual([]);
      await shot(page, 'refused-desktop');
      // 9 + 49 = 58.00; 15 % off = 8.70; 20 % VAT added on 49.30 = 9.86; 59.16.
      await applyCoupon(page, 'spring15');
      expect(page.url()).toBe(`${home}/_cart`);
      expect(await page.locator('dl.totals').textContent()).toBe('Subtotal€58.00Coupon SPRING15−€8.70VAT (20 %)€9.86Total€59.16');
      await Promise.all([page.waitForURL(`${home}/_cart`), page.locator('form.coupon-off button').click()]);
      expect(await page.locator('dl.totals').textContent()).toBe('Subtotal€58.00VAT (20 %)€11.60Total€69.60');
      await applyCoupon(page, 'SPRING15');
      expect(await page.locator('dd.total').textContent()).toBe('€59.16');
      const termsLink = page.locator('label.accept a');
      expect(await termsLink.getAttribute('href')).toBe(`/sites/${w.urlname}/_cart/terms`);
      expect(await axe(page)).toEqual([]);
      await shot(page, 'cart-desktop');

      // The browser asks for the box; the server refuses without it all the same.
      const before = await orderCount();
      await page.locator('#email').fill('buyer@example.com');
      await page.evaluate(() => document.querySelector('input[name="accept_terms"]')!.removeAttribute('required'));
      await Promise.all([page.waitForLoadState('load'), page.locator('form.shop button[type="submit"]').click()]);
      expect(await page.locator('p.error[role="alert"]').textContent()).toBe('Please accept the terms of sale to place the order.');
      expect(await orderCount()).toBe(before);
      expect(await page.locator('#email').inputValue()).toBe('buyer@example.com');
      expect(await page.locator('dd.total').textContent()).toBe('€59.16');
      await page.locator('input[name="accept_terms"]').check();
      await Promise.all([page.waitForURL(/\/_cart\/order\/[0-9a-f-]{36}$/), page.locator('form.shop button[type="submit"]').click()]);
      const uuid = /order\/([0-9a-f-]{36})$/.exec(page.url())![1];
      expect(await page.locator('dl.totals').textContent()).toBe('Subtotal€58.00Coupon SPRING15−€8.70VAT (20 %)€9.86Total€59.16');
      expect(await axe(page)).toEqual([]);
      await shot(page, 'order-desktop');
      const o = find((await w.client.request('GET', `/orders/${uuid}.xml`)).doc, 'order')!;
      expect([text(o, 'total'), text(o, 'tax'), text(o, 'tax-label'), text(o, 'coupon')]).toEqual(['5916', '986', 'VAT', 'SPRING15']);
      expect(text(o, 'terms-accepted-at')).toMatch(/^\d{4}-/);
      expect(errors).toEqual([]);
      await page.context().close();
    });

    it('shows the terms as sanitised Markdown on their own page', async () => {
      const page = await newPage(1280, 800);
      await page.goto(`${home}/_cart/terms`);
      expect(await page.locator('h1').textContent()).toBe('Terms of sale');
      expect(await page.locator('article.prose h2').textContent()).toBe('Licence');
      expect(await page.locator('article.prose strong').textContent()).toBe('personal use');
      expect(await page.locator('article.prose a').getAttribute('rel')).toContain('noopener');
      expect(await page.locator('article.prose script').count()).toBe(0);
      expect(await axe(page)).toEqual([]);
      await shot(page, 'terms-desktop');
      await page.context().close();
    });

    it('fits a phone: coupon, VAT and the terms box, axe clean', async () => {
      const page = await newPage(390, 844);
      await add(page, 'Web');
      await applyCoupon(page, 'spring15');
      // 9.00 − 1.35 = 7.65; VAT 1.53; 9.18.
      expect(await page.locator('dl.totals').textContent()).toBe('Subtotal€9.00Coupon SPRING15−€1.35VAT (20 %)€1.53Total€9.18');
      expect(await page.locator('label.accept').isVisible()).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await axe(page)).toEqual([]);
      await shot(page, 'cart-phone');
      await page.goto(`${home}/_cart/terms`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await shot(page, 'terms-phone');
      await page.context().close();
    });

    it("fuzzes the cart's coupon and checkout forms: a 4xx or a redirect, never a 5xx, nothing half-written", async () => {
      const path = (sub: string) => `/sites/${w.urlname}/_cart/${sub}`;
      const origin = { origin: w.svc.url };
      const added = await visit(w.svc, path('add'), { form: { media: photo, choice: `${profile}:Web` }, headers: origin });
      const cookie = cookieOf(added)!;
      const couponOf = async () => (await w.svc.db.selectFrom('carts').select('coupon_code').where('uuid', '=', cookie.split('=')[1]).executeTakeFirstOrThrow()).coupon_code;
      // Bounded: a huge code is refused before any lookup; beyond the form's 4 kB, 413.
      expect((await visit(w.svc, path('coupon'), { cookie, form: { coupon: 'A'.repeat(3000) }, headers: origin })).status).toBe(422);
      expect((await visit(w.svc, path('coupon'), { cookie, form: { coupon: 'A'.repeat(5000) }, headers: origin })).status).toBe(413);
      expect((await visit(w.svc, path('coupon'), { cookie, form: { coupon: 'SPRING15' }, headers: { origin: 'https://evil.example' } })).status).toBe(403);
      expect(await couponOf()).toBeNull();
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('spring15 ', ' SPRING15', 'spring15\u0000', 'SPRİNG15', 'OLD', 'gone', '%', '-', '_')), async (code) => {
          const res = await visit(w.svc, path('coupon'), { cookie, form: { coupon: code }, headers: origin });
          expect([303, 400, 422], `${res.status} for ${JSON.stringify(code)}`).toContain(res.status);
          // Only the one coupon's code, whatever its case and spaces, is ever stored; a refusal leaves none.
          expect(await couponOf()).toBe(res.status === 303 && code.trim() !== '' ? 'SPRING15' : null);
          if (res.status === 303) await visit(w.svc, path('coupon'), { cookie, form: { coupon: '' }, headers: origin });
        }),
        { numRuns: 60, seed: 33 },
      );
      const before = await orderCount();
      const refused: Array<Record<string, string>> = [
        { email: 'b@example.com', method: 'manual' },
        { email: 'b@example.com', method: 'manual', accept_terms: 'yes' },
        { email: 'b@example.com', method: 'manual', accept_terms: '0' },
        { email: 'b@example.com', method: 'manual', accept_terms: '1'.repeat(3000) },
      ];
      for (const form of refused) {
        const res = await visit(w.svc, path('checkout'), { cookie, form, headers: origin });
        expect(res.status, JSON.stringify(form).slice(0, 80)).toBe(422);
        expect(res.body).toContain('accept the terms');
      }
      // A price, a total or a discount sent with the form sets nothing: the order is the server's.
      const res = await visit(w.svc, path('checkout'), { cookie, form: { email: 'b@example.com', method: 'manual', accept_terms: '1', total: '1', price: '0', discount: '900' }, headers: origin });
      expect(res.status).toBe(303);
      expect(await orderCount()).toBe(before + 1);
      const placed = await w.svc.db.selectFrom('orders').select(['total', 'tax', 'discount']).orderBy('id', 'desc').executeTakeFirstOrThrow();
      expect([Number(placed.total), Number(placed.tax), Number(placed.discount)]).toEqual([1080, 180, 0]);
    });
  }),
);

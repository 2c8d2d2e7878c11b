// Prints and whole galleries on the website in a real browser (docs/shop.md "Prints", "Whole
// galleries"): a visitor chooses a print's paper and size on a media page beside two downloads,
// gives a postal address at checkout (asked only then), and follows the order to "shipped";
// on a phone, a gallery sold whole is bought from its page. Desktop and phone sizes, axe clean,
// no console error. SQLite and PostgreSQL. Screenshots: test-artifacts/site/prints-<database>-*.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { updateMedia } from '../support/media.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { eachDatabase, type DbKind } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { ARTIFACTS, axe, CHROMIUM, chromiumPresent, launchChromium, uploadPhoto, waitForRenditions } from './site-support.js';

if (!chromiumPresent && process.env.CI) {
  describe('prints in a browser', () => {
    it('finds chromium', () => {
      expect.fail(`${CHROMIUM} is missing: .ci/run installs the chromium package`);
    });
  });
}

eachDatabase((kind: DbKind) =>
  describe.skipIf(!chromiumPresent)('prints and whole galleries in a browser', () => {
    let smtp: TestSmtp;
    let w: World;
    let browser: Browser;
    let home: string;
    let gallery: string;
    const photos: string[] = [];
    const errors: string[] = [];
    const shot = (p: Page, name: string) => p.screenshot({ path: join(ARTIFACTS, `prints-${kind}-${name}.png`), fullPage: true });
    const mediaPage = (uuid: string) => `${home}/-/harbour/_/${uuid}`;

    async function newPage(width: number, height: number): Promise<Page> {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(`${m.text()} at ${m.location().url}`);
      });
      return page;
    }

    async function add(page: Page, uuid: string, item: string) {
      await page.goto(mediaPage(uuid));
      await page.locator('.offer label', { hasText: item }).locator('input').check();
      await Promise.all([page.waitForURL(`${home}/_cart`), page.locator('.offer button', { hasText: 'Add to cart' }).click()]);
    }

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      smtp = await startSmtp({ user: 'mailer', pass: 'secret' });
      w = await startWorld(kind, { SMTP_URL: `smtp://mailer:secret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'Photos <photos@example.com>', VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0', JOB_POLL_MS: '50' });
      home = `${w.svc.url}/sites/${w.urlname}`;
      gallery = text((await w.client.createGallery(w.urlname, { name: 'Harbour', parent: w.rootUuid })).doc, 'gallery/uuid')!;
      for (let i = 0; i < 3; i++) photos.push(await uploadPhoto(w, gallery, i, 1800));
      expect(await waitForRenditions(w, photos)).toBe(true);
      const create = async (params: Record<string, string>) => text((await w.client.request('POST', '/pricing_profiles.xml', params)).doc, 'pricing-profile/uuid')!;
      const downloads = await create({
        'pricing_profile[name]': 'Digital downloads',
        'pricing_profile[kind]': 'download',
        'pricing_profile[currency]': 'EUR',
        'pricing_profile[items][0][label]': 'Web',
        'pricing_profile[items][0][long_edge]': '1200',
        'pricing_profile[items][0][price]': '900',
        'pricing_profile[items][1][label]': 'Original',
        'pricing_profile[items][1][price]': '4900',
      });
      const prints = await create({
        'pricing_profile[name]': 'Fine art prints',
        'pricing_profile[kind]': 'print',
        'pricing_profile[currency]': 'EUR',
        'pricing_profile[minimum_price]': '2500',
        'pricing_profile[items][0][label]': 'Hahnemühle Photo Rag',
        'pricing_profile[items][0][price]': '6000',
        'pricing_profile[items][0][options][0][label]': '20×30 cm',
        'pricing_profile[items][0][options][0][ratio]': '200',
        'pricing_profile[items][0][options][1][label]': '40×60 cm, framed',
        'pricing_profile[items][0][options][1][price]': '24900',
      });
      await updateMedia(w.client, photos[0], { 'media[add_pricing_profiles]': [downloads, prints] });
      await updateMedia(w.client, photos[1], { 'media[add_pricing_profiles]': [downloads] });
      // A photo sold as prints only: the viewer offers it too.
      await updateMedia(w.client, photos[2], { 'media[add_pricing_profiles]': [prints] });
      await w.client.request('PUT', `/galleries/${gallery}/sale.xml`, { 'sale[pricing_profile]': downloads, 'sale[item]': 'Web', 'sale[price]': '1900' });
      browser = await launchChromium();
    }, 300_000);

    afterAll(async () => {
      await browser?.close();
      await w?.svc.close();
      await smtp?.close();
    });

    it('buys two downloads and a framed print on a desktop, gives the address, and follows the order to shipped', async () => {
      const page = await newPage(1280, 800);
      await page.goto(mediaPage(photos[0]));
      const labels = (await page.locator('section.offer label').allTextContents()).map((t) => t.trim());
      expect(labels).toEqual(['Web (1200 px)€9.00', 'Original (original file)€49.00', 'Hahnemühle Photo Rag, 20×30 cm€60.00', 'Hahnemühle Photo Rag, 40×60 cm, framed€249.00']);
      expect(await axe(page)).toEqual([]);
      await shot(page, 'media-desktop');
      await add(page, photos[0], 'Web');
      await add(page, photos[1], 'Original');
      await add(page, photos[0], '40×60 cm, framed');
      expect(await page.locator('ul.cart li').count()).toBe(3);
      expect(await page.locator('fieldset.address legend').textContent()).toBe('Delivery address (for your prints)');
      expect(await page.locator('dd.total').textContent()).toBe('€307.00');
      expect(await axe(page)).toEqual([]);
      await page.locator('#email').fill('ann@example.com');
      // The browser asks for the required parts first; the server refuses what slips through (a blank city).
      await page.locator('#ship_name').fill('Ann Buyer');
      await page.locator('#ship_line1').fill('1 Harbour Lane');
      await page.locator('#ship_postcode').fill('SW1A 1AA');
      await page.locator('#ship_city').fill('   ');
      await page.locator('#ship_country').fill('United Kingdom');
      await Promise.all([page.waitForLoadState('load'), page.locator('form.shop button[type="submit"]').click()]);
      expect(await page.locator('p.error[role="alert"]').textContent()).toContain('The city');
      expect(await page.locator('#ship_line1').inputValue()).toBe('1 Harbour Lane');
      await shot(page, 'cart-refused-desktop');
      await page.locator('#ship_city').fill('London');
      await shot(page, 'cart-desktop');
      await Promise.all([page.waitForURL(/\/_cart\/order\/[0-9a-f-]{36}$/), page.locator('form.shop button[type="submit"]').click()]);
      const uuid = /order\/([0-9a-f-]{36})$/.exec(page.url())![1];
      expect(await page.locator('p.address').innerText()).toBe('Ann Buyer\n1 Harbour Lane\nSW1A 1AA London\nUnited Kingdom');
      expect(await axe(page)).toEqual([]);
      await shot(page, 'order-desktop');

      await w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'paid' });
      await w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'shipped', 'order[tracking_url]': 'https://track.example/parcel/42' });
      await expect.poll(() => smtp.mails.find((m) => m.to.includes('ann@example.com') && /on their way/.test(m.raw)), { timeout: 30_000 }).toBeDefined();
      await page.reload();
      expect(await page.locator('.notice').textContent()).toContain('Your prints are on their way');
      expect(await page.locator('.notice a').getAttribute('href')).toBe('https://track.example/parcel/42');
      expect(await axe(page)).toEqual([]);
      await shot(page, 'order-shipped-desktop');
      await page.context().close();
    });

    it('buys the whole gallery on a phone, and a prints-only photo has its Buy button in the viewer', async () => {
      const page = await newPage(390, 844);
      await page.goto(`${home}/-/harbour`);
      const sale = page.locator('section.gallery-sale');
      expect(await sale.locator('h2').textContent()).toBe('Buy the whole gallery');
      expect(await sale.locator('.price').textContent()).toBe('€19.00');
      expect(await axe(page)).toEqual([]);
      await shot(page, 'gallery-phone');
      await page.locator(`ul.media a[data-uuid="${photos[2]}"]`).click();
      await page.locator('.pswp.pswp--ready').waitFor();
      expect(await page.locator('.pswp__button--buy').isVisible()).toBe(true);
      await page.keyboard.press('Escape');
      await expect.poll(() => page.locator('.pswp').count()).toBe(0);
      await Promise.all([page.waitForURL(`${home}/_cart`), sale.locator('button').click()]);
      expect(await page.locator('ul.cart li').textContent()).toContain('The whole gallery: Web (1200 px)');
      expect(await page.locator('fieldset.address').count()).toBe(0);
      expect(await axe(page)).toEqual([]);
      await shot(page, 'cart-gallery-phone');
      await page.locator('#email').fill('bob@example.com');
      await Promise.all([page.waitForURL(/\/_cart\/order\/[0-9a-f-]{36}$/), page.locator('form.shop button[type="submit"]').click()]);
      const uuid = /order\/([0-9a-f-]{36})$/.exec(page.url())![1];
      await w.client.request('PUT', `/orders/${uuid}.xml`, { 'order[status]': 'paid' });
      await page.reload();
      expect(await page.locator('.notice').textContent()).toContain('link to your downloads');
      expect(await axe(page)).toEqual([]);
      await shot(page, 'order-gallery-phone');
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }),
);

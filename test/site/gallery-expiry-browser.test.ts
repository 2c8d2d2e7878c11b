// A closed gallery in Chromium at desktop and phone sizes (docs/website.md "Expiry"): the closed
// page (410) whole on the screen, in the website's brand with its contact, axe clean; then the
// photographer opens it again with one click on the studio's "Extend 30 days", and the page opens.
// Screenshots: test-artifacts/site/closed-*.png.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { create } from '../api/galleries-fixtures.js';
import { startWorld, type World } from '../support/world.js';
import { ARTIFACTS, axe, chromiumPresent, launchChromium } from './site-support.js';

const SIZES: Array<[string, BrowserContextOptions]> = [
  ['desktop', { viewport: { width: 1280, height: 800 } }],
  ['phone', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true }],
];

describe.skipIf(!chromiumPresent && !process.env.CI)('a closed gallery in a browser', () => {
  let w: World;
  let browser: Browser;
  let gallery: string;
  beforeAll(async () => {
    w = await startWorld('sqlite', { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' });
    await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[title]': 'Ann Lee', 'website[contact_email]': 'ann@example.com', 'website[theme]': 'editorial' });
    gallery = await create(w, 'Smith wedding');
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
  });

  const expiry = async () => text((await w.client.request('GET', `/websites/${w.urlname}/galleries/${gallery}.xml`)).doc, 'gallery/expires-at');
  const signIn = async (page: Page) => {
    await page.goto(`${w.svc.url}/studio/signin`);
    await page.getByLabel('E-mail address').fill(w.user.email);
    await page.getByLabel('Password').fill(w.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/studio/websites');
  };

  it.each(SIZES)('at %s size: the closed page, then "Extend 30 days" in the studio opens it again', async (size, options) => {
    await w.client.updateGallery(w.urlname, gallery, { expires_at: '2020-01-01T00:00:00Z' });
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const url = `${w.svc.url}/sites/${w.urlname}/-/smith-wedding`;
    const res = await page.goto(url);
    expect(res!.status()).toBe(410);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Smith wedding');
    expect(await page.getByText('This gallery has closed.').isVisible()).toBe(true);
    const contact = page.locator('main a[href="mailto:ann@example.com"]');
    expect(await contact.isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 'the page scrolls sideways').toBe(0);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, `closed-${size}.png`), fullPage: true });

    await signIn(page);
    await page.goto(`${w.svc.url}/studio/galleries/${gallery}`);
    expect(await page.getByText('This gallery has closed: visitors see a closed page').isVisible()).toBe(true);
    const before = Date.now();
    await page.getByRole('button', { name: 'Extend 30 days' }).click();
    await page.waitForURL('**done=extended*');
    expect(await page.getByText('The expiry was moved 30 days on.').isVisible()).toBe(true);
    expect(Date.parse((await expiry())!)).toBeGreaterThan(before + 29 * 86_400_000);
    await page.screenshot({ path: join(ARTIFACTS, `closed-extended-studio-${size}.png`), fullPage: true });
    expect((await page.goto(url))!.status()).toBe(200);
    await context.close();
  });
});

// The API reference page (GET /openapi.html, docs/api.md "OpenAPI") in a real browser at desktop
// and phone sizes: every operation of the description listed with its parameters, no request
// leaving the service, no horizontal scroll on a phone, axe-core clean (no serious or critical finding).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../support/service.js';
import { ARTIFACTS, axe, CHROMIUM, chromiumPresent, launchChromium } from './site-support.js';

if (!chromiumPresent && process.env.CI) {
  describe('the API reference page in a browser', () => {
    it('finds chromium', () => {
      expect.fail(`${CHROMIUM} is missing: .ci/run installs the chromium package`);
    });
  });
}

describe.skipIf(!chromiumPresent)('the API reference page in a browser', () => {
  let svc: TestService;
  let browser: Browser;
  beforeAll(async () => {
    svc = await TestService.start('sqlite');
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  it('lists every operation with its parameters, axe-clean at desktop and phone sizes', async () => {
    const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    await mkdir(ARTIFACTS, { recursive: true });
    for (const [name, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]] as const) {
      const ctx = await browser.newContext({ viewport, ...(name === 'phone' && { isMobile: true, hasTouch: true, deviceScaleFactor: 2 }) });
      const page = await ctx.newPage();
      const elsewhere: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(svc.url)) elsewhere.push(r.url());
      });
      const res = await page.goto(`${svc.url}/openapi.html`);
      expect(res?.status()).toBe(200);
      expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
      const revalidated = await fetch(`${svc.url}/openapi.html`, { headers: { 'if-none-match': res!.headers().etag } });
      expect(revalidated.status).toBe(304);
      expect(await page.locator('main section').count()).toBe(operations);
      const gallery = page.locator('section', { has: page.locator('h2', { hasText: 'POST /websites/{urlname}/galleries.xml' }) });
      await expect.poll(() => gallery.locator('li', { hasText: 'gallery[name]' }).textContent()).toContain('required');
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.screenshot({ path: join(ARTIFACTS, `openapi-${name}.png`) });
      expect(await axe(page)).toEqual([]);
      expect(elsewhere).toEqual([]);
      await ctx.close();
    }
  });
});

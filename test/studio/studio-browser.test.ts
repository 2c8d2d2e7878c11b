// The studio in a real browser (chromium through playwright-core), at desktop and phone
// sizes: sign in (and with a second factor), change the website's title, see it on the public site; every studio
// screen passes axe-core with no serious or critical violation, nothing breaks the CSP and
// nothing comes from a third party. On SQLite with local files all of it; on PostgreSQL with S3
// (test/studio/studio-backends.ts) the second factor and the desktop run: the phone run differs
// from it only in layout, which the database and the store do not touch.
// Screenshots land in test-artifacts/studio/.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { studioNav } from './studio-support.js';
import { randomTotpSecret, totpCode } from '../../src/users/totp.js';
import type { World } from '../support/world.js';
import { uploadLogo } from '../site/brand-support.js';
import { chromiumPresent, launchChromium, waitForRenditions } from '../site/site-support.js';
import { BACKENDS, startOn, type BackendWorld } from './studio-backends.js';

const AXE_SOURCE = readFileSync(join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'studio');

const VIEWPORTS = [
  ['desktop', { width: 1280, height: 800 }, 1],
  ['phone', { width: 390, height: 844 }, 3],
] as const;

/** axe-core's serious and critical violations of the page (evaluated by the debugger protocol, which the CSP does not govern). */
async function axe(page: Page): Promise<Array<{ id: string; impact: string; nodes: number }>> {
  await page.evaluate(AXE_SOURCE);
  const all = await page.evaluate(async () => {
    const r = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> } }).axe.run();
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  return all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe.skipIf(!chromiumPresent).each(BACKENDS)('the studio in a browser, on $name', (backend) => {
  let on: BackendWorld;
  let w: World;
  let browser: Browser;

  beforeAll(async () => {
    on = await startOn(backend, { SITE_CACHE_SECONDS: '0' });
    w = on.w;
    const logo = await uploadLogo(w);
    await waitForRenditions(w, [logo]);
    await w.client.request('PUT', `/websites/${w.urlname}/pages/about.xml`, { 'page[title]': 'About', 'page[body]': 'I photograph *weddings*.', 'page[position]': 1 });
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await on?.close();
  });

  it('signs a two-factor user in with the code from their app; the code screen passes axe', async () => {
    const secret = randomTotpSecret();
    const user = await w.svc.user({ otpSecret: secret });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(`${w.svc.url}/studio/signin`);
    await page.getByLabel('E-mail address').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Six-digit code from your authenticator app').waitFor();
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'code-phone.png'), fullPage: true });
    await page.getByLabel('Six-digit code from your authenticator app').fill(totpCode(secret));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL('**/studio/websites');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your websites');
    await context.close();
  }, 120_000);

  for (const [name, viewport, scale] of VIEWPORTS.filter(([n]) => backend.storage === 'local' || n === 'desktop')) {
    it(`signs in, renames the website and the site shows it, at ${name} size; every screen passes axe`, async () => {
      const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone', hasTouch: name === 'phone' });
      const page = await context.newPage();
      const problems: string[] = [];
      // Refusals the browser reports (the CSP's among them); the answers' statuses are checked apart.
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
      });
      const refused: string[] = [];
      page.on('response', (r) => {
        if (r.status() >= 400) refused.push(`${r.status()} ${new URL(r.url()).pathname}`);
      });
      const thirdParty: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(w.svc.url)) thirdParty.push(r.url());
      });
      const screen = async (shot: string) => {
        expect(await axe(page), `${shot} at ${name}`).toEqual([]);
        await page.screenshot({ path: join(ARTIFACTS, `${shot}-${name}.png`), fullPage: true });
      };

      await page.goto(`${w.svc.url}/studio/`);
      expect(new URL(page.url()).pathname).toBe('/studio/signin');
      await screen('signin');
      await page.getByLabel('E-mail address').fill(w.user.email);
      await page.getByLabel('Password').fill(w.user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/studio/websites');
      await screen('websites');
      if (name === 'phone') {
        // On a phone the header is one bar (the Menu button opens the sections: issue 30) that
        // leaves most of the screen to the page, none of it wider than the screen; every section is
        // in view once the menu is open, a tap away.
        const header = (await page.locator('header.bar').boundingBox())!;
        expect(header.height).toBeLessThan(viewport.height / 12);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
        const jobs = (await studioNav(page)).getByRole('link', { name: 'Jobs' });
        const at = (await jobs.boundingBox())!;
        expect(at.x + at.width).toBeLessThanOrEqual(viewport.width);
        await jobs.tap();
        await page.waitForURL('**/studio/jobs');
        await page.goBack();
        await page.waitForURL('**/studio/websites');
      }

      await page.getByRole('link', { name: `Site ${w.urlname}` }).or(page.getByRole('link', { name: /^Ann Lee/ })).first().click();
      await page.waitForURL(`**/studio/websites/${w.urlname}`);
      await screen('settings');
      const title = `Ann Lee (${name})`;
      await page.getByLabel('Title', { exact: true }).fill(title);
      await page.getByLabel('Tagline').fill('Portraits & weddings in Lyon');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForURL(`**/studio/websites/${w.urlname}?done=saved`);
      await expect.poll(() => page.getByRole('status').textContent()).toContain('Saved.');

      // A wrong value: the message next to its field.
      await page.getByLabel('Accent colour').fill('red');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect.poll(() => page.locator('#accent_color-error').textContent()).toContain('#rrggbb');
      await screen('settings-error');

      await page.getByRole('link', { name: 'Pages' }).click();
      await page.waitForURL(`**/studio/websites/${w.urlname}/pages`);
      await screen('pages');
      await page.getByRole('link', { name: 'About' }).click();
      await screen('page-edit');
      await page.goto(`${w.svc.url}/studio/websites/${w.urlname}/new-page`);
      await screen('page-new');

      await page.goto(`${w.svc.url}/studio/account`);
      await screen('account');
      await page.getByRole('link', { name: 'Turn it on' }).click();
      await page.waitForURL('**/studio/account/two-factor');
      expect(await page.locator('.qr svg').count()).toBe(1);
      await screen('two-factor');

      await page.goto(`${w.svc.url}/studio/websites/nobody-has-this`);
      await screen('not-found');

      // The visitor's view: the new title.
      await page.goto(`${w.svc.url}/studio/websites`);
      const view = page.getByRole('link', { name: `View site ${title}` });
      await view.click();
      await page.waitForURL(`**/sites/${w.urlname}/**`);
      expect(await page.title()).toContain(title);
      expect(await page.locator('header.site').textContent()).toContain(title);

      expect(problems).toEqual([]);
      // Only what the test asked for: the wrong accent colour, the unknown website (and the browser's own favicon guess).
      expect(refused.filter((r) => r !== '404 /favicon.ico')).toEqual([`422 /studio/websites/${w.urlname}`, '404 /studio/websites/nobody-has-this']);
      expect(thirdParty).toEqual([]);
      await context.close();
    }, 180_000);
  }
});

// The studio's website extras, collections, jobs, applications and administration in a real
// browser (chromium through playwright-core), at desktop and phone sizes: every screen passes
// axe-core with no serious or critical violation and breaks no CSP rule; an API key made in
// the studio signs a request the API accepts; an operator invites a photographer, who sets
// their password through the link. On SQLite with local files at both sizes; on PostgreSQL with S3
// (test/studio/studio-backends.ts) at desktop size: the phone run differs from it only in layout,
// which the database and the store do not touch. Screenshots land in /tmp/shots-adm/ (outside the repository).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { studioNav } from './studio-support.js';
import { basicAuth, type TestUser } from '../support/service.js';
import type { World } from '../support/world.js';
import { uploadLogo } from '../site/brand-support.js';
import { chromiumPresent, launchChromium, waitForRenditions } from '../site/site-support.js';
import { BACKENDS, startOn, type BackendWorld } from './studio-backends.js';
import { signInBrowser } from './studio-support.js';

const AXE_SOURCE = readFileSync(join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const SHOTS = process.env.STUDIO_SHOTS ?? '/tmp/shots-adm';

const VIEWPORTS = [
  ['desktop', { width: 1280, height: 800 }, 1],
  ['phone', { width: 390, height: 844 }, 3],
] as const;

/** axe-core's serious and critical violations, each with the first elements it names (to find them). */
async function axe(page: Page): Promise<Array<{ id: string; impact: string; targets: string[] }>> {
  await page.evaluate(AXE_SOURCE);
  const all = await page.evaluate(async () => {
    const r = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run();
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe.skipIf(!chromiumPresent).each(BACKENDS)('the studio extras and administration in a browser, on $name', (backend) => {
  let on: BackendWorld;
  let w: World;
  let browser: Browser;
  let admin: TestUser;

  beforeAll(async () => {
    on = await startOn(backend, { SITE_CACHE_SECONDS: '0' });
    w = on.w;
    admin = await w.svc.user({ firstName: 'Olga', lastName: 'Operator' });
    await w.svc.core.users.setAdmin(admin.email, true);
    // The operator's own library and website, so that their screens have something to show.
    const site = await w.svc.website(admin);
    w = { ...w, user: admin, urlname: site.urlname, client: w.svc.client(w.app, admin) };
    const media = await uploadLogo(w);
    await waitForRenditions(w, [media]);
    await w.svc.core.lightboxes.create({ id: admin.id }, 'Wedding — client picks', [media]);
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await on?.close();
  });

  for (const [name, viewport, scale] of VIEWPORTS.filter(([n]) => backend.storage === 'local' || n === 'desktop')) {
    it(`runs the extras and the administration at ${name} size; every screen passes axe; a studio API key signs the API`, async () => {
      const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone', hasTouch: name === 'phone' });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
      });
      const thirdParty: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(w.svc.url)) thirdParty.push(r.url());
      });
      const screen = async (shot: string) => {
        expect(await axe(page), `${shot} at ${name}`).toEqual([]);
        await page.screenshot({ path: join(SHOTS, `${shot}-${name}.png`), fullPage: true });
      };

      await signInBrowser(page, w.svc.url, admin);

      // Settings: host name and indexing; display styles.
      await page.goto(`${w.svc.url}/studio/websites/${w.urlname}`);
      await page.getByLabel('Host name', { exact: true }).fill(`${name}.photos.example.com`);
      await page.getByLabel('Search engines').selectOption('0');
      // By the keyboard (a phone's picker grid may lie over the button while it scrolls).
      await page.getByRole('button', { name: 'Save settings' }).press('Enter');
      await page.waitForURL('**?done=saved');
      await screen('settings-host');
      await page.getByRole('link', { name: 'Display styles' }).click();
      await page.waitForURL('**/styles');
      await page.getByLabel('Name').last().fill(`Wall ${name}`);
      await page.getByLabel('Spacing').last().selectOption('wide');
      await page.getByRole('button', { name: 'Create the style' }).click();
      await page.waitForURL('**/styles?done=created');
      await screen('styles');

      // Collections: a smart one with a rule.
      await (await studioNav(page)).getByRole('link', { name: 'Collections' }).click();
      await page.waitForURL('**/studio/collections');
      await page.getByLabel('Name').fill(`Logos ${name}`);
      await page.getByLabel(/smart collection/).check();
      await page.getByRole('button', { name: 'Create' }).click();
      await page.waitForURL(/\/studio\/collections\/[0-9a-f-]{36}\?done=created/);
      await page.getByLabel('Field').first().selectOption('title');
      await page.getByLabel('Operator').first().selectOption('is');
      await page.getByLabel('Value').first().fill('Logo');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL('**?done=saved');
      expect(await page.getByRole('link', { name: /See its 1 media/ }).count()).toBe(1);
      await screen('collection');
      await page.getByRole('link', { name: 'All collections' }).click();
      await screen('collections');

      await page.goto(`${w.svc.url}/studio/jobs`);
      await screen('jobs');

      // Account → Applications: a key, its secret shown once, used with the signed API.
      await page.goto(`${w.svc.url}/studio/account`);
      await page.getByRole('link', { name: 'Applications' }).click();
      await page.getByLabel('Name').fill(`Lightroom plugin (${name})`);
      await page.getByRole('button', { name: 'Create the application' }).click();
      const key = (await page.locator('#new-key').textContent())!.trim();
      const secret = (await page.locator('#new-secret').textContent())!.trim();
      await screen('account-apps');
      const res = await w.svc.raw({ key, secret }, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(admin.email, admin.password) } });
      expect(res.status).toBe(200);
      // The list again (not a reload, which would post the form anew): the secret is gone.
      await page.goto(`${w.svc.url}/studio/account/apps`);
      expect(await page.locator('#new-secret').count()).toBe(0);
      expect(await page.content()).not.toContain(secret);

      // The administration: accounts (invite: no mail server here, so the link is shown), applications, the queue.
      await (await studioNav(page)).getByRole('link', { name: 'Administration' }).click();
      await page.waitForURL('**/studio/admin/accounts');
      const email = `invited-${name}@example.com`;
      await page.getByLabel('E-mail address').fill(email);
      await page.getByLabel('First name').fill('Ines');
      await page.getByRole('button', { name: /Create the account/ }).click();
      const link = (await page.locator('code.secret').textContent())!.trim();
      expect(link).toMatch(/\/studio\/welcome\/[A-Za-z0-9_-]{43}$/);
      await screen('admin-accounts');
      await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Applications' }).click();
      await screen('admin-apps');
      await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Job queue' }).click();
      await screen('admin-jobs');

      // The invited photographer, in a browser of their own: sets the password, then signs in.
      const guest = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone', hasTouch: name === 'phone' });
      const gp = await guest.newPage();
      await gp.goto(link);
      expect(await axe(gp)).toEqual([]);
      await gp.screenshot({ path: join(SHOTS, `welcome-${name}.png`), fullPage: true });
      await gp.getByLabel('Password').fill('my own password 42');
      await gp.getByRole('button', { name: 'Set the password' }).click();
      await gp.waitForURL('**/studio/signin');
      await gp.getByLabel('E-mail address').fill(email);
      await gp.getByLabel('Password').fill('my own password 42');
      await gp.getByRole('button', { name: 'Sign in' }).click();
      await gp.waitForURL('**/studio/websites');
      // Not an operator: no administration in the header, and its address is the 404 page.
      expect(await gp.getByRole('link', { name: 'Administration' }).count()).toBe(0);
      expect((await gp.goto(`${w.svc.url}/studio/admin/accounts`))!.status()).toBe(404);
      await guest.close();

      expect(problems).toEqual([]);
      expect(thirdParty).toEqual([]);
      await context.close();
    }, 180_000);
  }
});

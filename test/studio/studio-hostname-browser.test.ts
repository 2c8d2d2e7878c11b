// The host name's proof in the studio, in Chromium (issue 29, item 1; docs/studio.md "Website
// extras"): a photographer types a name and saves; the settings show it waiting for proof with
// the TXT record to add; "Verify now" before the record says why not, after it says the name is
// in effect and the website answers there. At phone and desktop size: axe-core finds no serious or
// critical violation, nothing is wider than the screen (the token wraps). DNS is the test's own
// resolver, never the network. Screenshots in /tmp/shots-hostname/ (outside the repository).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../support/service.js';
import { worldOn, type World } from '../support/world.js';
import { chromiumPresent, launchChromium, visit } from '../site/site-support.js';
import { signInBrowser } from './studio-support.js';

if (!chromiumPresent && process.env.CI) throw new Error('the studio browser tests need chromium in CI (/usr/bin/chromium)');

const AXE_SOURCE = readFileSync(join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const SHOTS = process.env.STUDIO_SHOTS ?? '/tmp/shots-hostname';

async function axe(page: Page): Promise<Array<{ id: string; impact: string; targets: string[] }>> {
  await page.evaluate(AXE_SOURCE);
  const all = await page.evaluate(async () => {
    const r = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run();
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe.skipIf(!chromiumPresent)('the host name waiting for proof, in the studio', () => {
  let svc: TestService;
  let browser: Browser;
  const txt = new Map<string, string[][]>();
  const resolver = { resolveTxt: async (name: string) => txt.get(name) ?? Promise.reject(Object.assign(new Error('queryTxt ENOTFOUND'), { code: 'ENOTFOUND' })) };
  beforeAll(async () => {
    svc = await TestService.start('sqlite', { SITE_CACHE_SECONDS: '0' }, undefined, { resolver });
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  for (const [name, viewport, scale] of [['desktop', { width: 1280, height: 800 }, 1], ['phone', { width: 390, height: 844 }, 3]] as const) {
    it(`asks for a name, shows the record to add, verifies it (${name})`, async () => {
      const w: World = await worldOn(svc);
      const host = `photos-${randomBytes(4).toString('hex')}.example.test`;
      const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone', hasTouch: name === 'phone' });
      const page = await context.newPage();
      await signInBrowser(page, svc.url, w.user);
      await page.goto(`${svc.url}/studio/websites/${w.urlname}`);
      await page.getByLabel('Host name', { exact: true }).fill(host);
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForURL('**?done=saved');

      const panel = page.getByRole('region', { name: 'Host name: waiting for proof' });
      await expect.poll(() => panel.isVisible()).toBe(true);
      const token = (await svc.core.websites.details({ operator: true }, w.urlname)).website.hostname_token!;
      expect(await panel.textContent()).toContain(`_mps-challenge.${host}`);
      expect(await panel.textContent()).toContain(token);
      expect(await page.getByLabel('Host name', { exact: true }).inputValue()).toBe(host);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 'the page scrolls sideways').toBe(0);
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `pending-${name}.png`), fullPage: true });

      await panel.getByRole('button', { name: 'Verify now' }).click();
      await page.waitForURL('**?done=not-verified');
      expect(await page.getByRole('alert').first().textContent()).toContain(`No TXT record was found at _mps-challenge.${host}`);
      expect(await axe(page)).toEqual([]);

      txt.set(`_mps-challenge.${host}`, [[token]]);
      await page.getByRole('button', { name: 'Verify now' }).click();
      await page.waitForURL('**?done=verified');
      expect(await page.getByRole('status').first().textContent()).toContain(`${host} is in effect`);
      expect(await page.getByRole('region', { name: 'Host name: waiting for proof' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'View site' }).getAttribute('href')).toBe(`https://${host}`);
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `verified-${name}.png`), fullPage: true });
      expect((await visit(svc, '/', { host })).status).toBe(200);
      await context.close();
    });
  }
});

// The studio's webhooks screen in a real browser (chromium through playwright-core), at desktop and
// phone sizes: an endpoint added by the form (its secret shown once, and it verifies what the receiver
// gets), a refusal shown at its field, the delivery log read, one delivery sent again (the same
// webhook-id), the endpoint deleted; both screens pass axe-core with no serious or critical violation.
// Screenshots land in /tmp/shots-webhooks/ (outside the repository).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create } from '../api/galleries-fixtures.js';
import { axe, chromiumPresent, launchChromium } from '../site/site-support.js';
import { BACKENDS, startOn, type BackendWorld } from './studio-backends.js';
import { signInBrowser } from './studio-support.js';
import { Receiver, until } from '../support/webhook-receiver.js';

const SHOTS = process.env.STUDIO_SHOTS ?? '/tmp/shots-webhooks';
const VIEWPORTS = [
  ['desktop', { width: 1280, height: 800 }, 1],
  ['phone', { width: 390, height: 844 }, 3],
] as const;

describe.skipIf(!chromiumPresent).each(BACKENDS.slice(0, 1))('the studio webhooks in a browser, on $name', (backend) => {
  let on: BackendWorld;
  let browser: Browser;
  const receiver = new Receiver();
  let url = '';
  const got = receiver.got;

  beforeAll(async () => {
    url = (await receiver.start()).url;
    on = await startOn(backend, { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '50' });
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await on?.close();
    await receiver.close();
  });

  for (const [name, viewport, scale] of VIEWPORTS) {
    it(`adds an endpoint, reads its log and sends a delivery again at ${name} size; the screens pass axe`, async () => {
      const w = on.w;
      const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone', hasTouch: name === 'phone' });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
      });
      await signInBrowser(page, w.svc.url, w.user);

      await page.goto(`${w.svc.url}/studio/account`);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.waitForURL('**/studio/account/webhooks');
      expect(await axe(page), `empty at ${name}`).toEqual([]);
      // No event chosen: refused at the events, the address kept.
      await page.getByLabel('Address').fill(url);
      await page.getByRole('button', { name: 'Add the endpoint' }).click();
      await expect.poll(() => page.locator('#events-error').textContent()).toContain('at least one event');
      expect(await page.getByLabel('Address').inputValue()).toBe(url);
      expect(await axe(page), `refusal at ${name}`).toEqual([]);
      await page.getByRole('checkbox', { name: 'gallery.published' }).check();
      await page.getByRole('button', { name: 'Add the endpoint' }).click();
      const secret = (await page.locator('#new-secret').textContent())!.trim();
      expect(secret).toMatch(/^whsec_/);
      await page.screenshot({ path: join(SHOTS, `created-${name}.png`), fullPage: true });
      expect(await axe(page), `created at ${name}`).toEqual([]);

      const before = got.length;
      await create(w, `Hooked ${name}`);
      await until('a delivery', () => got.length > before, 30_000);
      const first = got[got.length - 1];
      expect(new Webhook(secret).verify(first.body, first.headers as Record<string, string>)).toMatchObject({ type: 'gallery.published' });

      await page.goto(`${w.svc.url}/studio/account/webhooks`);
      await page.getByRole('link', { name: url }).first().click();
      await until('the delivery recorded', async () => {
        await page.reload();
        return (await page.locator('.deliveries .tag').first().textContent()) === 'delivered';
      }, 30_000);
      await page.screenshot({ path: join(SHOTS, `log-${name}.png`), fullPage: true });
      expect(await axe(page), `log at ${name}`).toEqual([]);
      await page.getByRole('button', { name: 'Send again gallery.published' }).first().click();
      await page.waitForURL('**?done=replayed');
      await until('the replay', () => got.length > before + 1, 30_000);
      expect(got[got.length - 1].headers['webhook-id']).toBe(first.headers['webhook-id']);

      await page.getByRole('button', { name: /Delete the endpoint/ }).click();
      await page.waitForURL('**/studio/account/webhooks?done=deleted');
      expect(await page.getByRole('link', { name: url }).count()).toBe(0);
      expect(problems).toEqual([]);
      await context.close();
    }, 120_000);
  }
});

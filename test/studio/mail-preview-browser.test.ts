// "Preview the mails" in Chromium at desktop (1280×800) and phone (390×844) sizes: each branded
// mail drawn in its sandboxed frames at 600 and 375 px, with the website's logo and accent, nothing
// wider than its frame, the page whole on a phone and axe clean; the mails themselves (outside the
// studio, as a mail program draws them) axe clean too. Screenshots land in /tmp/shots-mails/.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleMail, SAMPLE_KINDS, SAMPLE_LABELS } from '../../src/mail/samples.js';
import { startWorld, type World } from '../support/world.js';
import { startSmtp, type TestSmtp } from '../support/smtp.js';
import { text } from '../../src/client/xml.js';
import { uploadLogo } from '../site/brand-support.js';
import { chromiumPresent, launchChromium, waitForRenditions } from '../site/site-support.js';
import { signInBrowser } from './studio-support.js';

const SHOTS = process.env.MAIL_SHOTS ?? '/tmp/shots-mails';
const AXE_SOURCE = readFileSync(join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const ACCENT = '#b4531f';
const VIEWPORTS = [
  ['desktop', { width: 1280, height: 800 }, 1],
  ['phone', { width: 390, height: 844 }, 2],
] as const;

/** axe-core's serious and critical violations (evaluated by the debugger protocol, which the CSP does not govern). */
async function axe(page: Page): Promise<Array<{ id: string; impact: string }>> {
  await page.evaluate(AXE_SOURCE);
  const all = await page.evaluate(async () => {
    const a = (window as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<{ violations: Array<{ id: string; impact: string }> }> } }).axe;
    // The frames are sandboxed without scripts: axe cannot enter them (the mails are checked on their own below).
    const r = await a.run(document, { iframes: false });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact }));
  });
  return all.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe.skipIf(!chromiumPresent)('the preview of the mails', () => {
  let w: World;
  let browser: Browser;
  let smtp: TestSmtp;
  let gallery: string;
  beforeAll(async () => {
    smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
    w = await startWorld('sqlite', { SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'photos@example.com' });
    const logo = await uploadLogo(w);
    await waitForRenditions(w, [logo]);
    await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[title]': 'Ann Lee Photography', 'website[accent_color]': ACCENT, 'website[logo]': logo });
    // A client gallery with two invitations: one the mail server took, one it refused.
    const g = await w.client.request('POST', `/websites/${w.urlname}/galleries.xml`, { 'gallery[name]': 'Anna & Tom', 'gallery[parent]': w.rootUuid, 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][0][read]': '0' });
    gallery = text(g.doc, 'gallery/uuid')!;
    smtp.refuse.add('tom@example.com');
    for (const email of ['anna@example.com', 'tom@example.com']) await w.client.request('POST', `/galleries/${gallery}/invitations.xml`, { 'invitation[email]': email });
    await w.svc.service.visitors.mailer.idle();
    await w.svc.service.invitations.idle();
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
    await smtp?.close();
  });

  for (const [name, viewport, scale] of VIEWPORTS) {
    it(`shows every branded mail at 600 and 375 px, at ${name} size, axe clean`, async () => {
      const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone', hasTouch: name === 'phone' });
      const page = await context.newPage();
      const csp: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
      });
      await signInBrowser(page, w.svc.url, w.user);
      await page.goto(`${w.svc.url}/studio/websites/${w.urlname}`);
      await page.getByRole('link', { name: 'Preview the mails' }).click();
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Mails of Ann Lee Photography');

      for (const kind of SAMPLE_KINDS) {
        await page.getByRole('navigation', { name: 'Mails' }).getByRole('link', { name: SAMPLE_LABELS[kind] }).click();
        await page.waitForURL(`**/mails?kind=${kind}`);
        const frames = page.locator('.mail-frames iframe');
        expect(await frames.count()).toBe(2);
        for (const [i, width] of [
          [0, 600],
          [1, 375],
        ] as const) {
          const handle = await frames.nth(i).elementHandle();
          await handle!.scrollIntoViewIfNeeded();
          const frame = (await handle!.contentFrame())!;
          await frame.waitForLoadState('load');
          await frame.waitForFunction(() => [...document.images].every((im) => im.complete));
          const seen = await frame.evaluate(() => {
            const logo = document.querySelector('img');
            const button = document.querySelector<HTMLElement>('td[bgcolor] a');
            return {
              logo: logo ? { natural: logo.naturalWidth, alt: logo.alt } : null,
              button: button ? getComputedStyle(button.parentElement!).backgroundColor : null,
              wider: document.documentElement.scrollWidth - document.documentElement.clientWidth,
            };
          });
          expect(seen.logo?.natural, `${kind}: the logo is drawn`).toBeGreaterThan(0);
          expect(seen.logo?.alt).toBe('Ann Lee Photography');
          if (kind !== 'order') expect(seen.button, `${kind}: the button in the accent`).toBe('rgb(180, 83, 31)');
          expect(seen.wider, `${kind} at ${width} px: nothing wider than the frame`).toBeLessThanOrEqual(0);
        }
        // The plain-text part is shown beside.
        expect(await page.locator('pre.mail-text').textContent()).toContain(kind === 'order' ? 'Total:' : 'http');
        const pageWider = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(pageWider, 'the studio page scrolls sideways').toBe(0);
        if (kind === 'invitation' || kind === 'order') await page.screenshot({ path: join(SHOTS, `preview-${kind}-${name}.png`), fullPage: true });
      }
      expect(await axe(page)).toEqual([]);
      expect(csp).toEqual([]);

      // Each invited client's delivery state in the access list; "Send again" for the refused one.
      await page.goto(`${w.svc.url}/studio/galleries/${gallery}#access`);
      const access = page.locator('#access');
      await expect(access.locator('fieldset', { hasText: 'anna@example.com' }).locator('p.delivery').textContent()).resolves.toMatch(/^Invitation sent \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      await expect(access.locator('fieldset', { hasText: 'tom@example.com' }).locator('p.delivery').textContent()).resolves.toMatch(/^Invitation not delivered \(550/);
      const again = access.getByRole('button', { name: 'Send again to tom@example.com' });
      await again.scrollIntoViewIfNeeded();
      await access.screenshot({ path: join(SHOTS, `delivery-${name}.png`) });
      expect(await axe(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
      if (name === 'phone') {
        // The server takes it now: sent again, and said so.
        smtp.refuse.delete('tom@example.com');
        await again.tap();
        await page.waitForURL(`**/studio/galleries/${gallery}?done=invited#invite`);
        await w.svc.service.visitors.mailer.idle();
        await w.svc.service.invitations.idle();
        await page.goto(`${w.svc.url}/studio/galleries/${gallery}#access`);
        await expect(access.locator('fieldset', { hasText: 'tom@example.com' }).locator('p.delivery').textContent()).resolves.toMatch(/^Invitation sent/);
      }
      await context.close();
    });
  }

  it('draws the mails themselves at 600 and 375 px, axe clean (screenshots to look at)', async () => {
    const brand = await w.svc.service.core.mailBrands.of({ uuid: (await w.svc.db.selectFrom('websites').select('uuid').where('urlname', '=', w.urlname).executeTakeFirstOrThrow()).uuid });
    for (const width of [600, 375]) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: 2 });
      const page = await context.newPage();
      for (const kind of SAMPLE_KINDS) {
        await page.setContent(sampleMail(kind, brand!).html, { waitUntil: 'load' });
        expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
        await page.screenshot({ path: join(SHOTS, `mail-${kind}-${width}.png`), fullPage: true });
        expect(await axe(page), `${kind} at ${width} px`).toEqual([]);
      }
      await context.close();
    }
  });
});

// The website settings' image pickers (logo, favicon) on a phone, in Chromium at 390×844 with
// touch: images named as cameras name files (long, without a space) used to overflow their cells,
// over the neighbouring cell, and widen the page past the screen (469 CSS px on a 390 phone),
// so that the page moved sideways under the finger and a tap landed on whatever the overflow
// covered. Here: nothing is wider than the screen, every picker's text stays inside its own cell;
// a touch scroll down to "Save settings" then a tap on it submits the form (the API reads the
// change back) and leaves the pickers as they were. Screenshots at phone and desktop size land in
// /tmp/shots-picker/ (outside the repository).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { find, text } from '../../src/client/xml.js';
import { startWorld, type World } from '../support/world.js';
import { uploadLogo } from '../site/brand-support.js';
import { chromiumPresent, launchChromium, waitForRenditions } from '../site/site-support.js';
import { signInBrowser } from './studio-support.js';

const SHOTS = process.env.STUDIO_SHOTS ?? '/tmp/shots-picker';
const LONG_NAME = 'DSC_20261126_wedding_lyon_ceremony_final_export_v3.jpg';

describe.skipIf(!chromiumPresent)('the website settings image pickers on a phone', () => {
  let w: World;
  let browser: Browser;
  beforeAll(async () => {
    w = await startWorld('sqlite');
    const uuids: string[] = [];
    for (let i = 0; i < 5; i++) uuids.push(await uploadLogo(w, `LOGO ${i}`));
    await waitForRenditions(w, uuids);
    const job = await w.client.request('PUT', '/medias/batch_update.xml', { select: uuids.join(','), 'medias[title]': LONG_NAME });
    const jobUuid = text(job.doc, 'job/uuid') ?? text(job.doc, 'uuid');
    const deadline = Date.now() + 60_000;
    // The batch is a job: wait until the titles are the library's.
    while ((await w.svc.db.selectFrom('medias').select('id').where('title', '=', LONG_NAME).execute()).length < uuids.length) {
      if (Date.now() > deadline) throw new Error(`batch job ${jobUuid} did not finish`);
      await new Promise((r) => setTimeout(r, 100));
    }
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
  });

  /** What sticks out: the page's width beyond the screen, and every picker cell whose content is wider than the cell. */
  const overflow = (page: Page) =>
    page.evaluate(() => ({
      pageBeyondScreen: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      cells: [...document.querySelectorAll('.pick label')].filter((l) => l.scrollWidth > l.clientWidth + 1).length,
      checked: [...document.querySelectorAll<HTMLInputElement>('.pick input:checked')].map((i) => `${i.name}=${i.value}`),
    }));

  it('taps "Save settings" after a touch scroll at 390×844: the form is sent, no picker changes, nothing wider than the screen', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await signInBrowser(page, w.svc.url, w.user);
    await page.goto(`${w.svc.url}/studio/websites/${w.urlname}`);
    expect(await page.locator('.pick label').filter({ hasText: LONG_NAME }).count()).toBe(10);
    const before = await overflow(page);
    expect(before.pageBeyondScreen, 'the page scrolls sideways').toBe(0);
    expect(before.cells, 'picker cells whose text sticks out').toBe(0);
    await page.screenshot({ path: join(SHOTS, 'settings-phone.png'), fullPage: true });

    await page.getByLabel('Title', { exact: true }).fill('Ann Lee, on a phone');
    // A finger's swipe up to the end of the form (the browser's own touch scrolling), then a tap on Save.
    const cdp = await context.newCDPSession(page);
    const save = page.getByRole('button', { name: 'Save settings' });
    const swipeUp = async () => {
      // Touch points as a finger sends them; the browser scrolls the page (and may fling on).
      const at = (y: number) => [{ x: 195, y, radiusX: 10, radiusY: 10, id: 1 }];
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(700) });
      for (let y = 680; y >= 200; y -= 40) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(y) });
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    };
    for (let i = 0; i < 20 && !(await save.evaluate((b) => b.getBoundingClientRect().bottom <= innerHeight)); i++) {
      await swipeUp();
    }
    // The fling's end: the page holds still before the tap.
    await expect.poll(async () => { const a = await page.evaluate(() => scrollY); await new Promise((r) => setTimeout(r, 200)); return a === (await page.evaluate(() => scrollY)); }).toBe(true);
    expect(await page.evaluate(() => scrollX), 'the swipe moved the page sideways').toBe(0);
    const box = (await save.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(844);
    await page.screenshot({ path: join(SHOTS, 'settings-phone-at-save.png') });
    // What is under the finger at the button's corners and centre is the button.
    const under = await page.evaluate(
      (pts) => pts.map(([x, y]) => document.elementFromPoint(x, y)?.closest('button')?.textContent ?? document.elementFromPoint(x, y)?.tagName),
      [
        [box.x + box.width / 2, box.y + box.height / 2],
        [box.x + 2, box.y + 2],
        [box.x + box.width - 2, box.y + box.height - 2],
      ],
    );
    expect(under).toEqual(['Save settings', 'Save settings', 'Save settings']);
    await page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForURL(`**/studio/websites/${w.urlname}?done=saved`);
    const site = find((await w.client.request('GET', `/websites/${w.urlname}.xml`)).doc, 'website')!;
    expect(text(site, 'title')).toBe('Ann Lee, on a phone');
    expect(text(site, 'logo') ?? '').toBe('');
    expect(text(site, 'favicon') ?? '').toBe('');
    expect((await overflow(page)).checked).toEqual(before.checked);
    await context.close();
  }, 120_000);

  it('shows the same pickers at desktop size, nothing sticking out', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signInBrowser(page, w.svc.url, w.user);
    await page.goto(`${w.svc.url}/studio/websites/${w.urlname}`);
    const found = await overflow(page);
    expect(found.pageBeyondScreen).toBe(0);
    expect(found.cells).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'settings-desktop.png'), fullPage: true });
    await context.close();
  }, 120_000);
});

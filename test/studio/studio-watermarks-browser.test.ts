// The studio's watermarks in a real browser (chromium through playwright-core), at desktop and
// phone sizes: a text watermark added by the form, an image one uploaded from a file, both
// previewed on the user's photo (the previews load as images), the default changed and one
// deleted; a new one's look chosen and an existing one's changed (strength, position, tile), read
// back through the signed API, the preview image's pixels changing with it; the screen passes
// axe-core with no serious or critical violation and breaks no CSP rule. On SQLite with local
// files at both sizes; on PostgreSQL with S3 (test/studio/studio-backends.ts) at desktop size (the
// phone run differs only in layout): there the photo the previews are drawn on is read from the
// bucket (the watermark images themselves are kept in DATA_DIR/watermarks with either store,
// docs/watermarks.md). Screenshots land in /tmp/shots-wm/ (outside the repository).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, text } from '../../src/client/xml.js';
import type { World } from '../support/world.js';
import { uploadLogo } from '../site/brand-support.js';
import { axe, chromiumPresent, launchChromium, waitForRenditions } from '../site/site-support.js';
import { BACKENDS, startOn, type BackendWorld } from './studio-backends.js';
import { signInBrowser } from './studio-support.js';

const SHOTS = process.env.STUDIO_SHOTS ?? '/tmp/shots-wm';

const VIEWPORTS = [
  ['desktop', { width: 1280, height: 800 }, 1],
  ['phone', { width: 390, height: 844 }, 3],
] as const;

/** axe-core's serious and critical violations, each with the first elements it names (to find them). */
describe.skipIf(!chromiumPresent).each(BACKENDS)('the studio watermarks in a browser, on $name', (backend) => {
  let on: BackendWorld;
  let w: World;
  let browser: Browser;
  let logoFile: string;

  beforeAll(async () => {
    on = await startOn(backend);
    w = on.w;
    const media = await uploadLogo(w);
    await waitForRenditions(w, [media]);
    mkdirSync(SHOTS, { recursive: true });
    logoFile = join(SHOTS, 'mark.png');
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="120"><text x="10" y="85" font-family="sans-serif" font-size="72" font-weight="bold" fill="#fff" stroke="#000" stroke-width="3">STUDIO</text></svg>';
    await sharp(Buffer.from(svg)).png().toFile(logoFile);
    browser = await launchChromium();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await on?.close();
  });

  const marks = async (view: 'list' | 'details' = 'list') => all((await w.client.request('GET', `/artists/${w.user.defaultArtistUuid}/watermarks.xml`, { view })).doc, 'watermarks/watermark');

  for (const [name, viewport, scale] of VIEWPORTS.filter(([n]) => backend.storage === 'local' || n === 'desktop')) {
    it(`adds, previews, makes default and deletes watermarks at ${name} size; the screen passes axe`, async () => {
      const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone', hasTouch: name === 'phone' });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
      });
      // Every request of the screens answers, the browser's own favicon probe and the look refused on purpose aside.
      page.on('response', (r) => {
        if (r.status() >= 400 && !r.url().endsWith('/favicon.ico') && !(r.status() === 422 && r.url().endsWith('/look'))) problems.push(`${r.status()} ${r.url()}`);
      });
      await signInBrowser(page, w.svc.url, w.user);

      await page.goto(`${w.svc.url}/studio/watermarks`);
      expect(await axe(page), `empty at ${name}`).toEqual([]);
      const before = (await marks()).length;

      const newText = page.locator('form').filter({ has: page.getByRole('button', { name: 'Add the text watermark' }) });
      await newText.getByLabel('Text', { exact: true }).fill(`© Ann Lee ${name}`);
      await newText.getByLabel('Strength', { exact: true }).fill('70');
      await newText.getByLabel('Position', { exact: true }).selectOption('top-left');
      await newText.getByRole('button', { name: 'Add the text watermark' }).click();
      await page.waitForURL('**/studio/watermarks?done=created');
      const made = (await marks('details')).find((m) => text(m, 'text') === `© Ann Lee ${name}`)!;
      expect([text(made, 'strength'), text(made, 'position'), text(made, 'tile')]).toEqual(['70', 'top-left', 'false']);
      await page.getByLabel('Image', { exact: true }).setInputFiles(logoFile);
      await page.getByRole('button', { name: 'Upload the image watermark' }).click();
      await page.waitForURL('**/studio/watermarks?done=created');
      const now = await marks();
      expect(now.length).toBe(before + 2);
      expect(now.map((m) => text(m, 'file-name'))).toContain('mark.png');

      // Every preview is drawn and loads as an image.
      const previews = page.locator('img.wm-preview');
      // They load lazily: each is brought into view (on a phone most are below the fold).
      for (const img of await previews.all()) await img.scrollIntoViewIfNeeded();
      await expect.poll(() => previews.evaluateAll((imgs) => imgs.every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0)), { timeout: 30_000 }).toBe(true);
      expect(await previews.count()).toBe(before + 2);
      expect(await axe(page), `listed at ${name}`).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `watermarks-${name}.png`), fullPage: true });

      // The image one becomes the default, by the keyboard.
      await page.getByRole('button', { name: /^Make default mark\.png/ }).last().press('Enter');
      await page.waitForURL('**/studio/watermarks?done=default');
      expect((await marks()).filter((m) => text(m, 'default') === 'true').map((m) => text(m, 'file-name'))).toEqual(['mark.png']);

      // The look of the image one: strength, position and tile on its own form; the preview is
      // drawn again (another address, other pixels) and the signed API reads the change back.
      const imageItem = page.locator('li.wm-item').filter({ hasText: 'mark.png' }).last();
      const previewOf = async (item: typeof imageItem) => {
        const img = item.locator('img.wm-preview');
        await img.scrollIntoViewIfNeeded();
        await expect.poll(() => img.evaluate((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0), { timeout: 30_000 }).toBe(true);
        const src = (await img.getAttribute('src'))!;
        // The bytes the page shows, fetched in the page (its session).
        const bytes = await page.evaluate(async (u) => Array.from(new Uint8Array(await (await fetch(u)).arrayBuffer())), src);
        return { src, pixels: await sharp(Buffer.from(bytes)).raw().toBuffer() };
      };
      const was = await previewOf(imageItem);
      await imageItem.getByLabel('Strength', { exact: true }).fill('90');
      await imageItem.getByLabel('Position', { exact: true }).selectOption({ label: 'Bottom right' });
      await imageItem.getByRole('checkbox', { name: /^Tile: repeat it over the whole photo/ }).check();
      await imageItem.getByRole('button', { name: /^Save the look of mark\.png/ }).click();
      await page.waitForURL('**/studio/watermarks?done=look');
      const saved = (await marks('details')).filter((m) => text(m, 'file-name') === 'mark.png').pop()!;
      expect([text(saved, 'strength'), text(saved, 'position'), text(saved, 'tile')]).toEqual(['90', 'bottom-right', 'true']);
      const changedItem = page.locator('li.wm-item').filter({ hasText: 'mark.png' }).last();
      await expect.poll(() => changedItem.getByLabel('Strength', { exact: true }).inputValue()).toBe('90');
      const now2 = await previewOf(changedItem);
      expect(now2.src).not.toBe(was.src);
      expect(now2.pixels.length).toBe(was.pixels.length);
      expect(now2.pixels.equals(was.pixels)).toBe(false);
      // A refused value comes back on its field, said to assistive technology.
      await changedItem.getByLabel('Strength', { exact: true }).fill('150');
      await changedItem.getByRole('button', { name: /^Save the look of mark\.png/ }).click();
      expect(await page.getByRole('alert').filter({ hasText: /whole number from 0 to 100/ }).isVisible()).toBe(true);
      expect((await marks('details')).filter((m) => text(m, 'file-name') === 'mark.png').map((m) => text(m, 'strength'))).not.toContain('150');
      expect(await axe(page), `a refused look at ${name}`).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `watermarks-look-refused-${name}.png`), fullPage: true });
      await page.goto(`${w.svc.url}/studio/watermarks`);

      // Deleting the text one needs the confirmation.
      const label = `“© Ann Lee ${name}”`;
      await page.getByRole('checkbox', { name: `Yes, delete the watermark ${label}` }).check();
      await page.getByRole('button', { name: `Delete ${label}` }).click();
      await page.waitForURL('**/studio/watermarks?done=deleted');
      expect((await marks()).map((m) => text(m, 'text'))).not.toContain(`© Ann Lee ${name}`);
      expect(await axe(page), `after delete at ${name}`).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    }, 120_000);
  }
});

// Shared and found, in a real browser (chromium through playwright-core): the
// Open Graph tags and the JSON-LD are in the DOM of a public media page and
// gallery and absent from a protected one once opened, the JSON-LD block raises
// no CSP violation (it is data, never run), the credit line shows, and axe-core
// finds no serious or critical violation. Screenshots at 1280×800 and 390×844@3
// land in test-artifacts/site/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { create } from '../api/galleries-fixtures.js';
import { taggedJpeg } from '../support/file-metadata.js';
import { startWorld, type World } from '../support/world.js';
import { ARTIFACTS, chromiumPresent, launchChromium, photo, waitForRenditions } from './site-support.js';

const AXE = join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js');
const SIZES = [
  ['desktop', { width: 1280, height: 800 }, 1],
  ['phone', { width: 390, height: 844 }, 3],
] as const;

describe.skipIf(!chromiumPresent)('shared and found, in a browser', () => {
  let w: World;
  let browser: Browser;
  let media: string;
  let home: string;

  beforeAll(async () => {
    w = await startWorld('sqlite', { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' });
    home = `${w.svc.url}/sites/${w.urlname}`;
    const open = await create(w, 'Coast', w.rootUuid, { description: 'Brittany in the fog.' });
    const locked = await create(w, 'Private', w.rootUuid, { password: 'pw' });
    // A photo-like picture with the metadata an editor writes.
    const data = await taggedJpeg({
      base: await photo(7, 2400),
      xmp: { title: 'Harbour at dawn', description: 'Fog over the water at Brest.', creator: 'Ann Lee', rights: '© 2026 Ann Lee', subject: ['fog', 'sea'], webStatement: 'https://creativecommons.org/licenses/by-nc/4.0/', city: 'Brest', country: 'France' },
      exif: { shot: '2024:05:06 07:08:09', offset: '+02:00', gps: { lat: [48, 23, 30], latRef: 'N', lon: [4, 29, 0], lonRef: 'W' } },
    });
    const r = await w.client.request('POST', '/medias.xml', { 'media[publish_to_galleries]': [open, locked] }, { file: { field: 'media[content]', fileName: 'harbour.jpg', contentType: 'image/jpeg', data } });
    media = text(r.doc, 'media/uuid')!;
    await waitForRenditions(w, [media]);
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
  });

  const headFacts = (page: Page) =>
    page.evaluate(() => ({
      og: Object.fromEntries([...document.querySelectorAll('meta[property^="og:"], meta[name^="twitter:"]')].map((m) => [m.getAttribute('property') ?? m.getAttribute('name'), m.getAttribute('content')])),
      ld: [...document.querySelectorAll('script[type="application/ld+json"]')].map((s) => JSON.parse(s.textContent ?? 'null') as Record<string, unknown>),
      canonical: document.querySelector('link[rel=canonical]')?.getAttribute('href'),
    }));

  async function axe(page: Page): Promise<string[]> {
    await page.addScriptTag({ path: AXE });
    const result = (await page.evaluate(() => (window as unknown as { axe: { run: () => Promise<unknown> } }).axe.run())) as { violations: Array<{ id: string; impact: string; nodes: unknown[] }> };
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}, ${v.nodes.length})`);
  }

  for (const [name, viewport, scale] of SIZES) {
    it(`a public media page and gallery carry their card and JSON-LD, show the credit line, pass axe (${name})`, async () => {
      const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone' });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(String(e)));
      await page.goto(`${home}/-/coast/_/${media}`, { waitUntil: 'networkidle' });
      const facts = await headFacts(page);
      expect(facts.canonical).toBe(`${home}/-/coast/_/${media}`);
      expect(facts.og['og:title']).toBe('Harbour at dawn');
      expect(facts.og['twitter:card']).toBe('summary_large_image');
      expect(facts.ld[0]).toMatchObject({ '@type': 'ImageObject', creator: { name: 'Ann Lee' }, copyrightNotice: '© 2026 Ann Lee' });
      // The card's image is fetchable as the page names it.
      const image = await page.request.get(facts.og['og:image']!);
      expect([image.status(), image.headers()['content-type']]).toEqual([200, 'image/jpeg']);
      await expect.poll(() => page.locator('figure.photo img').evaluate((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0)).toBe(true);
      const shown = await page.locator('dl.meta').innerText();
      expect(shown).toMatch(/Photographer\s+Ann Lee\s+Copyright\s+© 2026 Ann Lee\s+Licence[\s\S]+Taken\s+6 May 2024, 05:08 UTC\s+Place\s+Brest, France/);
      // The camera's GPS position is not shown (the photographer did not set one).
      expect(shown).not.toContain('Position');
      // No CSP violation: nothing was refused (the JSON-LD block is not a script to run).
      expect(problems).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `share-media-${name}.png`), fullPage: true });

      await page.goto(`${home}/-/coast`, { waitUntil: 'networkidle' });
      const gallery = await headFacts(page);
      expect(gallery.og['og:image']).toBe(facts.og['og:image']);
      expect(gallery.ld[0]).toMatchObject({ '@type': 'ImageGallery', name: 'Coast' });
      expect(problems).toEqual([]);
      await context.close();

      // axe needs its own script in the page: in a context that lets it past the CSP.
      const audit = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone', bypassCSP: true });
      const ap = await audit.newPage();
      for (const path of [`/-/coast/_/${media}`, '/-/coast']) {
        await ap.goto(`${home}${path}`, { waitUntil: 'networkidle' });
        expect(await axe(ap), path).toEqual([]);
      }
      await audit.close();
    });
  }

  it('a protected gallery, once its password is given, has no card and no JSON-LD', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${home}/-/private/_/${media}`);
    expect((await headFacts(page)).og).toEqual({});
    await page.fill('input[type=password]', 'pw');
    await page.click('button[type=submit]');
    await page.waitForURL(`${home}/-/private/_/${media}`);
    expect(await page.locator('h1').innerText()).toBe('Harbour at dawn');
    const facts = await headFacts(page);
    expect([facts.og, facts.ld]).toEqual([{}, []]);
    expect(facts.canonical).toBe(`${home}/-/private/_/${media}`);
    await page.screenshot({ path: join(ARTIFACTS, 'share-protected-media-desktop.png'), fullPage: true });
    await context.close();
  });
});

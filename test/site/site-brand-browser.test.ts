// The website's brand in a real browser (chromium through playwright-core): the theme's
// self-hosted fonts and the accent colour are what the browser computes, the logo is drawn,
// the navigation leads to the Markdown pages, nothing breaks the CSP, and axe-core finds no
// serious or critical violation. Screenshots of a themed gallery page and a Markdown page at
// 1280×800 and 390×844@3x land in test-artifacts/site/ (brand-*.png).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contrast, readableOn } from '../../src/site/look/theme.js';
import { startWorld, type World } from '../support/world.js';
import { uploadLogo } from './brand-support.js';
import { ARTIFACTS, chromiumPresent, launchChromium, uploadPhoto, waitForRenditions } from './site-support.js';

const AXE = join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js');
const ACCENT = '#b4531f';

const ABOUT = `I am a portrait and wedding photographer based in Lyon. I work with natural light, in
the places that matter to the people I photograph.

## How I work

- A first conversation, by phone or over coffee
- One session of two to four hours
- A gallery of edited photographs within three weeks

> “Ann made us forget the camera was there.” — Claire and Tom

Read more on [my journal](https://example.org/journal) or write to [ann@example.com](mailto:ann@example.com).`;

const VIEWPORTS = [
  ['desktop', { width: 1280, height: 800 }, 1],
  ['phone', { width: 390, height: 844 }, 3],
] as const;

function rgbOf(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
}

async function axe(page: Page): Promise<Array<{ id: string; impact: string; nodes: number }>> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const r = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> } }).axe.run();
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
}

describe.skipIf(!chromiumPresent)('the brand in a browser', () => {
  let w: World;
  let browser: Browser;
  let home: string;

  beforeAll(async () => {
    w = await startWorld('sqlite', { VISITOR_RATE_LIMIT: 'off' });
    const logo = await uploadLogo(w);
    const photos: string[] = [];
    for (let i = 0; i < 9; i++) photos.push(await uploadPhoto(w, w.rootUuid, i, 1800));
    await waitForRenditions(w, [logo, ...photos]);
    await w.client.request('PUT', `/websites/${w.urlname}.xml`, {
      'website[title]': 'Ann Lee',
      'website[tagline]': 'Portraits & weddings in Lyon',
      'website[logo]': logo,
      'website[favicon]': logo,
      'website[theme]': 'editorial',
      'website[color_scheme]': 'light',
      'website[accent_color]': ACCENT,
      'website[credit]': 'Photographs by Ann Lee',
      'website[contact_email]': 'ann@example.com',
      'website[social_links][]': ['https://instagram.com/annlee', 'https://vimeo.com/annlee'],
    });
    await w.client.request('PUT', `/websites/${w.urlname}/galleries/${w.rootUuid}.xml`, { 'gallery[name]': 'Portfolio' });
    await w.client.request('PUT', `/websites/${w.urlname}/pages/about.xml`, { 'page[title]': 'About', 'page[body]': ABOUT, 'page[position]': 1 });
    await w.client.request('PUT', `/websites/${w.urlname}/pages/contact.xml`, {
      'page[title]': 'Contact',
      'page[body]': 'For bookings and prints, write to [ann@example.com](mailto:ann@example.com) or call +33 4 00 00 00 00.',
      'page[position]': 2,
    });
    home = `${w.svc.url}/sites/${w.urlname}`;
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
  });

  for (const [name, viewport, scale] of VIEWPORTS) {
    it(`applies the theme, the accent and the logo at ${name} size, within the CSP, and passes axe`, async () => {
      const context: BrowserContext = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone', hasTouch: name === 'phone' });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      const thirdParty: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(w.svc.url)) thirdParty.push(r.url());
      });

      await page.goto(`${home}/`, { waitUntil: 'networkidle' });
      await page.evaluate(() => document.fonts.ready);
      const seen = await page.evaluate(() => {
        const style = (sel: string) => getComputedStyle(document.querySelector(sel)!);
        const logo = document.querySelector<HTMLImageElement>('header.site .brand img')!;
        return {
          h1Font: style('h1').fontFamily,
          bodyFont: style('body').fontFamily,
          loaded: [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family.replace(/"/g, '')),
          current: style('nav.site-nav a[aria-current=page]').borderBottomColor,
          accentVar: style(':root').getPropertyValue('--accent').trim(),
          logo: {
            complete: logo.complete,
            natural: logo.naturalWidth,
            height: logo.getBoundingClientRect().height,
            // The width of the rendition the browser chose (naturalWidth is corrected for density).
            chosen: Number(
              logo
                .getAttribute('srcset')!
                .split(', ')
                .map((c) => c.split(' '))
                .find(([url]) => new URL(url, location.href).href === logo.currentSrc)?.[1]
                .replace('w', ''),
            ),
          },
          nav: [...document.querySelectorAll('nav.site-nav a')].map((a) => a.textContent),
          // The last icon declared is the one browsers take: the brand's, after the default.
          icon: [...document.querySelectorAll('link[rel=icon]')].pop()!.getAttribute('href'),
        };
      });
      expect(seen.h1Font).toContain('Playfair Display Variable');
      expect(seen.bodyFont).toContain('Source Sans 3 Variable');
      expect(seen.loaded).toEqual(expect.arrayContaining(['Playfair Display Variable', 'Source Sans 3 Variable']));
      expect(seen.accentVar).toBe(ACCENT);
      expect(seen.current).toBe(rgbOf(ACCENT));
      expect(seen.logo.complete).toBe(true);
      expect(seen.logo.natural).toBeGreaterThan(0);
      expect(seen.logo.height).toBe(48);
      // At 3x the larger rendition is chosen for a sharp logo.
      expect(seen.logo.chosen).toBe(name === 'phone' ? 640 : 320);
      expect(seen.nav).toEqual(['Portfolio', 'About', 'Contact']);
      expect(seen.icon).toMatch(/^\/files\//);
      await page.screenshot({ path: join(ARTIFACTS, `brand-gallery-${name}.png`), fullPage: true });

      // The navigation leads to the Markdown page, its links in a colour that reads on the page.
      await page.click('nav.site-nav >> text=About');
      await page.waitForURL(`${home}/p/about`);
      await page.evaluate(() => document.fonts.ready);
      const prose = await page.evaluate(() => ({
        link: getComputedStyle(document.querySelector('.prose a')!).color,
        h2Font: getComputedStyle(document.querySelector('.prose h2')!).fontFamily,
        current: document.querySelector('nav.site-nav a[aria-current=page]')?.textContent,
      }));
      expect(prose.link).toBe(rgbOf(readableOn(ACCENT, '#ffffff')));
      expect(contrast(readableOn(ACCENT, '#ffffff'), '#ffffff')).toBeGreaterThanOrEqual(4.5);
      expect(prose.h2Font).toContain('Playfair Display Variable');
      expect(prose.current).toBe('About');
      await page.screenshot({ path: join(ARTIFACTS, `brand-about-${name}.png`), fullPage: true });
      expect(problems).toEqual([]);
      expect(thirdParty).toEqual([]);
      await context.close();

      // axe-core, injected past the CSP (a test's script, not the site's), on both page types.
      const checking = await browser.newContext({ viewport, deviceScaleFactor: scale, bypassCSP: true });
      const p = await checking.newPage();
      for (const path of ['/', '/p/about', '/p/contact']) {
        await p.goto(`${home}${path}`, { waitUntil: 'networkidle' });
        const bad = (await axe(p)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
        expect(bad, `${path}: ${JSON.stringify(bad)}`).toEqual([]);
      }
      await checking.close();
    }, 120_000);
  }

  it('a website without settings wears the default theme (modern, light), passes axe; screenshots at both sizes', async () => {
    const plain = await w.svc.website(w.user);
    const photos: string[] = [];
    for (let i = 20; i < 26; i++) photos.push(await uploadPhoto(w, plain.rootGalleryUuid, i, 1800));
    await waitForRenditions(w, photos);
    for (const [name, viewport, scale] of VIEWPORTS) {
      const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone' });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      await page.goto(`${w.svc.url}/sites/${plain.urlname}/`, { waitUntil: 'networkidle' });
      await page.evaluate(() => document.fonts.ready);
      const seen = await page.evaluate(() => ({
        h1: getComputedStyle(document.querySelector('h1')!).fontFamily,
        title: document.querySelector('header.site .brand-title')?.textContent,
        nav: [...document.querySelectorAll('nav.site-nav a')].map((a) => a.textContent),
        footer: document.querySelector('footer.site p')?.textContent,
      }));
      expect(seen.h1).toContain('Inter Variable');
      expect(seen.title).toBe(`Site ${plain.urlname}`);
      // No pages: no navigation beside the home link.
      expect(seen.nav).toEqual([]);
      expect(seen.footer).toBe(`© ${new Date().getUTCFullYear()} Site ${plain.urlname}`);
      expect(errors).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `brand-default-${name}.png`) });
      await context.close();
    }
    const checking = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    const p = await checking.newPage();
    await p.goto(`${w.svc.url}/sites/${plain.urlname}/`, { waitUntil: 'networkidle' });
    const bad = (await axe(p)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(bad).toEqual([]);
    await checking.close();
  }, 180_000);

  it('a dark scheme and another theme make a different stylesheet the browser applies', async () => {
    await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[theme]': 'classic', 'website[color_scheme]': 'dark' });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: false });
    const page = await context.newPage();
    await page.goto(`${home}/p/about`, { waitUntil: 'networkidle' });
    await page.evaluate(() => document.fonts.ready);
    const seen = await page.evaluate(() => ({
      bg: getComputedStyle(document.body).backgroundColor,
      h1: getComputedStyle(document.querySelector('h1')!).fontFamily,
      link: getComputedStyle(document.querySelector('.prose a')!).color,
    }));
    expect(seen.bg).toBe('rgb(17, 18, 19)');
    expect(seen.h1).toContain('Cormorant Garamond');
    expect(seen.link).toBe(rgbOf(readableOn(ACCENT, '#111213')));
    await page.screenshot({ path: join(ARTIFACTS, 'brand-about-dark-desktop.png'), fullPage: true });
    await context.close();
    await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[theme]': 'editorial', 'website[color_scheme]': 'light' });
  }, 120_000);
});

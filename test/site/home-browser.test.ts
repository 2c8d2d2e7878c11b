// The home page worth showing (issue 30 item 6) in Chromium at 1440×900 and 390×844@3x: the studio's
// Home page screen (hero photos picked from the library, searched, ordered; featured galleries),
// then the website's home with one hero photo and with a slideshow (the first image the largest
// paint, a pause button, still under prefers-reduced-motion), the featured galleries with covers
// and counts, and the navigation's Menu button on a phone (Escape closes it); axe-core finds no
// serious or critical violation anywhere. Screenshots: test-artifacts/site/home-*.png.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find } from '../../src/client/xml.js';
import { startWorld, type World } from '../support/world.js';
import { create } from '../api/galleries-fixtures.js';
import { ARTIFACTS, axe, chromiumPresent, launchChromium, uploadPhoto, waitForRenditions } from './site-support.js';

const VIEWPORTS = [
  ['desktop', { width: 1440, height: 900 }, 1],
  ['phone', { width: 390, height: 844 }, 3],
] as const;

describe.skipIf(!chromiumPresent)('the home page in a browser', () => {
  let w: World;
  let browser: Browser;
  let home: string;
  const hero: string[] = [];
  const g: Record<string, string> = {};

  beforeAll(async () => {
    w = await startWorld('sqlite', { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' });
    await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[title]': 'Ann Lee Photography', 'website[tagline]': 'Weddings and portraits in Lyon' });
    for (const name of ['Weddings', 'Portraits', 'Landscapes', 'Travel', 'Family']) g[name] = await create(w, name, w.rootUuid, name === 'Family' ? { password: 'xmas' } : {});
    g.Anna = await create(w, 'Anna and Ben', g.Weddings);
    const photos: string[] = [];
    let i = 0;
    for (const name of ['Anna', 'Portraits', 'Landscapes', 'Travel', 'Family']) for (let k = 0; k < 2; k++) photos.push(await uploadPhoto(w, g[name], i++, 2400));
    hero.push(photos[4], photos[6], photos[2]);
    expect(await waitForRenditions(w, photos)).toBe(true);
    await w.client.request('PUT', `/websites/${w.urlname}/pages/about.xml`, { 'page[title]': 'About', 'page[body]': 'Ann photographs people.' });
    home = `${w.svc.url}/sites/${w.urlname}`;
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
  });

  async function open(name: string, viewport: { width: number; height: number }, scale: number, reducedMotion: 'reduce' | 'no-preference' = 'no-preference'): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport, deviceScaleFactor: scale, isMobile: name === 'phone', hasTouch: name === 'phone', reducedMotion });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return { context, page, problems };
  }

  const wide = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  for (const [name, viewport, scale] of VIEWPORTS) {
    it(`sets the hero and the featured galleries in the studio at ${name} size`, async () => {
      await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[hero][0][media]': '', 'website[featured][0][gallery]': '' });
      const { context, page, problems } = await open(name, viewport, scale);
      await page.goto(`${w.svc.url}/studio/signin`);
      await page.getByLabel('E-mail address').fill(w.user.email);
      await page.getByLabel('Password').fill(w.user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/studio/websites');
      await page.goto(`${w.svc.url}/studio/websites/${w.urlname}/home`);
      await page.screenshot({ path: join(ARTIFACTS, `home-studio-before-${name}.png`), fullPage: true });
      expect(await axe(page)).toEqual([]);
      expect(await wide(page), 'the page scrolls sideways').toBe(0);
      // The latest first: the last upload leads the library's picker, with a thumbnail.
      const first = page.locator('#library .pick label').first();
      expect(await first.textContent()).toContain('Photo 10');
      expect(await first.locator('img').getAttribute('src')).toMatch(/^\/studio\/thumbs\//);
      // Searchable: a title finds its photo.
      await page.getByLabel('Find photos by title or file name').fill('Photo 5');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL('**/home?q=Photo+5');
      expect(await page.locator('#library .pick label').allTextContents()).toEqual(['Photo 5']);
      await page.locator('#library input[name=hero]').check();
      await page.getByRole('radio', { name: /Fill the width/ }).check();
      await page.getByLabel('Headline over the hero').fill('Light, people, places');
      await page.getByLabel('Tagline under the headline').fill('Ann Lee, photographer in Lyon');
      for (const [gallery, order] of [['Landscapes', 2], ['Weddings', 1], ['Family', 3]] as const) {
        const row = page.locator('.feature-list li', { hasText: gallery }).first();
        await row.locator('input[type=checkbox]').check();
        await row.locator('input[type=number]').fill(String(order));
      }
      await page.getByRole('button', { name: 'Save the home page' }).click();
      await page.waitForURL('**/home?done=saved');
      expect(problems).toEqual([]);
      const site = find((await w.client.request('GET', `/websites/${w.urlname}.xml`)).doc, 'website')!;
      expect(all(site, 'hero/media').map((m) => m.text)).toEqual([hero[0]]);
      expect(all(site, 'featured/gallery').map((m) => m.text)).toEqual([g.Weddings, g.Landscapes, g.Family]);
      // The chosen photo is shown with its order, and not offered again; the screen is whole on a phone.
      expect(await page.locator('#hero .pick-item').count()).toBe(1);
      await page.goto(`${w.svc.url}/studio/websites/${w.urlname}/home?q=Photo+5`);
      expect(await page.locator('#library').textContent()).toContain('chosen already');
      expect(await wide(page)).toBe(0);
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `home-studio-after-${name}.png`), fullPage: true });
      await context.close();
    });

    it(`shows one hero photo full-bleed as the largest paint, and the featured galleries, at ${name} size`, async () => {
      await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[hero][0][media]': hero[0], 'website[hero_fit]': 'fill' });
      const { context, page, problems } = await open(name, viewport, scale);
      await page.goto(`${home}/`, { waitUntil: 'networkidle' });
      const seen = await page.evaluate(async () => {
        const lcp = await new Promise<Element | null>((resolve) => {
          new PerformanceObserver((list) => {
            const entries = list.getEntries() as Array<PerformanceEntry & { element: Element | null }>;
            resolve(entries[entries.length - 1]?.element ?? null);
          }).observe({ type: 'largest-contentful-paint', buffered: true });
        });
        const img = document.querySelector<HTMLImageElement>('.hero img')!;
        const box = document.querySelector('.hero')!.getBoundingClientRect();
        return {
          lcpIsHero: lcp === img,
          heroWidth: box.width,
          heroHeight: box.height,
          objectFit: getComputedStyle(img).objectFit,
          drawn: img.getBoundingClientRect().width * devicePixelRatio,
          chosen: Number(img.srcset.split(', ').map((c) => c.split(' ')).find(([u]) => new URL(u, location.href).href === img.currentSrc)?.[1].replace('w', '')),
          headline: document.querySelector('.hero .headline')?.textContent,
          pause: document.querySelector('[data-hero-pause]') !== null,
          cards: [...document.querySelectorAll('ul.subs.featured li')].map((li) => ({
            name: li.querySelector('.name')?.textContent,
            count: li.querySelector('.count')?.textContent ?? null,
            cover: (li.querySelector('img') as HTMLImageElement | null)?.complete ?? false,
          })),
          nav: [...document.querySelectorAll('nav.site-nav a')].map((a) => a.textContent),
        };
      });
      expect(seen.lcpIsHero).toBe(true);
      expect(seen.heroWidth).toBe(viewport.width);
      expect(seen.heroHeight).toBeGreaterThan(viewport.height * 0.5);
      expect(seen.objectFit).toBe('cover');
      // Sharp: a rendition at least as wide as the drawn device pixels (the ladder's top below that).
      expect(seen.chosen).toBeGreaterThanOrEqual(Math.min(seen.drawn, 2048));
      expect(seen.headline).toBe('Light, people, places');
      expect(seen.pause).toBe(false);
      expect(seen.cards).toEqual([
        { name: 'Weddings', count: null, cover: true },
        { name: 'Landscapes', count: '2 photos', cover: true },
        { name: 'Family (protected)', count: null, cover: false },
      ]);
      // The navigation: home, the top-level galleries open to everyone (not Family), the pages.
      expect(seen.nav).toEqual(['Ann Lee Photography', 'Weddings', 'Portraits', 'Landscapes', 'Travel', 'About'].map((n, i) => (i === 0 ? expect.any(String) : n)));
      expect(await wide(page)).toBe(0);
      expect(await axe(page)).toEqual([]);
      expect(problems).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `home-hero-${name}.png`) });
      await page.screenshot({ path: join(ARTIFACTS, `home-hero-${name}-full.png`), fullPage: true });
      await context.close();
    });

    it(`plays a slideshow with a pause button, still under reduced motion, at ${name} size`, async () => {
      await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[hero][0][media]': hero[0], 'website[hero][1][media]': hero[1], 'website[hero][2][media]': hero[2], 'website[hero_fit]': 'fit' });
      const { context, page, problems } = await open(name, viewport, scale);
      await page.goto(`${home}/`, { waitUntil: 'networkidle' });
      const pause = page.getByRole('button', { name: 'Pause slideshow' });
      await expect.poll(() => pause.isVisible()).toBe(true);
      expect(await page.locator('.hero img').first().getAttribute('fetchpriority')).toBe('high');
      expect(await page.locator('.hero img').nth(2).getAttribute('loading')).toBe('lazy');
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('.hero img')!).objectFit)).toBe('contain');
      // It moves on by itself (a crossfade every few seconds), the hidden slides out of the accessibility tree.
      await expect.poll(() => page.locator('.slide.on').getAttribute('aria-label'), { timeout: 20_000 }).toBe('2 of 3');
      expect(await page.locator('.slide[aria-hidden=true]').count()).toBe(2);
      expect(await axe(page)).toEqual([]);
      await pause.click();
      // The button says what it does next (its name changes; no aria-pressed beside it).
      expect(await page.getByRole('button', { name: 'Play slideshow' }).isVisible()).toBe(true);
      await page.screenshot({ path: join(ARTIFACTS, `home-slideshow-${name}.png`) });
      await context.close();
      // Reduced motion: it starts still, the button offers to play it.
      const still = await open(name, viewport, scale, 'reduce');
      await still.page.goto(`${home}/`, { waitUntil: 'networkidle' });
      await expect.poll(() => still.page.getByRole('button', { name: 'Play slideshow' }).isVisible()).toBe(true);
      expect(await still.page.locator('.slide.on').getAttribute('aria-label')).toBe('1 of 3');
      expect([...problems, ...still.problems]).toEqual([]);
      await still.context.close();
    });
  }

  it('folds a long navigation behind a Menu button on a phone: it opens, Escape closes it and the focus goes back', async () => {
    const { context, page, problems } = await open('phone', { width: 390, height: 844 }, 3);
    await page.goto(`${home}/-/travel`, { waitUntil: 'networkidle' });
    const menu = page.getByRole('button', { name: 'Menu' });
    await expect.poll(() => menu.isVisible()).toBe(true);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('#site-nav-list').isVisible()).toBe(false);
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await page.locator('#site-nav-list a', { hasText: 'Portraits' }).isVisible()).toBe(true);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'home-menu-phone.png') });
    await page.locator('#site-nav-list a').first().focus();
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-menu'))).toBe('true');
    await menu.click();
    await Promise.all([page.waitForURL(`${home}/-/portraits`), page.locator('#site-nav-list a', { hasText: 'Portraits' }).click()]);
    expect(problems).toEqual([]);
    await context.close();
    // On a desktop the list is open and the button hidden.
    const desk = await open('desktop', { width: 1440, height: 900 }, 1);
    await desk.page.goto(`${home}/-/travel`, { waitUntil: 'networkidle' });
    expect(await desk.page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
    expect(await desk.page.locator('#site-nav-list a', { hasText: 'Portraits' }).isVisible()).toBe(true);
    await desk.context.close();
  });

  it('picks the accent colour with a colour picker bound to the #rrggbb field, on a phone', async () => {
    const { context, page, problems } = await open('phone', { width: 390, height: 844 }, 3);
    await page.goto(`${w.svc.url}/studio/signin`);
    await page.getByLabel('E-mail address').fill(w.user.email);
    await page.getByLabel('Password').fill(w.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/studio/websites');
    await page.goto(`${w.svc.url}/studio/websites/${w.urlname}`);
    const pick = page.getByLabel('Colour picker');
    await expect.poll(() => pick.isVisible()).toBe(true);
    await pick.fill('#b4531f');
    expect(await page.locator('#accent_color').inputValue()).toBe('#b4531f');
    // Written by hand, the picker follows.
    await page.locator('#accent_color').fill('#0F766E');
    expect(await pick.inputValue()).toBe('#0f766e');
    expect(await wide(page)).toBe(0);
    expect(await axe(page)).toEqual([]);
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.waitForURL('**/studio/websites/*?done=saved');
    const site = find((await w.client.request('GET', `/websites/${w.urlname}.xml`)).doc, 'website')!;
    expect(site.children.find((c) => c.name === 'accent-color')?.text).toBe('#0f766e');
    expect(problems).toEqual([]);
    await context.close();
  });
});

// The studio's analytics screen (issue 30, docs/studio.md "Analytics") in Chromium at desktop
// and phone sizes, axe clean: weekly bars from clients' events and visitors' counters, a real
// anonymous visit of the website counted, the top galleries and photos with their thumbnails,
// and another photographer's screen showing none of it. Screenshots in /tmp/shots-analytics/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { studioNav } from './studio-support.js';
import { chromiumPresent, launchChromium, axe } from '../site/site-support.js';
import { createGallery, mediaId } from '../support/media.js';
import type { TestUser } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { seedLibrary } from './studio-budget-support.js';
import { signInBrowser } from './studio-support.js';

const SHOTS = '/tmp/shots-analytics';
const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, phone: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, phone: true },
];
const DAY = 86_400_000;

describe.skipIf(!chromiumPresent)('the studio’s analytics in a browser', () => {
  let w: World;
  let browser: Browser;
  let wedding: string;
  let medias: string[];
  let stranger: TestUser;

  beforeAll(async () => {
    w = await startWorld('sqlite');
    medias = await seedLibrary(w, 4);
    wedding = await createGallery(w, 'Smith wedding');
    const d = w.svc.db;
    const gallery = await d.selectFrom('galleries').select('id').where('uuid', '=', wedding).executeTakeFirstOrThrow();
    const root = await d.selectFrom('galleries').select('id').where('uuid', '=', w.rootUuid).executeTakeFirstOrThrow();
    const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
    const events = [];
    // Twelve weeks of a client's visits, more each week; favourites and a download this week.
    for (let week = 0; week < 12; week++) for (let n = 0; n <= 11 - week; n++) events.push({ kind: 'view', at: ago(week * 7 + 0.1), media: null as string | null });
    events.push({ kind: 'pick', at: ago(0.1), media: medias[2] }, { kind: 'pick', at: ago(0.1), media: medias[2] }, { kind: 'pick', at: ago(0.1), media: medias[1] });
    events.push({ kind: 'download', at: ago(0.1), media: medias[2] }, { kind: 'sent', at: ago(0.1), media: null });
    for (const e of events) {
      await d
        .insertInto('activity_events')
        .values({ owner_id: w.user.id, gallery_id: gallery.id, client_email: 'ann@example.com', client_verified: 1, kind: e.kind, media_id: e.media ? await mediaId(d, e.media) : null, bytes: null, at: e.at })
        .execute();
    }
    await d.insertInto('activity_daily').values({ gallery_id: root.id, day: ago(8).slice(0, 10), kind: 'view', count: 25, bytes: 0 }).execute();
    stranger = await w.svc.user();
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
  });

  async function signedIn(size: (typeof SIZES)[number], who: TestUser = w.user) {
    const context = await browser.newContext({ viewport: size.viewport, isMobile: size.phone, hasTouch: size.phone, deviceScaleFactor: size.phone ? 2 : 1 });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    await signInBrowser(page, w.svc.url, who);
    return { context, page, problems };
  }

  const card = (page: import('playwright-core').Page, label: string) => page.locator('.an-card', { has: page.getByRole('heading', { name: label, exact: true }) });

  for (const size of SIZES) {
    it(`shows the weeks, the top galleries and photos at ${size.name} size`, async () => {
      const { context, page, problems } = await signedIn(size);
      await (await studioNav(page)).getByRole('link', { name: 'Analytics' }).click();
      await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
      // 12+11+…+1 client visits and 25 anonymous ones last week; this week 12 visits.
      expect(await card(page, 'Visits').locator('.an-total strong').textContent()).toBe(String(78 + 25));
      expect(await card(page, 'Favourites').locator('.an-now-text strong').textContent()).toBe('3');
      expect(await card(page, 'Downloads').locator('.an-now-text strong').textContent()).toBe('1');
      expect(await card(page, 'Selections').locator('.an-now-text strong').textContent()).toBe('1');
      // Twelve bars a chart, oldest week first (1 visit) to this week (12).
      const bars = card(page, 'Visits').locator('rect.an-bar');
      expect(await bars.count()).toBe(12);
      expect(await card(page, 'Visits').getByRole('img').getAttribute('aria-label')).toMatch(/^Visits per week: week of .+: 1; .+: 12$/);
      const ranks = page.locator('.an-rank li');
      expect(await ranks.first().textContent()).toContain('Smith wedding');
      expect(await ranks.first().textContent()).toContain('78 visits');
      const photos = page.locator('.an-photos li');
      expect(await photos.count()).toBe(2);
      expect(await photos.first().textContent()).toContain('2 favourites, 1 download');
      await expect.poll(() => page.locator('.an-photos img').evaluateAll((imgs) => imgs.filter((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0).length)).toBe(2);
      // Nothing wider than the screen on a phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.viewport.width);
      await page.screenshot({ path: join(SHOTS, `analytics-${size.name}.png`), fullPage: true });
      await page.locator('summary', { hasText: 'Figures week by week' }).click();
      expect(await page.locator('#an-weeks tbody tr').count()).toBe(12);
      expect(await axe(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });
  }

  it('counts a real visit of the website, and shows another photographer nothing of it', async () => {
    const before = await w.svc.core.activity.analytics(w.user);
    const visit = await fetch(`${w.svc.url}/sites/${w.urlname}/`);
    expect(visit.status).toBe(200);
    // Anonymous visits are added up in memory and written within seconds.
    await expect.poll(async () => (await w.svc.core.activity.analytics(w.user)).weeks.at(-1)!.visits, { timeout: 20_000, interval: 500 }).toBe(before.weeks.at(-1)!.visits + 1);
    const { context, page, problems } = await signedIn(SIZES[0], stranger);
    await page.goto(`${w.svc.url}/studio/analytics`);
    expect(await card(page, 'Visits').locator('.an-total strong').textContent()).toBe('0');
    expect(await page.getByText('No visits yet in these weeks.').count()).toBe(1);
    expect(await page.content()).not.toContain('Smith wedding');
    expect(problems).toEqual([]);
    await context.close();
  });
});

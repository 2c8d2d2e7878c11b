// Favourites in a real browser (Debian's chromium through playwright-core;
// docs/delivery.md): a client signs in with the link a real SMTP server
// received, picks photos with the hearts (on the page and in the viewer,
// without a reload) up to the gallery's limit, is stopped at the limit, writes
// notes, sends the selection after confirming it; the photographer gets the
// mail, `GET /medias.xml?lightbox_id=` lists exactly the picks and a batch
// update acts on them. axe-core on the new screens; screenshots at desktop
// and phone sizes go to /tmp/favourites-shots (not the repository).
// On SQLite and PostgreSQL. In CI (CI=1) a missing chromium fails the suite.
import { mkdirSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, int, text } from '../../src/client/xml.js';
import { readZip } from './archive-support.js';
import { waitForJob } from '../support/media.js';
import { eachDatabase, TestService, type DbKind } from '../support/service.js';
import { linkIn, partsOf, startSmtp, type TestSmtp } from '../support/smtp.js';
import { worldOn, type World } from '../support/world.js';
import { CHROMIUM, chromiumPresent, launchChromium, uploadPhoto, waitForRenditions } from './site-support.js';

const CLIENT = 'bride@example.com';
const LIMIT = 2;
const SHOTS = '/tmp/favourites-shots';
const AXE = join(process.cwd(), 'node_modules', 'axe-core', 'axe.min.js');

if (!chromiumPresent && process.env.CI) {
  describe('favourites in a browser', () => {
    it('finds chromium', () => {
      expect.fail(`${CHROMIUM} is missing: .ci/run installs the chromium package`);
    });
  });
}

eachDatabase((kind: DbKind) =>
  describe.skipIf(!chromiumPresent)('favourites in a browser', () => {
    let smtp: TestSmtp;
    let w: World;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let home: string;
    let proofs = '';
    const photos: string[] = [];
    const errors: string[] = [];

    const shot = (p: Page, name: string) => p.screenshot({ path: join(SHOTS, `${kind}-${name}.png`), fullPage: true });
    const heart = (uuid: string) => page.locator(`button.fav[value="${uuid}"]`);
    const counter = () => page.locator('[data-fav-count]').textContent();

    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      smtp = await startSmtp({ user: 'mailer', pass: 'secret' });
      const svc = await TestService.start(kind, {
        SMTP_URL: `smtp://mailer:secret@127.0.0.1:${smtp.port}`,
        MAIL_FROM: 'Photos <photos@example.com>',
        VISITOR_RATE_LIMIT: 'off',
        SITE_CACHE_SECONDS: '0',
        JOB_POLL_MS: '50',
      });
      w = await worldOn(svc);
      home = `${w.svc.url}/sites/${w.urlname}`;
      const res = await w.client.createGallery(w.urlname, {
        name: 'Wedding proofs',
        parent: w.rootUuid,
        pick_limit: LIMIT,
        acl: [
          { email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 },
          // The client may download the originals: their favourites come as one ZIP of them.
          { email: CLIENT, read: 1, comp_download: 0, hires_download: 1 },
        ],
      });
      proofs = text(res.doc, 'gallery/uuid')!;
      for (let i = 0; i < 3; i++) photos.push(await uploadPhoto(w, proofs, i, 1200));
      expect(await waitForRenditions(w, photos)).toBe(true);
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      page = await context.newPage();
      page.on('console', (m) => {
        // A refused page (403 sign-in, 409 limit) is reported as a failed load: those are expected.
        if (m.type() === 'error' && !/^Failed to load resource: the server responded with a status of 40[39]/.test(m.text())) errors.push(`${m.text()} at ${m.location().url}`);
      });
    }, 300_000);
    afterAll(async () => {
      await browser?.close();
      await w?.svc.close();
      await smtp?.close();
    });

    it('signs the client in with the mailed link', async () => {
      await page.goto(`${home}/-/wedding-proofs`);
      await Promise.all([page.waitForURL(/\/_signin\?back=/), page.locator('a.button', { hasText: 'Sign in' }).click()]);
      await page.locator('input[name="email"]').fill(CLIENT);
      const before = smtp.mails.length;
      await Promise.all([page.waitForLoadState('load'), page.locator('form button[type="submit"]').click()]);
      await expect.poll(() => smtp.mails.slice(before).find((m) => m.to.includes(CLIENT)), { timeout: 15_000 }).toBeDefined();
      const link = linkIn(smtp.mails.slice(before).find((m) => m.to.includes(CLIENT))!);
      await page.goto(link);
      await page.waitForURL(`${home}/-/wedding-proofs`);
      expect(await counter()).toBe(`0 of ${LIMIT} chosen`);
    });

    it('picks with the hearts, on the page and in the viewer, without a reload, and is stopped at the limit', async () => {
      await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
      await heart(photos[0]).click();
      await expect.poll(() => heart(photos[0]).getAttribute('aria-pressed')).toBe('true');
      await expect.poll(counter).toBe(`1 of ${LIMIT} chosen`);
      // In the viewer: the second photo's heart.
      await page.locator(`ul.media a[data-uuid="${photos[1]}"]`).click();
      await page.locator('.pswp.pswp--ready').waitFor();
      const viewerHeart = page.locator('.pswp__button--fav');
      expect(await viewerHeart.getAttribute('aria-pressed')).toBe('false');
      await viewerHeart.click();
      await expect.poll(() => viewerHeart.getAttribute('aria-pressed')).toBe('true');
      await shot(page, 'viewer-desktop');
      // The open viewer is a named modal dialog (axe's run with it open is below).
      expect(await page.locator('.pswp').getAttribute('aria-label')).toBe('Photo viewer');
      await page.keyboard.press('Escape');
      await expect.poll(() => page.locator('.pswp').count()).toBe(0);
      expect(await heart(photos[1]).getAttribute('aria-pressed')).toBe('true');
      await expect.poll(counter).toBe(`${LIMIT} of ${LIMIT} chosen`);
      // One more: refused, said, and the heart stays as it was.
      await heart(photos[2]).click();
      const alert = page.locator('p.error[role="alert"]');
      await expect.poll(() => alert.textContent()).toContain(`the most this gallery allows is ${LIMIT}`);
      expect(await heart(photos[2]).getAttribute('aria-pressed')).toBe('false');
      // All of it without leaving the page.
      expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
      await shot(page, 'gallery-desktop');
      const picked = await w.svc.db.selectFrom('lightbox_medias as lm').innerJoin('medias as m', 'm.id', 'lm.media_id').select('m.uuid').orderBy('lm.position').execute();
      expect(picked.map((r) => r.uuid)).toEqual([photos[0], photos[1]]);
    });

    it('writes notes on the selection page, sends it after confirming, read-only after', async () => {
      await Promise.all([page.waitForURL(`${home}/_favourites/${proofs}`), page.locator('.favbar a', { hasText: 'My favourites' }).click()]);
      expect(await page.locator('.counter').textContent()).toBe(`${LIMIT} of ${LIMIT} chosen`);
      await page.locator(`#note-${photos[0]}`).fill('Crop a little tighter');
      await Promise.all([page.waitForURL(`${home}/_favourites/${proofs}`), page.locator('form.note').nth(0).locator('button', { hasText: 'Save the note' }).click()]);
      await page.locator(`#note-${photos[1]}`).fill('Black & white, please <3');
      await Promise.all([page.waitForURL(`${home}/_favourites/${proofs}`), page.locator('form.note').nth(1).locator('button', { hasText: 'Save the note' }).click()]);
      expect(await page.locator(`#note-${photos[1]}`).inputValue()).toBe('Black & white, please <3');
      await shot(page, 'selection-desktop');

      await Promise.all([page.waitForLoadState('load'), page.locator('form.send button').click()]);
      expect(await page.locator('h1').textContent()).toBe('Send your selection?');
      await shot(page, 'confirm-desktop');
      const before = smtp.mails.length;
      await Promise.all([page.waitForURL(`${home}/_favourites/${proofs}`), page.locator('form.send button', { hasText: 'Yes, send it' }).click()]);
      expect(await page.locator('p.sent').textContent()).toContain('You have sent this selection');
      expect(await page.locator('textarea').count()).toBe(0);
      expect(await page.locator('.note-text').allTextContents()).toEqual(['Crop a little tighter', 'Black & white, please <3']);
      await shot(page, 'sent-desktop');

      // The photographer's mail.
      await expect.poll(() => smtp.mails.slice(before).find((m) => m.to.includes(w.user.email)), { timeout: 15_000 }).toBeDefined();
      const mail = smtp.mails.slice(before).find((m) => m.to.includes(w.user.email))!;
      const body = partsOf(mail.raw).get('text/plain')!;
      expect(body).toContain(`${LIMIT} photos`);
      expect(body).toContain(CLIENT);
      expect(body).not.toContain('not verified');
      // Back on the gallery: the hearts are read-only now.
      await page.goto(`${home}/-/wedding-proofs`);
      expect(await heart(photos[2]).isDisabled()).toBe(true);
      expect(errors).toEqual([]);
    });

    it('lists exactly the picks through the API, and a batch update acts on them', async () => {
      const lightboxes = await w.client.request('GET', '/lightboxes.xml');
      const [lb] = all(lightboxes.doc, 'lightboxes/lightbox');
      expect(text(lb, 'client-email')).toBe(CLIENT);
      expect(text(lb, 'client-verified')).toBe('true');
      expect(text(lb, 'state')).toBe('sent');
      expect(text(lb, 'name')).toBe(`${CLIENT} — Wedding proofs`);
      const uuid = text(lb, 'uuid')!;
      const listed = await w.client.request('GET', `/medias.xml?lightbox_id=${uuid}`);
      expect(all(listed.doc, 'medias/media').map((m) => text(m, 'uuid'))).toEqual([photos[0], photos[1]]);
      const job = await w.client.request('PUT', '/medias/batch_update.xml', { select: 'all', lightbox_id: uuid, medias_count: LIMIT, 'medias[add_keywords]': 'client-pick' }, { multipart: true, methodOverride: true });
      expect(text((await waitForJob(w.client, text(job.doc, 'location')!)).doc, 'job/state')).toBe('done');
      for (const [i, m] of photos.entries()) {
        const keywords = all((await w.client.request('GET', `/medias/${m}.xml`)).doc, 'media/keywords/keyword').map((k) => k.text);
        expect(keywords.includes('client-pick')).toBe(i < LIMIT);
      }
    });

    it('downloads the favourites as one ZIP of the originals the client may download, in the order picked', async () => {
      await page.goto(`${home}/_favourites/${proofs}`);
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('a', { hasText: 'Download my favourites (ZIP)' }).click()]);
      const file = join(SHOTS, `${kind}-favourites.zip`);
      await download.saveAs(file);
      const { entries, files } = await readZip(readFileSync(file));
      expect(entries).toHaveLength(LIMIT);
      // The originals (hires_download), byte for byte as the API knows them: their sizes, and the images' own.
      const sizes = await Promise.all([photos[0], photos[1]].map(async (m) => int((await w.client.request('GET', `/medias/${m}.xml`)).doc, 'media/file-size')));
      expect(entries.map((e) => files.get(e.name)!.length)).toEqual(sizes);
      for (const e of entries) expect((await sharp(files.get(e.name)!).metadata()).width).toBe(1200);
    });

    it('passes axe-core on the new screens and in the open viewer, at desktop and phone sizes', async () => {
      const failures: string[] = [];
      for (const [size, viewport] of [
        ['desktop', { width: 1280, height: 800 }],
        ['phone', { width: 390, height: 844 }],
      ] as const) {
        // axe-core is added as an inline script, which the pages' CSP forbids: this context alone bypasses it.
        const client = await browser.newContext({ viewport, bypassCSP: true, storageState: await context.storageState() });
        const guest = await browser.newContext({ viewport, bypassCSP: true });
        const pages: Array<[string, BrowserContext, string]> = [
          ['gallery', client, `${home}/-/wedding-proofs`],
          ['media', client, `${home}/-/wedding-proofs/_/${photos[0]}`],
          ['selection', client, `${home}/_favourites/${proofs}`],
          ['favourites', client, `${home}/_favourites`],
          ['identify', guest, `${home}/_favourites`],
        ];
        for (const [name, ctx, url] of pages) {
          const p = await ctx.newPage();
          await p.goto(url, { waitUntil: 'networkidle' });
          await shot(p, `${name}-${size}`);
          for (const v of await axe(p)) failures.push(`${name} at ${size}: ${v.id} (${v.impact}) ${v.help} — ${v.targets.join(', ')}`);
          if (name === 'gallery') {
            // The viewer open over the gallery, with its hearts and buttons.
            await p.locator(`ul.media a[data-uuid="${photos[1]}"]`).click();
            await p.locator('.pswp.pswp--ready').waitFor();
            for (const v of await axe(p)) failures.push(`viewer at ${size}: ${v.id} (${v.impact}) ${v.help} — ${v.targets.join(', ')}`);
          }
          await p.close();
        }
        await client.close();
        await guest.close();
      }
      expect(failures).toEqual([]);
    }, 240_000);
  }),
);

/** axe-core's serious and critical violations on the page. */
async function axe(page: Page): Promise<Array<{ id: string; impact: string; help: string; targets: string[] }>> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
}

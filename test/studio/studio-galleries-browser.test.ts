// The gallery tree and a gallery's settings in a real browser (chromium through playwright-core),
// on SQLite with local files and on PostgreSQL with S3 (test/studio/studio-backends.ts): build a
// three-level tree by drag and drop and read it back through the signed API, move and reorder
// with the keyboard, set a password on a phone and see the public website ask for it, invite a
// client on a phone and follow the mailed link (a real SMTP server) in a browser of the client's
// own; every screen passes axe-core with no serious or critical violation and breaks no CSP rule.
// Screenshots land in test-artifacts/studio/ (galleries-*).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text } from '../../src/client/xml.js';
import { postUpload, uploadParamsOf } from '../api/uploads-support.js';
import { updateMedia } from '../support/media.js';
import { linkIn, startSmtp, type TestSmtp } from '../support/smtp.js';
import type { World } from '../support/world.js';
import { chromiumPresent, launchChromium, photo, waitForRenditions, axe } from '../site/site-support.js';
import { BACKENDS, startOn, type BackendWorld } from './studio-backends.js';
import { signInBrowser } from './studio-support.js';

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'studio');

/** axe-core's serious and critical violations of the page (as test/studio/studio-browser.test.ts runs it). */

/** A JPEG uploaded through the API's three steps. */
async function uploadPhoto(w: World, seed: number): Promise<string> {
  const data = await photo(seed, 1200);
  const r1 = await w.client.request('POST', '/medias.xml', {
    'media[content][upload_location]': 'REQUEST',
    'media[content][file_name]': `IMG_${seed}.jpg`,
    'media[content][file_size]': data.length,
    'media[content][mime_type]': 'image/jpeg',
  });
  const media = find(r1.doc, 'media')!;
  const r2 = await postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: text(media, 'upload-file-param')!, data, name: `IMG_${seed}.jpg`, type: 'image/jpeg' });
  // The service answers 200; an S3 bucket answers a presigned POST with 204.
  if (r2.status < 200 || r2.status >= 300) throw new Error(`upload step 2 answered ${r2.status}`);
  await w.client.completeUpload(media, data.length);
  return text(media, 'uuid')!;
}

describe.skipIf(!chromiumPresent).each(BACKENDS)('the gallery tree in a browser, on $name', (backend) => {
  let on: BackendWorld;
  let w: World;
  let smtp: TestSmtp;
  let browser: Browser;
  let photos: string[];

  beforeAll(async () => {
    smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
    on = await startOn(backend, { SITE_CACHE_SECONDS: '0', SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'photos@example.com' });
    w = on.w;
    photos = [];
    for (let i = 1; i <= 4; i++) photos.push(await uploadPhoto(w, i));
    await waitForRenditions(w, photos);
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await on?.close();
    await smtp?.close();
  });

  const apiGallery = async (uuid: string) => find((await w.client.request('GET', `/websites/${w.urlname}/galleries/${uuid}.xml`)).doc, 'gallery')!;
  const parentOf = async (uuid: string) => text(await apiGallery(uuid), 'parent-uuid');
  const childNames = async (uuid: string) =>
    all((await w.client.request('GET', `/websites/${w.urlname}/galleries/${uuid}/subgalleries.xml`)).doc, 'galleries/gallery')
      .filter((g) => text(g, 'parent-uuid') === uuid)
      .map((g) => text(g, 'name'));
  const uuidByName = async (name: string) => {
    const g = all((await w.client.request('GET', `/websites/${w.urlname}/galleries.xml`)).doc, 'galleries/gallery').find((x) => text(x, 'name') === name);
    return text(g!, 'uuid')!;
  };

  /** A signed-in page that records CSP refusals and script errors. */
  async function signedIn(viewport: { width: number; height: number }, phone: boolean): Promise<{ page: Page; problems: string[]; close(): Promise<void> }> {
    const context = await browser.newContext({ viewport, deviceScaleFactor: phone ? 3 : 1, isMobile: phone, hasTouch: phone });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await signInBrowser(page, w.svc.url, w.user);
    return { page, problems, close: () => context.close() };
  }

  /** Drags a gallery's row onto another's: the middle puts it inside, an edge before or after it. */
  async function drag(page: Page, from: string, to: string, where: 'inside' | 'before' | 'after') {
    const target = page.locator(`#g-${to} > .item`);
    const box = (await target.boundingBox())!;
    const y = where === 'inside' ? box.height / 2 : where === 'before' ? 2 : box.height - 2;
    await page.dragAndDrop(`#g-${from} > .item .grip`, `#g-${to} > .item`, { targetPosition: { x: Math.min(120, box.width / 2), y } });
  }

  it('builds a three-level tree by drag and drop, reorders by dropping on an edge, and moves with the keyboard (desktop)', async () => {
    const { page, problems, close } = await signedIn({ width: 1280, height: 800 }, false);
    const screen = async (shot: string) => {
      expect(await axe(page), shot).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `galleries-${shot}-desktop.png`), fullPage: true });
    };
    // The header's Galleries opens the grid; its switch, the tree.
    await page.getByRole('link', { name: 'Galleries' }).click();
    await page.waitForURL(`**/studio/websites/${w.urlname}/galleries/grid`);
    await page.getByRole('navigation', { name: 'View' }).getByRole('link', { name: 'Tree' }).click();
    await page.waitForURL(`**/studio/websites/${w.urlname}/galleries`);
    // Four galleries at the top level, through the form.
    for (const name of ['Weddings', '2026', 'June', 'Portraits']) {
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByLabel('Inside').selectOption({ index: 0 });
      await page.getByRole('button', { name: 'Create' }).click();
      await page.waitForURL(/done=created/);
    }
    const [weddings, y2026, june, portraits] = [await uuidByName('Weddings'), await uuidByName('2026'), await uuidByName('June'), await uuidByName('Portraits')];
    for (const g of [weddings, y2026, june, portraits]) expect(await parentOf(g)).toBe(w.rootUuid);
    await updateMedia(w.client, photos[0], { 'media[publish_to_galleries]': [june] });
    await updateMedia(w.client, photos[1], { 'media[publish_to_galleries]': [june] });
    await page.reload();
    await screen('tree-flat');

    // 2026 into Weddings, June into 2026: three levels below the home.
    await drag(page, y2026, weddings, 'inside');
    await expect.poll(() => parentOf(y2026)).toBe(weddings);
    await page.waitForSelector(`#g-${weddings} #g-${y2026}`);
    await drag(page, june, y2026, 'inside');
    await expect.poll(() => parentOf(june)).toBe(y2026);
    await page.waitForSelector(`#g-${weddings} #g-${y2026} #g-${june}`);
    expect(await childNames(w.rootUuid)).toEqual(['Weddings', 'Portraits']);
    // Portraits dropped on Weddings' upper edge: before it, among the same siblings.
    await drag(page, portraits, weddings, 'before');
    await expect.poll(() => childNames(w.rootUuid)).toEqual(['Portraits', 'Weddings']);
    await page.waitForSelector(`#g-${portraits} + #g-${weddings}`);
    await expect.poll(() => page.getByRole('status').textContent()).toContain('moved');
    await screen('tree');

    // The keyboard: the down button of Portraits (focused, Enter), then the Move… page for June.
    await page.getByRole('button', { name: 'Move Portraits down' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => childNames(w.rootUuid)).toEqual(['Weddings', 'Portraits']);
    await page.getByRole('link', { name: /^Move June/ }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/studio/galleries/${june}/move`);
    await screen('move');
    // Neither June itself nor anything below it is offered.
    expect(await page.locator(`#parent option[value="${june}"]`).count()).toBe(0);
    await page.getByLabel('Put it inside').focus();
    await page.getByLabel('Put it inside').selectOption(weddings);
    await page.getByLabel('At position').fill('1');
    await page.getByLabel('At position').press('Enter');
    await page.waitForURL(/done=moved/);
    await expect.poll(() => parentOf(june)).toBe(weddings);
    expect(await childNames(weddings)).toEqual(['June', '2026']);

    // The settings screen and the delete confirmation pass axe too.
    await page.goto(`${w.svc.url}/studio/galleries/${june}`);
    await screen('settings');
    await page.goto(`${w.svc.url}/studio/galleries/${weddings}/delete`);
    expect(await page.getByText('2 photos of yours are published there.').count()).toBe(1);
    await screen('delete');
    expect(problems).toEqual([]);
    await close();
  }, 180_000);

  it('sets a gallery’s password on a phone, and the public website asks for it', async () => {
    const g = text(find((await w.client.createGallery(w.urlname, { name: 'Private proofs', parent: w.rootUuid })).doc, 'gallery')!, 'uuid')!;
    await updateMedia(w.client, photos[2], { 'media[publish_to_galleries]': [g] });
    await updateMedia(w.client, photos[3], { 'media[publish_to_galleries]': [g] });
    const { page, problems, close } = await signedIn({ width: 390, height: 844 }, true);
    await page.goto(`${w.svc.url}/studio/websites/${w.urlname}/galleries`);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'galleries-tree-phone.png'), fullPage: true });
    await page.getByRole('link', { name: 'Private proofs', exact: true }).tap();
    await page.waitForURL(`**/studio/galleries/${g}`);
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'galleries-settings-phone.png'), fullPage: true });
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('lyon 2026');
    await page.getByRole('button', { name: 'Set the password' }).tap();
    await page.waitForURL(/done=password/);
    await expect.poll(() => page.getByRole('status').textContent()).toContain('visitors are asked for it');
    expect(await axe(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'galleries-password-phone.png') });
    expect(text(await apiGallery(g), 'password-protected')).toBe('true');

    // A visitor (no studio session) opening the gallery is asked for the password.
    const visitor = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const site = await visitor.newPage();
    await site.goto(`${w.svc.url}/sites/${w.urlname}/-/private-proofs`);
    expect(await site.getByText('This gallery is protected by a password.').count()).toBe(1);
    await site.getByLabel('Password').fill('lyon 2026');
    await site.getByRole('button').filter({ hasText: /open|enter|continue|view/i }).first().click();
    await site.waitForLoadState();
    expect(await site.getByText('This gallery is protected by a password.').count()).toBe(0);
    await site.screenshot({ path: join(ARTIFACTS, 'galleries-site-unlocked-phone.png') });
    await visitor.close();
    expect(problems).toEqual([]);
    await close();
  }, 180_000);

  it('invites a client on a phone; the mailed link opens the protected gallery, with its photo, in the client’s own browser', async () => {
    const phone = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
    // A gallery nobody may see unless invited (DEFAULT read 0), with a photo.
    const created = find((await w.client.createGallery(w.urlname, { name: 'Ann & Tom', parent: w.rootUuid, acl: [{ email: 'DEFAULT', read: 0 }] })).doc, 'gallery')!;
    const g = text(created, 'uuid')!;
    const address = `${w.svc.url}/sites/${w.urlname}/-/${text(created, 'full-url-path')}`;
    await updateMedia(w.client, photos[0], { 'media[publish_to_galleries]': [g] });
    const client = await browser.newContext(phone);
    const site = await client.newPage();
    // Before the link, the client is refused.
    expect((await site.goto(address))!.status()).toBe(403);

    const { page, problems, close } = await signedIn(phone.viewport, true);
    await page.goto(`${w.svc.url}/studio/websites/${w.urlname}/galleries`);
    await page.getByRole('link', { name: 'Ann & Tom', exact: true }).tap();
    await page.waitForURL(`**/studio/galleries/${g}`);
    const email = `ann.tom.${backend.db}@example.com`;
    // Taps on the fields, the keyboard types.
    await page.getByLabel('Their e-mail address').tap();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('invite_message');
    await page.keyboard.type('Your wedding photos are ready.');
    await page.getByRole('checkbox', { name: 'May download web size' }).tap();
    expect(await axe(page), 'invite form at phone size').toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'galleries-invite-phone.png'), fullPage: true });
    await page.getByRole('button', { name: 'Send the invitation' }).tap();
    await page.waitForURL(/done=invited/);
    await expect.poll(() => page.locator('#invite').getByRole('status').textContent()).toContain('invited');
    expect(await axe(page), 'invite notice at phone size').toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'galleries-invited-phone.png') });
    expect(problems).toEqual([]);
    await close();
    // The access list as the API reads it: the client may see, and download the web size.
    const acl = all(await apiGallery(g), 'acl/entry').map((e) => [text(e, 'email'), text(e, 'read'), text(e, 'comp-download')]);
    expect(acl).toContainEqual([email, 'true', 'true']);

    // The mail, from the real SMTP server; its link, in the client's own browser.
    await expect.poll(() => smtp.mails.some((m) => m.to.includes(email)), { timeout: 10_000 }).toBe(true);
    const mails = smtp.mails.filter((m) => m.to.includes(email));
    expect(mails).toHaveLength(1);
    expect(mails[0].raw).toContain('Your wedding photos are ready.');
    await site.goto(linkIn(mails[0]));
    expect(site.url()).toBe(address);
    expect(await site.locator('h1').first().textContent()).toContain('Ann & Tom');
    const shown = site.locator(`a[href*="/_/${photos[0]}"] img`).first();
    await expect.poll(() => shown.evaluate((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0), { timeout: 15_000 }).toBe(true);
    await site.screenshot({ path: join(ARTIFACTS, 'galleries-invited-client-phone.png') });
    await client.close();
  }, 180_000);
});

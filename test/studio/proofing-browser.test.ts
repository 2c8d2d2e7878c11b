// Proofing (docs/studio.md) in Chromium at 1280×800 and 390×844, on SQLite + local files and
// PostgreSQL + S3: a client picks with a note and sends through the website; the photographer sees
// thumbnails, names, the note, when sent and the activity, copies the names (the clipboard read
// back) and reopens it for the client. Another photographer (or a member of the shared website)
// gets a 404; the reopen form needs its token. axe clean; screenshots in /tmp/shots-proofing/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import type { TestUser } from '../support/service.js';
import type { World } from '../support/world.js';
import { axe, chromiumPresent, launchChromium, uploadPhoto, waitForRenditions } from '../site/site-support.js';
import { BACKENDS, startOn, type BackendWorld } from './studio-backends.js';
import { signInBrowser, StudioBrowser } from './studio-support.js';

const SHOTS = '/tmp/shots-proofing';
const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, phone: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, phone: true },
];

describe.skipIf(!chromiumPresent).each(BACKENDS)('proofing in a browser, on $name', (backend) => {
  let on: BackendWorld;
  let w: World;
  let browser: Browser;
  let proofs: string;
  let home: string;
  let other: TestUser;
  const photos: string[] = [];

  beforeAll(async () => {
    on = await startOn(backend, { SITE_CACHE_SECONDS: '0', VISITOR_RATE_LIMIT: 'off', JOB_POLL_MS: '50' });
    w = on.w;
    home = `${w.svc.url}/sites/${w.urlname}`;
    proofs = text((await w.client.createGallery(w.urlname, { name: 'Wedding proofs', parent: w.rootUuid, favourites: 'on' })).doc, 'gallery/uuid')!;
    for (let i = 0; i < 4; i++) photos.push(await uploadPhoto(w, proofs, i, 600));
    expect(await waitForRenditions(w, photos)).toBe(true);
    other = await w.svc.user();
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await on?.close();
  });

  /** A browser of its own at the size, recording failed requests and script errors (`allowed`: statuses expected). */
  async function open(size: (typeof SIZES)[number], allowed: number[] = []): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: size.viewport, isMobile: size.phone, hasTouch: size.phone, deviceScaleFactor: size.phone ? 2 : 1 });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400 && !allowed.includes(r.status())) problems.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
    });
    return { context, page, problems };
  }

  /** The client's part, on the website: two hearts, who they are, a note, sent. */
  async function clientChooses(size: (typeof SIZES)[number], name: string, email: string, picked: [number, number], note: string): Promise<{ context: BrowserContext; page: Page }> {
    // The first heart before saying who one is answers 403 {identify: true}: the page then asks.
    const { context, page, problems } = await open(size, [403]);
    await page.goto(`${home}/-/wedding-proofs`);
    await page.locator(`button.fav[value="${photos[picked[0]]}"]`).click();
    await page.getByLabel('Your name').fill(name);
    await page.getByLabel('Your e-mail address').fill(email);
    await Promise.all([page.waitForURL(`${home}/-/wedding-proofs`), page.getByRole('button', { name: 'Start choosing' }).click()]);
    await expect.poll(() => page.locator(`button.fav[value="${photos[picked[0]]}"]`).getAttribute('aria-pressed')).toBe('true');
    await page.locator(`button.fav[value="${photos[picked[1]]}"]`).click();
    await expect.poll(() => page.locator(`button.fav[value="${photos[picked[1]]}"]`).getAttribute('aria-pressed')).toBe('true');
    await page.goto(`${home}/_favourites/${proofs}`);
    await page.locator(`#note-${photos[picked[1]]}`).fill(note);
    await Promise.all([page.waitForURL(`${home}/_favourites/${proofs}`), page.locator('form.note').nth(1).getByRole('button', { name: 'Save the note' }).click()]);
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Send my selection' }).click()]);
    await Promise.all([page.waitForURL(`${home}/_favourites/${proofs}`), page.getByRole('button', { name: 'Yes, send it' }).click()]);
    await page.locator('p.sent').waitFor();
    expect(problems).toEqual([]);
    return { context, page };
  }

  const lightboxOf = (email: string) => w.svc.db.selectFrom('lightboxes').select(['uuid', 'state']).where('client_email', '=', email).executeTakeFirstOrThrow();

  for (const [n, size] of SIZES.entries()) {
    const client = { name: `Ann ${size.name}`, email: `ann-${size.name}@example.com` };
    // Each size's client picks other photos: [0, 2] on the desktop, [1, 3] on the phone.
    const picked: [number, number] = [n, n + 2];
    const names = picked.map((i) => `UPLOAD_${String(i + 1).padStart(4, '0')}`);

    it(`shows a client's sent selection, copies its file names and reopens it, at ${size.name} size`, async () => {
      const note = `Warmer please, and crop <tighter> (${size.name})`;
      const theirs = await clientChooses(size, client.name, client.email, picked, note);

      const { context, page, problems } = await open(size);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: w.svc.url });
      await signInBrowser(page, w.svc.url, w.user);
      await page.goto(`${w.svc.url}/studio/galleries/${proofs}`);
      await page.getByRole('link', { name: 'Proofing: clients’ selections' }).click();
      await page.getByRole('heading', { name: 'Proofing: Wedding proofs' }).waitFor();
      await page.getByRole('navigation', { name: 'Clients’ selections' }).getByRole('link', { name: new RegExp(client.name) }).click();
      await page.getByRole('heading', { name: client.name, exact: true }).waitFor();

      // The photos in the order picked, their names, the note (as text), when it was sent.
      const picks = page.locator('.proof-picks li');
      await expect.poll(() => picks.locator('.fname').allTextContents()).toEqual(names.map((b) => `${b}.jpg`));
      await expect.poll(() => picks.locator('img').evaluateAll((imgs) => imgs.filter((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0).length)).toBe(2);
      expect(await picks.nth(1).locator('.pnote').textContent()).toBe(`Note: ${note}`);
      expect(await picks.nth(0).locator('.pnote').count()).toBe(0);
      expect(await page.locator('.proof-head').textContent()).toMatch(/Sent\s*2 photos · \d{1,2} \w{3} \d{4}, \d\d:\d\d UTC/);
      expect(await page.locator('.proof-head').textContent()).toContain('(address not verified)');
      // The client's activity beside it: their picks and the sending.
      const activity = page.getByRole('complementary');
      expect(await activity.getByRole('heading').textContent()).toBe(`Activity of ${client.name}`);
      for (const line of ['Sent the selection', `Chose ${names[0]}.jpg`, `Chose ${names[1]}.jpg`]) expect(await activity.locator('.events').textContent()).toContain(line);

      // Copied for Lightroom, then for Capture One: the clipboard holds each form, as the fields show them.
      expect(await page.getByLabel('Lightroom Classic', { exact: true }).inputValue()).toBe(names.join(', '));
      await page.getByRole('button', { name: 'Copy for Lightroom' }).click();
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(names.join(', '));
      await page.getByRole('button', { name: 'Copy for Capture One' }).click();
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(names.join(' '));
      expect(await page.getByLabel('One file name a line').inputValue()).toBe(names.map((b) => `${b}.jpg`).join('\n'));

      await page.screenshot({ path: join(SHOTS, `${backend.db}-proofing-${size.name}.png`), fullPage: true });
      expect(await axe(page)).toEqual([]);
      // The lists themselves, to select by hand.
      await page.getByText('File names for Lightroom, Capture One or a list').click();
      expect(await page.getByLabel('Capture One', { exact: true }).isVisible()).toBe(true);
      await page.locator('.proof-names').screenshot({ path: join(SHOTS, `${backend.db}-names-${size.name}.png`) });

      // Reopened: the screen says so, and the client may change it again.
      await page.getByRole('button', { name: 'Reopen the selection' }).click();
      await page.getByText('The selection is open again').waitFor();
      expect(await page.locator('.proof-head .tag').textContent()).toBe('Open');
      expect(await page.getByRole('button', { name: 'Reopen the selection' }).count()).toBe(0);
      expect((await lightboxOf(client.email)).state).toBe('open');
      await page.screenshot({ path: join(SHOTS, `${backend.db}-reopened-${size.name}.png`), fullPage: true });
      expect(await axe(page)).toEqual([]);
      await theirs.page.reload();
      await expect.poll(() => theirs.page.locator(`#note-${photos[picked[1]]}`).inputValue()).toBe(note);
      await expect.poll(() => theirs.page.getByRole('button', { name: 'Send my selection' }).count()).toBe(1);
      expect(problems).toEqual([]);
      await theirs.context.close();
      await context.close();
    }, 180_000);
  }

  it('answers 404 to another photographer, whatever the selection, and refuses a reopen without the token', async () => {
    const { context, page } = await open(SIZES[0], [404]);
    await signInBrowser(page, w.svc.url, other);
    const screen = await page.goto(`${w.svc.url}/studio/galleries/${proofs}/proofing`);
    expect(screen?.status()).toBe(404);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(await page.content()).not.toContain('Wedding proofs');
    expect(await axe(page)).toEqual([]);
    await context.close();

    // A member of the shared website, who may manage its galleries, still does not see its owner's clients.
    const site = await w.svc.db.selectFrom('websites').select('id').where('urlname', '=', w.urlname).executeTakeFirstOrThrow();
    await w.svc.db.insertInto('website_members').values({ website_id: site.id, user_id: other.id }).execute();
    // Over HTTP: their own valid token gets a 404 and changes nothing; the owner's form without a token a 403.
    await w.svc.db.updateTable('lightboxes').set({ state: 'sent' }).where('client_email', '=', 'ann-desktop@example.com').execute();
    const { uuid } = await lightboxOf('ann-desktop@example.com');
    const them = await new StudioBrowser(w.svc).signIn(other);
    expect((await them.get(`/studio/galleries/${proofs}`)).status).toBe(200);
    expect((await them.get(`/studio/galleries/${proofs}/proofing`)).status).toBe(404);
    expect((await them.get(`/studio/galleries/${proofs}/proofing?selection=${uuid}`)).status).toBe(404);
    const theirToken = StudioBrowser.csrf(await them.get('/studio/account'));
    expect((await them.post(`/studio/galleries/${proofs}/proofing/${uuid}/reopen`, { csrf: theirToken })).status).toBe(404);
    const owner = await new StudioBrowser(w.svc).signIn(w.user);
    expect((await owner.post(`/studio/galleries/${proofs}/proofing/${uuid}/reopen`, {})).status).toBe(403);
    expect((await owner.post(`/studio/galleries/${proofs}/proofing/${uuid}/reopen`, { csrf: StudioBrowser.csrf(await owner.get('/studio/account')) }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await lightboxOf('ann-desktop@example.com')).state).toBe('sent');
    // A gallery without selections says so.
    const empty = await owner.get(`/studio/galleries/${w.rootUuid}/proofing`);
    expect(empty.status).toBe(200);
    expect(empty.body).toContain('No client has chosen photos in this gallery yet.');
    // A selection of another gallery, or none at all, named under this gallery: 404.
    expect((await owner.get(`/studio/galleries/${proofs}/proofing?selection=${photos[0]}`)).status).toBe(404);
    expect((await owner.get(`/studio/galleries/${w.rootUuid}/proofing?selection=${uuid}`)).status).toBe(404);
    expect((await owner.post(`/studio/galleries/${w.rootUuid}/proofing/${uuid}/reopen`, { csrf: StudioBrowser.csrf(await owner.get('/studio/account')) })).status).toBe(404);
    // The owner's token: reopened, 303 back to it.
    const done = await owner.post(`/studio/galleries/${proofs}/proofing/${uuid}/reopen`, { csrf: StudioBrowser.csrf(await owner.get('/studio/account')) });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`/studio/galleries/${proofs}/proofing?selection=${uuid}&done=reopened`);
    expect((await lightboxOf('ann-desktop@example.com')).state).toBe('open');
  }, 120_000);
});

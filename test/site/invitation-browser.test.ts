// An invitation followed in a real browser (Debian's chromium through
// playwright-core): the photographer invites through the signed API, the mail
// arrives at a real SMTP server, the client opens its link, lands on the
// protected gallery with its photo, and their view is in the gallery's activity.
// In CI (CI=1) a missing /usr/bin/chromium fails the suite (.ci/run installs it).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { items, text } from '../../src/client/xml.js';
import { linkIn, startSmtp, type TestSmtp } from '../support/smtp.js';
import { startWorld, type World } from '../support/world.js';
import { CHROMIUM, chromiumPresent, launchChromium, uploadPhoto } from './site-support.js';

if (!chromiumPresent && process.env.CI) {
  describe('invitation in a browser', () => {
    it('finds chromium', () => {
      expect.fail(`${CHROMIUM} is missing: .ci/run installs the chromium package`);
    });
  });
}

describe.skipIf(!chromiumPresent)('an invitation in a browser', () => {
  let w: World;
  let smtp: TestSmtp;
  let browser: Browser;

  beforeAll(async () => {
    smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
    w = await startWorld('sqlite', { SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}` });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await w?.svc.close();
    await smtp?.close();
  });

  it('the mailed link signs the client in and opens the protected gallery', async () => {
    const r = await w.client.createGallery(w.urlname, { name: 'Ann & Tom', parent: w.rootUuid, acl: [{ email: 'DEFAULT', read: 0 }] });
    const uuid = text(r.doc, 'gallery-uuid')!;
    const media = await uploadPhoto(w, uuid, 3, 800);
    const email = 'ann.tom@example.com';
    await w.client.request('POST', `/galleries/${uuid}/invitations.xml`, { 'invitation[email]': email, 'invitation[message]': 'Your wedding photos are ready.' });
    let mail = smtp.mails.find((m) => m.to.includes(email));
    for (let i = 0; !mail && i < 200; i++) {
      await new Promise((res) => setTimeout(res, 25));
      mail = smtp.mails.find((m) => m.to.includes(email));
    }
    const link = linkIn(mail!);

    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    // Before the link, the gallery asks to sign in.
    const refused = await page.goto(`${w.svc.url}/sites/${w.urlname}/-/${text(r.doc, 'gallery/full-url-path')}`);
    expect(refused?.status()).toBe(403);
    await page.goto(link);
    expect(new URL(page.url()).pathname).toBe(`/sites/${w.urlname}/-/${text(r.doc, 'gallery/full-url-path')}`);
    expect(await page.locator('h1').first().textContent()).toContain('Ann & Tom');
    expect(await page.locator(`a[href*="/_/${media}"]`).count()).toBeGreaterThan(0);
    await ctx.close();

    await w.svc.service.core.activity.idle();
    const a = await w.client.request('GET', `/galleries/${uuid}/activity.xml`);
    expect(items(a.doc, 'events').map((e) => [text(e, 'kind'), text(e, 'client')])).toEqual([
      ['view', email],
      ['invited', email],
    ]);
  }, 60_000);
});

// One pass through each face of the service, on each database: what `.ci/run`
// runs on the Node versions other than the one the full tier runs on
// (docs/testing.md, "Other Node versions"). Each step loads one of the
// native modules the service depends on: the SQLite driver, sharp, argon2.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { find, text } from '../../src/client/xml.js';
import { buildIfStale, childEnv, runBuilt } from '../support/processes.js';
import { eachDatabase } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { StudioBrowser } from '../studio/studio-support.js';
import { png } from '../api/uploads-support.js';

eachDatabase((kind) => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld(kind);
  });
  afterAll(() => w?.svc.close());

  it('answers a signed, logged-in API call', async () => {
    const who = await w.client.whoami();
    expect(text(who.doc, 'user/email')).toBe(w.user.email);
  });

  it('stores an upload, makes its renditions and shows it on the website', async () => {
    const res = await w.client.request('POST', '/medias.xml', { 'media[title]': 'Smoke', 'media[publish_to_galleries]': w.rootUuid }, {
      file: { field: 'media[content]', fileName: 'smoke.png', data: await png(640, 480) },
    });
    const uuid = text(res.doc, 'media/uuid')!;
    const deadline = Date.now() + 60_000;
    let media = find((await w.client.request('GET', `/medias/${uuid}.xml`)).doc, 'media')!;
    while (text(media, 'renditions-state') === 'processing' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      media = find((await w.client.request('GET', `/medias/${uuid}.xml`)).doc, 'media')!;
    }
    expect(text(media, 'renditions-state')).toBe('ready');
    const url = text(media, 'renditions/rendition/url')!;
    const file = await fetch(url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^image\//);
    expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(100);

    const page = await fetch(`${w.svc.url}/sites/${w.urlname}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Smoke');
    expect(html).toMatch(/\/files\/[^"' ]+/);
  });

  it('signs a photographer in to the studio', async () => {
    const browser = await new StudioBrowser(w.svc).signIn(w.user);
    const page = await browser.get(`/studio/websites/${w.urlname}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`Site ${w.urlname}`);
    expect(StudioBrowser.csrf(page)).toBeTruthy();
  });

  it('runs the admin command against the same data', async () => {
    await buildIfStale();
    const email = `smoke-${Date.now()}@example.com`;
    const env = childEnv({ DATA_DIR: w.svc.config.dataDir, DATABASE_URL: w.svc.config.databaseUrl });
    const res = await runBuilt('cli/admin.js', ['user', 'create', '--email', email, '--password', 'correct horse', '--json'], { env, timeoutMs: 60_000 });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).email).toBe(email);
    // The service sees the account the command made, and its password (argon2id) checks.
    const who = await w.svc.client(w.app, { email, password: 'correct horse' } as never).whoami();
    expect(text(who.doc, 'user/email')).toBe(email);
  });
});

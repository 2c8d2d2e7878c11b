// The studio's Expiry card (docs/studio.md "Galleries"), on SQLite and PostgreSQL: the expiry
// saved, cleared and refused through the gallery spec's field, "Extend 30 days" in one post,
// each read back through the signed API; CSRF on both forms, another owner's gallery a 404.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { createGallery } from '../support/media.js';
import { eachDatabase } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { fieldError, StudioBrowser } from './studio-support.js';

const DAY = 86_400_000;

eachDatabase((kind) => {
  let w: World;
  let b: StudioBrowser;
  let g: string;
  beforeAll(async () => {
    w = await startWorld(kind);
    b = await new StudioBrowser(w.svc).signIn(w.user);
    g = await createGallery(w, 'Wedding');
  });
  afterAll(() => w?.svc.close());

  const expiry = async () => text((await w.client.request('GET', `/websites/${w.urlname}/galleries/${g}.xml`)).doc, 'gallery/expires-at');
  const page = () => `/studio/galleries/${g}`;

  it('saves an expiry in UTC, shows it back, and clears it', async () => {
    expect((await b.get(page())).body).toContain('has no expiry date');
    const saved = await b.submit(page(), `${page()}/expiry`, { expires_at: '2030-06-01T18:30' });
    expect([saved.status, saved.headers.get('location')]).toEqual([303, `${page()}?done=expiry#expiry`]);
    expect(await expiry()).toBe('2030-06-01T18:30:00+00:00');
    const shown = await b.get(saved.headers.get('location')!);
    expect(shown.body).toContain('value="2030-06-01T18:30"');
    expect(shown.body).toContain('Extend 30 days');
    expect(shown.body).toContain('The expiry was saved.');
    await b.submit(page(), `${page()}/expiry`, { expires_at: '' });
    expect(await expiry()).toBeUndefined();
    expect((await b.get(page())).body).not.toContain('Extend 30 days');
  });

  it('refuses a bad value at its field (422), changing nothing', async () => {
    await b.submit(page(), `${page()}/expiry`, { expires_at: '2030-01-01T00:00' });
    const bad = await b.submit(page(), `${page()}/expiry`, { expires_at: '2030-02-30T10:00' });
    expect(bad.status).toBe(422);
    expect(fieldError(bad.body, 'expires_at')).toMatch(/expires at must be an ISO 8601 date and time/);
    expect(await expiry()).toBe('2030-01-01T00:00:00+00:00');
  });

  it('extends by 30 days from the expiry when ahead, from now when past', async () => {
    await b.submit(page(), `${page()}/expiry`, { expires_at: '2090-01-01T00:00' });
    const ext = await b.submit(page(), `${page()}/extend`, {});
    expect([ext.status, ext.headers.get('location')]).toEqual([303, `${page()}?done=extended#expiry`]);
    expect(await expiry()).toBe('2090-01-31T00:00:00+00:00');
    expect((await b.get(`/studio/websites/${w.urlname}/galleries`)).body).not.toContain('<span class="badge">Closed</span>');
    await b.submit(page(), `${page()}/expiry`, { expires_at: '2020-01-01T00:00' });
    expect((await b.get(page())).body).toContain('This gallery has closed');
    // The tree says so too.
    expect((await b.get(`/studio/websites/${w.urlname}/galleries`)).body).toContain('<span class="badge">Closed</span>');
    const before = Date.now();
    await b.submit(page(), `${page()}/extend`, {});
    const at = Date.parse((await expiry())!);
    expect(at).toBeGreaterThanOrEqual(Math.floor((before + 30 * DAY) / 1000) * 1000);
    expect(at).toBeLessThanOrEqual(Date.now() + 30 * DAY);
  });

  it('refuses either form without its CSRF token, and another owner\'s gallery is a 404', async () => {
    const kept = await expiry();
    for (const action of ['expiry', 'extend']) {
      const res = await b.post(`${page()}/${action}`, { expires_at: '' });
      expect(res.status, action).toBe(403);
    }
    expect(await expiry()).toBe(kept);
    const stranger = await w.svc.user();
    const site = await w.svc.website(stranger);
    const theirs = text((await w.svc.client(await w.svc.app(), stranger).createGallery(site.urlname, { name: 'Theirs', parent: site.rootGalleryUuid, expires_at: '2090-01-01T00:00:00Z' })).doc, 'gallery/uuid')!;
    const csrf = StudioBrowser.csrf(await b.get(page()));
    expect((await b.post(`/studio/galleries/${theirs}/extend`, { csrf })).status).toBe(404);
    expect((await b.post(`/studio/galleries/${theirs}/expiry`, { csrf, expires_at: '' })).status).toBe(404);
    const theirExpiry = text((await w.svc.client(await w.svc.app(), stranger).request('GET', `/websites/${site.urlname}/galleries/${theirs}.xml`)).doc, 'gallery/expires-at');
    expect(theirExpiry).toBe('2090-01-01T00:00:00+00:00');
  });
});

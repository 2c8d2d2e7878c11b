// The studio's "Downloads" card (docs/studio.md "Galleries"), on SQLite and
// PostgreSQL: the download PIN, the limit per client, web or original size and the favourites
// limit saved and cleared through the gallery spec's fields, read back through the signed API;
// a bad value refused at its field (422); CSRF; another owner's gallery a 404.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { createGallery } from '../support/media.js';
import { eachDatabase } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { fieldError, StudioBrowser } from './studio-support.js';

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

  const page = () => `/studio/galleries/${g}`;
  const api = async () => {
    const doc = (await w.client.request('GET', `/websites/${w.urlname}/galleries/${g}.xml`)).doc;
    return ['download-pin', 'download-limit', 'download-size'].map((n) => text(doc, `gallery/${n}`));
  };

  it('saves the PIN, the limit and the size, shows them back, and clears them', async () => {
    expect((await b.get(page())).body).toContain('id="downloads-h"');
    const saved = await b.submit(page(), `${page()}/downloads`, { download_pin: '0427', download_limit: '25', download_size: 'web' });
    expect([saved.status, saved.headers.get('location')]).toEqual([303, `${page()}?done=downloads#downloads`]);
    expect(await api()).toEqual(['0427', '25', 'web']);
    const shown = await b.get(saved.headers.get('location')!);
    expect(shown.body).toContain('The download settings were saved.');
    expect(shown.body).toContain('id="download_pin" name="download_pin"');
    expect(shown.body).toContain('value="0427"');
    expect(shown.body).toMatch(/<option value="web" selected>/);
    await b.submit(page(), `${page()}/downloads`, { download_pin: '', download_limit: '', download_size: 'original' });
    expect(await api()).toEqual([undefined, undefined, 'original']);
  });

  it('refuses a bad value at its field (422), changing nothing', async () => {
    await b.submit(page(), `${page()}/downloads`, { download_pin: '1234', download_limit: '5', download_size: 'original' });
    for (const [field, value, words] of [
      ['download_pin', '12', /must be 4 to 8 digits/],
      ['download_limit', '0', /download limit/i],
      ['download_size', 'poster', /must be one of web, original/],
    ] as const) {
      const form = { download_pin: '1234', download_limit: '5', download_size: 'original', [field]: value };
      const bad = await b.submit(page(), `${page()}/downloads`, form);
      expect(bad.status, field).toBe(422);
      expect(fieldError(bad.body, field), field).toMatch(words);
      // The form comes back as it was sent.
      expect(bad.body, field).toContain(`value="${field === 'download_size' ? '1234' : value}"`);
    }
    expect(await api()).toEqual(['1234', '5', 'original']);
  });

  it('refuses the form without its CSRF token, and another owner\'s gallery is a 404', async () => {
    expect((await b.post(`${page()}/downloads`, { download_pin: '' })).status).toBe(403);
    expect((await api())[0]).toBe('1234');
    const stranger = await w.svc.user();
    const site = await w.svc.website(stranger);
    const theirs = text((await w.svc.client(await w.svc.app(), stranger).createGallery(site.urlname, { name: 'Theirs', parent: site.rootGalleryUuid, download_pin: '9999' })).doc, 'gallery/uuid')!;
    const csrf = StudioBrowser.csrf(await b.get(page()));
    expect((await b.post(`/studio/galleries/${theirs}/downloads`, { csrf, download_pin: '' })).status).toBe(404);
    const theirPin = text((await w.svc.client(await w.svc.app(), stranger).request('GET', `/websites/${site.urlname}/galleries/${theirs}.xml`)).doc, 'gallery/download-pin');
    expect(theirPin).toBe('9999');
  });
});

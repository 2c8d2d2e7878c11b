// Gallery display styles (spec 4.4) and watermarks (client-compat) lists.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, bool, int, text } from '../../src/client/xml.js';
import { nowIso } from '../../src/database/db.js';
import { eachDatabase } from '../support/service.js';
import { failure, startWorld, type GalleryWorld } from './galleries-fixtures.js';

eachDatabase((kind) => {
  let w: GalleryWorld;
  beforeAll(async () => {
    w = await startWorld(kind);
  });
  afterAll(() => w?.svc.close());

  it('lists the display styles of a website, never empty, with pagination', async () => {
    const path = `/websites/${w.urlname}/gallery_display_styles.xml`;
    const details = await w.client.request('GET', path, { view: 'details' });
    const styles = all(details.doc, 'gallery-display-styles/gallery-display-style');
    expect(styles.length).toBeGreaterThanOrEqual(1);
    expect(details.body).toContain('<gallery-display-styles type="array">');
    for (const s of styles) {
      expect(text(s, 'uuid')).toMatch(/^[0-9a-f-]{36}$/);
      expect(text(s, 'name')).toBeTruthy();
    }
    expect(styles.filter((s) => bool(s, 'default') === true)).toHaveLength(1);
    const list = await w.client.request('GET', path);
    expect(all(list.doc, 'gallery-display-styles/gallery-display-style/layout')).toHaveLength(0);
    const page2 = await w.client.request('GET', path, { page: 2, per_page: 1 });
    expect(text(page2.doc, 'gallery-display-styles/gallery-display-style/uuid')).toBe(text(styles[1], 'uuid'));
    expect(int(page2.doc, 'total-pages')).toBe(styles.length);
    expect((await failure(w.client.request('GET', path, { per_page: 501 }))).status).toBe(422);
  });

  it("lists the watermarks of the user's media library with the fields clients read", async () => {
    const artist = await w.svc.db.selectFrom('artists').select('id').where('uuid', '=', w.user.defaultArtistUuid).executeTakeFirstOrThrow();
    await w.svc.db
      .insertInto('watermarks')
      .values({ uuid: randomUUID(), artist_id: artist.id, text: '© Ann Lee', strength: 40, position: 'bottom-right', tile: 0, is_default: 1, created_at: nowIso() })
      .execute();
    await w.svc.db
      .insertInto('watermarks')
      .values({ uuid: randomUUID(), artist_id: artist.id, file_name: 'logo.png', width: 300, height: 120, tile: 1, created_at: nowIso() })
      .execute();
    const res = await w.client.request('GET', `/artists/${w.user.defaultArtistUuid}/watermarks.xml`, { view: 'details' });
    const [a, b] = all(res.doc, 'watermarks/watermark');
    expect(text(a, 'text')).toBe('© Ann Lee');
    expect(int(a, 'strength')).toBe(40);
    expect(text(a, 'position')).toBe('bottom-right');
    expect(text(a, 'tile')).toBe('false');
    expect(text(a, 'default')).toBe('true');
    expect(a.children.find((c) => c.name === 'file-name')?.attrs.nil).toBe('true');
    expect(text(b, 'file-name')).toBe('logo.png');
    expect([int(b, 'width'), int(b, 'height')]).toEqual([300, 120]);
    expect(text(b, 'tile')).toBe('true');
    expect(text(b, 'default')).toBe('false');
    expect(text(b, 'uuid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(int(res.doc, 'total-pages')).toBe(1);
  });

  it("answers 404 for another user's media library and for unknown ones", async () => {
    const other = await w.svc.user();
    for (const uuid of [other.defaultArtistUuid, randomUUID(), 'nope']) {
      expect((await failure(w.client.request('GET', `/artists/${uuid}/watermarks.xml`))).status).toBe(404);
    }
  });
});

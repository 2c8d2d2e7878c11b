// Automatic covers look into sub-galleries (issue 30, defect 6), on SQLite and PostgreSQL: a
// gallery of galleries, which holds no photo of its own, takes its card's cover from its first
// sub-gallery (list order, nearest level first) that has one, however deep (within 4 levels);
// never from a sub-gallery behind a password, an access list or hidden, which would show a
// visitor what they may not open or find. A gallery with photos of its own keeps its own cover.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../../src/database/db.js';
import { create, publishMedias } from '../api/galleries-fixtures.js';
import { eachDatabase } from '../support/service.js';
import type { World } from '../support/world.js';
import { cookieOf, startSite, visit } from './site-support.js';

eachDatabase((kind) => {
  let w: World;
  let home: string;
  let family: string;
  /** A media published to `gallery` with one rendition whose storage key names it. */
  async function photoIn(gallery: string, name: string): Promise<string> {
    const [uuid] = await publishMedias(w.svc.db, w.user, gallery, [`${name}.jpg`]);
    const m = await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow();
    const key = `seed/${name}-${randomUUID()}.jpg`;
    mkdirSync(join(w.svc.config.dataDir, 'media', 'seed'), { recursive: true });
    writeFileSync(join(w.svc.config.dataDir, 'media', key), Buffer.alloc(1000, 1));
    await w.svc.db
      .insertInto('renditions')
      .values({ media_id: m.id, name: '640', width: 640, height: 427, mime_type: 'image/jpeg', storage_key: key, bytes: 1000, created_at: nowIso() })
      .execute();
    await w.svc.db.updateTable('medias').set({ renditions_state: 'ready' }).where('id', '=', m.id).execute();
    return name;
  }

  /** The cover of the card linking to `path` on `page`: the seed name in its image's address, 'none', or 'placeholder'. */
  function coverOf(page: string, path: string): string {
    // The card, not the header's navigation link to the same gallery (a plain name).
    const links = [...page.matchAll(new RegExp(`<li><a href="${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}">(.*?)</a></li>`, 'g'))];
    const card = links.find((m) => m[1].includes('class="cover'));
    if (!card) throw new Error(`no card for ${path}`);
    if (card[1].includes('class="cover none"')) return 'none';
    const seed = /seed\/([a-z-]+)-[0-9a-f-]{36}\.jpg/.exec(card[1]);
    return seed ? seed[1] : 'placeholder';
  }

  beforeAll(async () => {
    ({ w, home } = await startSite(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' }));
    // Weddings: no photo of its own; its first sub-gallery (list order) has photos.
    const weddings = await create(w, 'Weddings');
    await photoIn(await create(w, 'Anna and Ben', weddings), 'anna');
    await photoIn(await create(w, 'Cleo', weddings), 'cleo');
    // Travel → Europe (empty) → Paris: two levels down.
    const travel = await create(w, 'Travel');
    await photoIn(await create(w, 'Paris', await create(w, 'Europe', travel)), 'paris');
    // Portfolio: its only photos are behind a password, an access list, or hidden.
    const portfolio = await create(w, 'Portfolio');
    await photoIn(await create(w, 'Private', portfolio, { password: 'secret' }), 'private');
    await photoIn(await create(w, 'Clients', portfolio, { acl: [{ email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 }, { email: 'c@example.com', read: 1, comp_download: 0, hires_download: 0 }] }), 'listed');
    await photoIn(await create(w, 'Unlisted', portfolio, { hidden: 1 }), 'hidden');
    // Family: behind a password; its photos are in a sub-gallery of it.
    family = await create(w, 'Family', w.rootUuid, { password: 'xmas' });
    await photoIn(await create(w, 'Christmas', family), 'christmas');
    // Landscapes: a photo of its own, and a sub-gallery with others.
    const landscapes = await create(w, 'Landscapes');
    await photoIn(landscapes, 'own');
    await photoIn(await create(w, 'Hills', landscapes), 'hills');
  }, 60_000);
  afterAll(() => w?.svc.close());

  describe('the home page’s cards', () => {
    it('take a gallery of galleries’ cover from its first sub-gallery with one', async () => {
      const page = await visit(w.svc, `${home}/`);
      expect(page.status).toBe(200);
      expect(coverOf(page.body, `${home}/-/weddings`)).toBe('anna');
    });

    it('look more than one level down', async () => {
      const page = await visit(w.svc, `${home}/`);
      expect(coverOf(page.body, `${home}/-/travel`)).toBe('paris');
      // And the level between shows the same on its own page.
      const travel = await visit(w.svc, `${home}/-/travel`);
      expect(coverOf(travel.body, `${home}/-/travel/europe`)).toBe('paris');
    });

    it('never show a photo from behind a password, an access list or a hidden gallery', async () => {
      const page = await visit(w.svc, `${home}/`);
      expect(coverOf(page.body, `${home}/-/portfolio`)).toBe('none');
      for (const name of ['private', 'listed', 'hidden']) expect(page.body).not.toContain(`seed/${name}-`);
    });

    it('give a protected gallery of galleries its cover from below only to who may open it, at an address that serves it', async () => {
      // A client gallery is on the home page only when chosen as featured (issue 30).
      const page0 = (await visit(w.svc, `${home}/`)).body;
      expect(() => coverOf(page0, `${home}/-/family`)).toThrow();
      await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[featured][0][gallery]': family });
      const anonymous = await visit(w.svc, `${home}/`);
      expect(coverOf(anonymous.body, `${home}/-/family`)).toBe('none');
      expect(anonymous.body).not.toContain('seed/christmas-');
      const cookie = cookieOf(await visit(w.svc, `${home}/_password`, { form: { gallery: family, password: 'xmas', back: `${home}/` } }))!;
      const page = await visit(w.svc, `${home}/`, { cookie });
      expect(coverOf(page.body, `${home}/-/family`)).toBe('christmas');
      // Signed for the gallery it is published in: /files serves it.
      const src = /src="([^"]*seed\/christmas-[^"]+)"/.exec(page.body)![1].replace(/&amp;/g, '&');
      const file = await visit(w.svc, src.replace(/^https?:\/\/[^/]+/, ''));
      expect(file.status).toBe(200);
      await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[featured][0][gallery]': '' });
    });

    it('keep a gallery’s own photo as its cover', async () => {
      const page = await visit(w.svc, `${home}/`);
      expect(coverOf(page.body, `${home}/-/landscapes`)).toBe('own');
    });
  });
});

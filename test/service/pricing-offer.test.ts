// A media's priced offer (docs/shop.md, "A media's offer"), read from the
// price lists attached to it: download sizes never larger than the original,
// print options at their unit prices; only the owner's media (404 otherwise).
// On SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { withCore } from '../support/core.js';

const PG = process.env.TEST_DATABASE_URL;

for (const db of ['sqlite', ...(PG ? ['postgres'] : [])] as const) {
  describe(`a media's offer (${db})`, () => {
    const w = withCore(db === 'postgres' ? { postgresUrl: PG } : {});

    async function media(ownerId: number, size: { width: number | null; height: number | null }, status = 'live') {
      const d = w.core.store.db;
      const artist = await d.selectFrom('artists').select('id').where('owner_id', '=', ownerId).executeTakeFirstOrThrow();
      const now = new Date().toISOString();
      const uuid = randomUUID();
      const m = await d
        .insertInto('medias')
        .values({ uuid, owner_id: ownerId, artist_id: artist.id, status, file_name: 'a.jpg', created_at: now, updated_at: now, ...size })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { id: m.id, uuid };
    }

    async function attach(mediaId: number, profileUuid: string) {
      const d = w.core.store.db;
      const p = await d.selectFrom('pricing_profiles').select('id').where('uuid', '=', profileUuid).executeTakeFirstOrThrow();
      await d.insertInto('media_pricing_profiles').values({ media_id: mediaId, pricing_profile_id: p.id }).execute();
    }

    it('offers the sizes the original can give, the original file, and the print options', async () => {
      const owner = await w.user('owner');
      const profiles = w.core.pricingProfiles;
      const downloads = await profiles.createList(owner, {
        name: 'Downloads',
        kind: 'download',
        currency: 'EUR',
        items: [
          { param: 'a', label: 'Web', longEdge: 1200, price: 900, options: [] },
          { param: 'b', label: 'Huge', longEdge: 8000, price: 9900, options: [] },
          { param: 'c', label: 'Original file', longEdge: null, price: 4900, options: [] },
        ],
      });
      const prints = await profiles.createList(owner, {
        name: 'Prints',
        kind: 'print',
        currency: 'EUR',
        minimumPrice: 1500,
        items: [{ param: 'a', label: 'Paper', longEdge: null, price: 1000, options: [{ param: 'o', label: 'A3', price: null, ratio: 300 }] }],
      });
      const m = await media(owner.id, { width: 6000, height: 4000 });
      await attach(m.id, downloads.uuid);
      await attach(m.id, prints.uuid);

      const offer = await profiles.offer(owner, m.uuid);
      expect(offer.map((l) => [l.name, l.items.map((i) => [i.label, i.option, i.longEdge, i.unitPrice])])).toEqual([
        [
          'Downloads',
          [
            ['Web', null, 1200, 900],
            ['Original file', null, null, 4900],
          ],
        ],
        ['Prints', [['Paper', 'A3', null, 1500]]],
      ]);
      // A media without a profile offers nothing; a pending one (no file yet) neither.
      expect(await profiles.offer(owner, (await media(owner.id, { width: 6000, height: 4000 })).uuid)).toEqual([]);
      const pending = await media(owner.id, { width: null, height: null }, 'pending');
      await attach(pending.id, downloads.uuid);
      expect(await profiles.offer(owner, pending.uuid)).toEqual([]);
    });

    it("answers 404 for another user's media", async () => {
      const [owner, other] = [await w.user('a'), await w.user('b')];
      const m = await media(owner.id, { width: 100, height: 100 });
      const refusal = await w.core.pricingProfiles.offer(other, m.uuid).catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(ApiError);
      expect((refusal as ApiError).status).toBe(404);
    });
  });
}

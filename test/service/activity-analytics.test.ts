// The studio's analytics (ActivityService.analytics, docs/studio.md "Analytics"): week buckets
// from Monday UTC, clients' events and anonymous counters added up, the top galleries and photos,
// nothing of another owner's websites, and nothing older than the weeks shown. Both databases.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/app.js';
import { ANALYTICS_WEEKS } from '../../src/activity/service.js';
import { withCore } from '../support/core.js';

const PG = process.env.TEST_DATABASE_URL;
// A Wednesday: its week starts on Monday 2026-11-23.
const NOW = new Date('2026-11-25T12:00:00.000Z');

for (const db of ['sqlite', ...(PG ? ['postgres'] : [])] as const) {
  describe(`studio analytics (${db})`, () => {
    const w = withCore(db === 'postgres' ? { postgresUrl: PG } : {});
    let core: Core;
    let owner: { id: number };
    let other: { id: number };
    let galleries: Record<string, { id: number; uuid: string }>;
    let medias: Array<{ id: number; uuid: string }>;

    async function setUp(email: string, urlname: string) {
      const { user } = await core.users.create({ email, password: 'correct horse battery staple' });
      await core.websites.create(user, { urlname, title: urlname });
      const d = core.store.db;
      const website = await d.selectFrom('websites').select('id').where('urlname', '=', urlname).executeTakeFirstOrThrow();
      const root = await d.selectFrom('galleries').select(['id', 'uuid']).where('website_id', '=', website.id).where('parent_id', 'is', null).executeTakeFirstOrThrow();
      return { user, website, root };
    }

    beforeAll(async () => {
      core = w.core;
      const d = core.store.db;
      const a = await setUp('analytics@example.com', 'analytics');
      const b = await setUp('other@example.com', 'other');
      owner = a.user;
      other = b.user;
      const child = await d
        .insertInto('galleries')
        .values({ uuid: randomUUID(), website_id: a.website.id, parent_id: a.root.id, list_pos: 1000, name: 'Smith wedding', url_path: 'smith', full_url_path: 'smith', published_at: NOW.toISOString(), created_at: NOW.toISOString(), updated_at: NOW.toISOString() })
        .returning(['id', 'uuid'])
        .executeTakeFirstOrThrow();
      galleries = { root: a.root, smith: child, foreign: b.root };
      const artist = await d.selectFrom('artists').select('id').where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
      medias = [];
      for (let i = 0; i < 3; i++) {
        medias.push(
          await d
            .insertInto('medias')
            .values({ uuid: randomUUID(), owner_id: owner.id, artist_id: artist.id, file_name: `IMG_${i}.jpg`, created_at: NOW.toISOString(), updated_at: NOW.toISOString() })
            .returning(['id', 'uuid'])
            .executeTakeFirstOrThrow(),
        );
      }
      const event = (ownerId: number, gallery: number, kind: string, at: string, mediaId: number | null = null, email = 'ann@example.com') => ({
        owner_id: ownerId,
        gallery_id: gallery,
        client_email: email,
        client_verified: 1,
        kind,
        media_id: mediaId,
        bytes: null,
        at,
      });
      await d
        .insertInto('activity_events')
        .values([
          // This week (from Monday 23 November).
          event(owner.id, galleries.smith.id, 'view', '2026-11-23T00:00:00.000Z'),
          event(owner.id, galleries.smith.id, 'view', '2026-11-25T09:00:00.000Z', null, 'bob@example.com'),
          event(owner.id, galleries.smith.id, 'pick', '2026-11-25T09:01:00.000Z', medias[0].id),
          event(owner.id, galleries.smith.id, 'pick', '2026-11-25T09:02:00.000Z', medias[1].id),
          event(owner.id, galleries.smith.id, 'pick', '2026-11-25T09:02:00.000Z', medias[1].id, 'bob@example.com'),
          event(owner.id, galleries.smith.id, 'download', '2026-11-25T09:03:00.000Z', medias[1].id),
          event(owner.id, galleries.smith.id, 'sent', '2026-11-25T09:04:00.000Z'),
          // Last week: Sunday 22 November, late.
          event(owner.id, galleries.root.id, 'view', '2026-11-22T23:59:59.999Z'),
          event(owner.id, galleries.root.id, 'archive', '2026-11-22T23:00:00.000Z'),
          // Before the twelve weeks shown (their first Monday is 7 September).
          event(owner.id, galleries.root.id, 'view', '2026-09-06T12:00:00.000Z'),
          event(owner.id, galleries.smith.id, 'pick', '2026-09-06T12:00:00.000Z', medias[2].id),
          // Another photographer's website.
          event(other.id, galleries.foreign.id, 'view', '2026-11-24T12:00:00.000Z'),
          event(other.id, galleries.foreign.id, 'pick', '2026-11-24T12:00:00.000Z', medias[2].id),
        ])
        .execute();
      await d
        .insertInto('activity_daily')
        .values([
          { gallery_id: galleries.root.id, day: '2026-11-24', kind: 'view', count: 40, bytes: 0 },
          { gallery_id: galleries.smith.id, day: '2026-11-16', kind: 'view', count: 5, bytes: 0 },
          { gallery_id: galleries.root.id, day: '2026-11-16', kind: 'download', count: 3, bytes: 1000 },
          { gallery_id: galleries.root.id, day: '2026-09-06', kind: 'view', count: 1000, bytes: 0 },
          { gallery_id: galleries.foreign.id, day: '2026-11-24', kind: 'view', count: 700, bytes: 0 },
        ])
        .execute();
    });

    it('counts each week from Monday (UTC), clients and anonymous visitors added up, nothing older and nothing of another owner', async () => {
      const a = await core.activity.analytics(owner, NOW);
      expect(a.weeks).toHaveLength(ANALYTICS_WEEKS);
      expect(a.weeks[0].start).toBe('2026-09-07');
      expect(a.weeks.at(-1)).toEqual({ start: '2026-11-23', visits: 2 + 40, downloads: 1, favourites: 3, selections: 1 });
      expect(a.weeks.at(-2)).toEqual({ start: '2026-11-16', visits: 1 + 5, downloads: 1 + 3, favourites: 0, selections: 0 });
      const totals = a.weeks.reduce((n, wk) => n + wk.visits + wk.downloads + wk.favourites + wk.selections, 0);
      expect(totals).toBe(42 + 5 + 6 + 4);
    });

    it('ranks the galleries by visits and the photos by what clients did with them, the owner’s only', async () => {
      const a = await core.activity.analytics(owner, NOW);
      expect(a.galleries).toEqual([
        { uuid: galleries.root.uuid, name: expect.any(String), count: 41 },
        { uuid: galleries.smith.uuid, name: 'Smith wedding', count: 7 },
      ]);
      expect(a.medias).toEqual([
        { uuid: medias[1].uuid, title: null, file_name: 'IMG_1.jpg', picks: 2, downloads: 1 },
        { uuid: medias[0].uuid, title: null, file_name: 'IMG_0.jpg', picks: 1, downloads: 0 },
      ]);
    });

    it('shows empty weeks to a photographer without activity', async () => {
      const { user } = await core.users.create({ email: 'quiet@example.com', password: 'correct horse battery staple' });
      const a = await core.activity.analytics(user, NOW);
      expect(a.weeks.every((wk) => wk.visits + wk.downloads + wk.favourites + wk.selections === 0)).toBe(true);
      expect(a.galleries).toEqual([]);
      expect(a.medias).toEqual([]);
    });
  });
}

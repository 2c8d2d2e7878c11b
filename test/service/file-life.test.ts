// A media file's life (src/media/file-life.ts) on real local storage, SQLite and PostgreSQL:
// stored with its renditions queued, replaced, deleted (recorded in the transaction, removed after
// the commit, drained after a crash), swept when abandoned, too late, counted in the quota.
// Through HTTP: test/api/crash.test.ts, uploads-cleanup.test.ts, galleries-delete.test.ts.
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { inUnit } from '../../src/database/unit-of-work.js';
import type { UserRow } from '../../src/database/schema.js';
import { RENDITIONS_JOB_KIND } from '../../src/renditions/job.js';
import { DATABASES, jpeg, noAttributes, noisyJpeg, part, PG, refusal, withServices } from '../support/services.js';

const EXPIRY_SECONDS = 3600;

for (const db of DATABASES) {
  describe(`a file's life (${db})`, () => {
    const w = withServices({ ...(db === 'postgres' ? { postgresUrl: PG } : {}), env: { UPLOAD_EXPIRY_SECONDS: String(EXPIRY_SECONDS) } });
    let me: UserRow;
    let seed = 100;

    beforeAll(async () => {
      me = await w.user('life');
    });

    const d = () => w.core.store.db;
    const mediaRow = (id: number) => d().selectFrom('medias').selectAll().where('id', '=', id).executeTakeFirst();
    const renditionKeys = async (id: number) => (await d().selectFrom('renditions').select('storage_key').where('media_id', '=', id).execute()).map((r) => r.storage_key);
    const recorded = async (keys: readonly string[], on = d()) => (await on.selectFrom('file_deletions').select('storage_key').where('storage_key', 'in', [...keys]).execute()).map((r) => r.storage_key).sort();
    const stored = async (keys: readonly string[]) => (await Promise.all(keys.map(async (k) => ((await w.storage.stat(k)) ? k : undefined)))).filter((k): k is string => k !== undefined).sort();
    const jobsOf = async (id: number) =>
      (await d().selectFrom('jobs').selectAll().where('kind', '=', RENDITIONS_JOB_KIND).orderBy('id').execute()).filter((j) => JSON.parse(j.payload).mediaId === id);
    async function readAll(key: string): Promise<Buffer> {
      const body = await w.storage.read(key);
      const chunks: Buffer[] = [];
      for await (const c of body!) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    }
    /** A live media from a direct upload: its id, UUID and file. */
    async function live(who = me, bytes?: Buffer) {
      const data = bytes ?? (await jpeg(++seed));
      const r = await w.media.create(who, { attributes: noAttributes(), replace: false, fileName: `f${seed}.jpg`, upload: { direct: part(data) } });
      const row = (await mediaRow(r.media.record.id))!;
      return { id: row.id, uuid: row.uuid, key: row.storage_key!, data };
    }
    /** Step 1 and step 2 of a new file for `uuid` (a replacement when it is live): its incoming key. */
    async function incoming(uuid: string, data: Buffer): Promise<string> {
      const r = await w.media.update(me, uuid, { attributes: noAttributes(), upload: { step: 'request', declaration: { fileName: 'next.jpg', fileSize: data.length, mimeType: 'image/jpeg', capabilities: [], failedLocations: [] } } });
      const step = r.uploads[0];
      if (step.step !== 'begun') throw new Error('no upload begun');
      const p = step.instructions.target.params;
      await w.uploads.receive({ policy: p.policy, signature: p.signature, form: { key: p.key, contentType: p['Content-Type'] } }, Readable.from([data]));
      return p.key;
    }
    /** Every file a media holds: its original, its renditions, its pending upload's incoming file. */
    async function filesOf(id: number): Promise<string[]> {
      const m = (await mediaRow(id))!;
      const up = await d().selectFrom('uploads').select('storage_key').where('media_id', '=', id).executeTakeFirst();
      return [m.storage_key!, ...(await renditionKeys(id)), ...(up ? [up.storage_key] : [])].sort();
    }

    it('stores a file at its final key and queues its renditions in the same change; the job makes them', async () => {
      const m = await live();
      expect(m.key).toMatch(/^originals?\//);
      expect(await readAll(m.key)).toEqual(m.data);
      // Published: the file's "unpublished" record is off, so no sweep takes it.
      expect(await recorded([m.key])).toEqual([]);
      expect((await mediaRow(m.id))?.renditions_state).toBe('pending');
      const [job] = await jobsOf(m.id);
      expect(job).toMatchObject({ state: 'queued', lane: 1, owner_id: me.id });
      expect(JSON.parse(job.payload)).toEqual({ mediaId: m.id, storageKey: m.key });
      await w.runRenditions(m.id);
      const keys = await renditionKeys(m.id);
      expect(keys.length).toBeGreaterThan(0);
      expect(await stored(keys)).toEqual([...keys].sort());
      expect((await mediaRow(m.id))?.renditions_state).toBe('ready');
      expect((await w.media.get(me, m.uuid, true)).renditions.length).toBe(keys.length);
    });

    it('replaces a file: the old one and its renditions go after the commit, new renditions are queued, the old job makes nothing', async () => {
      const m = await live();
      await w.runRenditions(m.id);
      const before = await filesOf(m.id);
      const next = await jpeg(++seed);
      // A second replacement before any renditions job ran: only the last file's job may make any.
      const between = await jpeg(++seed);
      await w.media.update(me, m.uuid, { attributes: noAttributes(), direct: part(between) });
      const betweenKey = (await mediaRow(m.id))!.storage_key!;
      await w.media.update(me, m.uuid, { attributes: noAttributes(), direct: part(next) });
      const now = (await mediaRow(m.id))!;
      expect(now.storage_key).not.toBe(m.key);
      expect(await readAll(now.storage_key!)).toEqual(next);
      expect(await stored([...before, betweenKey])).toEqual([]);
      expect(await recorded([...before, betweenKey])).toEqual([]);
      expect(await renditionKeys(m.id)).toEqual([]);
      expect((await jobsOf(m.id)).filter((j) => j.state === 'queued').map((j) => JSON.parse(j.payload).storageKey)).toEqual([betweenKey, now.storage_key]);
      await w.runRenditions(m.id, 'oldest');
      expect(await renditionKeys(m.id)).toEqual([]);
      await w.runRenditions(m.id);
      expect((await renditionKeys(m.id)).length).toBeGreaterThan(0);
      expect((await mediaRow(m.id))?.renditions_state).toBe('ready');
    });

    // Was a bug until 2026-11-28 (src/file-storage/file-deletions.ts: "no file outlives its row by more than a sweep"): on
    // PostgreSQL, files of one media replaced at once leave all but one stored and recorded nowhere.
    // MediaRepository.goLive (src/media/repository.ts) reads the media's current key without locking
    // its row, so two publishes in READ COMMITTED both see the same previous key and the later one
    // overwrites the earlier one's new file without recording it (deleteNeverLive locks FOR UPDATE).
    it('keeps only the last of files replaced at once, the others removed or left to the sweep', async () => {
      const m = await live();
      await Promise.all([1, 2, 3].map(async () => w.media.update(me, m.uuid, { attributes: noAttributes(), direct: part(await jpeg(++seed)) })));
      const current = (await mediaRow(m.id))!.storage_key!;
      // A day later (every file recorded is due), the drain leaves only the media's file.
      await w.files.drain(new Date(Date.now() + 25 * 3600_000));
      const originals: string[] = [];
      for await (const page of w.storage.list(`originals/${m.uuid}`)) originals.push(...page.map((o) => o.key));
      expect(originals).toEqual([current]);
    });

    it('records every file of a deleted media in its transaction and removes none before the commit: a rollback keeps them all', async () => {
      const m = await live();
      await w.runRenditions(m.id);
      await incoming(m.uuid, await jpeg(++seed));
      const files = await filesOf(m.id);
      expect(files).toHaveLength(2 + (await renditionKeys(m.id)).length);
      expect(await stored(files)).toEqual(files);
      const rolledBack = inUnit(d(), async (unit) => {
        expect(await w.fileLife.deleteIn(unit, me.id, [m.id])).toBe(1);
        // Inside the transaction: recorded with the rows, every file still there.
        expect(await recorded(files, unit.db)).toEqual(files);
        expect(await stored(files)).toEqual(files);
        throw new Error('rolled back');
      });
      await expect(rolledBack).rejects.toThrow('rolled back');
      expect((await mediaRow(m.id))?.status).toBe('live');
      expect(await filesOf(m.id)).toEqual(files);
      expect(await stored(files)).toEqual(files);
      expect(await recorded(files)).toEqual([]);

      // Committed: the rows go, then the files; nothing stays recorded.
      expect(await w.media.delete(me, m.uuid)).toBe(m.uuid);
      expect(await mediaRow(m.id)).toBeUndefined();
      expect(await d().selectFrom('uploads').select('id').where('media_id', '=', m.id).executeTakeFirst()).toBeUndefined();
      expect(await stored(files)).toEqual([]);
      expect(await recorded(files)).toEqual([]);
    });

    it('leaves the files of a deletion whose process died after the commit to the sweep, which drains them', async () => {
      const m = await live();
      await w.runRenditions(m.id);
      const files = await filesOf(m.id);
      // The commit without its after-commit actions: what a crash right after it leaves.
      await d().transaction().execute((trx) => w.fileLife.deleteIn({ db: trx, afterCommit: () => undefined }, me.id, [m.id]));
      expect(await mediaRow(m.id)).toBeUndefined();
      expect(await stored(files)).toEqual(files);
      expect(await recorded(files)).toEqual(files);
      expect(await w.files.drain(new Date())).toBeGreaterThanOrEqual(files.length);
      expect(await stored(files)).toEqual([]);
      expect(await recorded(files)).toEqual([]);
    });

    it("deletes no one else's media and none of its files", async () => {
      const stranger = await w.user('stranger');
      const theirs = await live(stranger);
      expect((await refusal(w.media.delete(me, theirs.uuid))).code).toBe('not_found');
      expect(await w.fileLife.delete(me.id, [theirs.id])).toBe(0);
      expect((await mediaRow(theirs.id))?.status).toBe('live');
      expect(await stored([theirs.key])).toEqual([theirs.key]);
      expect(await recorded([theirs.key])).toEqual([]);
    });

    it('takes the files of the medias a gallery delete takes with it', async () => {
      const site = await w.core.websites.create(me, { urlname: `life${db}`, title: 'Life' });
      const g = await w.galleries.create(me, site.urlname, { name: 'Doomed', parent: site.rootGalleryUuid! });
      const a = await live();
      const b = await live();
      await w.runRenditions(a.id);
      for (const m of [a, b]) await w.media.update(me, m.uuid, { attributes: noAttributes({ publish: [g.record.uuid] }) });
      // A gallery outside shows one of them as its covers: cleared with it, the gallery kept.
      const outside = await w.galleries.create(me, site.urlname, { name: 'Outside', parent: site.rootGalleryUuid!, coverMedia: a.uuid, publicCoverMedia: a.uuid });
      const files = [...(await filesOf(a.id)), ...(await filesOf(b.id))];
      expect(await w.galleries.delete(me, site.urlname, g.record.uuid, { deleteMedias: true, expectedMediasCount: 2 })).toEqual({ galleriesDeleted: 1, mediasDeleted: 2 });
      expect(await stored(files)).toEqual([]);
      expect(await recorded(files)).toEqual([]);
      expect(await d().selectFrom('galleries').select(['cover_media_id', 'public_cover_media_id']).where('uuid', '=', outside.record.uuid).executeTakeFirst()).toEqual({ cover_media_id: null, public_cover_media_id: null });
    });

    it('sweeps an abandoned upload with its file and its never-live media; a live media keeps its own file', async () => {
      const fresh = await w.media.create(me, { attributes: noAttributes(), replace: false, fileName: 'never.jpg', upload: { declaration: { fileName: 'never.jpg', fileSize: 10, mimeType: 'image/jpeg', capabilities: [], failedLocations: [] } } });
      const neverId = fresh.media.record.id;
      const neverKey = (await d().selectFrom('uploads').select('storage_key').where('media_id', '=', neverId).executeTakeFirstOrThrow()).storage_key;
      const m = await live();
      const replacement = await noisyJpeg();
      const replacementKey = await incoming(m.uuid, replacement);
      expect(await stored([replacementKey])).toEqual([replacementKey]);
      // Not yet: nothing has expired.
      expect(await w.fileLife.sweepAbandonedUploads(new Date())).toEqual({ uploads: 0, medias: 0 });
      const later = new Date(Date.now() + (EXPIRY_SECONDS + 60) * 1000);
      const swept = await w.fileLife.sweepAbandonedUploads(later);
      expect(swept.uploads).toBeGreaterThanOrEqual(2);
      expect(swept.medias).toBeGreaterThanOrEqual(1);
      expect(await mediaRow(neverId)).toBeUndefined();
      expect((await mediaRow(m.id))).toMatchObject({ status: 'live', storage_key: m.key });
      expect(await stored([m.key, replacementKey, neverKey])).toEqual([m.key]);
      expect(await recorded([replacementKey, neverKey])).toEqual([]);
      expect(await d().selectFrom('uploads').select('id').where('media_id', 'in', [neverId, m.id]).execute()).toEqual([]);
      // Step 3 of the swept upload (with the size step 1 declared) now has nothing to complete.
      const late = await refusal(w.media.update(me, m.uuid, { attributes: noAttributes(), upload: { step: 'complete', completion: { location: 'local', fileSize: replacement.length } } }));
      expect([late.code, late.message]).toEqual(['unprocessable', 'no upload is pending for this media: start again with step 1']);
      expect((await mediaRow(m.id))?.storage_key).toBe(m.key);
    });

    it('publishes too late a file whose unpublished record was swept: the file goes, the media stays as it was', async () => {
      const m = await live();
      const data = await jpeg(++seed);
      const file = await w.uploads.receiveDirect({ id: m.id, uuid: m.uuid, owner_id: me.id, fileName: 'late.jpg' }, part(data));
      expect(await recorded([file.storageKey])).toEqual([file.storageKey]);
      // A day later, the sweep takes the file nothing published.
      await w.files.drain(new Date(Date.now() + 25 * 3600_000));
      expect(await stored([file.storageKey])).toEqual([]);
      expect(await w.fileLife.publish(m.id, file)).toBe('too-late');
      expect((await mediaRow(m.id))?.storage_key).toBe(m.key);
      expect(await stored([m.key, file.storageKey])).toEqual([m.key]);
    });

    it('counts stored originals in the quota: a publish adds the size, a replacement the difference, a delete takes it back', async () => {
      const user = await w.user('counted');
      expect((await w.quota.of(user.id)).used).toBe(0);
      const a = await live(user, await jpeg(1, 64, 48));
      expect((await w.quota.of(user.id)).used).toBe(a.data.length);
      const bigger = await jpeg(2, 200, 150);
      await w.media.update(user, a.uuid, { attributes: noAttributes(), direct: part(bigger) });
      expect((await w.quota.of(user.id)).used).toBe(bigger.length);
      const b = await live(user);
      expect((await w.quota.of(user.id)).used).toBe(bigger.length + b.data.length);
      await w.media.delete(user, a.uuid);
      expect((await w.quota.of(user.id)).used).toBe(b.data.length);
    });
  });
}

// MediaService called with typed inputs, SQLite and PostgreSQL: another user's media a 404, their
// libraries, galleries and watermarks 422s with nothing created; replace by file name; listings
// in step with writes; duplicates by content probe; batch updates as the worker applies them.
// Through HTTP: test/api/media-*.test.ts, batch-update.test.ts, studio-upload-probe.test.ts.
import { createHash, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { inUnit } from '../../src/database/unit-of-work.js';
import type { UserRow } from '../../src/database/schema.js';
import { contentProbe } from '../../src/uploads/probe.js';
import { DATABASES, jpeg, noAttributes, part, PG, refusal, withServices } from '../support/services.js';

for (const db of DATABASES) {
  describe(`media service (${db})`, () => {
    const w = withServices(db === 'postgres' ? { postgresUrl: PG } : {});
    let me: UserRow;
    let other: UserRow;
    let seed = 200;
    let files = 0;

    beforeAll(async () => {
      me = await w.user('media');
      other = await w.user('other');
    });

    const d = () => w.core.store.db;
    async function direct(who: UserRow, extra: { fileName?: string; replace?: boolean; artist?: string; attributes?: Parameters<typeof noAttributes>[0] } = {}) {
      // A direct upload's file part carries the name, as a multipart body does.
      const fileName = extra.fileName ?? `m${++seed}.jpg`;
      return w.media.create(who, { attributes: noAttributes(extra.attributes), replace: extra.replace ?? false, artist: extra.artist, fileName, upload: { direct: part(await jpeg(++seed), fileName) } });
    }
    /** A file another upload path received (the studio's resumable uploads), with the probe that path computed. */
    async function received(who: UserRow, data: Buffer, probe?: string) {
      const path = join(w.config.dataDir, `received-${++files}`);
      await writeFile(path, data);
      const contentProbe = probe ?? (await probeOf(data));
      const artist = await d().selectFrom('artists').select('id').where('owner_id', '=', who.id).orderBy('id').executeTakeFirstOrThrow();
      // As src/resumable-uploads/service.ts ends an upload: the file life makes the media live with the taken file.
      return w.fileLife.createLive(who.id, { artistId: artist.id, fileName: `r${files}.jpg`, galleries: [] }, (media) =>
        w.uploads.takeStored({ id: media.id, uuid: media.uuid, owner_id: media.owner_id, fileName: media.file_name }, { path, size: data.length }, contentProbe),
      );
    }
    const probeOf = (data: Buffer) => contentProbe(data.length, async (start, end) => Readable.from([data.subarray(start, end + 1)]));
    const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
    const ownedCount = async (who: UserRow) => (await d().selectFrom('medias').select('id').where('owner_id', '=', who.id).execute()).length;
    const listed = async (who: UserRow, filter = {}) => w.media.list(who, filter, { limit: 100, offset: 0 }, false);

    it('creates a live media with its attributes and relations, in the default library', async () => {
      const site = await w.core.websites.create(me, { urlname: `media${db}`, title: 'Media' });
      const g = await w.galleries.create(me, site.urlname, { name: 'Shown', parent: site.rootGalleryUuid! });
      const r = await direct(me, { attributes: { columns: { title: 'A title', artist_rating: 4 }, keywords: ['sea', 'sky'], galleries: [g.record.uuid] } });
      expect(r.replaced).toBe(false);
      expect(r.media.record).toMatchObject({ status: 'live', title: 'A title', artist_rating: 4, owner_id: me.id, mime_type: 'image/jpeg' });
      const details = await w.media.get(me, r.media.record.uuid, true);
      expect(details.relations).toMatchObject({ keywords: ['sea', 'sky'], galleries: [g.record.uuid] });
      const library = await d().selectFrom('artists').select('uuid').where('owner_id', '=', me.id).executeTakeFirstOrThrow();
      expect(details.record.artist_uuid).toBe(library.uuid);
      // Edits: keywords added and removed, unpublished from every gallery by an empty list.
      await w.media.update(me, r.media.record.uuid, { attributes: noAttributes({ addKeywords: ['sand'], removeKeywords: ['SKY'], galleries: [] }) });
      expect((await w.media.get(me, r.media.record.uuid, true)).relations).toMatchObject({ keywords: ['sea', 'sand'], galleries: [] });
    });

    it("answers another user's media as if it did not exist (404), and changes nothing", async () => {
      const theirs = (await direct(other, { attributes: { columns: { title: 'Theirs' } } })).media.record.uuid;
      for (const call of [
        () => w.media.get(me, theirs, false),
        () => w.media.update(me, theirs, { attributes: noAttributes({ columns: { title: 'Mine' } }) }),
        () => w.media.update(me, theirs, { attributes: noAttributes(), direct: part(Buffer.from('x')) }),
        () => w.media.delete(me, theirs),
        () => w.media.renditionsOf(me, theirs),
        () => w.media.get(me, 'not-a-uuid', false),
        () => w.media.get(me, randomUUID(), false),
      ]) {
        const err = await refusal(call());
        expect([err.code, err.status]).toEqual(['not_found', 404]);
      }
      expect((await w.media.get(other, theirs, false)).record.title).toBe('Theirs');
      // Their things named in a listing's filter are 404s too.
      const theirLibrary = (await d().selectFrom('artists').select('uuid').where('owner_id', '=', other.id).executeTakeFirstOrThrow()).uuid;
      expect((await refusal(listed(me, { artist: theirLibrary }))).code).toBe('not_found');
      expect((await listed(me)).records.map((m) => m.uuid)).not.toContain(theirs);
    });

    it("refuses another user's library, gallery or watermark as an attribute (422 naming it) and creates nothing", async () => {
      const theirLibrary = (await d().selectFrom('artists').select(['id', 'uuid']).where('owner_id', '=', other.id).executeTakeFirstOrThrow());
      const theirSite = await w.core.websites.create(other, { urlname: `theirs${db}`, title: 'Theirs' });
      const now = new Date().toISOString();
      const watermark = randomUUID();
      await d().insertInto('watermarks').values({ uuid: watermark, artist_id: theirLibrary.id, text: '©', created_at: now }).execute();
      const before = await ownedCount(me);
      const cases: Array<[Parameters<typeof direct>[1], string]> = [
        [{ artist: theirLibrary.uuid }, `artist_id: unknown media library ${theirLibrary.uuid}`],
        [{ attributes: { artist: theirLibrary.uuid } }, `media[artist_id]: unknown media library ${theirLibrary.uuid}`],
        [{ attributes: { galleries: [theirSite.rootGalleryUuid!] } }, `media[galleries]: unknown gallery ${theirSite.rootGalleryUuid}`],
        [{ attributes: { publish: [theirSite.rootGalleryUuid!] } }, `media[publish_to_galleries]: unknown gallery ${theirSite.rootGalleryUuid}`],
        [{ attributes: { watermark } }, `media[watermark_uuid]: unknown watermark ${watermark}`],
      ];
      for (const [extra, message] of cases) {
        const err = await refusal(direct(me, extra));
        expect([err.code, err.status, err.message]).toEqual(['invalid_parameter', 422, message]);
      }
      expect(await ownedCount(me)).toBe(before);
    });

    it('replaces the latest media of the library with the same file name, keeping its UUID', async () => {
      const first = await direct(me, { fileName: 'Same Name.jpg', attributes: { columns: { title: 'Kept' } } });
      const again = await direct(me, { fileName: 'Same Name.jpg', replace: true });
      expect(again.replaced).toBe(true);
      expect(again.media.record.uuid).toBe(first.media.record.uuid);
      expect(again.media.record.title).toBe('Kept');
      expect(again.media.record.storage_key).not.toBe(first.media.record.storage_key);
      // Without replace, or another name: a new media.
      expect((await direct(me, { fileName: 'Same Name.jpg' })).media.record.uuid).not.toBe(first.media.record.uuid);
      expect((await direct(me, { fileName: 'Other.jpg', replace: true })).replaced).toBe(false);
    });

    it('keeps its listing in step with every write: a new media, a deletion, an unpublication', async () => {
      const user = await w.user('lister');
      const site = await w.core.websites.create(user, { urlname: `list${db}`, title: 'List' });
      const g = (await w.galleries.create(user, site.urlname, { name: 'G', parent: site.rootGalleryUuid! })).record.uuid;
      const a = (await direct(user, { attributes: { publish: [g] } })).media.record.uuid;
      const b = (await direct(user, { attributes: { publish: [g] } })).media.record.uuid;
      const page = async (filter = {}) => {
        const p = await w.media.list(user, filter, { limit: 1, offset: 0 }, false);
        return { total: p.total, first: p.records.map((r) => r.uuid) };
      };
      expect(await page()).toEqual({ total: 2, first: [a] });
      expect((await page({ gallery: g })).total).toBe(2);
      const c = (await direct(user)).media.record.uuid;
      expect((await page()).total).toBe(3);
      expect((await w.media.list(user, {}, { limit: 10, offset: 2 }, false)).records.map((r) => r.uuid)).toEqual([c]);
      await w.media.update(user, b, { attributes: noAttributes({ unpublish: [g] }) });
      expect((await page({ gallery: g })).total).toBe(1);
      await w.media.delete(user, a);
      expect(await page()).toEqual({ total: 2, first: [b] });
      expect((await page({ gallery: g })).total).toBe(0);
    });

    it('finds a duplicate by its whole-file probe, for its owner only, and a sampled probe only when every byte is the same', async () => {
      const data = await jpeg(++seed);
      const mine = await received(me, data);
      const probe = await probeOf(data);
      expect(probe).toMatch(/^w:/);
      expect(await w.sameFiles.duplicates(me, [{ size: data.length, probe }])).toEqual(new Map([[`${data.length}/${probe}`, mine]]));
      expect(await w.sameFiles.duplicates(other, [{ size: data.length, probe }])).toEqual(new Map());
      expect(await w.sameFiles.duplicateOf(me, { size: data.length, probe }, async () => sha256(data))).toBe(mine);
      expect(await w.sameFiles.duplicateOf(me, { size: data.length + 1, probe }, async () => sha256(data))).toBeUndefined();

      // A sampled probe (a file over 32 MiB: its size, head and tail) proves nothing before the bytes are here.
      const other2 = await jpeg(++seed);
      const sampled = `s:${sha256(Buffer.from('same size, head and tail'))}`;
      const candidate = await received(me, other2, sampled);
      expect(await w.sameFiles.duplicates(me, [{ size: other2.length, probe: sampled }])).toEqual(new Map());
      let asked = 0;
      const digestOf = (b: Buffer) => async () => {
        asked++;
        return sha256(b);
      };
      expect(await w.sameFiles.duplicateOf(me, { size: other2.length, probe: sampled }, digestOf(other2))).toBe(candidate);
      const sameSizeOtherBytes = Buffer.from(other2);
      sameSizeOtherBytes[Math.floor(other2.length / 2)] ^= 0xff;
      expect(await w.sameFiles.duplicateOf(me, { size: other2.length, probe: sampled }, digestOf(sameSizeOtherBytes))).toBeUndefined();
      expect(asked).toBe(2);
      // No candidate: the received file is not even read.
      expect(await w.sameFiles.duplicateOf(other, { size: other2.length, probe: sampled }, digestOf(other2))).toBeUndefined();
      expect(asked).toBe(2);
      // Its file replaced through the API (which computes no probe): no longer a duplicate of the old file.
      await w.media.update(me, candidate, { attributes: noAttributes(), direct: part(await jpeg(++seed)) });
      expect(await w.sameFiles.duplicateOf(me, { size: other2.length, probe: sampled }, digestOf(other2))).toBeUndefined();
      // Once deleted, no longer a duplicate.
      await w.media.delete(me, mine);
      expect(await w.sameFiles.duplicates(me, [{ size: data.length, probe }])).toEqual(new Map());
    });

    it('queues a batch update of a fixed selection, guarded by the expected count, and applies it chunk by chunk', async () => {
      const user = await w.user('batch');
      const uuids = [];
      for (let i = 0; i < 3; i++) uuids.push((await direct(user)).media.record.uuid);
      const theirs = (await direct(other)).media.record.uuid;
      const attributes = { prefix: 'medias' as const, columns: { title: 'Batched' } };
      expect((await refusal(w.media.batchUpdate(user, { attributes, selection: { select: 'x', selectList: [uuids[0], theirs] }, filter: {} }))).code).toBe('not_found');
      const mismatch = await refusal(w.media.batchUpdate(user, { attributes, selection: { select: 'all' }, filter: {}, expectedCount: 2 }));
      expect([mismatch.code, mismatch.status]).toEqual(['count_mismatch', 409]);
      expect((await refusal(w.media.batchUpdate(user, { attributes: { prefix: 'medias', columns: {} }, selection: { select: 'all' }, filter: {} }))).code).toBe('invalid_parameter');
      expect((await refusal(w.media.batchUpdate(user, { attributes, selection: {}, filter: {} }))).code).toBe('invalid_parameter');

      // A scope restricts an explicit selection to the medias it holds.
      const site = await w.core.websites.create(user, { urlname: `batch${db}`, title: 'Batch' });
      await w.media.update(user, uuids[1], { attributes: noAttributes({ publish: [site.rootGalleryUuid!] }) });
      const scoped = await w.media.batchUpdate(user, { attributes, selection: { select: 'x', selectList: uuids.slice(0, 2) }, filter: { gallery: site.rootGalleryUuid! } });
      expect(scoped.count).toBe(1);
      expect(JSON.parse(scoped.job.payload).ids).toEqual([(await w.media.get(user, uuids[1], false)).record.id]);
      const { job, count } = await w.media.batchUpdate(user, { attributes, selection: { select: 'all' }, filter: {}, expectedCount: 3 });
      expect(count).toBe(3);
      // A media deleted between the request and the job is reported, not applied.
      await w.media.delete(user, uuids[2]);
      const payload = JSON.parse(job.payload);
      expect(await inUnit(d(), (unit) => w.media.batchChunk(unit, job, payload, 0, 3))).toEqual({ processed: 3, failed: 1, errors: ['1 of the medias 1 to 3 no longer exist'] });
      for (const u of uuids.slice(0, 2)) expect((await w.media.get(user, u, false)).record.title).toBe('Batched');
      expect((await w.media.get(other, theirs, false)).record.title).toBeNull();

      // medias[delete]: through the file life, files removed after the chunk's commit.
      const keys = await Promise.all(uuids.slice(0, 2).map(async (u) => (await w.media.get(user, u, false)).record.storage_key!));
      const del = await w.media.batchUpdate(user, { attributes: { prefix: 'medias', columns: {}, delete: true }, selection: { select: uuids.slice(0, 2).join(','), selectList: uuids.slice(0, 2) }, filter: {} });
      expect(await inUnit(d(), (unit) => w.media.batchChunk(unit, del.job, JSON.parse(del.job.payload), 0, 2))).toMatchObject({ processed: 2, failed: 0 });
      expect(await ownedCount(user)).toBe(0);
      for (const k of keys) expect(await w.storage.stat(k)).toBeUndefined();
    });
  });
}

// Crash safety: the service, run as a real process, is killed with SIGKILL at
// an awkward moment (mid batch job, mid burst of gallery creates, mid upload
// body) and started again on the same data. Nothing may be half-visible,
// nothing acknowledged may be lost, and the restarted service cleans up what
// the dead one left.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { find, int, text, type XmlNode } from '../../src/client/xml.js';
import { crashWorld, until, type CrashWorld } from '../support/crash.js';
import { insertMedias, waitForJob } from '../support/media.js';
import { eachDatabase } from '../support/service.js';
import { jpegWithExif, postUpload, uploadParamsOf } from './uploads-support.js';
import { publishMedias } from './galleries-fixtures.js';
import { fetchBytes, open as openRequest, readZip } from '../site/archive-support.js';

/** Every file below `dir`, as paths relative to it. */
function filesBelow(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesBelow(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]));
}

eachDatabase((kind) => {
  let w: CrashWorld | undefined;
  afterEach(async () => {
    await w?.close();
    w = undefined;
  });

  it('a batch job killed mid-way is taken over after its lease and applies every change exactly once', async () => {
    const MEDIAS = 3000;
    const CHUNK = 100;
    // Small chunks with a pause, so the kill lands mid-job; a short lease, so the next process takes the job over soon.
    w = await crashWorld(kind, { JOB_CHUNK_SIZE: String(CHUNK), JOB_CHUNK_PAUSE_MS: '50', JOB_POLL_MS: '50', JOB_LEASE_SECONDS: '2' });
    const { db } = w.store;
    await insertMedias(db, w.user, Array.from({ length: MEDIAS }, () => ({ keywords: ['existing'] })));
    await w.start();
    const c = w.client();
    const gallery = text((await c.createGallery(w.urlname, { name: 'Crash', parent: w.rootUuid })).doc, 'gallery/uuid')!;
    const galleryId = (await db.selectFrom('galleries').select('id').where('uuid', '=', gallery).executeTakeFirstOrThrow()).id;
    const res = await c.request(
      'PUT',
      '/medias/batch_update.xml',
      { select: 'all', medias_count: MEDIAS, 'medias[add_keywords]': 'crashed', 'medias[publish_to_galleries]': [gallery] },
      { multipart: true, methodOverride: true },
    );
    const jobUuid = text(res.doc, 'job-uuid')!;
    const location = text(res.doc, 'location')!;
    const jobRow = () => db.selectFrom('jobs').selectAll().where('uuid', '=', jobUuid).executeTakeFirstOrThrow();

    // Kill once a few chunks committed.
    await until('three committed chunks', async () => ((await jobRow()).cursor >= 3 * CHUNK ? true : undefined));
    await w.kill();

    // The dead worker's state: its lease still held, and exactly the committed chunks applied.
    const left = await jobRow();
    expect(left.state).toBe('running');
    expect(left.locked_by).not.toBeNull();
    expect(left.cursor).toBeGreaterThanOrEqual(3 * CHUNK);
    expect(left.cursor).toBeLessThan(MEDIAS);
    expect(left.cursor % CHUNK).toBe(0);
    expect(left.processed).toBe(left.cursor);
    const keywordedSoFar = await db.selectFrom('media_keywords').select('media_id').where('keyword', '=', 'crashed').execute();
    expect(keywordedSoFar).toHaveLength(left.cursor);
    const placedSoFar = await db.selectFrom('media_galleries').select('position').where('gallery_id', '=', galleryId).execute();
    expect(placedSoFar).toHaveLength(left.cursor);

    await w.start();
    const done = await waitForJob(w.client(), location);
    expect(text(done.doc, 'job/state')).toBe('done');
    expect(int(done.doc, 'job/total')).toBe(MEDIAS);
    expect(int(done.doc, 'job/processed')).toBe(MEDIAS);
    expect(int(done.doc, 'job/failed')).toBe(0);
    const row = await jobRow();
    expect(row.attempts).toBe(2);
    expect(row.cursor).toBe(MEDIAS);
    expect(row.locked_by).toBeNull();

    // Every media: its keywords are exactly `existing`, `crashed` (appended once), ...
    const keywords = await db.selectFrom('media_keywords').select(['media_id', 'position', 'keyword']).orderBy('media_id').orderBy('position').execute();
    const byMedia = new Map<number, string[]>();
    for (const k of keywords) byMedia.set(k.media_id, [...(byMedia.get(k.media_id) ?? []), `${k.position}:${k.keyword}`]);
    expect(byMedia.size).toBe(MEDIAS);
    for (const list of byMedia.values()) expect(list).toEqual(['1:existing', '2:crashed']);
    // ... and one publication in the gallery; positions 1..n in id order, no gap, no repeat.
    const placed = await db.selectFrom('media_galleries').select(['media_id', 'position']).where('gallery_id', '=', galleryId).orderBy('position').execute();
    expect(placed.map((p) => p.position)).toEqual(Array.from({ length: MEDIAS }, (_, i) => i + 1));
    const ids = placed.map((p) => p.media_id);
    expect(new Set(ids).size).toBe(MEDIAS);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const details = await w.client().gallery(w.urlname, gallery);
    expect(int(details.doc, 'gallery/medias-count')).toBe(MEDIAS);
  });

  it('a burst of gallery creates killed mid-way leaves every acknowledged gallery and a consistent tree', async () => {
    w = await crashWorld(kind);
    const world = w;
    const { db } = world.store;
    await world.start();
    const site = await db.selectFrom('websites').select('id').where('urlname', '=', world.urlname).executeTakeFirstOrThrow();
    const root = await db.selectFrom('galleries').select('id').where('uuid', '=', world.rootUuid).executeTakeFirstOrThrow();

    // Lanes that each keep one create in flight: under the root, or under a gallery created earlier in the burst.
    // Names repeat so that siblings compete for the same url path.
    const LANES = 12;
    const acked: Array<{ uuid: string; parent: string; name: string }> = [];
    const unexpected: string[] = [];
    let inFlight = 0;
    let killed = false;
    let n = 0;
    const lane = async (client: MediaPortfolioClient) => {
      while (!killed) {
        const i = n++;
        const parent = i % 3 === 0 || acked.length === 0 ? world.rootUuid : acked[(i * 7919) % acked.length].uuid;
        const name = `Burst ${i % 4}`;
        inFlight++;
        try {
          const r = await client.createGallery(world.urlname, { name, parent });
          acked.push({ uuid: text(r.doc, 'gallery-uuid')!, parent, name });
        } catch (err) {
          // Only the kill may interrupt a create; any reply other than 2xx is a failure.
          if (!killed || (err as { status?: number }).status !== undefined) unexpected.push(String(err));
          return;
        } finally {
          inFlight--;
        }
      }
    };
    const lanes = Array.from({ length: LANES }, () => lane(world.client()));
    const nested = (await until('60 galleries, 15 of them nested', async () => {
      const rows = await db.selectFrom('galleries').select('parent_id').where('website_id', '=', site.id).execute();
      const deep = rows.filter((g) => g.parent_id !== null && g.parent_id !== root.id).length;
      return rows.length >= 61 && deep >= 15 ? deep : undefined;
    }));
    expect(nested).toBeGreaterThanOrEqual(15);
    const inFlightAtKill = inFlight;
    killed = true;
    await world.kill();
    await Promise.all(lanes);
    expect(unexpected).toEqual([]);
    expect(inFlightAtKill).toBeGreaterThan(0);
    const ackedAtKill = [...acked];

    await world.start();
    const c = world.client();

    // SQL: the tree as stored.
    const rows = await db
      .selectFrom('galleries')
      .select(['id', 'uuid', 'parent_id', 'list_pos', 'name', 'url_path', 'full_url_path', 'subgalleries_count'])
      .where('website_id', '=', site.id)
      .orderBy('list_pos')
      .execute();
    // Every acknowledged gallery is there, under the parent it was created under; at most the ones in flight were added besides.
    const byUuid = new Map(rows.map((g) => [g.uuid, g]));
    const byId = new Map(rows.map((g) => [g.id, g]));
    for (const a of ackedAtKill) {
      const g = byUuid.get(a.uuid);
      expect(g, `acknowledged gallery ${a.uuid}`).toBeDefined();
      expect(byId.get(g!.parent_id!)?.uuid).toBe(a.parent);
      expect(g!.name).toBe(a.name);
    }
    expect(rows.length - 1 - ackedAtKill.length).toBeGreaterThanOrEqual(0);
    expect(rows.length - 1 - ackedAtKill.length).toBeLessThanOrEqual(inFlightAtKill);
    // list_pos dense 1..n.
    expect(rows.map((g) => g.list_pos)).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
    // Counts, paths and sibling uniqueness.
    for (const g of rows) {
      const children = rows.filter((x) => x.parent_id === g.id);
      expect(g.subgalleries_count, `subgalleries_count of ${g.full_url_path || 'the root'}`).toBe(children.length);
      expect(new Set(children.map((x) => x.url_path)).size, `url paths under ${g.full_url_path || 'the root'}`).toBe(children.length);
      if (g.parent_id === null) continue;
      const parent = byId.get(g.parent_id)!;
      expect(g.full_url_path).toBe(parent.full_url_path === '' ? g.url_path : `${parent.full_url_path}/${g.url_path}`);
    }

    // HTTP: the listing, page by page, says the same.
    const listed: XmlNode[] = [];
    for await (const g of c.paginate(`/websites/${world.urlname}/galleries.xml`, { per_page: 25 }, 'galleries/gallery')) listed.push(g);
    expect(listed.map((g) => text(g, 'uuid'))).toEqual(rows.map((g) => g.uuid));
    for (const [i, g] of listed.entries()) {
      expect(text(g, 'full-url-path') ?? '').toBe(rows[i].full_url_path);
      expect(int(g, 'subgalleries-count')).toBe(rows[i].subgalleries_count);
    }

    // Creates after the restart work, at the end of the list, and count in their parent.
    const parentUuid = ackedAtKill[ackedAtKill.length - 1].uuid;
    const before = int((await c.gallery(world.urlname, parentUuid)).doc, 'gallery/subgalleries-count')!;
    const under = await c.createGallery(world.urlname, { name: 'After restart', parent: parentUuid });
    const top = await c.createGallery(world.urlname, { name: 'Burst 0', parent: world.rootUuid });
    expect(int((await c.gallery(world.urlname, parentUuid)).doc, 'gallery/subgalleries-count')).toBe(before + 1);
    expect(text(top.doc, 'gallery/url-path')).not.toBe('burst-0');
    const positions = await db
      .selectFrom('galleries')
      .select(['uuid', 'list_pos'])
      .where('uuid', 'in', [text(under.doc, 'gallery-uuid')!, text(top.doc, 'gallery-uuid')!])
      .orderBy('list_pos')
      .execute();
    expect(positions.map((p) => p.list_pos)).toEqual([rows.length + 1, rows.length + 2]);
  });

  // The restart after the kill during step 2, shared with the next test.
  let partFilesAtStart: string[] | undefined;

  it('an upload killed while its body streams stays pending with no file; step 2 and 3 again make it live byte for byte', async () => {
    w = await crashWorld(kind);
    const world = w;
    const { db } = world.store;
    await world.start();
    const c = world.client();

    // 8 MiB: a real JPEG followed by random bytes.
    const SIZE = 8 * 1024 * 1024;
    const jpeg = await jpegWithExif();
    const bytes = Buffer.concat([jpeg, randomBytes(SIZE - jpeg.length)]);
    const r1 = await c.request('POST', '/medias.xml', {
      'media[content][upload_location]': 'REQUEST',
      'media[content][file_name]': 'big.jpg',
      'media[content][file_size]': SIZE,
      'media[content][mime_type]': 'image/jpeg',
    });
    const media = find(r1.doc, 'media')!;
    const uuid = text(media, 'uuid')!;
    expect(text(media, 'upload-location')).toBe('local');
    const uploadUrl = text(media, 'upload-url')!;
    const params = uploadParamsOf(media);
    const key = params.find(([k]) => k === 'key')![1];

    // Step 2 by hand: the whole Content-Length announced, the file part sent a little at a time.
    const boundary = `crash${Date.now()}`;
    const head = Buffer.from(
      params.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const req = http.request(uploadUrl, { method: 'POST', headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(head.length + SIZE + tail.length) } });
    const outcome = new Promise<string>((resolve) => {
      req.on('response', (res) => resolve(`answered ${res.statusCode}`));
      req.on('error', (err) => resolve(`error ${err.message}`));
    });
    const tmpDir = join(world.dataDir, 'tmp');
    const partFiles = () => filesBelow(tmpDir).filter((f) => f.endsWith('.part'));
    const partSize = () => {
      const [f] = partFiles();
      return f === undefined ? undefined : statSync(join(tmpDir, f)).size;
    };
    let sent = 0;
    const sendMore = (n: number) => {
      req.write(bytes.subarray(sent, sent + n));
      sent += n;
    };
    req.write(head);
    sendMore(256 * 1024);
    // The temporary file is there and growing: the kill lands while the body streams.
    const first = await until('a temporary file with bytes in it', () => {
      const s = partSize();
      return s !== undefined && s > 0 ? s : undefined;
    });
    sendMore(256 * 1024);
    await until('the temporary file growing', () => ((partSize() ?? 0) > first ? true : undefined));
    await world.kill();
    req.destroy();
    expect(await outcome).toMatch(/^error /);
    expect(sent).toBeLessThan(SIZE);
    expect(partFiles()).toHaveLength(1);

    await world.start();
    partFilesAtStart = partFiles();

    // Nothing half-visible: still pending, no object, no file size claimed.
    const pending = await c.request('GET', `/medias/${uuid}.xml`);
    expect(text(pending.doc, 'media/status')).toBe('pending');
    expect(text(pending.doc, 'media/file-size') ?? '').toBe('');
    expect(existsSync(join(world.dataDir, 'media', ...key.split('/')))).toBe(false);
    expect(filesBelow(join(world.dataDir, 'media'))).toEqual([]);
    const row = await db.selectFrom('medias').select(['status', 'storage_key']).where('uuid', '=', uuid).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'pending', storage_key: null });

    // The client sends step 2 again, then step 3.
    const again = await postUpload(`${world.proc!.url}${new URL(uploadUrl).pathname}`, params, { field: 'file', data: bytes, name: 'big.jpg', type: 'image/jpeg' });
    expect(again.status).toBe(200);
    const r3 = await c.completeUpload(media, SIZE);
    expect(text(r3.doc, 'media/status')).toBe('live');
    expect(text(r3.doc, 'media/file-size')).toBe(String(SIZE));
    const live = await c.request('GET', `/medias/${uuid}.xml`);
    expect(text(live.doc, 'media/status')).toBe('live');
    expect(text(live.doc, 'media/file-size')).toBe(String(SIZE));
    expect(text(live.doc, 'media/width')).toBe('40');
    const stored = await db.selectFrom('medias').select(['storage_key', 'file_size']).where('uuid', '=', uuid).executeTakeFirstOrThrow();
    expect(Number(stored.file_size)).toBe(SIZE);
    expect((await readFile(join(world.dataDir, 'media', ...stored.storage_key!.split('/')))).equals(bytes)).toBe(true);
    expect(await db.selectFrom('uploads').select('id').execute()).toEqual([]);
  });

  it('an upload killed while its body streams leaves no temporary file once the restarted service is ready', () => {
    if (partFilesAtStart === undefined) throw new Error('the upload crash test did not get as far as the restart');
    expect(partFilesAtStart, 'DATA_DIR/tmp/*.part files when the restarted service answered /ping.xml').toEqual([]);
  });

  it('an archive killed mid-stream leaves nothing anywhere, and the restarted service streams it whole', async () => {
    w = await crashWorld(kind, { VISITOR_RATE_LIMIT: 'off' });
    const world = w;
    const { db } = world.store;
    await world.start();
    const c = world.client();
    const gallery = text((await c.createGallery(world.urlname, { name: 'Archive', parent: world.rootUuid, acl: [{ email: 'DEFAULT', read: 1, comp_download: 0, hires_download: 1 }] })).doc, 'gallery/uuid')!;
    // Originals of 8 MiB each, in the store: far more than the sockets hold, so the kill lands mid-archive.
    const SIZE = 8 * 1024 * 1024;
    const names = Array.from({ length: 6 }, (_, i) => `IMG_${i}.jpg`);
    const uuids = await publishMedias(db, world.user, gallery, names);
    for (const [i, uuid] of uuids.entries()) {
      const key = `media/zz/crash-archive-${i}.jpg`;
      const path = join(world.dataDir, 'media', ...key.split('/'));
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, Buffer.alloc(SIZE, i + 1));
      await db.updateTable('medias').set({ storage_key: key, file_size: SIZE, renditions_state: 'ready' }).where('uuid', '=', uuid).execute();
    }
    const tables = ['medias', 'media_galleries', 'renditions', 'uploads', 'jobs', 'file_deletions', 'visitor_links', 'sessions'] as const;
    const counts = async () => Promise.all(tables.map(async (t) => Number((await db.selectFrom(t).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)));
    // Not the database's own files, which change as it runs.
    const files = () => filesBelow(world.dataDir).filter((f) => !/\.sqlite3(-wal|-shm|-journal)?$/.test(f)).sort();
    const before = { counts: await counts(), files: files() };

    const path = `/sites/${world.urlname}/-/archive/_archive.zip`;
    const base = `http://127.0.0.1:${new URL(world.proc!.url).port}`;
    const res = await openRequest(base, path);
    expect(res.statusCode).toBe(200);
    const first = await new Promise<Buffer>((resolve) => res.once('data', resolve));
    expect(first.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    res.pause();
    res.on('error', () => undefined);
    await world.kill();
    res.destroy();

    // Nothing written by the archive: no temporary file, no stored object, no row.
    expect(files()).toEqual(before.files);
    expect(await counts()).toEqual(before.counts);
    await world.start();
    expect(files()).toEqual(before.files);
    expect(await counts()).toEqual(before.counts);
    // And the archive again, whole (the slot the dead process held is not held by the new one).
    const again = await fetchBytes(base, path);
    expect(again.status).toBe(200);
    const zip = await readZip(again.body);
    expect(zip.entries.map((e) => [e.name, e.size])).toEqual(names.map((n) => [n, SIZE]));
  });
});

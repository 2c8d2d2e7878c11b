// What the service leaves on disk: private modes for DATA_DIR, the database
// and every stored or temporary file; no leftovers of crashed processes; file
// deletions recorded with the row changes that cause them, so a deletion that
// fails (or never runs) is finished by the sweep; finished jobs purged.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { find, text, type XmlNode } from '../../src/client/xml.js';
import { loadConfig } from '../../src/config.js';
import { buildApp as createService, type App as Service } from '../../src/app.js';
import { tempFileName } from '../../src/file-storage/temp-file.js';
import { nowIso } from '../../src/database/db.js';
import { createCollection, createGallery, updateMedia, waitForJob, worldOn, type MediaWorld } from '../support/media.js';
import { eachDatabase, TestService } from '../support/service.js';
import { png, postUpload, uploadParamsOf } from './uploads-support.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Polls until `check` holds (background work of a starting service). */
async function eventually(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A process id that belonged to a process that has exited. */
function deadPid(): number {
  const done = spawnSync(process.execPath, ['-e', '0']);
  return done.pid!;
}

eachDatabase((kind) => {
  describe('at start', () => {
    let dataDir: string;
    let svc: TestService;
    let restarted: Service | undefined;
    let sleeper: ChildProcess | undefined;

    beforeAll(async () => {
      // A DATA_DIR as an older version left it: world-readable, and so was the database.
      dataDir = mkdtempSync(join(tmpdir(), 'mps-files-'));
      chmodSync(dataDir, 0o755);
      if (kind === 'sqlite') {
        writeFileSync(join(dataDir, 'media-portfolio.sqlite3'), '');
        chmodSync(join(dataDir, 'media-portfolio.sqlite3'), 0o644);
      }
      svc = await TestService.start(kind, { DATA_DIR: dataDir });
    });
    afterAll(async () => {
      sleeper?.kill();
      await restarted?.close();
      await svc?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const storedFile = (key: string) => join(dataDir, 'media', ...key.split('/'));

    it('keeps DATA_DIR, the database, media folders and every file private', async () => {
      const c = svc.client(await svc.app(), await svc.user());
      const image = await png();
      const direct = await c.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'a.png', data: image } });
      const row = await svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', text(direct.doc, 'media/uuid')!).executeTakeFirstOrThrow();
      const r1 = await c.request('POST', '/medias.xml', {
        'media[content][upload_location]': 'REQUEST',
        'media[content][file_name]': 'b.png',
        'media[content][file_size]': image.length,
        'media[content][mime_type]': 'image/png',
      });
      const media = find(r1.doc, 'media')!;
      expect((await postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: 'file', data: image })).status).toBe(200);
      const incoming = uploadParamsOf(media).find(([k]) => k === 'key')![1];

      expect(modeOf(dataDir)).toBe(0o700);
      if (kind === 'sqlite') {
        const db = join(dataDir, 'media-portfolio.sqlite3');
        expect(modeOf(db)).toBe(0o600);
        // WAL mode: SQLite creates its companions with the main file's mode.
        expect(modeOf(`${db}-wal`)).toBe(0o600);
        expect(modeOf(`${db}-shm`)).toBe(0o600);
      }
      expect(modeOf(join(dataDir, 'upload-secret'))).toBe(0o600);
      for (const dir of ['tmp', 'media', 'media/originals', 'media/incoming']) expect(modeOf(join(dataDir, dir))).toBe(0o700);
      for (const key of [row.storage_key!, incoming]) {
        expect(modeOf(join(storedFile(key), '..'))).toBe(0o700);
        expect(modeOf(storedFile(key))).toBe(0o600);
      }
    });

    it('on restart removes temporary files of dead processes and finishes file deletions a crash interrupted', async () => {
      const c = svc.client(await svc.app(), await svc.user());
      const direct = await c.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'c.png', data: await png(9, 9) } });
      const uuid = text(direct.doc, 'media/uuid')!;
      const { storage_key: key } = await svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', uuid).executeTakeFirstOrThrow();
      // What a crash right after the commit of a deletion leaves: the row is gone, its file is not.
      await svc.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('medias').where('uuid', '=', uuid).execute();
        await trx.insertInto('file_deletions').values({ storage_key: key!, created_at: nowIso(), due_at: nowIso() }).execute();
      });
      await svc.service.close();

      sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
      const tmp = join(dataDir, 'tmp');
      const dead = join(tmp, tempFileName(deadPid()));
      const live = join(tmp, tempFileName(sleeper.pid!));
      const unnamed = join(tmp, '0123456789abcdef01234567.part'); // older name, no owner: the age rule only
      for (const f of [dead, live, unnamed]) writeFileSync(f, 'partial upload');

      restarted = await createService(svc.config);
      await eventually(() => !existsSync(dead));
      await eventually(async () => !existsSync(storedFile(key!)) && (await restarted!.store.db.selectFrom('file_deletions').selectAll().execute()).length === 0);
      expect(existsSync(live)).toBe(true);
      expect(existsSync(unnamed)).toBe(true);
      expect(modeOf(dataDir)).toBe(0o700);
    });
  });

  describe('file deletions recorded with the rows', () => {
    let w: MediaWorld;
    let c: MediaPortfolioClient;

    beforeAll(async () => {
      w = await worldOn(await TestService.start(kind));
      c = w.client;
    });
    afterAll(() => w?.svc.close());

    const storedFile = (key: string) => join(w.svc.config.dataDir, 'media', ...key.split('/'));
    const keyOf = (media: XmlNode) => uploadParamsOf(media).find(([k]) => k === 'key')![1];
    const recorded = async () => (await w.svc.db.selectFrom('file_deletions').select('storage_key').execute()).map((r) => r.storage_key).sort();

    /** The media's renditions job is over: its files are recorded or not, nothing is in flight. */
    const renditionsSettled = (uuid: string) =>
      eventually(async () => (await w.svc.db.selectFrom('medias').select('renditions_state').where('uuid', '=', uuid).executeTakeFirst())?.renditions_state !== 'pending');

    async function liveMedia(name: string): Promise<{ uuid: string; key: string }> {
      const r = await c.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: name, data: await png(7, 5) } });
      const uuid = text(r.doc, 'media/uuid')!;
      await renditionsSettled(uuid);
      const row = await w.svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', uuid).executeTakeFirstOrThrow();
      return { uuid, key: row.storage_key! };
    }

    async function pendingMedia(name: string): Promise<XmlNode> {
      const image = await png(6, 6);
      const r = await c.request('POST', '/medias.xml', {
        'media[content][upload_location]': 'REQUEST',
        'media[content][file_name]': name,
        'media[content][file_size]': image.length,
        'media[content][mime_type]': 'image/png',
      });
      const media = find(r.doc, 'media')!;
      expect((await postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: 'file', data: image })).status).toBe(200);
      return media;
    }

    /**
     * A file the store cannot remove: a folder stands in its place (root ignores
     * read-only modes), holding a dot file that no listing of the store reports.
     */
    function block(key: string): void {
      rmSync(storedFile(key));
      mkdirSync(storedFile(key));
      writeFileSync(join(storedFile(key), '.inside'), 'x');
    }

    /** The deletion failed and was kept; once possible, the sweep finishes it and empties the table. */
    async function expectKeptThenSwept(keys: string[]): Promise<void> {
      // A job's removals run just after its last commit (the renditions of deleted medias): let them end.
      await eventually(async () => (await recorded()).length <= keys.length, 5000).catch(() => undefined);
      expect(await recorded()).toEqual([...keys].sort());
      for (const key of keys) {
        expect(statSync(storedFile(key)).isDirectory()).toBe(true);
        rmSync(storedFile(key), { recursive: true });
        writeFileSync(storedFile(key), 'leftover');
      }
      await w.svc.service.sweep();
      for (const key of keys) expect(existsSync(storedFile(key))).toBe(false);
      expect(await recorded()).toEqual([]);
    }

    it('DELETE /medias/<uuid>.xml', async () => {
      const m = await liveMedia('single.png');
      block(m.key);
      await c.request('DELETE', `/medias/${m.uuid}.xml`);
      await expectKeptThenSwept([m.key]);
    });

    it('a media deleted mid-upload: its pending upload goes with it', async () => {
      const media = await pendingMedia('mid.png');
      block(keyOf(media));
      await c.request('DELETE', `/medias/${text(media, 'uuid')}.xml`);
      expect(await w.svc.db.selectFrom('uploads').selectAll().execute()).toEqual([]);
      await expectKeptThenSwept([keyOf(media)]);
    });

    it('a batch update with medias[delete]', async () => {
      const a = await liveMedia('batch-a.png');
      const b = await liveMedia('batch-b.png');
      block(a.key);
      block(b.key);
      const r = await c.request('PUT', '/medias/batch_update.xml', { select: `${a.uuid},${b.uuid}`, 'medias[delete]': 1 });
      const job = await waitForJob(c, text(r.doc, 'location')!);
      expect(text(job.doc, 'job/state')).toBe('done');
      await expectKeptThenSwept([a.key, b.key]);
    });

    it('a gallery deleted with delete_medias=1', async () => {
      const m = await liveMedia('gallery.png');
      const g = await createGallery(w, 'Doomed');
      await updateMedia(c, m.uuid, { 'media[publish_to_galleries]': [g] });
      block(m.key);
      await c.request('DELETE', `/websites/${w.urlname}/galleries/${g}.xml`, { delete_medias: 1 });
      await expectKeptThenSwept([m.key]);
    });

    it('a collection deleted with delete_medias=1', async () => {
      const m = await liveMedia('group.png');
      const g = await createCollection(w, 'Doomed');
      await updateMedia(c, m.uuid, { 'media[add_to_medias_collections]': [g] });
      block(m.key);
      await c.request('DELETE', `/medias_groups/${g}.xml`, { delete_medias: 1 });
      await expectKeptThenSwept([m.key]);
    });

    it('the original a new file replaces', async () => {
      const m = await liveMedia('replaced.png');
      block(m.key);
      await c.request('PUT', `/medias/${m.uuid}.xml`, {}, { file: { field: 'media[content]', fileName: 'replaced.png', data: await png(3, 3) } });
      await renditionsSettled(m.uuid);
      // The old renditions went with the old original (their removal did not fail).
      await expectKeptThenSwept([m.key]);
    });

    it('the file of a pending upload a new step 1 replaces', async () => {
      const media = await pendingMedia('again.png');
      block(keyOf(media));
      const image = await png(4, 4);
      await c.request(
        'PUT',
        `/medias/${text(media, 'uuid')}.xml`,
        { 'media[content][upload_location]': 'REQUEST', 'media[content][file_name]': 'again.png', 'media[content][file_size]': image.length, 'media[content][mime_type]': 'image/png' },
        { multipart: true },
      );
      await expectKeptThenSwept([keyOf(media)]);
    });

    it('the file of an abandoned upload', async () => {
      const media = await pendingMedia('abandoned.png');
      block(keyOf(media));
      const swept = await w.svc.service.sweep(new Date(Date.now() + (w.svc.config.uploadExpirySeconds + 60) * 1000));
      expect(swept.uploads).toBeGreaterThanOrEqual(1);
      expect(await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', text(media, 'uuid')!).execute()).toEqual([]);
      await expectKeptThenSwept([keyOf(media)]);
    });
  });

  describe('finished jobs', () => {
    let w: MediaWorld;

    beforeAll(async () => {
      w = await worldOn(await TestService.start(kind, { JOB_RETENTION_SECONDS: '60' }));
    });
    afterAll(() => w?.svc.close());

    it('are kept JOB_RETENTION_SECONDS (default 7 days), then purged by the sweep; unfinished ones stay', async () => {
      expect(loadConfig({}).jobs.retentionSeconds).toBe(7 * 24 * 3600);
      expect(w.svc.config.jobs.retentionSeconds).toBe(60);
      const r = await w.client.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'j.png', data: await png() } });
      const uuid = text(r.doc, 'media/uuid')!;
      const queued = await w.client.request('PUT', '/medias/batch_update.xml', { select: uuid, 'medias[title]': 'Kept a while' });
      const location = text(queued.doc, 'location')!;
      await waitForJob(w.client, location);
      // The upload's renditions job is in the other lane of the queue: it may finish before or after the batch.
      const jobs = () => w.svc.db.selectFrom('jobs').selectAll().execute();
      for (let i = 0; (await jobs()).some((j) => j.state !== 'done'); i++) {
        if (i > 1200) throw new Error('the renditions job did not finish');
        await new Promise((r) => setTimeout(r, 50));
      }
      const job = (await jobs()).reduce((a, b) => (Date.parse(a.finished_at!) >= Date.parse(b.finished_at!) ? a : b));
      // A job some worker holds, started long ago: never purged, whatever its age.
      const old = new Date(Date.now() - 3600 * 1000).toISOString();
      await w.svc.db
        .insertInto('jobs')
        .values({ uuid: '00000000-0000-4000-8000-00000000cafe', owner_id: w.user.id, kind: 'elsewhere', state: 'running', payload: '{}', locked_by: 'other', locked_until: new Date(Date.now() + 86_400_000 * 30).toISOString(), created_at: old, updated_at: old })
        .execute();

      const finished = Date.parse(job.finished_at!);
      expect((await w.svc.service.sweep(new Date(finished + 30_000))).jobs).toBe(0);
      expect(text((await w.client.request('GET', location)).doc, 'job/state')).toBe('done');
      // The batch job and the renditions job of the upload before it.
      expect((await w.svc.service.sweep(new Date(finished + 61_000))).jobs).toBe(2);
      const gone = await w.svc.db.selectFrom('jobs').select('uuid').execute();
      expect(gone.map((j) => j.uuid)).toEqual(['00000000-0000-4000-8000-00000000cafe']);
    });
  });
});


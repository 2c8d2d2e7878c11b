// The change feed (docs/integrations.md "Change feed", an API extension): a client following
// GET /changes.xml from cursor 0 through thousands of changes, with deletions and moves between
// galleries in between, ends with the server's exact state; another user's changes never show;
// a malformed cursor is a 422; on PostgreSQL a transaction committing out of seq order is not skipped.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/api.js';
import pg from 'pg';
import { sql } from 'kysely';
import type { FeedChange } from '../../src/client/index.js';
import { text } from '../../src/client/xml.js';
import type { Db } from '../../src/database/db.js';
import { createCollection, createGallery, insertLightbox, insertMedias, updateMedia } from '../support/media.js';
import { eachDatabase, PG_URL, type DbKind } from '../support/service.js';
import { failure, startWorld, worldOn, type World } from '../support/world.js';

/** Each object of the owner as a sync client would mirror it: what it fetched, by `kind:uuid`. */
async function serverState(db: Db, ownerId: number): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const medias = await sql<{ uuid: string; title: string | null; g: string | null }>`
    SELECT m.uuid, m.title, g.uuid AS g FROM medias m LEFT JOIN media_galleries mg ON mg.media_id = m.id LEFT JOIN galleries g ON g.id = mg.gallery_id
    WHERE m.owner_id = ${ownerId}`.execute(db);
  const galleries = new Map<string, Set<string>>();
  for (const r of medias.rows) {
    const set = galleries.get(r.uuid) ?? new Set<string>();
    if (r.g) set.add(r.g);
    galleries.set(r.uuid, set);
    out.set(`media:${r.uuid}`, `${r.title ?? ''}|`);
  }
  for (const [uuid, set] of galleries) out.set(`media:${uuid}`, out.get(`media:${uuid}`)! + [...set].sort().join(','));
  const gs = await sql<{ uuid: string; name: string }>`SELECT g.uuid, g.name FROM galleries g JOIN websites w ON w.id = g.website_id WHERE w.owner_id = ${ownerId}`.execute(db);
  for (const r of gs.rows) out.set(`gallery:${r.uuid}`, r.name);
  const members = async (table: string, parent: string, col: string, kind: string) => {
    const rows = await sql<{ uuid: string; name: string; m: string | null }>`
      SELECT p.uuid, p.name, m.uuid AS m FROM ${sql.table(parent)} p LEFT JOIN ${sql.table(table)} x ON x.${sql.ref(col)} = p.id LEFT JOIN medias m ON m.id = x.media_id
      WHERE p.owner_id = ${ownerId}`.execute(db);
    const by = new Map<string, string[]>();
    for (const r of rows.rows) by.set(`${kind}:${r.uuid}|${r.name}`, [...(by.get(`${kind}:${r.uuid}|${r.name}`) ?? []), ...(r.m ? [r.m] : [])]);
    for (const [key, ms] of by) out.set(key.slice(0, key.indexOf('|')), `${key.slice(key.indexOf('|') + 1)}|${ms.sort().join(',')}`);
  };
  await members('media_group_medias', 'media_groups', 'group_id', 'collection');
  await members('lightbox_medias', 'lightboxes', 'lightbox_id', 'lightbox');
  return out;
}

/**
 * A sync client: follows the feed from a cursor, fetches what was created or updated (here from the
 * database, as it stands when fetched) and forgets only what a tombstone names.
 */
class Follower {
  readonly mirror = new Map<string, string>();
  received = 0;
  readonly seen = new Set<string>();
  constructor(
    private readonly w: World,
    public cursor: string,
    private readonly perPage: number,
  ) {}

  private async apply(changes: FeedChange[]): Promise<void> {
    const now = await serverState(this.w.svc.db, this.w.user.id);
    for (const c of changes) {
      expect(['media', 'gallery', 'collection', 'lightbox']).toContain(c.kind);
      expect(['created', 'updated', 'deleted']).toContain(c.action);
      const key = `${c.kind}:${c.uuid}`;
      this.seen.add(c.uuid);
      this.received++;
      if (c.action === 'deleted') this.mirror.delete(key);
      else if (now.has(key)) this.mirror.set(key, now.get(key)!);
      // Gone already: its tombstone is further on; until then the mirror keeps what it had.
      else if (!this.mirror.has(key)) this.mirror.set(key, 'fetched after its deletion');
    }
  }

  /** At most `pages` pages (the client is behind); true when caught up. */
  async pull(pages: number): Promise<boolean> {
    for (let i = 0; i < pages; i++) {
      const r = await this.w.client.changes(this.cursor, this.perPage);
      const changes = r.doc.children.find((c) => c.name === 'changes')!.children.map((c) => ({ kind: text(c, 'kind'), uuid: text(c, 'uuid'), action: text(c, 'action') }) as FeedChange);
      await this.apply(changes);
      this.cursor = text(r.doc, 'next-cursor')!;
      if (text(r.doc, 'has-more') !== 'true') return true;
      expect(changes.length).toBe(this.perPage);
    }
    return false;
  }

  /** Caught up with everything final, through the SDK's own follower. */
  async follow(): Promise<void> {
    this.cursor = await this.w.client.followChanges(this.cursor, (changes) => this.apply(changes), { perPage: this.perPage });
  }

  /**
   * Follows until `done`: on PostgreSQL a change shows once every write transaction of the cluster
   * older than it has ended, and other suites' migrations run in long transactions on the same server.
   */
  async followUntil(done: () => boolean | Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      await this.follow();
      if ((await done()) || Date.now() > deadline) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const db = (w: World) => w.svc.db;
const idsOf = async (w: World, uuids: string[]) => (await db(w).selectFrom('medias').select('id').where('uuid', 'in', uuids).execute()).map((r) => r.id);

eachDatabase((kind: DbKind) => {
  describe('change feed', () => {
    let w: World;
    let other: World;

    beforeAll(async () => {
      w = await startWorld(kind);
      other = await worldOn(w.svc);
    }, 60_000);
    afterAll(async () => {
      await w?.svc.close();
    });

    it('answers the current cursor alone without since, and nothing before it after it', async () => {
      const before = await createGallery(w, 'Before the cursor');
      const r = await w.client.changes();
      const cursor = text(r.doc, 'next-cursor')!;
      expect(cursor).toMatch(/^(0|\d+\.\d+)$/);
      expect(r.doc.children.map((c) => c.name).filter((n) => n !== 'request')).toEqual(['next-cursor']);
      const after = await createGallery(w, 'After the cursor');
      const f = new Follower(w, cursor, 100);
      await f.followUntil(() => f.seen.has(after));
      expect(f.seen.has(after)).toBe(true);
      // PostgreSQL's cursor is a transaction horizon: a change committed just before it may be told
      // again (at least once, never fewer); SQLite's is exact.
      if (kind === 'sqlite') expect(f.seen.has(before)).toBe(false);
    });

    it('refuses a malformed cursor or page size with a 422 naming it', async () => {
      for (const since of ['', 'abc', '1.', '.1', '-1.2', '1.2.3', '01.2', '1.-2', '99999999999999999999.1', '1.99999999999999999', '1e3.2', ' 1.2x']) {
        const f = await failure(w.client.changes(since));
        expect(f.status, since).toBe(422);
        expect(f.message, since).toContain('since');
      }
      for (const perPage of [0, 1001, -1]) expect((await failure(w.client.changes('0', perPage))).status).toBe(422);
      expect((await failure(w.client.request('GET', '/changes.xml', { since: '0', page: 2 }))).status).toBe(400);
    });

    it("never shows another user's changes", async () => {
      const theirs = [await createGallery(other, 'Theirs'), ...(await insertMedias(db(w), other.user, 20)), await createCollection(other, 'Their collection')];
      const mine = await createGallery(w, 'Mine');
      const f = new Follower(w, '0', 7);
      await f.followUntil(() => f.seen.has(mine));
      expect(f.seen.has(mine)).toBe(true);
      for (const u of theirs) expect(f.seen.has(u)).toBe(false);
      // And theirs follow theirs: everything of their own, nothing of mine.
      const g = new Follower(other, '0', 500);
      await g.followUntil(() => theirs.every((u) => g.seen.has(u)));
      for (const u of theirs) expect(g.seen.has(u)).toBe(true);
      expect(g.seen.has(mine)).toBe(false);
    });

    it('the api command follows the feed to its end with --follow, and refuses it elsewhere', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'mps-changes-cli-'));
      try {
        const env = { MPS_URL: w.svc.url, MPS_API_KEY: w.app.key, MPS_API_SECRET: w.app.secret, MPS_LOGIN: w.user.email, MPS_PASSWORD: w.user.password, MPS_SESSION_FILE: join(dir, 'sess') };
        const run = async (...argv: string[]) => {
          const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() };
          const status = await runCli(argv, env, io, dir);
          return { status, out: String(io.stdout.read() ?? ''), err: String(io.stderr.read() ?? '') };
        };
        const g = await createGallery(w, 'Followed from the terminal');
        let out = '';
        for (let i = 0; i < 600 && !out.includes(`created gallery ${g}`); i++) {
          const r = await run('--follow', 'GET', '/changes.xml', 'since=0', 'per_page=3');
          expect(r.status, r.err).toBe(0);
          out = r.out;
          if (!out.includes(g)) await new Promise((res) => setTimeout(res, 200));
        }
        const lines = out.trim().split('\n');
        expect(lines).toContain(`created gallery ${g}`);
        expect(lines.at(-1)).toMatch(/^next-cursor (0|\d+\.\d+)$/);
        expect(lines.slice(0, -1).every((l) => /^(created|updated|deleted) (media|gallery|collection|lightbox) [0-9a-f-]{36}$/.test(l))).toBe(true);
        const json = await run('--follow', '--json', 'GET', '/changes.xml', `since=${lines.at(-1)!.split(' ')[1]}`);
        expect(json.status).toBe(0);
        expect(JSON.parse(json.out).next_cursor).toEqual(expect.any(String));
        expect((await run('--follow', 'GET', '/changes.xml', 'since=nope')).status).toBe(1);
        expect((await run('--follow', 'GET', '/medias.xml')).status).toBe(2);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it("follows 10 000 changes from 0, with deletions and moves between galleries, to the server's exact state", async () => {
      const f = new Follower(w, '0', 1000);
      const galleries: string[] = [];
      // Changes made, each a write the feed records (how many it delivers depends on how far behind the
      // client is: an object changed twice before it looks is told once, with its latest action).
      let made = 8 + 4000;
      for (let i = 0; i < 8; i++) galleries.push(await createGallery(w, `Shoot ${i}`));
      const gid = async (uuid: string) => (await db(w).selectFrom('galleries').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow()).id;
      const medias = await insertMedias(db(w), w.user, 4000);
      await f.pull(2);

      // Through the API: publications, moves, renames, deletions, a collection, a gallery deleted.
      for (const m of medias.slice(0, 150)) await updateMedia(w.client, m, { 'media[publish_to_galleries][]': [galleries[0]!], 'media[title]': `t${m.slice(0, 4)}` });
      await f.pull(1);
      for (const m of medias.slice(0, 60)) await updateMedia(w.client, m, { 'media[galleries][]': [galleries[1]!] });
      for (const m of medias.slice(150, 200)) expect((await w.client.request('DELETE', `/medias/${m}.xml`)).status).toBe(200);
      const collection = await createCollection(w, 'Selects');
      for (const m of medias.slice(200, 230)) await updateMedia(w.client, m, { 'media[add_to_medias_collections][]': [collection] });
      for (const g of galleries.slice(2, 5)) await w.client.updateGallery(w.urlname, g, { name: `Renamed ${g.slice(0, 4)}` });
      await w.client.deleteGallery(w.urlname, galleries[0]!);
      // 150 published and retitled, 60 moved, 50 deleted, a collection of 30, 3 renames, a gallery deleted with 90 medias in it.
      made += 150 + 60 + 50 + 1 + 30 + 3 + 1 + 90;
      await f.pull(2);

      // In bulk: 3000 publications, 1000 moves, 1000 deletions, a lightbox, 2000 more medias.
      const ids = await idsOf(w, medias.slice(1000, 4000));
      const [g2, g3] = [await gid(galleries[2]!), await gid(galleries[3]!)];
      for (let i = 0; i < ids.length; i += 500) {
        await db(w).insertInto('media_galleries').values(ids.slice(i, i + 500).map((id, j) => ({ gallery_id: g2, media_id: id, position: i + j + 1, published_at: new Date().toISOString() }))).execute();
      }
      await f.pull(3);
      await db(w).updateTable('media_galleries').set({ gallery_id: g3 }).where('gallery_id', '=', g2).where('media_id', 'in', ids.slice(0, 1000)).execute();
      await f.pull(1);
      await db(w).deleteFrom('medias').where('id', 'in', ids.slice(1500, 2500)).execute();
      await insertLightbox(db(w), w.user, medias.slice(300, 320));
      await insertMedias(db(w), w.user, 2000);
      await f.pull(2);
      for (const m of medias.slice(400, 450)) expect((await w.client.request('DELETE', `/medias/${m}.xml`)).status).toBe(200);
      made += 3000 + 1000 + 1000 + 1 + 20 + 2000 + 50;

      await f.followUntil(async () => sameState(f.mirror, await serverState(db(w), w.user.id)));
      expect(made).toBeGreaterThanOrEqual(10_000);
      // Every object's latest entry, tombstones included, was delivered.
      const logged = await db(w).selectFrom('change_log').select((e) => e.fn.countAll<number>().as('n')).where('owner_id', '=', w.user.id).executeTakeFirstOrThrow();
      expect(f.received).toBeGreaterThanOrEqual(Number(logged.n));
      const server = await serverState(db(w), w.user.id);
      expect([...f.mirror.entries()].sort()).toEqual([...server.entries()].sort());
    }, 240_000);
  });
});

function sameState(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

if (PG_URL) {
  describe('[postgres] change feed, two writers committing out of seq order', () => {
    let w: World;
    let a: pg.Client;
    let b: pg.Client;

    beforeAll(async () => {
      w = await startWorld('postgres');
      a = new pg.Client({ connectionString: w.svc.config.databaseUrl });
      b = new pg.Client({ connectionString: w.svc.config.databaseUrl });
      await a.connect();
      await b.connect();
    }, 60_000);
    afterAll(async () => {
      await a?.end();
      await b?.end();
      await w?.svc.close();
    });

    it('keeps concurrent writers of the same medias free of deadlocks, and the feed exact', async () => {
      const medias = await insertMedias(db(w), w.user, 12);
      const galleries = [await createGallery(w, 'Left'), await createGallery(w, 'Right'), await createGallery(w, 'Middle')];
      const f = new Follower(w, text((await w.client.changes()).doc, 'next-cursor')!, 100);
      const requests = Array.from({ length: 48 }, (_, i) => {
        const m = medias[(i * 5) % medias.length]!;
        if (i % 3 === 0) return updateMedia(w.client, m, { 'media[title]': `title ${i}` });
        if (i % 3 === 1) return updateMedia(w.client, m, { 'media[galleries][]': [galleries[i % 2]!, galleries[2]!] });
        return w.client.request('PUT', '/medias/batch_update.xml', { select: [...medias].reverse().join(','), 'medias[publish_to_galleries]': [galleries[i % 3]!], 'medias[add_keywords]': `k${i}` }, { multipart: true, methodOverride: true });
      });
      const replies = await Promise.allSettled(requests);
      expect(replies.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
      await w.svc.jobsSettled();
      await f.followUntil(async () => {
        const server = await serverState(db(w), w.user.id);
        return medias.every((m) => f.mirror.get(`media:${m}`) === server.get(`media:${m}`));
      });
      const server = await serverState(db(w), w.user.id);
      for (const m of medias) expect(f.mirror.get(`media:${m}`)).toBe(server.get(`media:${m}`));
    }, 180_000);

    // first: which transaction writes its change first (takes the lower seq); it commits last.
    for (const first of ['older', 'younger'] as const) {
      it(`does not skip the ${first} transaction's change, committed after the other's, to a reader polling in between`, async () => {
        const [m1, m2] = await insertMedias(db(w), w.user, 2);
        const start = text((await w.client.changes()).doc, 'next-cursor')!;
        const f = new Follower(w, start, 100);
        await a.query('BEGIN');
        await b.query('BEGIN');
        // a takes its transaction id first: a is the older transaction.
        const xa = BigInt((await a.query('SELECT pg_current_xact_id()::text AS x')).rows[0].x);
        const xb = BigInt((await b.query('SELECT pg_current_xact_id()::text AS x')).rows[0].x);
        expect(xa < xb).toBe(true);
        // `late` writes first (the lower seq) and commits last.
        const [late, early] = first === 'older' ? [a, b] : [b, a];
        // description: a field no stamp follows, so neither writer waits for the owner's stamp row.
        await late.query(`UPDATE medias SET description = 'late' WHERE uuid = $1`, [m1]);
        await early.query(`UPDATE medias SET description = 'early' WHERE uuid = $1`, [m2]);
        const seqOf = async (u: string) => Number((await a.query('SELECT seq FROM change_log WHERE uuid = $1', [u])).rows[0]?.seq ?? 0);
        await early.query('COMMIT');
        // The reader polls while `late` is still open, and moves its cursor on.
        await f.follow();
        await f.follow();
        await late.query('COMMIT');
        expect(await seqOf(m1)).toBeLessThan(await seqOf(m2));
        await f.followUntil(() => f.seen.has(m1) && f.seen.has(m2));
        expect(f.seen.has(m2)).toBe(true);
        expect(f.seen.has(m1)).toBe(true);
        const described = await db(w).selectFrom('medias').select(['uuid', 'description']).where('uuid', 'in', [m1, m2]).execute();
        expect(Object.fromEntries(described.map((r) => [r.uuid, r.description]))).toEqual({ [m1]: 'late', [m2]: 'early' });
      }, 180_000);
    }
  });
}

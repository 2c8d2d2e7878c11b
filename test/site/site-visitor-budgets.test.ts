// What unauthenticated visitors may cost beyond the pages: `/files/<key>` has a
// budget of its own per address (requests the process cannot answer from
// memory), misses are remembered briefly, and the sign-in link's GET takes
// from the visitor budget and never writes for a token that matches nothing.
// SQLite and PostgreSQL; each test is its own client address (TRUST_PROXY).
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../../src/database/db.js';
import { SQLiteDatabase } from '../../src/database/sqlite-driver.js';
import { create } from '../api/galleries-fixtures.js';
import { eachDatabase, type DbKind } from '../support/service.js';
import type { World } from '../support/world.js';
import { startSite, uploadPhoto, visit, waitForRenditions } from './site-support.js';

let addresses = 0;
const freshAddress = () => `10.77.${(addresses >> 8) & 255}.${addresses++ & 255}`;
const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
const unknownKey = () => `media/zz/${randomBytes(8).toString('hex')}-none.webp`;
const token = () => randomBytes(32).toString('base64url');

/**
 * Runs `fn` while another connection holds the write lock of the sign-in links (SQLite: the
 * database's, PostgreSQL: an EXCLUSIVE lock of visitor_links, which lets reads through); the lock
 * is let go after 5 s at the latest. `whileLocked`: `fn` ended before the lock was let go.
 */
async function whileWriteLocked<T>(kind: DbKind, w: World, fn: () => Promise<T>): Promise<{ value: T; whileLocked: boolean }> {
  let release: () => Promise<void>;
  if (kind === 'sqlite') {
    const other = new SQLiteDatabase(join(w.svc.config.dataDir, 'media-portfolio.sqlite3'));
    other.exec('BEGIN IMMEDIATE');
    release = async () => {
      other.exec('ROLLBACK');
      other.close();
    };
  } else {
    const other = new pg.Client({ connectionString: w.svc.config.databaseUrl });
    await other.connect();
    await other.query('BEGIN');
    await other.query('LOCK TABLE visitor_links IN EXCLUSIVE MODE');
    release = async () => {
      await other.query('ROLLBACK');
      await other.end();
    };
  }
  let released = false;
  const letGo = () => {
    if (released) return Promise.resolve();
    released = true;
    return release();
  };
  const timer = setTimeout(() => void letGo(), 5000);
  try {
    const value = await fn();
    return { value, whileLocked: !released };
  } finally {
    clearTimeout(timer);
    await letGo();
  }
}

eachDatabase((kind) => {
  describe('visitor budgets of /files and the sign-in link', () => {
    let w: World;
    let home: string;
    beforeAll(async () => void ({ w, home } = await startSite(kind, { VISITOR_RATE_LIMIT: '3/60s', VISITOR_FILES_RATE_LIMIT: '3/60s', TRUST_PROXY: '1', SITE_CACHE_SECONDS: '0' })));
    afterAll(() => w?.svc.close());

    it('/files: misses take from the files budget, then 429; a miss is remembered and costs nothing more', async () => {
      const me = from(freshAddress());
      const missing = unknownKey();
      for (let i = 0; i < 10; i++) expect((await visit(w.svc, `/files/${missing}`, me)).status).toBe(404);
      expect((await visit(w.svc, `/files/${unknownKey()}`, me)).status).toBe(404);
      expect((await visit(w.svc, `/files/${unknownKey()}`, me)).status).toBe(404);
      const refused = await visit(w.svc, `/files/${unknownKey()}`, me);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(refused.headers['cache-control']).toBe('no-store');
      // What the process remembers is still answered: it costs no query.
      expect((await visit(w.svc, `/files/${missing}`, me)).status).toBe(404);
      // Another address has its own budget.
      expect((await visit(w.svc, `/files/${unknownKey()}`, from(freshAddress()))).status).toBe(404);
    });

    it('/files: a public file the process knows is served without counting, so browsing is not throttled', async () => {
      const g = await create(w, `Open ${randomBytes(3).toString('hex')}`);
      const media = await uploadPhoto(w, g, 1, 400);
      expect(await waitForRenditions(w, [media])).toBe(true);
      const keys = (
        await w.svc.db.selectFrom('renditions').innerJoin('medias', 'medias.id', 'renditions.media_id').select('renditions.storage_key').where('medias.uuid', '=', media).execute()
      ).map((r) => r.storage_key);
      expect(keys.length).toBeGreaterThanOrEqual(2);
      const me = from(freshAddress());
      // A thumbnail loaded over and over (a gallery page, its lightbox, page after page): one point.
      for (let i = 0; i < 20; i++) expect((await visit(w.svc, `/files/${keys[0]}`, me)).status).toBe(200);
      expect((await visit(w.svc, `/files/${keys[1]}`, me)).status).toBe(200);
      expect((await visit(w.svc, `/files/${unknownKey()}`, me)).status).toBe(404);
      expect((await visit(w.svc, `/files/${unknownKey()}`, me)).status).toBe(429);
      expect((await visit(w.svc, `/files/${keys[0]}`, me)).status).toBe(200);
    });

    it('the sign-in pages take from the visitor budget: unknown links end in 429', async () => {
      const me = from(freshAddress());
      expect((await visit(w.svc, `${home}/_signin`, me)).status).toBe(200);
      expect((await visit(w.svc, `${home}/_signin/${token()}`, me)).status).toBe(404);
      expect((await visit(w.svc, `${home}/_signin/${token()}`, me)).status).toBe(404);
      const refused = await visit(w.svc, `${home}/_signin/${token()}`, me);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      // The same budget as the pages.
      expect((await visit(w.svc, `${home}/`, me)).status).toBe(429);
    });

    it('an unknown sign-in token is remembered: asking again reads nothing', async () => {
      const t = token();
      expect((await visit(w.svc, `${home}/_signin/${t}`, from(freshAddress()))).status).toBe(404);
      // A row for that token now (no link is ever made with a token already asked for): still unknown.
      const site = await w.svc.db.selectFrom('websites').select('id').where('urlname', '=', w.urlname).executeTakeFirstOrThrow();
      await w.svc.db
        .insertInto('visitor_links')
        .values({
          token_hash: createHash('sha256').update(t).digest('base64url'),
          website_id: site.id,
          email: 'late@example.com',
          back: `${home}/`,
          created_at: nowIso(),
          expires_at: new Date(Date.now() + 600_000).toISOString(),
          used_at: null,
        })
        .execute();
      expect((await visit(w.svc, `${home}/_signin/${t}`, from(freshAddress()))).status).toBe(404);
    });

    it('an unknown sign-in token writes nothing: answered while another connection holds the write lock', async () => {
      const { value, whileLocked } = await whileWriteLocked(kind, w, () => visit(w.svc, `${home}/_signin/${token()}`, from(freshAddress())));
      expect(value.status).toBe(404);
      expect(whileLocked).toBe(true);
      // A real link still works, once.
      const links = w.svc.core.visitorLinks;
      const link = await links.create(links.canonical((await links.site(w.urlname))!), 'real@example.com', `${home}/`);
      expect((await visit(w.svc, new URL(link.url).pathname, from(freshAddress()))).status).toBe(303);
      expect((await visit(w.svc, new URL(link.url).pathname, from(freshAddress()))).status).toBe(410);
    });
  });
});

// The admin commands of the website's brand and pages (an API extension, docs/website.md):
// `website set`, `website page`, `website show`, run as operators run them, from the build.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso, openStore, type Db, type Store } from '../../src/database/db.js';
import { buildIfStale, childEnv, runBuilt, type RunResult } from '../support/processes.js';
import { createPgDatabase, eachDatabase } from '../support/service.js';

beforeAll(buildIfStale, 300_000);

function ok(res: RunResult): string {
  expect(res.stderr, 'stderr').toBe('');
  expect(res.code, 'exit code').toBe(0);
  return res.stdout;
}

function refused(res: RunResult, what: string): string {
  expect(res.code, what).toBe(1);
  expect(res.stdout, what).toBe('');
  expect(res.stderr, `${what}: one line`).toMatch(/^[^\n]+\n$/);
  return res.stderr;
}

describe('admin website commands: help', { timeout: 60_000 }, () => {
  it('lists them and describes each option', async () => {
    const dataDir = join(tmpdir(), `mps-none-${randomUUID()}`);
    const run = (...args: string[]) => runBuilt('cli/admin.js', args, { env: childEnv({ DATA_DIR: dataDir }) });
    const list = ok(await run('--help'));
    for (const c of ['website set', 'website page', 'website show']) expect(list).toMatch(new RegExp(`^  ${c} +\\S`, 'm'));
    const set = ok(await run('website', 'set', '--help'));
    for (const o of ['--urlname U', '--title T', '--tagline T', '--logo UUID', '--favicon UUID', '--color-scheme light|dark|auto', '--accent-color #RRGGBB', '--theme modern|editorial|classic|system', '--credit TEXT', '--copyright TEXT', '--contact-email E', '--social-link URL']) {
      expect(set).toMatch(new RegExp(`^  ${o.replace(/[|#]/g, (c) => `\\${c}`)} +\\S`, 'm'));
    }
    const page = ok(await run('website', 'page', '--help'));
    for (const o of ['--slug S', '--title T', '--body MARKDOWN', '--file PATH', '--position N', '--delete']) expect(page).toMatch(new RegExp(`^  ${o} +\\S`, 'm'));
  });
});

eachDatabase((kind) => {
  describe('admin website commands', { timeout: 180_000 }, () => {
    let dataDir: string;
    let databaseUrl: string | undefined;
    let dropPg: (() => Promise<void>) | undefined;
    let store: Store | undefined;
    const db = (): Db => (store ??= openStore({ dataDir, databaseUrl })).db;
    const admin = (...args: string[]) => runBuilt('cli/admin.js', args, { env: childEnv({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl }) });
    const website = () => db().selectFrom('websites').selectAll().where('urlname', '=', 'ann').executeTakeFirstOrThrow();

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'mps-cli-brand-'));
      if (kind === 'postgres') {
        const pg = await createPgDatabase();
        databaseUrl = pg.url;
        dropPg = pg.drop;
      }
      ok(await admin('user', 'create', '--email', 'ann@example.com', '--password', 'correct horse battery'));
      ok(await admin('website', 'create', '--owner', 'ann@example.com', '--urlname', 'ann', '--title', 'Ann'));
    });
    afterAll(async () => {
      await store?.close();
      await dropPg?.();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('website set changes each setting, --json prints the result, and "" clears', async () => {
      const owner = await db().selectFrom('users').select(['id']).where('email', '=', 'ann@example.com').executeTakeFirstOrThrow();
      const artist = await db().selectFrom('artists').select('id').where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
      const logo = randomUUID();
      await db()
        .insertInto('medias')
        .values({ uuid: logo, owner_id: owner.id, artist_id: artist.id, status: 'live', file_name: 'logo.png', mime_type: 'image/png', created_at: nowIso(), updated_at: nowIso() })
        .execute();
      const out = JSON.parse(
        ok(
          await admin(
            'website', 'set', '--urlname', 'ann', '--title', 'Ann Lee Photography', '--tagline', 'Portraits', '--logo', logo, '--favicon', logo,
            '--color-scheme', 'auto', '--accent-color', '#0F766E', '--theme', 'classic', '--credit', 'Photographs by Ann Lee', '--copyright', '© Ann Lee',
            '--contact-email', 'ann@example.com', '--social-link', 'https://instagram.com/ann', '--social-link', 'https://vimeo.com/ann', '--json',
          ),
        ),
      );
      expect(out).toMatchObject({ urlname: 'ann', title: 'Ann Lee Photography', theme: 'classic', colorScheme: 'auto', accentColor: '#0f766e' });
      const w = await website();
      expect([w.tagline, w.credit, w.copyright, w.contact_email, w.social_links]).toEqual(['Portraits', 'Photographs by Ann Lee', '© Ann Lee', 'ann@example.com', '["https://instagram.com/ann","https://vimeo.com/ann"]']);
      const media = await db().selectFrom('medias').select('id').where('uuid', '=', logo).executeTakeFirstOrThrow();
      expect([w.logo_media_id, w.favicon_media_id]).toEqual([media.id, media.id]);

      expect(ok(await admin('website', 'set', '--urlname', 'ann', '--tagline', '', '--social-link', '', '--logo', ''))).toContain('website ann updated');
      const cleared = await website();
      expect([cleared.tagline, cleared.social_links, cleared.logo_media_id, cleared.favicon_media_id]).toEqual([null, null, null, media.id]);

      const show = JSON.parse(ok(await admin('website', 'show', '--urlname', 'ann', '--json')));
      expect(show).toMatchObject({ urlname: 'ann', title: 'Ann Lee Photography', favicon: logo, logo: null, theme: 'classic' });
    });

    it('refuses a wrong value in one line, as the API does, and changes nothing', async () => {
      const before = await website();
      for (const [args, says] of [
        [['--accent-color', 'teal'], 'website[accent_color]'],
        [['--theme', 'gothic'], 'website[theme]'],
        [['--title', ''], 'website[title]'],
        [['--social-link', 'ftp://x.example'], 'website[social_links]'],
        [['--logo', randomUUID()], 'website[logo]'],
      ] as const) {
        expect(refused(await admin('website', 'set', '--urlname', 'ann', ...args), args.join(' '))).toContain(says);
      }
      expect(refused(await admin('website', 'set', '--urlname', 'nobody', '--title', 'x'), 'unknown website')).toContain('website nobody not found');
      expect(await website()).toEqual(before);
    });

    it('website page writes a page from a file or text, and deletes it', async () => {
      const file = join(dataDir, 'about.md');
      await writeFile(file, '# About\n\nI photograph people.\n');
      expect(JSON.parse(ok(await admin('website', 'page', '--urlname', 'ann', '--slug', 'about', '--title', 'About', '--file', file, '--position', '1', '--json')))).toEqual({
        slug: 'about',
        title: 'About',
        position: 1,
        created: true,
      });
      expect(ok(await admin('website', 'page', '--urlname', 'ann', '--slug', 'about', '--body', 'Changed.'))).toContain('page about updated');
      const w = await website();
      const page = await db().selectFrom('website_pages').selectAll().where('website_id', '=', w.id).executeTakeFirstOrThrow();
      expect([page.slug, page.title, page.body, page.position]).toEqual(['about', 'About', 'Changed.', 1]);
      expect(refused(await admin('website', 'page', '--urlname', 'ann', '--slug', 'contact'), 'no title')).toContain('page[title]');
      expect(refused(await admin('website', 'page', '--urlname', 'ann', '--slug', 'Not_A_Slug', '--title', 'x'), 'bad slug')).toContain('page name');
      expect(ok(await admin('website', 'page', '--urlname', 'ann', '--slug', 'about', '--delete'))).toContain('page about deleted');
      expect(await db().selectFrom('website_pages').selectAll().where('website_id', '=', w.id).execute()).toEqual([]);
      expect(refused(await admin('website', 'page', '--urlname', 'ann', '--slug', 'about', '--delete'), 'gone')).toContain('page about not found');
    });
  });
});

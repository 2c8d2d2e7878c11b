// The admin command line of operations.md, run as operators run it
// (`npm run --silent admin -- <command>`, without npm's own start): from the
// build, `node scripts/built.mjs cli/admin.js <command>` with DATA_DIR (and DATABASE_URL).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaPortfolioClient } from '../../src/client/index.js';
import { all, text } from '../../src/client/xml.js';
import { loadConfig } from '../../src/config.js';
import { buildApp as createService, type App as Service } from '../../src/app.js';
import { openStore, type Db, type Store } from '../../src/database/db.js';
import { randomTotpSecret, totpCode } from '../../src/users/totp.js';
import { BUILT, buildIfStale, childEnv, freePort, REPO_ROOT, runBuilt, signedFetch, type RunResult } from '../support/processes.js';
import { basicAuth, createPgDatabase, eachDatabase, type DbKind } from '../support/service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Target {
  dataDir: string;
  databaseUrl?: string;
  cleanup(): Promise<void>;
}

async function freshTarget(kind: DbKind): Promise<Target> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mps-cli-'));
  const pgDb = kind === 'postgres' ? await createPgDatabase() : undefined;
  return {
    dataDir,
    databaseUrl: pgDb?.url,
    async cleanup() {
      await pgDb?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The admin command from the build against the target's DATA_DIR / DATABASE_URL. */
function admin(target: Target, ...args: string[]): Promise<RunResult> {
  return runBuilt('cli/admin.js', args, { env: childEnv({ DATA_DIR: target.dataDir, DATABASE_URL: target.databaseUrl }) });
}

/** The admin command with its stdout closed by the reader before anything is written (`admin … | true`). */
function adminIntoClosedPipe(target: Target, ...args: string[]): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT, 'cli/admin.js', ...args], {
      cwd: REPO_ROOT,
      env: childEnv({ DATA_DIR: target.dataDir, DATABASE_URL: target.databaseUrl }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reader goes away at once, as `true` does at the end of a pipe.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: '', stderr });
    });
  });
}

/** The one JSON object a successful `--json` command prints, and nothing else. */
function jsonOf(res: RunResult): Record<string, unknown> {
  expect(res.stderr, 'stderr').toBe('');
  expect(res.code, 'exit code').toBe(0);
  expect(res.stdout.endsWith('\n')).toBe(true);
  expect(res.stdout.trimEnd().split('\n'), 'exactly one line on stdout').toHaveLength(1);
  const value: unknown = JSON.parse(res.stdout);
  expect(value).toBeTypeOf('object');
  expect(Array.isArray(value)).toBe(false);
  return value as Record<string, unknown>;
}

/** Human text: a success that is not JSON. */
function humanTextOf(res: RunResult): string {
  expect(res.stderr, 'stderr').toBe('');
  expect(res.code, 'exit code').toBe(0);
  expect(res.stdout.trim()).not.toBe('');
  expect(() => JSON.parse(res.stdout)).toThrow();
  return res.stdout;
}

/** A refusal: non-zero exit, exactly one line on stderr, nothing on stdout. */
function expectRefused(res: RunResult, what: string): void {
  expect(res.code, `${what}: exit code`).not.toBe(0);
  expect(res.code, `${what}: exit code`).not.toBeNull();
  expect(res.stdout, `${what}: stdout`).toBe('');
  expect(res.stderr, `${what}: stderr is one line`).toMatch(/^[^\n]*\S[^\n]*\n?$/);
}

// Once, before any command runs: a build on the way would speak on stderr.
beforeAll(buildIfStale, 300_000);

describe('admin and api help', { timeout: 60_000 }, () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = join(await mkdtemp(join(tmpdir(), 'mps-cli-help-')), 'data');
  });
  afterAll(async () => {
    await rm(join(dataDir, '..'), { recursive: true, force: true });
  });
  const run = (entry: string, ...args: string[]) => runBuilt(entry, args, { env: childEnv({ DATA_DIR: dataDir }) });
  const COMMANDS = ['user create', 'app create', 'website create', 'website share', 'artist create', 'display-style set', 'pricing-profile create', 'watermark create', 'client link', 'lightbox create', 'lightbox list'];

  it('admin --help lists every command on stdout and exits 0', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const res = await run('cli/admin.js', flag);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      for (const command of COMMANDS) expect(res.stdout).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
      expect(res.stdout).toContain('<command> --help');
    }
  });

  it('admin <command> --help describes the command and each of its options, and touches no database', async () => {
    const res = await run('cli/admin.js', 'user', 'create', '--help');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^usage: .*user create --email E --password P \[--first-name F\] \[--last-name L\] \[--otp-secret BASE32\] \[--json\]$/m);
    for (const option of ['--email E', '--password P', '--first-name F', '--last-name L', '--otp-secret BASE32', '--json']) expect(res.stdout).toMatch(new RegExp(`^  ${option.replace('[', '\\[')} +\\S`, 'm'));
    // Help with other arguments (even wrong ones) is still help.
    const lightbox = await run('cli/admin.js', 'lightbox', 'create', '--name', 'x', '--bogus', '-h');
    expect(lightbox.code).toBe(0);
    expect(lightbox.stdout).toContain('[--media UUID]...');
    expect(existsSync(dataDir), 'no DATA_DIR created').toBe(false);
  });

  it('an unknown command says so in one line on stderr, points to --help, and exits non-zero', async () => {
    for (const args of [['frobnicate', 'everything'], ['user'], ['user', 'delete', '--help']]) {
      const res = await run('cli/admin.js', ...args);
      expectRefused(res, args.join(' '));
      expect(res.stderr).toContain(`unknown command: ${args.slice(0, 2).join(' ')}`);
      expect(res.stderr).toContain('--help');
    }
    expect(existsSync(dataDir), 'no DATA_DIR created').toBe(false);
  });

  it('admin names the database it could not reach, in one line, without its password', async () => {
    const port = await freePort();
    const res = await runBuilt('cli/admin.js', ['app', 'create', '--name', 'x'], { env: childEnv({ DATA_DIR: dataDir, DATABASE_URL: `postgres://mps:s3cret@127.0.0.1:${port}/photos` }) });
    expectRefused(res, 'unreachable database');
    expect(res.stderr).toBe(`error: cannot reach the database at postgres://mps:***@127.0.0.1:${port}/photos (ECONNREFUSED): is it running? (DATABASE_URL, from the environment or ./.env)\n`);
  });

  it('api --help prints the usage on stdout and exits 0; a usage error exits 2 with the usage on stderr', async () => {
    const help = await run('cli/api.js', '--help');
    expect(help.stderr).toBe('');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: .*METHOD PATH/);
    const wrong = await run('cli/api.js', 'GET');
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toContain('METHOD and PATH are required');
  });
});

eachDatabase((kind) => {
  describe('admin CLI', { timeout: 180_000 }, () => {
    let target: Target;
    let store: Store | undefined;
    // Opened after the CLI has created (and migrated) the database itself.
    const db = (): Db => (store ??= openStore({ dataDir: target.dataDir, databaseUrl: target.databaseUrl })).db;
    const userByEmail = (email: string) => db().selectFrom('users').selectAll().where('email', '=', email).executeTakeFirstOrThrow();

    beforeAll(async () => {
      target = await freshTarget(kind);
    });
    afterAll(async () => {
      await store?.close();
      await target?.cleanup();
    });

    const ann = { email: 'ann.lee@example.com', password: 'correct horse battery' };
    let defaultArtistUuid: string;
    let artistUuid: string;

    it('user create --json prints {uuid, email}; the password is stored as an argon2id hash; the user owns a default media library', async () => {
      const out = jsonOf(
        await admin(target, 'user', 'create', '--email', ann.email, '--password', ann.password, '--first-name', 'Ann', '--last-name', 'Lee', '--json'),
      );
      expect(Object.keys(out).sort()).toEqual(['email', 'uuid']);
      expect(out.uuid).toMatch(UUID);
      expect(out.email).toBe(ann.email);

      const user = await userByEmail(ann.email);
      expect(user.uuid).toBe(out.uuid);
      expect(user.first_name).toBe('Ann');
      expect(user.last_name).toBe('Lee');
      expect(user.otp_secret).toBeNull();
      expect(user.password_hash.startsWith('$argon2id$')).toBe(true);
      expect(user.password_hash).not.toContain(ann.password);

      const artists = await db().selectFrom('artists').selectAll().where('owner_id', '=', user.id).execute();
      expect(artists).toHaveLength(1);
      expect(artists[0].is_default).toBe(1);
      defaultArtistUuid = artists[0].uuid;
    });

    it('user create without --json prints human text', async () => {
      const out = humanTextOf(await admin(target, 'user', 'create', '--email', 'bob@example.com', '--password', 'bobs long password'));
      expect(out).toContain('bob@example.com');
      const bob = await userByEmail('bob@example.com');
      expect(bob.first_name).toBe('');
    });

    it('app create --json prints {key, secret}, the secret carrying at least 128 random bits', async () => {
      const a = jsonOf(await admin(target, 'app', 'create', '--name', 'Lightroom plug-in', '--json'));
      const b = jsonOf(await admin(target, 'app', 'create', '--name', 'Other client', '--json'));
      for (const app of [a, b]) {
        expect(Object.keys(app).sort()).toEqual(['key', 'secret']);
        expect(app.key).toMatch(/^\S{16,}$/);
        // hex (4 bits a character) or base64url (6 bits a character)
        expect(app.secret).toMatch(/^(?:[0-9a-fA-F]{32,}|[A-Za-z0-9_-]{22,})$/);
        const row = await db().selectFrom('apps').selectAll().where('api_key', '=', app.key as string).executeTakeFirstOrThrow();
        expect(row.api_secret).toBe(app.secret);
      }
      expect(a.key).not.toBe(b.key);
      expect(a.secret).not.toBe(b.secret);
      expect(a.secret).not.toBe(a.key);

      const before = (await db().selectFrom('apps').select('id').execute()).length;
      humanTextOf(await admin(target, 'app', 'create', '--name', 'Human'));
      expect((await db().selectFrom('apps').select('id').execute()).length).toBe(before + 1);
    });

    it('website create --json prints {uuid, urlname, rootGalleryUuid}; the website has its root gallery and display styles', async () => {
      const out = jsonOf(
        await admin(target, 'website', 'create', '--owner', ann.email, '--urlname', 'ann-lee', '--title', 'Ann Lee Photography', '--hostname', 'photos.example.com', '--json'),
      );
      expect(Object.keys(out).sort()).toEqual(['rootGalleryUuid', 'urlname', 'uuid']);
      expect(out.uuid).toMatch(UUID);
      expect(out.urlname).toBe('ann-lee');
      expect(out.rootGalleryUuid).toMatch(UUID);

      const user = await userByEmail(ann.email);
      const website = await db().selectFrom('websites').selectAll().where('uuid', '=', out.uuid as string).executeTakeFirstOrThrow();
      expect(website).toMatchObject({ urlname: 'ann-lee', title: 'Ann Lee Photography', hostname: 'photos.example.com', owner_id: user.id });
      const root = await db().selectFrom('galleries').selectAll().where('uuid', '=', out.rootGalleryUuid as string).executeTakeFirstOrThrow();
      expect(root.website_id).toBe(website.id);
      expect(root.parent_id).toBeNull();
      const styles = await db().selectFrom('display_styles').selectAll().where('website_id', '=', website.id).execute();
      expect(styles.length).toBeGreaterThanOrEqual(1);

      expect(humanTextOf(await admin(target, 'website', 'create', '--owner', ann.email, '--urlname', 'ann-second'))).toContain('ann-second');
      await db().selectFrom('websites').select('id').where('urlname', '=', 'ann-second').executeTakeFirstOrThrow();
    });

    it("website set --hostname: the operator's name is in effect at once, no proof asked; the service's own is refused", async () => {
      const out = jsonOf(await admin(target, 'website', 'set', '--urlname', 'ann-second', '--hostname', 'Second.example.com', '--json'));
      expect(out.hostname).toBe('second.example.com');
      const row = await db().selectFrom('websites').selectAll().where('urlname', '=', 'ann-second').executeTakeFirstOrThrow();
      expect([row.hostname, row.hostname_pending, row.hostname_token]).toEqual(['second.example.com', null, null]);
      // PUBLIC_URL unset: http://localhost:8080, whose host no website may take.
      const refused = await admin(target, 'website', 'set', '--urlname', 'ann-second', '--hostname', 'localhost:8080');
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('this service itself');
    });

    it('artist create --json prints {uuid} of a new, non-default media library', async () => {
      const out = jsonOf(await admin(target, 'artist', 'create', '--owner', ann.email, '--name', 'Ann Lee Studio', '--json'));
      expect(Object.keys(out)).toEqual(['uuid']);
      expect(out.uuid).toMatch(UUID);
      artistUuid = out.uuid as string;
      const user = await userByEmail(ann.email);
      const artists = await db().selectFrom('artists').selectAll().where('owner_id', '=', user.id).orderBy('id').execute();
      expect(artists.map((a) => [a.uuid, a.name, a.is_default])).toEqual([
        [defaultArtistUuid, 'Ann Lee', 1],
        [artistUuid, 'Ann Lee Studio', 0],
      ]);
      expect(humanTextOf(await admin(target, 'artist', 'create', '--owner', ann.email, '--name', 'Third'))).toMatch(/[0-9a-f-]{36}/);
    });

    it('pricing-profile create --json prints {uuid}', async () => {
      const out = jsonOf(await admin(target, 'pricing-profile', 'create', '--owner', ann.email, '--name', 'Prints 2026', '--json'));
      expect(Object.keys(out)).toEqual(['uuid']);
      const user = await userByEmail(ann.email);
      const row = await db().selectFrom('pricing_profiles').selectAll().where('uuid', '=', out.uuid as string).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ owner_id: user.id, name: 'Prints 2026' });
      // The name is read by the price list's spec, as the API and the studio read it: a refusal names the option.
      const before = await db().selectFrom('pricing_profiles').select('id').execute();
      for (const [name, words] of [['   ', /--name cannot be blank/], ['x'.repeat(256), /--name must be at most 255 characters long/]] as const) {
        const res = await admin(target, 'pricing-profile', 'create', '--owner', ann.email, '--name', name, '--json');
        expectRefused(res, `pricing-profile create --name ${JSON.stringify(name.slice(0, 5))}`);
        expect(res.stderr).toMatch(words);
      }
      expect(await db().selectFrom('pricing_profiles').select('id').execute()).toHaveLength(before.length);
    });

    it('display-style set changes what a style chooses besides its layout (crop, spacing, captions; an extension), by name or UUID', async () => {
      const site = await db().selectFrom('websites').select('id').where('urlname', '=', 'ann-lee').executeTakeFirstOrThrow();
      const grid = () => db().selectFrom('display_styles').select(['uuid', 'crop', 'spacing', 'captions']).where('website_id', '=', site.id).where('name', '=', 'Grid').executeTakeFirstOrThrow();
      expect(await grid()).toMatchObject({ crop: 0, spacing: 'normal', captions: 0 });
      const out = jsonOf(await admin(target, 'display-style', 'set', '--urlname', 'ann-lee', '--style', 'Grid', '--crop', 'yes', '--spacing', 'tight', '--json'));
      expect(out).toEqual({ urlname: 'ann-lee', style: 'Grid' });
      expect(await grid()).toMatchObject({ crop: 1, spacing: 'tight', captions: 0 });
      // By UUID; options left out keep their value.
      expect(humanTextOf(await admin(target, 'display-style', 'set', '--urlname', 'ann-lee', '--style', (await grid()).uuid, '--captions', 'yes'))).toContain('changed');
      expect(await grid()).toMatchObject({ crop: 1, spacing: 'tight', captions: 1 });
    });

    it("user grant-admin / revoke-admin give and take back the operators' role (the studio's administration; an extension); app revoke ends a key", async () => {
      const out = jsonOf(await admin(target, 'user', 'grant-admin', '--email', ann.email.toUpperCase(), '--json'));
      expect(out).toEqual({ uuid: (await userByEmail(ann.email)).uuid, email: ann.email, admin: true });
      expect((await userByEmail(ann.email)).is_admin).toBe(1);
      expect(humanTextOf(await admin(target, 'user', 'revoke-admin', '--email', ann.email))).toContain('no operator');
      expect((await userByEmail(ann.email)).is_admin).toBe(0);
      const none = await admin(target, 'user', 'grant-admin', '--email', 'nobody@example.com');
      expect(none.code).not.toBe(0);
      expect(none.stderr).toContain('not found');
      const app = jsonOf(await admin(target, 'app', 'create', '--name', 'to revoke', '--json'));
      expect(humanTextOf(await admin(target, 'app', 'revoke', '--key', String(app.key)))).toContain('revoked');
      expect((await db().selectFrom('apps').select('revoked_at').where('api_key', '=', String(app.key)).executeTakeFirstOrThrow()).revoked_at).not.toBeNull();
      expect((await admin(target, 'app', 'revoke', '--key', String(app.key))).code).not.toBe(0);
      // display-style set reads its values through the studio's declaration: the same refusal.
      const bad = await admin(target, 'display-style', 'set', '--urlname', 'ann-lee', '--style', 'Grid', '--spacing', 'huge');
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('--spacing must be one of none, tight, normal, wide');
    });

    it("user quota sets an account's storage quota in bytes, or the service's default again (docs/security.md, Storage quota; an extension)", async () => {
      const out = jsonOf(await admin(target, 'user', 'quota', '--email', ann.email, '--bytes', '5000000', '--json'));
      expect(out).toEqual({ uuid: (await userByEmail(ann.email)).uuid, email: ann.email, quotaBytes: 5000000 });
      expect(Number((await userByEmail(ann.email)).quota_bytes)).toBe(5000000);
      expect(humanTextOf(await admin(target, 'user', 'quota', '--email', ann.email, '--default'))).toContain('default');
      expect((await userByEmail(ann.email)).quota_bytes).toBeNull();
      for (const args of [['--bytes', '-1'], ['--bytes', '1.5'], [], ['--bytes', '10', '--default']]) {
        const bad = await admin(target, 'user', 'quota', '--email', ann.email, ...args);
        expect(bad.code).not.toBe(0);
        expect(bad.stderr).toMatch(/--bytes|--default/);
      }
      expect((await admin(target, 'user', 'quota', '--email', 'nobody@example.com', '--bytes', '1')).stderr).toContain('not found');
    });

    it('watermark create with --text or --file (an image copied into the store: local files here, DATA_DIR/media); --default leaves one default per media library', async () => {
      const artist = await db().selectFrom('artists').select('id').where('uuid', '=', artistUuid).executeTakeFirstOrThrow();
      const byUuid = (uuid: string) => db().selectFrom('watermarks').selectAll().where('uuid', '=', uuid).executeTakeFirstOrThrow();

      const t = jsonOf(await admin(target, 'watermark', 'create', '--artist', artistUuid, '--text', '© Ann Lee', '--default', '--json'));
      expect(Object.keys(t)).toEqual(['uuid']);
      expect(await byUuid(t.uuid as string)).toMatchObject({ artist_id: artist.id, text: '© Ann Lee', file_name: null, is_default: 1 });

      const png = join(target.dataDir, '..', `mark-${randomUUID()}.png`);
      await sharp({ create: { width: 40, height: 20, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 0.5 } } })
        .png()
        .toFile(png);
      try {
        const f = jsonOf(await admin(target, 'watermark', 'create', '--artist', artistUuid, '--file', png, '--default', '--json'));
        const row = await byUuid(f.uuid as string);
        expect(row).toMatchObject({ artist_id: artist.id, text: null, width: 40, height: 20, is_default: 1 });
        expect(row.file_name).toBe(png.split('/').pop());
        expect(row.storage_key).toBeTruthy();
        const stored = join(target.dataDir, 'media', row.storage_key!);
        expect(existsSync(stored)).toBe(true);
        expect((await readFile(stored)).equals(await readFile(png))).toBe(true);
      } finally {
        await rm(png, { force: true });
      }
      // The new default replaced the old one.
      expect((await byUuid(t.uuid as string)).is_default).toBe(0);

      const plain = jsonOf(await admin(target, 'watermark', 'create', '--artist', artistUuid, '--text', 'draft', '--json'));
      expect((await byUuid(plain.uuid as string)).is_default).toBe(0);
      const defaults = await db().selectFrom('watermarks').select('uuid').where('artist_id', '=', artist.id).where('is_default', '=', 1).execute();
      expect(defaults).toHaveLength(1);
      humanTextOf(await admin(target, 'watermark', 'create', '--artist', artistUuid, '--text', 'human'));
      expect(await byUuid(plain.uuid as string)).toMatchObject({ strength: 50, position: 'center', tile: 0 });

      // The look, read through the studio's declaration (artists/watermark-input.ts): the same refusals.
      const looked = jsonOf(await admin(target, 'watermark', 'create', '--artist', artistUuid, '--text', 'look', '--strength', '30', '--position', 'bottom-left', '--tile', 'yes', '--json'));
      expect(await byUuid(looked.uuid as string)).toMatchObject({ strength: 30, position: 'bottom-left', tile: 1 });
      const before = (await db().selectFrom('watermarks').select('id').where('artist_id', '=', artist.id).execute()).length;
      for (const [option, value, message] of [
        ['--strength', '101', '--strength must be a whole number from 0 to 100'],
        ['--position', 'middle', '--position must be one of top-left, top, top-right'],
        ['--tile', 'maybe', '--tile must be yes or no'],
      ]) {
        const refused = await admin(target, 'watermark', 'create', '--artist', artistUuid, '--text', 'nope', option, value);
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toContain(message);
      }
      expect(await db().selectFrom('watermarks').select('id').where('artist_id', '=', artist.id).execute()).toHaveLength(before);
    });

    it('lightbox create --json prints {uuid}', async () => {
      const out = jsonOf(await admin(target, 'lightbox', 'create', '--owner', ann.email, '--name', 'Client favourites', '--json'));
      expect(Object.keys(out)).toEqual(['uuid']);
      const user = await userByEmail(ann.email);
      const row = await db().selectFrom('lightboxes').selectAll().where('uuid', '=', out.uuid as string).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ owner_id: user.id, name: 'Client favourites' });
      humanTextOf(await admin(target, 'lightbox', 'create', '--owner', ann.email, '--name', 'Second'));
    });

    it('lightbox list --json prints the owner\'s lightboxes with their counts and states', async () => {
      const out = jsonOf(await admin(target, 'lightbox', 'list', '--owner', ann.email, '--json'));
      const list = out.lightboxes as Array<Record<string, unknown>>;
      expect(list.map((l) => l.name)).toEqual(expect.arrayContaining(['Client favourites', 'Second']));
      expect(list.find((l) => l.name === 'Client favourites')).toMatchObject({ count: 0, state: 'open', gallery: null, client: null, verified: null });
      expect(humanTextOf(await admin(target, 'lightbox', 'list', '--owner', ann.email))).toContain('Client favourites');
    });

    it('exits quietly when its output is closed early (`… | true`): no EPIPE, exit 0, the command done', async () => {
      for (const json of [true, false]) {
        const name = `Piped ${json ? 'json' : 'text'}`;
        const res = await adminIntoClosedPipe(target, 'app', 'create', '--name', name, ...(json ? ['--json'] : []));
        expect(res.stderr, 'stderr').toBe('');
        expect(res.code, 'exit code').toBe(0);
        await db().selectFrom('apps').select('id').where('name', '=', name).executeTakeFirstOrThrow();
      }
    });

    it('a bad argument exits non-zero with exactly one line on stderr and nothing on stdout, and changes nothing', async () => {
      const count = async () => {
        const [users, websites, artists, watermarks, lightboxes, apps] = await Promise.all(
          (['users', 'websites', 'artists', 'watermarks', 'lightboxes', 'apps'] as const).map((t) => db().selectFrom(t).select('id').execute()),
        );
        return { users: users.length, websites: websites.length, artists: artists.length, watermarks: watermarks.length, lightboxes: lightboxes.length, apps: apps.length };
      };
      const before = await count();
      const owner = (await userByEmail(ann.email)).id;
      const cases: Array<[string, string[]]> = [
        ['unknown option', ['user', 'create', '--email', 'new@example.com', '--password', 'long enough pw', '--shoe-size', '44', '--json']],
        ['missing required option', ['user', 'create', '--email', 'new@example.com', '--json']],
        ['option without its value', ['app', 'create', '--name']],
        ['missing --name', ['app', 'create', '--json']],
        ['stray positional argument', ['app', 'create', '--name', 'x', 'extra', '--json']],
        ['unknown command', ['frobnicate', 'everything', '--json']],
        ['not an e-mail address', ['user', 'create', '--email', 'not-an-address', '--password', 'long enough pw', '--json']],
        ['bad --otp-secret', ['user', 'create', '--email', 'otp@example.com', '--password', 'long enough pw', '--otp-secret', 'not base32!', '--json']],
        ['duplicate e-mail', ['user', 'create', '--email', ann.email, '--password', 'another password', '--json']],
        ['duplicate e-mail, other case', ['user', 'create', '--email', ann.email.toUpperCase(), '--password', 'another password', '--json']],
        ['unknown owner (website)', ['website', 'create', '--owner', 'nobody@example.com', '--urlname', 'nobody-site', '--json']],
        ['unknown owner (artist)', ['artist', 'create', '--owner', 'nobody@example.com', '--name', 'N', '--json']],
        ['unknown owner (lightbox)', ['lightbox', 'create', '--owner', 'nobody@example.com', '--name', 'N', '--json']],
        ['duplicate urlname', ['website', 'create', '--owner', 'bob@example.com', '--urlname', 'ann-lee', '--json']],
        ['invalid urlname', ['website', 'create', '--owner', ann.email, '--urlname', 'Not A_Name!', '--json']],
        ['unknown media library', ['watermark', 'create', '--artist', randomUUID(), '--text', 'x', '--json']],
        ['watermark without --text or --file', ['watermark', 'create', '--artist', artistUuid, '--json']],
        ['watermark with --text and --file', ['watermark', 'create', '--artist', artistUuid, '--text', 'x', '--file', '/etc/hostname', '--json']],
        ['watermark --file that is not an image', ['watermark', 'create', '--artist', artistUuid, '--file', join(target.dataDir, 'missing.png'), '--json']],
        ['display-style set with a bad --crop', ['display-style', 'set', '--urlname', 'ann-lee', '--style', 'Grid', '--crop', 'maybe', '--json']],
        ['display-style set with a bad --spacing', ['display-style', 'set', '--urlname', 'ann-lee', '--style', 'Grid', '--spacing', 'huge', '--json']],
        ['display-style set of an unknown style', ['display-style', 'set', '--urlname', 'ann-lee', '--style', 'Nope', '--crop', 'no', '--json']],
        ['display-style set of an unknown website', ['display-style', 'set', '--urlname', 'no-such-site', '--style', 'Grid', '--json']],
        ['lightbox with an unknown media', ['lightbox', 'create', '--owner', ann.email, '--name', 'N', '--media', randomUUID(), '--json']],
      ];
      // A few at a time: each is a Node process.
      for (let i = 0; i < cases.length; i += 4) {
        const batch = cases.slice(i, i + 4);
        const results = await Promise.all(batch.map(([, args]) => admin(target, ...args)));
        results.forEach((res, j) => expectRefused(res, batch[j][0]));
      }
      expect(await count()).toEqual(before);
      const site = await db().selectFrom('websites').selectAll().where('urlname', '=', 'ann-lee').executeTakeFirstOrThrow();
      expect(site.owner_id).toBe(owner);
    });
  });

  describe('admin CLI while the server runs', { timeout: 180_000 }, () => {
    let target: Target;
    let service: Service;
    let baseUrl: string;
    let app: { key: string; secret: string };

    beforeAll(async () => {
      target = await freshTarget(kind);
      const config = loadConfig({ DATA_DIR: target.dataDir, PORT: '0', RATE_LIMIT: 'off', LOG_LEVEL: 'warn', DATABASE_URL: target.databaseUrl });
      service = await createService(config);
      await service.fastify.listen({ port: 0, host: '127.0.0.1' });
      const addr = service.fastify.server.address();
      baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
      config.publicUrl = baseUrl;
    });
    afterAll(async () => {
      await service?.close();
      await target?.cleanup();
    });

    it('user, app and website created with the CLI are usable through HTTP at once', async () => {
      const email = 'cara@example.com';
      const password = 'cara likes long passwords';
      const user = jsonOf(await admin(target, 'user', 'create', '--email', email, '--password', password, '--first-name', 'Cara', '--last-name', 'Diaz', '--json'));
      app = jsonOf(await admin(target, 'app', 'create', '--name', 'Live', '--json')) as typeof app;
      const site = jsonOf(await admin(target, 'website', 'create', '--owner', email, '--urlname', 'cara-diaz', '--title', 'Cara', '--json'));

      const client = new MediaPortfolioClient({ baseUrl, apiKey: app.key, apiSecret: app.secret, login: email, password, throttle: false, retry429: false });
      const who = await client.whoami();
      expect(text(who.doc, 'user/email')).toBe(email);
      expect(text(who.doc, 'user/firstname')).toBe('Cara');

      const sites = await client.websites('details');
      expect(text(sites.doc, 'websites/website/urlname')).toBe('cara-diaz');
      expect(text(sites.doc, 'websites/website/uuid')).toBe(site.uuid);
      expect(text(sites.doc, 'websites/website/root-gallery-uuid')).toBe(site.rootGalleryUuid);

      const db = service.store.db;
      const owner = await db.selectFrom('users').select('id').where('uuid', '=', user.uuid as string).executeTakeFirstOrThrow();
      const library = await db.selectFrom('artists').selectAll().where('owner_id', '=', owner.id).where('is_default', '=', 1).executeTakeFirstOrThrow();
      const artists = await client.artists('details');
      expect(all(artists.doc, 'artists/artist').map((a) => text(a, 'uuid'))).toEqual([library.uuid]);
      expect(text(artists.doc, 'artists/artist/name')).toBe('Cara Diaz');

      // More made while the session is open shows up too.
      const extra = jsonOf(await admin(target, 'artist', 'create', '--owner', email, '--name', 'Cara Archive', '--json'));
      const mark = jsonOf(await admin(target, 'watermark', 'create', '--artist', extra.uuid as string, '--text', '© Cara', '--default', '--json'));
      const after = await client.artists('details');
      expect(all(after.doc, 'artists/artist').map((a) => text(a, 'uuid')).sort()).toEqual([library.uuid, extra.uuid].sort());
      const marks = await client.request('GET', `/artists/${extra.uuid as string}/watermarks.xml`, { view: 'details' });
      expect(text(marks.doc, 'watermarks/watermark/uuid')).toBe(mark.uuid);
      expect(text(marks.doc, 'watermarks/watermark/text')).toBe('© Cara');
      expect(text(marks.doc, 'watermarks/watermark/default')).toBe('true');
    });

    it('api --json prints the reply as JSON: arrays, typed integers, nulls, an error reply too (exit 1); --format json is the same', async () => {
      // Cara, her application and her website, from the first test of this block.
      const env = childEnv({
        MPS_URL: baseUrl,
        MPS_API_KEY: app.key,
        MPS_API_SECRET: app.secret,
        MPS_LOGIN: 'cara@example.com',
        MPS_PASSWORD: 'cara likes long passwords',
        MPS_SESSION_FILE: join(target.dataDir, 'api-json-session'),
      });
      const api = (...args: string[]) => runBuilt('cli/api.js', args, { env, cwd: target.dataDir });

      const xml = await api('GET', '/websites.xml', 'view=details');
      expect(xml.code, xml.stderr).toBe(0);
      expect(xml.stdout.startsWith('<?xml')).toBe(true);
      const sites = await api('--json', 'GET', '/websites.xml', 'view=details');
      expect(sites.stderr).toBe('');
      expect(sites.code).toBe(0);
      const reply = JSON.parse(sites.stdout) as { websites: Array<Record<string, unknown>>; request: string; 'query-string': string };
      expect(Array.isArray(reply.websites)).toBe(true);
      expect(reply.websites).toHaveLength(1);
      expect(reply.websites[0]).toMatchObject({ urlname: 'cara-diaz', title: 'Cara' });
      expect(reply.websites[0]['root-gallery-uuid']).toMatch(UUID);
      expect(reply.request).toBe('GET /websites.xml');
      expect(reply['query-string']).toBe('view=details');
      expect(JSON.parse((await api('--format', 'json', 'GET', '/websites.xml', 'view=details')).stdout)).toEqual(reply);

      // A created gallery: its UUID at gallery.uuid, its counts as numbers, its null description as null.
      const root = reply.websites[0]['root-gallery-uuid'] as string;
      const created = await api('--json', 'POST', '/websites/cara-diaz/galleries.xml', 'gallery[name]=Dunes', `gallery[parent]=${root}`);
      expect(created.code, created.stderr).toBe(0);
      const gallery = (JSON.parse(created.stdout) as { gallery: Record<string, unknown>; 'gallery-uuid': string }).gallery;
      expect(gallery.uuid).toMatch(UUID);
      expect(gallery.uuid).toBe((JSON.parse(created.stdout) as { 'gallery-uuid': string })['gallery-uuid']);
      expect(gallery['medias-count']).toBe(0);
      expect(gallery['parent-uuid']).toBe(root);
      expect(gallery.description).toBeNull();
      const list = JSON.parse((await api('--json', 'GET', '/websites/cara-diaz/galleries.xml', 'view=details', 'page=1', 'per_page=10')).stdout) as { galleries: unknown[]; 'total-pages': unknown };
      expect(list.galleries).toHaveLength(2);
      expect(list['total-pages']).toBe(1);

      // A refusal: its JSON on stdout, its one line on stderr, exit 1.
      const missing = await api('--json', 'GET', `/websites/cara-diaz/galleries/${randomUUID()}.xml`);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/^api: HTTP 404 /);
      expect(JSON.parse(missing.stdout)).toMatchObject({ 'error-code': 'not_found' });

      // Usage errors.
      for (const args of [['--format', 'yaml', 'GET', '/ping.xml'], ['--json', '--format', 'xml', 'GET', '/ping.xml']]) {
        const res = await api(...args);
        expect(res.code, args.join(' ')).toBe(2);
        expect(res.stdout).toBe('');
      }
    });

    it('a user created with --otp-secret logs in with PASSWORD+CODE only', async () => {
      const email = 'dan@example.com';
      const password = 'dan has two factors';
      const secret = randomTotpSecret();
      jsonOf(await admin(target, 'user', 'create', '--email', email, '--password', password, '--otp-secret', secret, '--json'));
      const stored = await service.store.db.selectFrom('users').select(['otp_secret', 'password_hash']).where('email', '=', email).executeTakeFirstOrThrow();
      expect(stored.otp_secret).not.toBeNull();
      expect(stored.password_hash.startsWith('$argon2id$')).toBe(true);

      const whoami = (authorization: string) => signedFetch(baseUrl, app, 'GET', '/whoami.xml', { headers: { Authorization: authorization } });
      const passwordOnly = await whoami(basicAuth(email, password));
      expect(passwordOnly.status).toBe(401);
      expect(await passwordOnly.text()).toContain('<auth-method>basic:password+otp</auth-method>');
      const wrongCode = await whoami(basicAuth(email, `${password}+${totpCode(secret, Date.now() - 10 * 60_000)}`));
      expect(wrongCode.status).toBe(401);
      await wrongCode.text();

      let asked = 0;
      const client = new MediaPortfolioClient({
        baseUrl,
        apiKey: app.key,
        apiSecret: app.secret,
        login: email,
        password,
        otp: () => {
          asked++;
          return totpCode(secret);
        },
        throttle: false,
        retry429: false,
      });
      const who = await client.whoami();
      expect(asked).toBe(1);
      expect(text(who.doc, 'user/email')).toBe(email);
      expect(text(who.doc, 'user/two-factor')).toBe('true');
    });
  });
});

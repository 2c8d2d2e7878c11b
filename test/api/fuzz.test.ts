// Seeded property-based fuzzing of every route (fast-check): generated requests
// over the live route table, valid values mixed with mutations, sent byte for
// byte. Every reply must be a well-formed XML <reply> below 500 with a request
// id, nothing may escape as an uncaught error, the service must still answer
// afterwards, and the database must still hold its invariants.
//
//   FUZZ_RUNS=20000   requests per database (default 500)
//   FUZZ_SEED=123     another seed (default below); FUZZ_SEED=random for a new one
//   FUZZ_PATH=42      replay run 42 of the seed alone (as printed in a report)
//   FUZZ_SHRINK=1     stop at the first failure and let fast-check shrink it (replay
//                     the printed path, e.g. 7:0:0, with FUZZ_SHRINK=1 too)
//   FUZZ_STATS=1      print how often each status and error message came back
//   FUZZ_TIMEOUT_MS   how long a reply may take before it counts as a hang (default 5000)
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { find, text } from '../../src/client/xml.js';
import type { RouteSpec } from '../../src/http/router.js';
import { computeSignature, rfc2822 } from '../../src/http/signing.js';
import { errorText, exchange, FILES, mustBeRefused, plainWire, replyProblems, requestArb, toWire, type FileName, type Ref, type Reply, type Resolver, type Wire } from '../support/fuzz.js';
import { eachDatabase, TestService, type TestApp, type TestUser } from '../support/service.js';
import { jpegWithExif, png } from './uploads-support.js';

const DEFAULT_SEED = 20_250_611;
const SEED = process.env.FUZZ_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED ?? DEFAULT_SEED);
const PATH = process.env.FUZZ_PATH;
const RUNS = Number(process.env.FUZZ_RUNS ?? (PATH ? 1 : 500));
const SHRINK = process.env.FUZZ_SHRINK === '1';
/** Hang detection, not a speed requirement: a correct reply takes milliseconds. */
const REPLY_TIMEOUT_MS = Number(process.env.FUZZ_TIMEOUT_MS ?? 5_000);

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`, 'utf8').toString('base64')}`;

/** The user's things, someone else's things, and the means to reach them; refilled when a request destroys one. */
class FuzzWorld implements Resolver {
  readonly refs = {} as Record<Ref, string>;
  readonly files = {} as Record<FileName, Buffer>;
  port: number;
  private readonly client: MediaPortfolioClient;
  private sessionToken = '';

  private constructor(
    readonly svc: TestService,
    readonly app: TestApp,
    readonly user: TestUser,
    readonly victim: TestUser,
  ) {
    this.port = Number(new URL(svc.url).port);
    this.client = svc.client(app, user);
  }

  static async create(svc: TestService): Promise<FuzzWorld> {
    const app = await svc.app();
    const [user, victim] = [await svc.user(), await svc.user()];
    const world = new FuzzWorld(svc, app, user, victim);
    const jpeg = await jpegWithExif();
    Object.assign(world.files, {
      jpeg,
      png: await png(),
      text: Buffer.from('not a picture\n'.repeat(20)),
      empty: Buffer.alloc(0),
      random: createHash('sha512').update('fuzz').digest(),
      big: Buffer.alloc(3 * 1024 * 1024, 0x61),
    } satisfies Record<(typeof FILES)[number], Buffer>);
    const site = await svc.website(user);
    const theirs = await svc.website(victim);
    const style = await svc.db.selectFrom('display_styles').innerJoin('websites', 'websites.id', 'display_styles.website_id').select('display_styles.uuid').where('websites.urlname', '=', site.urlname).executeTakeFirstOrThrow();
    Object.assign(world.refs, {
      urlname: site.urlname,
      rootGallery: site.rootGalleryUuid,
      artist: user.defaultArtistUuid,
      displayStyle: style.uuid,
      foreignUrlname: theirs.urlname,
      foreignArtist: victim.defaultArtistUuid,
      pendingFileSize: String(jpeg.length),
      pendingMime: 'image/jpeg',
      email: user.email,
      victimEmail: victim.email,
      basicAuth: basic(user.email, user.password),
      victimWrongBasic: basic(victim.email, 'wrong-password'),
    });
    await world.newSession();
    // Someone else's things: every request naming them must be a 404 (or 403), never a change.
    const other = svc.client(app, victim);
    world.refs.foreignGallery = text((await other.createGallery(theirs.urlname, { name: 'Theirs', parent: theirs.rootGalleryUuid })).doc, 'gallery-uuid')!;
    world.refs.foreignCollection = text((await other.request('POST', '/medias_groups.xml', { 'medias_collection[name]': 'Theirs' })).doc, 'medias-collection-uuid')!;
    world.refs.foreignMedia = text((await other.request('POST', '/medias.xml', world.step1Params())).doc, 'media-uuid')!;
    world.refs.foreignPricingProfile = (await svc.core.pricingProfiles.create(victim, 'Theirs')).uuid;
    await world.ensure(true);
    const job = await world.client.request('PUT', '/medias/batch_update.xml', { select: world.refs.media, 'medias[title]': 'batched' });
    world.refs.job = text(job.doc, 'job-uuid')!;
    return world;
  }

  ref(name: Ref): string {
    return this.refs[name];
  }

  file(name: FileName): Buffer {
    return this.files[name];
  }

  private step1Params(extra: Record<string, string> = {}) {
    return {
      'media[content][upload_location]': 'REQUEST',
      'media[content][file_name]': 'fuzz.jpg',
      'media[content][file_size]': this.files.jpeg.length,
      'media[content][mime_type]': 'image/jpeg',
      ...extra,
    };
  }

  private async newSession(): Promise<void> {
    this.sessionToken = await this.svc.service.sessions.create(this.user.id);
    this.refs.sessionCookie = `_ficelle_session=${this.sessionToken}`;
  }

  /** Puts back whatever the requests deleted, moved out of reach or completed. */
  async ensure(initial = false): Promise<void> {
    const db = this.svc.db;
    const r = this.refs;
    // An empty IN list is not SQL: a UUID nothing has stands in.
    const known = (...xs: Array<string | undefined>) => [NIL_UUID, ...xs.filter((x): x is string => x !== undefined)];
    const [galleries, medias, pending, groups, session, profiles] = await Promise.all([
      db.selectFrom('galleries').select('uuid').where('uuid', 'in', known(r.gallery, r.subGallery)).execute(),
      db.selectFrom('medias').select('uuid').where('uuid', 'in', known(r.media)).where('status', '=', 'live').execute(),
      db.selectFrom('uploads').innerJoin('medias', 'medias.id', 'uploads.media_id').select('medias.uuid').where('medias.uuid', 'in', known(r.pendingMedia)).execute(),
      db.selectFrom('media_groups').select('uuid').where('uuid', 'in', known(r.collection, r.smartCollection)).execute(),
      db.selectFrom('sessions').select('user_id').where('token_hash', '=', createHash('sha256').update(this.sessionToken).digest('base64url')).executeTakeFirst(),
      db.selectFrom('pricing_profiles').select('uuid').where('uuid', 'in', known(r.pricingProfile)).execute(),
    ]);
    const has = (rows: Array<{ uuid: string }>, uuid: string | undefined) => uuid !== undefined && rows.some((x) => x.uuid === uuid);
    if (!session) await this.newSession();
    const c = this.client;
    if (!has(galleries, r.gallery)) {
      r.gallery = text((await c.createGallery(r.urlname, { name: `Fuzz ${Date.now()}`, parent: r.rootGallery })).doc, 'gallery-uuid')!;
    }
    if (!has(galleries, r.subGallery)) {
      r.subGallery = text((await c.createGallery(r.urlname, { name: `Sub ${Date.now()}`, parent: r.gallery })).doc, 'gallery-uuid')!;
    }
    if (!has(medias, r.media)) {
      const direct = await c.request(
        'POST',
        '/medias.xml',
        { 'media[galleries]': r.gallery, 'media[keywords]': 'sky,sea', 'media[title]': 'Fuzzed' },
        { file: { field: 'media[content]', fileName: 'fuzz.jpg', contentType: 'image/jpeg', data: this.files.jpeg } },
      );
      r.media = text(direct.doc, 'media-uuid')!;
      if (r.gallery) await c.updateGallery(r.urlname, r.gallery, { cover_media: r.media });
    }
    if (!has(pending, r.pendingMedia)) {
      const local = find((await c.request('POST', '/medias.xml', this.step1Params())).doc, 'media')!;
      r.pendingMedia = text(local, 'uuid')!;
      r.pendingFileName = text(local, 'file-name')!;
      r.uploadKey = text(local, 'upload-params/key')!;
      r.uploadPolicy = text(local, 'upload-params/policy')!;
      r.uploadSignature = text(local, 'upload-params/signature')!;
      const raw = find((await c.request('POST', '/medias.xml', this.step1Params({ 'media[content][capabilities]': 'raw', 'media[content][failed_locations]': 'local' }))).doc, 'media')!;
      const url = new URL(text(raw, 'upload-url')!);
      r.rawPolicy = url.searchParams.get('policy')!;
      r.rawSignature = url.searchParams.get('signature')!;
    }
    if (!has(groups, r.collection)) {
      r.collection = text((await c.request('POST', '/medias_groups.xml', { 'medias_collection[name]': 'Fuzz collection' })).doc, 'medias-collection-uuid')!;
      await c.request('PUT', `/medias/${r.media}.xml`, { 'media[medias_collections]': r.collection }, { multipart: true });
    }
    if (!has(groups, r.smartCollection)) {
      const smart = await c.request('POST', '/medias_groups.xml', {
        'medias_smart_collection[name]': 'Fuzz smart',
        'medias_smart_collection[rules][0][field]': 'keyword',
        'medias_smart_collection[rules][0][operator]': 'is',
        'medias_smart_collection[rules][0][value]': 'sky',
      });
      r.smartCollection = text(smart.doc, 'medias-smart-collection-uuid')!;
    }
    if (!has(profiles, r.pricingProfile)) {
      const created = await c.request('POST', '/pricing_profiles.xml', {
        'pricing_profile[name]': 'Fuzz prints',
        'pricing_profile[kind]': 'print',
        'pricing_profile[currency]': 'EUR',
        'pricing_profile[items][0][label]': 'Paper',
        'pricing_profile[items][0][price]': 1000,
        'pricing_profile[items][0][options][0][label]': 'A3',
        'pricing_profile[items][0][options][0][ratio]': 300,
      });
      r.pricingProfile = text(created.doc, 'pricing-profile/uuid')!;
    }
    if (initial) expect(Object.values(r).every((v) => typeof v === 'string' && v !== '')).toBe(true);
  }
}

interface Failure {
  run: number;
  route: string;
  problems: string[];
  status?: number;
  error?: string;
  summary: string;
}

/** One signed request the way the SDK sends it, through the raw client, with the same checks. */
async function signedCheck(world: FuzzWorld, path: string, headers: Record<string, string> = {}): Promise<{ reply?: Reply; problems: string[] }> {
  const ts = rfc2822();
  const head =
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${world.port}\r\nX-Service-Authorization: ${world.app.key}:${computeSignature('GET', path, '', world.app.secret, ts)}\r\n` +
    `X-Service-Timestamp: ${ts}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}Connection: close\r\n\r\n`;
  const outcome = await exchange(world.port, plainWire('GET', head), REPLY_TIMEOUT_MS);
  if ('failure' in outcome) return { problems: [outcome.failure] };
  const problems = replyProblems('GET', outcome.reply);
  if (outcome.reply.status !== 200) problems.push(`status ${outcome.reply.status}: ${errorText(outcome.reply)}`);
  return { reply: outcome.reply, problems };
}

/** Rows that break an invariant, per invariant (SQL over the service's database). */
const INVARIANTS: Array<[string, string]> = [
  [
    'subgalleries_count equals the real number of children',
    `SELECT g.uuid, g.subgalleries_count, (SELECT COUNT(*) FROM galleries c WHERE c.parent_id = g.id) AS children
       FROM galleries g WHERE g.subgalleries_count <> (SELECT COUNT(*) FROM galleries c WHERE c.parent_id = g.id)`,
  ],
  [
    'list positions are dense 1..n per website',
    `SELECT website_id, COUNT(*) AS n, MIN(list_pos) AS lo, MAX(list_pos) AS hi FROM galleries GROUP BY website_id
      HAVING MIN(list_pos) <> 1 OR MAX(list_pos) <> COUNT(*) OR COUNT(DISTINCT list_pos) <> COUNT(*)`,
  ],
  ['every website has exactly one root gallery', `SELECT w.urlname FROM websites w WHERE (SELECT COUNT(*) FROM galleries g WHERE g.website_id = w.id AND g.parent_id IS NULL) <> 1`],
  ['a sub-gallery is in the website of its parent', `SELECT c.uuid FROM galleries c JOIN galleries p ON p.id = c.parent_id WHERE c.website_id <> p.website_id`],
  [
    "full_url_path is the parent's plus url_path",
    `SELECT c.uuid, c.full_url_path, p.full_url_path AS parent_path, c.url_path FROM galleries c JOIN galleries p ON p.id = c.parent_id
      WHERE c.full_url_path <> CASE WHEN p.full_url_path = '' THEN c.url_path ELSE p.full_url_path || '/' || c.url_path END`,
  ],
  ['a gallery cover is an existing media', `SELECT g.uuid FROM galleries g WHERE g.cover_media_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM medias m WHERE m.id = g.cover_media_id)`],
  [
    'media_galleries rows point to an existing media and gallery',
    `SELECT x.media_id, x.gallery_id FROM media_galleries x
      WHERE NOT EXISTS (SELECT 1 FROM medias m WHERE m.id = x.media_id) OR NOT EXISTS (SELECT 1 FROM galleries g WHERE g.id = x.gallery_id)`,
  ],
  ['media_keywords rows point to an existing media', `SELECT x.media_id, x.keyword FROM media_keywords x WHERE NOT EXISTS (SELECT 1 FROM medias m WHERE m.id = x.media_id)`],
  [
    'media_group_medias rows point to an existing media and group',
    `SELECT x.media_id, x.group_id FROM media_group_medias x
      WHERE NOT EXISTS (SELECT 1 FROM medias m WHERE m.id = x.media_id) OR NOT EXISTS (SELECT 1 FROM media_groups g WHERE g.id = x.group_id)`,
  ],
  ['lightbox_medias rows point to an existing media', `SELECT x.media_id FROM lightbox_medias x WHERE NOT EXISTS (SELECT 1 FROM medias m WHERE m.id = x.media_id)`],
  ['media_pricing_profiles rows point to an existing media', `SELECT x.media_id FROM media_pricing_profiles x WHERE NOT EXISTS (SELECT 1 FROM medias m WHERE m.id = x.media_id)`],
  [
    'a media carries pricing profiles of its owner only',
    `SELECT m.uuid, p.uuid AS profile FROM media_pricing_profiles x JOIN medias m ON m.id = x.media_id JOIN pricing_profiles p ON p.id = x.pricing_profile_id WHERE p.owner_id <> m.owner_id`,
  ],
  [
    'price list items and options belong to an existing profile and item; an option has a price or a ratio',
    `SELECT i.id, NULL AS option_id FROM pricing_profile_items i WHERE NOT EXISTS (SELECT 1 FROM pricing_profiles p WHERE p.id = i.profile_id)
      UNION ALL SELECT o.item_id, o.id FROM pricing_profile_options o WHERE NOT EXISTS (SELECT 1 FROM pricing_profile_items i WHERE i.id = o.item_id) OR (o.price IS NULL) = (o.ratio IS NULL)`,
  ],
  ['a price is never negative', `SELECT id FROM pricing_profile_items WHERE price < 0 UNION ALL SELECT id FROM pricing_profile_options WHERE price < 0 OR ratio < 1`],
  ['gallery_acl rows point to an existing gallery', `SELECT x.gallery_id, x.email FROM gallery_acl x WHERE NOT EXISTS (SELECT 1 FROM galleries g WHERE g.id = x.gallery_id)`],
  ['a media is placed in galleries of its owner only', `SELECT m.uuid, g.uuid AS gallery FROM media_galleries x JOIN medias m ON m.id = x.media_id JOIN galleries g ON g.id = x.gallery_id JOIN websites w ON w.id = g.website_id WHERE w.owner_id <> m.owner_id AND NOT EXISTS (SELECT 1 FROM website_members wm WHERE wm.website_id = w.id AND wm.user_id = m.owner_id)`],
  ['a collection holds medias of its owner only', `SELECT m.uuid, g.uuid AS grp FROM media_group_medias x JOIN medias m ON m.id = x.media_id JOIN media_groups g ON g.id = x.group_id WHERE g.owner_id <> m.owner_id`],
  ['a pending upload belongs to an existing media', `SELECT u.storage_key FROM uploads u WHERE NOT EXISTS (SELECT 1 FROM medias m WHERE m.id = u.media_id)`],
  ['a pending media has its pending upload', `SELECT m.uuid FROM medias m WHERE m.status = 'pending' AND NOT EXISTS (SELECT 1 FROM uploads u WHERE u.media_id = m.id)`],
  ['a live media has its file', `SELECT uuid FROM medias WHERE status = 'live' AND (storage_key IS NULL OR file_size IS NULL)`],
  ['a media status is pending or live', `SELECT uuid, status FROM medias WHERE status NOT IN ('pending', 'live')`],
  ['every user has exactly one default artist', `SELECT u.email FROM users u WHERE (SELECT COUNT(*) FROM artists a WHERE a.owner_id = u.id AND a.is_default = 1) <> 1`],
  ['a finished job counted every item', `SELECT uuid, total, processed, failed FROM jobs WHERE state = 'done' AND processed + failed <> total`],
  ['a job is in a known state', `SELECT uuid, state FROM jobs WHERE state NOT IN ('queued', 'running', 'done', 'failed')`],
];

/** The invariants that do not hold right now, with a few of the rows that break each. */
async function brokenInvariants(svc: TestService): Promise<Record<string, unknown[]>> {
  const broken: Record<string, unknown[]> = {};
  for (const [name, query] of INVARIANTS) {
    const { rows } = await sql.raw(query).execute(svc.db);
    if (rows.length) broken[name] = rows.slice(0, 5);
  }
  // Live medias' files are where their keys say, with their recorded size.
  const live = await svc.db.selectFrom('medias').select(['uuid', 'storage_key', 'file_size']).where('status', '=', 'live').execute();
  for (const m of live) {
    if (!m.storage_key) continue;
    const info = await stat(join(svc.config.dataDir, 'media', ...m.storage_key.split('/'))).catch(() => undefined);
    if (!info || info.size !== Number(m.file_size)) (broken['a live media file is stored with its size'] ??= []).push({ uuid: m.uuid, key: m.storage_key, size: m.file_size, stored: info?.size });
  }
  return broken;
}

/** Invariants are also checked every so many runs, to say which requests broke one. */
const CHECK_EVERY = 25;

eachDatabase((kind) => {
  let svc: TestService;
  let world: FuzzWorld;
  // Every route the service declares: a new route is fuzzed without touching the test.
  let routes: readonly RouteSpec[] = [];
  const crashes: string[] = [];
  const loggedErrors: string[] = [];
  let inFlight = 'no request';
  const firstBroken = new Map<string, string>();
  const onCrash = (err: unknown) => crashes.push(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n  while or just after: ${inFlight}`);
  // A file handle left to the garbage collector: a warning on Node 20, an uncaught error that ends the process on Node 26.
  const onWarning = (w: Error & { code?: string }) => {
    if (w.code === 'DEP0137') onCrash(w);
  };
  let restoreLog = () => {};

  beforeAll(async () => {
    // In-process, an error nothing handles would kill a real service: record it against the request.
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
    process.on('warning', onWarning);
    svc = await TestService.start(kind);
    routes = svc.service.routes;
    world = await FuzzWorld.create(svc);
    // The service's error log lines say what went wrong behind a 500 (and what failed silently).
    const log = svc.service.fastify.log as unknown as { error: (...args: unknown[]) => void };
    const original = log.error;
    log.error = function (this: unknown, ...args: unknown[]) {
      const [first, second] = args;
      const err = (first as { err?: Error })?.err;
      loggedErrors.push(`${typeof second === 'string' ? second : typeof first === 'string' ? first : 'error'}${err ? `: ${err.message}` : ''}`);
      return original.apply(this, args);
    };
    restoreLog = () => (log.error = original);
  });
  afterAll(async () => {
    restoreLog();
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    process.off('warning', onWarning);
    await svc?.close();
  });

  const label = (r: RouteSpec) => `${r.method} ${r.path}`;

  it(`answers ${RUNS} generated requests over every route (seed ${SEED}) with XML below 500`, { timeout: 120_000 + RUNS * 1_000 }, async () => {
    const failures: Failure[] = [];
    const perRoute = new Map<string, number>();
    const statuses = new Map<number, number>();
    const errorsSeen = new Map<string, number>();
    let run = PATH ? Number(PATH.split(':')[0]) : 0;
    const started = Date.now();

    const details = await fc.check(
      fc.asyncProperty(requestArb(routes), async (req) => {
        const index = run++;
        const route = label(routes[req.route]);
        perRoute.set(route, (perRoute.get(route) ?? 0) + 1);
        let wire: Wire;
        try {
          wire = toWire(req, world);
        } catch (err) {
          throw new Error(`the harness could not encode run ${index}: ${(err as Error).message}`);
        }
        inFlight = `run ${index} (seed ${SEED}): ${wire.summary.split('\n')[0]}`;
        const crashesBefore = crashes.length;
        const logsBefore = loggedErrors.length;
        const outcome = await exchange(world.port, wire, REPLY_TIMEOUT_MS);
        const problems = 'failure' in outcome ? [`${outcome.failure}${outcome.received ? `; received ${JSON.stringify(outcome.received)}` : ''}`] : replyProblems(wire.method, outcome.reply);
        const reply = 'reply' in outcome ? outcome.reply : undefined;
        if (reply && reply.status < 300) problems.push(...mustBeRefused(req).map((why) => `accepted (${reply.status}) a request with ${why}`));
        if (reply) statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        if (process.env.FUZZ_STATS && reply) {
          const key = `${reply.status} ${errorText(reply).replace(/[0-9a-f-]{36}/g, 'U').replace(/\d+/g, 'N').slice(0, 70)}`;
          errorsSeen.set(key, (errorsSeen.get(key) ?? 0) + 1);
        }
        if (reply && reply.status < 300) {
          await world.ensure().catch((err: unknown) => {
            throw new Error(`the harness could not restore its world after run ${index}: ${(err as Error).message}`);
          });
        }
        if ((index + 1) % CHECK_EVERY === 0) {
          for (const name of Object.keys(await brokenInvariants(svc))) {
            if (!firstBroken.has(name)) firstBroken.set(name, `first seen after run ${index}, broken by one of runs ${Math.max(0, index + 1 - CHECK_EVERY)} to ${index} (seed ${SEED})`);
          }
        }
        problems.push(...crashes.slice(crashesBefore).map((c) => `uncaught error in the service process: ${c.split('\n')[0]}`));
        problems.push(...loggedErrors.slice(logsBefore).map((l) => `the service logged an error: ${l}`));
        if (problems.length === 0) return;
        const failure: Failure = { run: index, route, problems, status: reply?.status, error: reply ? errorText(reply) : undefined, summary: wire.summary };
        failures.push(failure);
        if (SHRINK) throw new Error(report([failure], false));
      }),
      // Shrinking replays requests against the live service: bounded in time, it reports the smallest failure found by then.
      { seed: SEED, numRuns: RUNS, ...(PATH ? { path: PATH } : {}), endOnFailure: !SHRINK, ...(SHRINK ? { interruptAfterTimeLimit: 180_000 } : {}) },
    );
    // Only a shrunk failure or a harness error stops the run; the path replays exactly that request.
    if (details.failed) {
      const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance ?? 'interrupted');
      // A shrunk path goes down through failures: it replays only with the property failing again.
      throw new Error(`${error}\n\nreplay: FUZZ_SEED=${SEED} FUZZ_PATH=${details.counterexamplePath ?? '?'}${SHRINK ? ' FUZZ_SHRINK=1' : ''} npx vitest run test/api/fuzz.test.ts`);
    }

    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const statusLine = [...statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`).join(' ');
    process.stdout.write(`[fuzz ${kind}] seed ${SEED}: ${RUNS} requests in ${seconds} s; statuses ${statusLine}; ${failures.length} failing\n`);
    if (process.env.FUZZ_STATS) process.stdout.write([...errorsSeen].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${String(n).padStart(5)} ${k}`).join('\n') + '\n');
    expect(failures.length, report(failures)).toBe(0);
    if (RUNS >= routes.length * 10) expect([...perRoute.keys()].sort(), 'every route got requests').toEqual(routes.map(label).sort());
  });

  it('still answers a signed /ping.xml and an authenticated /whoami.xml afterwards', async () => {
    expect(svc.service.fastify.server.listening).toBe(true);
    const ping = await signedCheck(world, '/ping.xml');
    expect(ping.problems).toEqual([]);
    await world.ensure();
    const whoami = await signedCheck(world, '/whoami.xml', { Cookie: world.refs.sessionCookie });
    expect(whoami.problems).toEqual([]);
    expect(whoami.reply!.body.toString('utf8')).toContain(world.user.email);
    expect(crashes, 'uncaught errors during the run: a real service process would have died of them').toEqual([]);
  });

  it('leaves the database consistent: counts, positions, references, files', async () => {
    // Let queued batch jobs finish first (bounded: a job that keeps failing is left as it is).
    for (let i = 0; i < 100; i++) {
      const busy = await svc.db.selectFrom('jobs').select('id').where('state', 'in', ['queued', 'running']).executeTakeFirst();
      if (!busy) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const broken = await brokenInvariants(svc);
    for (const name of Object.keys(broken)) broken[name].unshift(firstBroken.get(name) ?? 'broken by one of the last runs');
    expect(broken).toEqual({});
  });
});

/** The failures grouped by what went wrong (across routes), each group with the runs that reproduce it. */
function report(failures: Failure[], byRun = true): string {
  if (failures.length === 0) return '';
  const normalize = (s: string) =>
    s
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
      .replace(/\d+/g, 'N')
      .slice(0, 160);
  const groups = new Map<string, Failure[]>();
  for (const f of failures) {
    // The status tells causes apart, except when the service crashed or logged its own cause.
    const caused = f.problems.some((p) => /^(uncaught|the service logged|no complete reply|connection)/.test(p));
    const key = `${caused ? '' : (f.status ?? '-')} ${f.problems.map(normalize).join('; ')}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const lines = [
    byRun
      ? `${failures.length} failing requests in ${groups.size} groups (seed ${SEED}); replay one with FUZZ_SEED=${SEED} FUZZ_PATH=<run> npx vitest run test/api/fuzz.test.ts`
      : 'a failing request (while shrinking, run numbers mean nothing: replay with the path below)',
  ];
  for (const fs of groups.values()) {
    const f = fs[0];
    const routes = [...new Set(fs.map((x) => x.route))];
    lines.push(
      '',
      `* ${f.problems.join('; ')}${f.status !== undefined ? ` [status ${f.status}${f.error ? `: ${f.error.slice(0, 160)}` : ''}]` : ''}`,
      `  routes: ${routes.slice(0, 6).join(', ')}${routes.length > 6 ? ` and ${routes.length - 6} more` : ''}`,
      byRun
        ? `  runs ${fs
            .slice(0, 12)
            .map((x) => x.run)
            .join(', ')}${fs.length > 12 ? ` … (${fs.length} in all)` : ''}; the first (FUZZ_SEED=${SEED} FUZZ_PATH=${f.run}):`
        : '  the request:',
      f.summary.replace(/^/gm, '    '),
    );
  }
  return lines.join('\n');
}

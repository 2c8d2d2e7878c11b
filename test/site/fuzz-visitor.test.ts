// Seeded property-based fuzzing of every unsigned path, as a hostile visitor
// sends requests (fast-check): website pages by prefix and at their hostname
// (with hostile Host headers), /files (keys, ranges, conditions, signatures,
// expiries), the password form, the sign-in form and links, robots, sitemap,
// /healthz, /readyz, /metrics. The world is seeded first (a website with a
// hostname, listed, hidden, password and access-list galleries, photos with
// their renditions, a pass, sign-in links) so requests reach real pages, keys
// and forms. Every reply: below 500, complete, no redirect (nor a form's
// return address) off the site, every HTML page with the CSP and nosniff,
// nothing from /files served as active content or inline when it is not an
// image; the sitemap lists no hidden or protected gallery; nothing escapes as
// an uncaught error and the process still answers afterwards.
//
//   FUZZ_RUNS=5000   requests per database (default 300)
//   FUZZ_SEED=123    another seed (default below); FUZZ_SEED=random for a new one
//   FUZZ_PATH=42     replay run 42 of the seed alone (as printed in a report)
//   FUZZ_STATS=1     print how often each status came back per kind of path
//   FUZZ_TIMEOUT_MS  how long a reply may take before it counts as a hang (default 5000)
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { FileUrls } from '../../src/file-storage/file-urls.js';
import { exchange, plainWire } from '../support/fuzz.js';
import { visitorProblems, visitorRequestArb, visitorWire, type VisitorFacts, type VisitorRequest, type VisitorResolver, type VRef } from '../support/fuzz-visitor.js';
import { eachDatabase, TestService } from '../support/service.js';
import { worldOn, type World } from '../support/world.js';
import { cookieOf, uploadPhoto, visit, waitForRenditions } from './site-support.js';

const DEFAULT_SEED = 20_251_125;
const SEED = process.env.FUZZ_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED ?? DEFAULT_SEED);
const PATH = process.env.FUZZ_PATH;
const RUNS = Number(process.env.FUZZ_RUNS ?? (PATH ? 1 : 300));
/** Hang detection, not a speed requirement: a correct reply takes milliseconds. */
const REPLY_TIMEOUT_MS = Number(process.env.FUZZ_TIMEOUT_MS ?? 5_000);
const METRICS_TOKEN = 'fuzz-metrics-token-0123456789';
const PASSWORD = 'open sesame';
/** Sign-in links made before the run: each `token` reference takes the next one. */
const TOKENS = 60;

/** The seeded website, someone else's, and the means to reach them. */
class VisitorWorld implements VisitorResolver {
  readonly refs = {} as Record<VRef, string>;
  readonly facts: VisitorFacts;
  port: number;
  private tokens: string[] = [];
  private nextToken = 0;

  private constructor(
    readonly svc: TestService,
    facts: VisitorFacts,
  ) {
    this.port = Number(new URL(svc.url).port);
    this.facts = facts;
  }

  static async create(svc: TestService): Promise<VisitorWorld> {
    const owner = await worldOn(svc);
    const hostname = `photos-${randomBytes(3).toString('hex')}.example.test`;
    const site = await svc.core.websites.create(owner.user, { urlname: `fz-${randomBytes(3).toString('hex')}`, title: `Fuzz <b>"site"</b> & co`, hostname });
    // Terms of sale (a hostile one among them) and a tax: the cart's terms page and checkbox are fuzzed too.
    await svc.core.shopSettings.update(owner.user, site.urlname, { taxRate: 2000, taxIncluded: false, taxLabel: 'VAT <b>', terms: '## Terms\n\n<script>alert(1)</script> [x](javascript:alert(1))' });
    const gallery = async (name: string, parent: string, attrs: Record<string, unknown> = {}) => {
      const doc = (await owner.client.createGallery(site.urlname, { name, parent, ...attrs })).doc;
      return { uuid: text(doc, 'gallery/uuid')!, path: text(doc, 'gallery/full-url-path')! };
    };
    // Favourites on in the public gallery (off by default there), with named lists, a hostile one among them.
    const lists = 'Album\n<b>Prints</b> "&"';
    const listed = await gallery('Portraits', site.rootGalleryUuid, { favourites: 'on', favourite_lists: lists });
    const sub = await gallery('Studio', listed.uuid);
    const hidden = await gallery('Secret beach', site.rootGalleryUuid, { hidden: 1, indexing: 2 });
    const locked = await gallery('Wedding', site.rootGalleryUuid, { password: PASSWORD, favourite_lists: lists });
    // Favourites turned off in a client gallery: every favourites form there is refused.
    const hiddenLocked = await gallery('Hidden proofs', site.rootGalleryUuid, { hidden: 1, indexing: 2, password: PASSWORD, favourites: 'off' });
    const clients = await gallery('Clients', site.rootGalleryUuid, {
      acl: [
        { email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 },
        { email: 'client@example.com', read: 1, comp_download: 1, hires_download: 1 },
      ],
    });
    const downloads = await gallery('Downloads', site.rootGalleryUuid, { acl: [{ email: 'DEFAULT', read: 1, comp_download: 1, hires_download: 1 }] });
    const w: Pick<World, 'client'> = owner;
    const medias = {
      publicMedia: await uploadPhoto(w, listed.uuid, 1, 480),
      sub: await uploadPhoto(w, sub.uuid, 2, 480),
      hidden: await uploadPhoto(w, hidden.uuid, 3, 480),
      passwordMedia: await uploadPhoto(w, locked.uuid, 4, 480),
      aclMedia: await uploadPhoto(w, clients.uuid, 5, 480),
      download: await uploadPhoto(w, downloads.uuid, 6, 480),
    };
    if (!(await waitForRenditions({ svc }, Object.values(medias)))) throw new Error('this service makes no renditions: the fuzz needs real keys');

    // Someone else's website: a redirect must never land there.
    const other = await worldOn(svc);
    await other.client.createGallery(other.urlname, { name: 'Theirs', parent: other.rootUuid });

    const keyOf = async (uuid: string) =>
      (await svc.db.selectFrom('renditions').innerJoin('medias', 'medias.id', 'renditions.media_id').select('renditions.storage_key').where('medias.uuid', '=', uuid).orderBy('renditions.width').executeTakeFirstOrThrow()).storage_key;
    const publicKey = await keyOf(medias.publicMedia);
    const protectedKey = await keyOf(medias.passwordMedia);
    const originalKey = (await svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', medias.passwordMedia).executeTakeFirstOrThrow()).storage_key!;
    const urls = new FileUrls(svc.service.uploadSecret, svc.url);
    const queryOf = (address: string) => address.slice(address.indexOf('?') + 1);
    const soon = new Date(Date.now() + 3600_000);
    const signedQuery = queryOf(urls.signed(originalKey, soon, 'client@example.com', locked.uuid));
    const downloadQuery = queryOf(urls.signed(protectedKey, soon, 'pass', locked.uuid, true));
    const sealedDownloadQuery = queryOf(urls.signed(protectedKey, soon, urls.sealClient('client@example.com'), locked.uuid, true));

    // A pass for the password gallery, as a visitor gets it.
    const unnamed = await visit(svc, `/sites/${site.urlname}/_password`, { form: { gallery: locked.uuid, password: PASSWORD, back: `/sites/${site.urlname}/-/${locked.path}` } });
    if (unnamed.status !== 303) throw new Error(`the password form answered ${unnamed.status}`);
    // The same pass with a name and an address given for favourites (docs/delivery.md), so the fuzz picks too.
    const opened = await visit(svc, `/sites/${site.urlname}/_favourites/identify`, { cookie: cookieOf(unnamed), form: { name: 'Fuzz <i>client</i>', email: 'fuzz@example.com', back: `/sites/${site.urlname}/` } });
    if (opened.status !== 303) throw new Error(`the favourites identify form answered ${opened.status}`);

    const world = new VisitorWorld(svc, {
      urlname: site.urlname,
      hostname,
      unlisted: [hidden.path, locked.path, hiddenLocked.path, clients.path],
      protectedMedias: { withPass: medias.passwordMedia, never: [medias.aclMedia] },
      passCookie: cookieOf(opened)!,
      signedOnly: [
        { key: originalKey, query: signedQuery },
        { key: protectedKey, query: downloadQuery },
        { key: protectedKey, query: sealedDownloadQuery },
      ],
      metricsToken: METRICS_TOKEN,
      archivePath: downloads.path,
    });

    // Sign-in links, made as the mail would carry them; one used already, one of the other website.
    const links = svc.core.visitorLinks;
    const at = links.canonical((await links.site(site.urlname))!);
    const backs = ['/', `/-/${clients.path}`, `/-/${locked.path}?page=2`];
    for (let i = 0; i < TOKENS; i++) world.tokens.push(new URL((await links.create(at, 'client@example.com', backs[i % backs.length])).url).pathname.split('/').pop()!);
    const used = new URL((await links.create(at, 'client@example.com', '/')).url).pathname.split('/').pop()!;
    if ((await visit(svc, `/_signin/${used}`, { host: hostname })).status !== 303) throw new Error('a fresh sign-in link did not sign in');
    const foreign = new URL((await links.create(links.canonical((await links.site(other.urlname))!), 'client@example.com', '/')).url).pathname.split('/').pop()!;

    // Share links of the access-list gallery, as the API gives them: live, behind a password, revoked.
    const shares = svc.core.shareLinks;
    const shareToken = async (input: Parameters<typeof shares.create>[3]) => new URL((await shares.create(owner.user, 'gallery', clients.uuid, input)).url).pathname.split('/').pop()!;
    const shareLive = await shareToken({ recipient: 'Fuzz <b>recipient</b>', download: 'originals' });
    const sharePassword = await shareToken({ password: PASSWORD, download: 'comps' });
    const revoked = await shares.create(owner.user, 'gallery', clients.uuid, {});
    await shares.revoke(owner.user, revoked.link.uuid);
    // A lightbox's link, shown on the fuzzed website (the owner's first website would be worldOn's: set here for the fuzz to reach it).
    const { uuid: sharedLightbox } = await svc.core.lightboxes.create(owner.user, 'Fuzz <b>picks</b>', [medias.publicMedia]);
    const lightboxLink = await shares.create(owner.user, 'lightbox', sharedLightbox, { download: 'comps' });
    const siteId = (await svc.db.selectFrom('websites').select('id').where('uuid', '=', site.uuid).executeTakeFirstOrThrow()).id;
    await svc.db.updateTable('share_links').set({ website_id: siteId }).where('uuid', '=', lightboxLink.link.uuid).execute();
    const shareLightboxToken = new URL(lightboxLink.url).pathname.split('/').pop()!;

    const home = await visit(svc, `/sites/${site.urlname}/`);
    const asset = /href="\/_site\/([A-Za-z0-9_-]+\.css)"/.exec(home.body)?.[1];
    if (!asset) throw new Error('the home page links no stylesheet');

    Object.assign(world.refs, {
      urlname: site.urlname,
      hostname,
      foreignUrlname: other.urlname,
      serviceHost: `127.0.0.1:${world.port}`,
      publicPath: listed.path,
      subPath: sub.path,
      hiddenPath: hidden.path,
      passwordPath: locked.path,
      aclPath: clients.path,
      hiddenPasswordPath: hiddenLocked.path,
      downloadPath: downloads.path,
      publicMedia: medias.publicMedia,
      passwordMedia: medias.passwordMedia,
      aclMedia: medias.aclMedia,
      passwordGallery: locked.uuid,
      publicGallery: listed.uuid,
      aclGallery: clients.uuid,
      hiddenPasswordGallery: hiddenLocked.uuid,
      galleryPassword: PASSWORD,
      publicKey,
      protectedKey,
      originalKey,
      publicEtag: `"${/([0-9a-f]{16})-/.exec(publicKey)?.[1] ?? ''}"`,
      signedQuery,
      downloadQuery,
      sealedDownloadQuery,
      expiredQuery: queryOf(urls.signed(originalKey, new Date(Date.now() - 60_000), 'client@example.com', locked.uuid)),
      otherKeyQuery: queryOf(urls.signed(publicKey, soon, 'client@example.com', listed.uuid)),
      passCookie: cookieOf(opened)!,
      usedToken: used,
      foreignToken: foreign,
      shareToken: shareLive,
      sharePasswordToken: sharePassword,
      shareRevokedToken: new URL(revoked.url).pathname.split('/').pop()!,
      shareLightboxToken,
      sharedLightbox,
      metricsToken: METRICS_TOKEN,
      asset,
    } satisfies Omit<Record<VRef, string>, 'token'>);
    expect(Object.values(world.refs).every((v) => typeof v === 'string' && v !== '')).toBe(true);
    return world;
  }

  ref(name: VRef): string {
    // Each use of `token` takes a fresh link while there are some; then the last one, used by then.
    if (name === 'token') return this.tokens[Math.min(this.nextToken++, this.tokens.length - 1)];
    return this.refs[name];
  }
}

interface Failure {
  run: number;
  target: string;
  problems: string[];
  status?: number;
  summary: string;
}

eachDatabase((kind) => {
  let svc: TestService;
  let world: VisitorWorld;
  const crashes: string[] = [];
  const loggedErrors: string[] = [];
  const onCrash = (err: unknown) => crashes.push(err instanceof Error ? (err.stack ?? err.message) : String(err));
  let restoreLog = () => {};

  beforeAll(async () => {
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
    // Rate limits off so that generated requests reach the handlers; each run its own forwarded address
    // (one trusted proxy hop) so that the password throttle of one run does not answer for the next.
    svc = await TestService.start(kind, { VISITOR_RATE_LIMIT: 'off', METRICS_TOKEN, TRUST_PROXY: '1' });
    world = await VisitorWorld.create(svc);
    const log = svc.service.fastify.log as unknown as { error: (...args: unknown[]) => void };
    const original = log.error;
    log.error = function (this: unknown, ...args: unknown[]) {
      const [first, second] = args;
      const err = (first as { err?: Error })?.err;
      loggedErrors.push(`${typeof second === 'string' ? second : typeof first === 'string' ? first : 'error'}${err ? `: ${err.message}` : ''}`);
      return original.apply(this, args);
    };
    restoreLog = () => (log.error = original);
  }, 180_000);
  afterAll(async () => {
    restoreLog();
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    await svc?.close();
  });

  it(`answers ${RUNS} generated visitor requests over every unsigned path (seed ${SEED}) without a 5xx, an off-site redirect or active content`, { timeout: 60_000 + RUNS * 1_000 }, async () => {
    const failures: Failure[] = [];
    const statuses = new Map<string, number>();
    let run = PATH ? Number(PATH.split(':')[0]) : 0;
    const started = Date.now();
    const forwarded = fc.nat(0xffffff);
    const arb = fc.tuple(visitorRequestArb, forwarded);
    const details = await fc.check(
      fc.asyncProperty(arb, async ([req, address]: [VisitorRequest, number]) => {
        const index = run++;
        const withAddress: VisitorRequest = { ...req, headers: [['X-Forwarded-For', [`10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`]], ...req.headers] };
        const wire = visitorWire(withAddress, world);
        const crashesBefore = crashes.length;
        const logsBefore = loggedErrors.length;
        const outcome = await exchange(world.port, wire, REPLY_TIMEOUT_MS);
        const problems = 'failure' in outcome ? [`${outcome.failure}${outcome.received ? `; received ${JSON.stringify(outcome.received)}` : ''}`] : visitorProblems(req, wire, outcome.reply, world.facts);
        const status = 'reply' in outcome ? outcome.reply.status : undefined;
        const label = `${req.target}${req.scheme !== 'none' ? ` by ${req.scheme}` : ''}`;
        statuses.set(`${label} ${status ?? '-'}`, (statuses.get(`${label} ${status ?? '-'}`) ?? 0) + 1);
        problems.push(...crashes.slice(crashesBefore).map((c) => `uncaught error in the service process: ${c.split('\n')[0]}`));
        problems.push(...loggedErrors.slice(logsBefore).map((l) => `the service logged an error: ${l}`));
        if (problems.length) failures.push({ run: index, target: label, problems, status, summary: wire.summary });
      }),
      { seed: SEED, numRuns: RUNS, ...(PATH ? { path: PATH } : {}), endOnFailure: true },
    );
    if (details.failed) throw new Error(`${String(details.errorInstance)}\n\nreplay: FUZZ_SEED=${SEED} FUZZ_PATH=${details.counterexamplePath ?? '?'} npx vitest run test/site/fuzz-visitor.test.ts`);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stdout.write(`[visitor fuzz ${kind}] seed ${SEED}: ${RUNS} requests in ${seconds} s; ${failures.length} failing\n`);
    if (process.env.FUZZ_STATS) process.stdout.write([...statuses].sort().map(([k, n]) => `${String(n).padStart(5)} ${k}`).join('\n') + '\n');
    expect(failures.length, report(failures)).toBe(0);
    // The seeded world was reached: real pages, real files and real redirects, not only refusals.
    if (RUNS >= 200) {
      for (const must of ['site by prefix 200', 'site by host 200', 'files 200', 'site by prefix 303', 'site by host 303']) expect(statuses.get(must) ?? 0, `some requests answered ${must}`).toBeGreaterThan(0);
    }
  });

  it('still answers /healthz and a website page afterwards, with nothing uncaught', async () => {
    const health = await exchange(world.port, plainWire('GET', `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${world.port}\r\nConnection: close\r\n\r\n`), REPLY_TIMEOUT_MS);
    expect('reply' in health && health.reply.status).toBe(200);
    const page = await visit(svc, '/', { host: world.facts.hostname });
    expect(page.status).toBe(200);
    expect(crashes, 'uncaught errors during the run: a real service process would have died of them').toEqual([]);
  });
});

/** The failures grouped by what went wrong, each group with the runs that reproduce it. */
function report(failures: Failure[]): string {
  if (failures.length === 0) return '';
  const normalize = (s: string) =>
    s
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
      .replace(/"[^"]*"/g, '"…"')
      .replace(/\d+/g, 'N')
      .slice(0, 120);
  const groups = new Map<string, Failure[]>();
  for (const f of failures) {
    const key = f.problems.map(normalize).join('; ');
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const lines = [`${failures.length} failing requests in ${groups.size} groups (seed ${SEED}); replay one with FUZZ_SEED=${SEED} FUZZ_PATH=<run> npx vitest run test/site/fuzz-visitor.test.ts`];
  for (const fs of groups.values()) {
    const f = fs[0];
    lines.push(
      '',
      `* ${f.problems.join('; ')}${f.status !== undefined ? ` [status ${f.status}]` : ''}`,
      `  paths: ${[...new Set(fs.map((x) => x.target))].join(', ')}`,
      `  runs ${fs
        .slice(0, 12)
        .map((x) => x.run)
        .join(', ')}${fs.length > 12 ? ` … (${fs.length} in all)` : ''}; the first (FUZZ_SEED=${SEED} FUZZ_PATH=${f.run}):`,
      f.summary.replace(/^/gm, '    '),
    );
  }
  return lines.join('\n');
}

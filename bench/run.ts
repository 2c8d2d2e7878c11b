// `npm run bench`: the service and a bare node:http baseline loaded in the
// same run, plus each feature's section. Prints ratios against the baseline.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaPortfolioClient } from '../src/client/index.js';
import { loadConfig } from '../src/config.js';
import { buildCore } from '../src/app.js';
import { type BenchContext, type BenchLine, median, runLoad, signedHeaders, startPortPrinter, stopChild, time } from './lib.js';

type Section = (b: BenchContext) => Promise<BenchLine[]>;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function waitForPing(client: MediaPortfolioClient): Promise<void> {
  // Up to 60 s: on a loaded shared machine the service's start alone has taken over 20 s.
  for (let i = 0; i < 600; i++) {
    try {
      await client.request('GET', '/ping.xml', {}, { auth: 'none' });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('service did not answer ping');
}

async function optionalSection(modulePath: string, exportName: string): Promise<Section | undefined> {
  try {
    const mod = (await import(modulePath)) as Record<string, Section>;
    return mod[exportName];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw err;
  }
}

function printLine(l: BenchLine): void {
  const value = Number.isInteger(l.value) ? String(l.value) : l.value.toFixed(l.value < 10 ? 2 : 1);
  const verdict = l.ok === undefined ? '' : l.ok ? '  ok' : '  MISSED';
  console.log(`${l.name.padEnd(58)} ${`${value} ${l.unit}`.padStart(16)}${l.target ? `   target ${l.target}` : ''}${verdict}`);
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const dataDir = await mkdtemp(join(tmpdir(), 'mps-bench-'));
  const port = await freePort();
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT: 'off', VISITOR_RATE_LIMIT: 'off', LOG_LEVEL: 'warn', MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2', DATABASE_URL: '', STORAGE_URL: '', PUBLIC_URL: `http://127.0.0.1:${port}` };

  // Fixtures go into the database the service will open, through the services the admin command line uses.
  const core = await buildCore({ dataDir, databaseUrl: undefined });
  const store = core.store;
  const password = 'bench-' + randomBytes(6).toString('hex');
  const { user, defaultArtistUuid } = await core.users.create({ email: 'bench@example.com', password, firstName: 'Bench', lastName: 'Mark' });
  await core.websites.create(user, { urlname: 'bench', title: 'Bench' });
  const app = await core.apps.create('bench');

  // The service runs as `npm start` runs it: built, without the TypeScript loader (its memory is the service's own).
  execFileSync(process.execPath, [join('scripts', 'built.mjs'), '--if-stale'], { stdio: 'inherit' });
  // BENCH_NODE_FLAGS adds node flags to the service, e.g. --cpu-prof for profiling.
  const extraFlags = process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : [];
  const serviceProc = spawn(process.execPath, [...extraFlags, '--expose-gc', 'dist/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const client = new MediaPortfolioClient({ baseUrl: url, apiKey: app.key, apiSecret: app.secret, login: user.email, password, throttle: false });
  const lines: BenchLine[] = [];
  let bare: Awaited<ReturnType<typeof startPortPrinter>> | undefined;
  try {
    await waitForPing(client);
    const who = await client.whoami();
    const cookie = await client.sessionCookie();
    if (!cookie) throw new Error('no session cookie after login');
    const sessionCookie = `_ficelle_session=${cookie}`;

    // Baseline: same-size body from a bare node:http server.
    bare = await startPortPrinter(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts', 'body', Buffer.from(who.body).toString('base64')]);
    const bareUrl = `http://127.0.0.1:${bare.port}`;
    await runLoad(bareUrl + '/whoami.xml', {}, undefined, 1); // warm-up
    const baseline = await runLoad(bareUrl + '/whoami.xml', {});

    const load: BenchContext['load'] = (pathAndQuery, opts = {}) =>
      runLoad((opts.url ?? url) + pathAndQuery, { ...signedHeaders(app, 'GET', pathAndQuery), cookie: sessionCookie, ...opts.headers }, opts.connections, opts.durationSeconds);
    const ctx: BenchContext = {
      url,
      dataDir,
      pid: serviceProc.pid!,
      db: store.db,
      core,
      user: { id: user.id, uuid: user.uuid, email: user.email, password, defaultArtistUuid },
      app,
      client,
      sessionCookie,
      baselineRps: baseline.rps,
      bareUrl,
      barePid: bare.child.pid!,
      load,
      time,
      async startBareUploadSink(dir) {
        const sink = await startPortPrinter(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts', 'sink', dir]);
        return { url: `http://127.0.0.1:${sink.port}`, close: () => stopChild(sink.child) };
      },
    };

    if (only.length === 0 || only.includes('core')) {
      // Alternate bare and service rounds and take the median ratio: the
      // machine is shared, so one long run of each would measure the neighbours.
      const corePath = '/whoami.xml';
      await load(corePath, { durationSeconds: 1 }); // warm-up
      const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
      const bareRps: number[] = [];
      const serviceRps: number[] = [];
      const ratios: number[] = [];
      let p99 = 0;
      for (let i = 0; i < rounds; i++) {
        const b = await runLoad(bareUrl + '/whoami.xml', {});
        const s = await load(corePath);
        if (s.non2xx > 0 || s.errors > 0) throw new Error(`whoami load had ${s.non2xx} non-2xx replies and ${s.errors} errors`);
        bareRps.push(b.rps);
        serviceRps.push(s.rps);
        ratios.push(s.rps / b.rps);
        p99 = Math.max(p99, s.latencyP99);
      }
      ctx.baselineRps = median(bareRps);
      const ratio = median(ratios);
      lines.push({ name: 'bare node:http, same-size XML body', value: Math.round(median(bareRps)), unit: 'req/s' });
      lines.push({ name: 'GET /whoami.xml (signed, session cookie, rate limit off)', value: Math.round(median(serviceRps)), unit: 'req/s' });
      lines.push({ name: `whoami / bare ratio (median of ${rounds} alternating rounds)`, value: ratio, unit: 'x', target: '>= 0.5', ok: ratio >= 0.5 });
      lines.push({ name: 'whoami latency p99 (worst round)', value: p99, unit: 'ms' });
    }
    const sections: Array<[string, string, string]> = [
      ['galleries', './galleries.js', 'benchGalleries'],
      ['uploads', './uploads.js', 'benchUploads'],
      ['studio-upload', './studio-upload.js', 'benchStudioUpload'],
      ['studio-upload', './studio-upload.js', 'benchStudioUploadMany'],
      ['studio-upload-s3', './studio-upload-s3.js', 'benchStudioUploadS3'],
      ['batch', './batch.js', 'benchBatch'],
      ['hostile', './hostile.js', 'benchHostile'],
      ['hostile', './hostile.js', 'benchHostileDecoders'],
      ['renditions', './renditions.js', 'benchRenditions'],
      ['queue', './queue.js', 'benchQueue'],
      ['cores', './cores.js', 'benchCores'],
      ['site', './site.js', 'benchSite'],
      ['site-weight', './site-weight.js', 'benchSiteWeight'],
      ['studio-grid', './studio-grid.js', 'benchStudioGrid'],
      ['scale', './scale.js', 'benchScale'],
      ['pages', './pages.js', 'benchPages'],
      ['cli', './cli.js', 'benchCli'],
      ['archive', './archive.js', 'benchArchive'],
      ['shop', './shop.js', 'benchShop'],
      ['changes', './changes.js', 'benchChanges'],
      ['sync', './sync.js', 'benchSync'],
      // Only when asked for (`npm run bench -- guard`): the hot paths' floors (issue 31).
      ['guard', './guard.js', 'benchGuard'],
    ];
    for (const [name, path, exportName] of sections) {
      if (only.length > 0 ? !only.includes(name) : name === 'guard') continue;
      const section = await optionalSection(path, exportName);
      if (!section) {
        console.log(`(section ${name} not present)`);
        continue;
      }
      lines.push(...(await section(ctx)));
    }
  } finally {
    if (bare) await stopChild(bare.child);
    await stopChild(serviceProc);
    await core.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  console.log(`\nMedia Portfolio Service benchmark — ${new Date().toISOString()} — node ${process.version}, ${loadConfig({}).host}`);
  for (const l of lines) printLine(l);
  if (lines.some((l) => l.ok === false)) process.exitCode = 1;
}

await main();

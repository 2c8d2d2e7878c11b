// Automatic HTTPS for photographers' host names (issue 29, item 1; docs/deploy.md "Automatic
// HTTPS"): Debian's caddy runs the Caddyfile of docs/deploy.md, read from that page, with its
// internal certificate authority in place of the ACME issuers, loopback ports picked now and no
// admin endpoint. A website is reached over HTTPS by its verified host name (the certificate
// checked against Caddy's local root and the name); a pending name gets no certificate. caddy is
// required in CI (.ci/run installs it); elsewhere its absence is reported and the suite skipped.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { find, text } from '../../src/client/xml.js';
import { until } from '../support/crash.js';
import { freePort } from '../support/processes.js';
import { TestService } from '../support/service.js';
import { worldOn, type World } from '../support/world.js';

const DEPLOY_DOC = join(import.meta.dirname, '..', '..', 'docs', 'deploy.md');

function findCaddy(): string | undefined {
  for (const p of ['/usr/bin/caddy', '/usr/local/bin/caddy']) if (existsSync(p)) return p;
  const which = spawnSync('sh', ['-c', 'command -v caddy'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : undefined;
}

const CADDY = findCaddy();
if (!CADDY) {
  if (process.env.CI) throw new Error('the Caddy front test needs caddy in CI: apt-get install caddy (.ci/run must)');
  process.stderr.write('[caddy-tls] caddy not installed: the automatic HTTPS suite is SKIPPED (CI fails instead)\n');
}

/** The one ```caddyfile block of docs/deploy.md, as written there. */
function documentedCaddyfile(): string {
  const blocks = [...readFileSync(DEPLOY_DOC, 'utf8').matchAll(/^```caddyfile\n([\s\S]*?)^```$/gm)];
  if (blocks.length !== 1) throw new Error(`docs/deploy.md must hold exactly one caddyfile block, found ${blocks.length}`);
  return blocks[0]![1]!;
}

/**
 * What the test changes, each a pattern that must match (a change of the page that makes one
 * miss fails loudly): the service's address, Caddy's own ports, storage and CA (internal, its root
 * installed nowhere), no admin endpoint.
 */
function adaptedCaddyfile(opts: { servicePort: number; httpPort: number; httpsPort: number; dir: string }): string {
  let conf = documentedCaddyfile();
  const replace = (what: string, pattern: RegExp, by: string | ((m: string, ...g: string[]) => string)) => {
    if (!pattern.test(conf)) throw new Error(`docs/deploy.md's Caddyfile has no ${what} (${pattern}): update test/site/caddy-tls.test.ts`);
    pattern.lastIndex = 0;
    conf = conf.replace(pattern, by as (m: string, ...g: unknown[]) => string);
  };
  replace(
    'global options block',
    /^\{\n/,
    `{\n\tadmin off\n\thttp_port ${opts.httpPort}\n\thttps_port ${opts.httpsPort}\n\tlocal_certs\n\tskip_install_trust\n\tstorage file_system ${opts.dir}/data\n\tlog {\n\t\tlevel WARN\n\t}\n`,
  );
  replace('ask address', /ask http:\/\/127\.0\.0\.1:8080\/_tls\/ask/, `ask http://127.0.0.1:${opts.servicePort}/_tls/ask`);
  replace('reverse_proxy lines', /reverse_proxy 127\.0\.0\.1:8080/g, `reverse_proxy 127.0.0.1:${opts.servicePort}`);
  replace('on-demand tls block', /^(\s*)tls \{\n(\s*)on_demand\n/m, (_m, a: string, b: string) => `${a}tls internal {\n${b}on_demand\n`);
  return conf;
}

const listening = (port: number) =>
  new Promise<true | undefined>((resolve) => {
    const s = netConnect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(undefined));
  });

interface Fetched {
  status: number;
  body: string;
  subjectAltName: string;
  issuer: string;
}

/** An HTTPS GET to Caddy on 127.0.0.1 with SNI and Host = `host`, the certificate verified against `ca` (the name included). */
function httpsGet(port: number, host: string, path: string, ca: string): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, servername: host, headers: { host }, ca, agent: false }, (res) => {
      const cert = (res.socket as import('node:tls').TLSSocket).getPeerCertificate();
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), subjectAltName: cert.subjectaltname ?? '', issuer: `${cert.issuer?.O ?? ''} ${cert.issuer?.CN ?? ''}` }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe.runIf(CADDY)('the Caddy front of docs/deploy.md, with on-demand TLS asking the service', () => {
  let svc: TestService;
  let w: World;
  let caddy: ChildProcess;
  let output = '';
  let dir: string;
  let httpsPort: number;
  let root: string;
  const verified = `photos-${randomBytes(4).toString('hex')}.example.test`;
  const pending = `pending-${randomBytes(4).toString('hex')}.example.test`;
  const never = (): Promise<string[][]> => Promise.reject(Object.assign(new Error('queryTxt ENOTFOUND'), { code: 'ENOTFOUND' }));

  beforeAll(async () => {
    svc = await TestService.start('sqlite', { TRUST_PROXY: '1', SITE_CACHE_SECONDS: '0' }, undefined, { resolver: { resolveTxt: never } });
    w = await worldOn(svc);
    await svc.core.websites.setBrand({ operator: true }, w.urlname, { title: 'Over HTTPS', hostname: verified });
    const other = await worldOn(svc);
    await other.client.request('PUT', `/websites/${other.urlname}.xml`, { 'website[hostname]': pending });
    expect(text(find((await other.client.request('GET', `/websites/${other.urlname}.xml`)).doc, 'website')!, 'hostname-pending')).toBe(pending);

    dir = await mkdtemp(join(tmpdir(), 'mps-caddy-'));
    const [httpPort, tlsPort] = [await freePort(), await freePort()];
    httpsPort = tlsPort;
    const conf = adaptedCaddyfile({ servicePort: Number(new URL(svc.url).port), httpPort, httpsPort, dir });
    await writeFile(join(dir, 'Caddyfile'), conf);
    caddy = spawn(CADDY!, ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CONFIG_HOME: join(dir, 'xdg-config') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    caddy.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    caddy.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    let exited = false;
    caddy.on('exit', () => (exited = true));
    await until('caddy listening', async () => {
      if (exited) throw new Error(`caddy exited:\n${output}`);
      return listening(httpsPort);
    }, 20_000).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\n${conf}\n${output}`);
    });
    // Caddy's local authority's root, made at its start: what a client trusts here.
    root = await until('the local root certificate', () => readFile(join(dir, 'data', 'pki', 'authorities', 'local', 'root.crt'), 'utf8').catch(() => undefined), 20_000);
  }, 60_000);

  afterAll(async () => {
    if (caddy && caddy.exitCode === null) {
      const gone = new Promise((r) => caddy.once('exit', r));
      caddy.kill('SIGTERM');
      await gone;
    }
    await svc?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reaches the website over HTTPS by its verified host name, with a certificate for that name', async () => {
    const page = await httpsGet(httpsPort, verified, '/', root);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Over HTTPS');
    expect(page.subjectAltName).toContain(`DNS:${verified}`);
    expect(page.issuer).toContain('Caddy Local Authority');
    // The ask is not the public's: Caddy answers it itself, at any name.
    expect((await httpsGet(httpsPort, verified, `/_tls/ask?domain=${verified}`, root)).status).toBe(404);
    // The service's own name (its block of the Caddyfile) reaches the service; its ask is refused there too.
    const own = await httpsGet(httpsPort, 'photos.example.com', '/healthz', root);
    expect([own.status, own.subjectAltName]).toEqual([200, 'DNS:photos.example.com']);
    expect((await httpsGet(httpsPort, 'photos.example.com', `/_tls/ask?domain=${verified}`, root)).status).toBe(404);
  });

  it('is refused a certificate for a pending host name, and for one no website has', async () => {
    for (const host of [pending, `nobody-${randomBytes(3).toString('hex')}.example.test`]) {
      const refused = await httpsGet(httpsPort, host, '/', root).then(
        (r) => `answered ${r.status}`,
        (err: NodeJS.ErrnoException) => `${err.code}: ${err.message}`,
      );
      // Caddy ends the handshake with an alert: no certificate was obtained, none is shown.
      expect([host, refused]).toEqual([host, expect.stringMatching(/^EPROTO: .*alert internal error/)]);
    }
    // Still served to the verified one afterwards.
    expect((await httpsGet(httpsPort, verified, '/', root)).status).toBe(200);
  });
});

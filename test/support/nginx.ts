// nginx (Debian's package) as the load balancer of the multi-node tests: the
// configuration of docs/deploy.md ("nginx in front"), read from that page, with
// only its addresses, TLS and the port-80 redirect changed, in a private
// directory, run in the foreground on a free port.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.js';

export const DEPLOY_DOC = join(import.meta.dirname, '..', '..', 'docs', 'deploy.md');

/** The nginx binary, or undefined when it is not installed (.ci/run installs it). */
export function findNginx(): string | undefined {
  for (const p of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/bin/nginx', '/usr/bin/nginx']) if (existsSync(p)) return p;
  const which = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : undefined;
}

/** The one ```nginx block of docs/deploy.md, as written there. */
export function documentedNginxConfig(markdown = readFileSync(DEPLOY_DOC, 'utf8')): string {
  const blocks = [...markdown.matchAll(/^```nginx\n([\s\S]*?)^```$/gm)];
  if (blocks.length !== 1) throw new Error(`docs/deploy.md must hold exactly one nginx block, found ${blocks.length}`);
  return blocks[0]![1]!;
}

/**
 * What the test changes in the documented configuration, each a pattern that
 * must match (a change of the page that makes one miss fails loudly rather
 * than running something else): the nodes' and nginx's addresses, no TLS (no
 * certificate here) and no port-80 server (not ours to bind).
 */
export function adaptedNginxConfig(documented: string, opts: { port: number; upstreamPorts: number[] }): string {
  let conf = documented;
  const replace = (what: string, pattern: RegExp, by: (match: string, ...groups: string[]) => string) => {
    const found = conf.match(new RegExp(pattern.source, pattern.flags.replace('g', '')));
    if (!found) throw new Error(`docs/deploy.md's nginx block has no ${what} (${pattern}): update test/support/nginx.ts with it`);
    conf = conf.replace(pattern, by as (substring: string, ...args: unknown[]) => string);
  };
  // The upstream's server lines: one per node here, with the documented parameters.
  let first = true;
  replace('upstream server line', /^(\s*)server \d+\.\d+\.\d+\.\d+:\d+( [^;\n]*)?;\n/gm, (_m, indent: string, params = '') => {
    if (!first) return '';
    first = false;
    return opts.upstreamPorts.map((p) => `${indent}server 127.0.0.1:${p}${params};\n`).join('');
  });
  replace('TLS listen line', /^(\s*)listen 443[^;\n]*;/m, (_m, indent: string) => `${indent}listen 127.0.0.1:${opts.port};`);
  replace('certificate lines', /^\s*ssl_certificate(_key)?\s[^;\n]*;\n/gm, () => '');
  replace('port-80 redirect', /^server \{ listen 80;[^\n]*\n/m, () => '');
  // Only for the load generator of `npm run bench -- scale`: nginx closes a keep-alive
  // connection after 1000 requests by default, and a client sending its next request at
  // that moment sees a reset.
  replace('location', /^(\s*)location \/ \{\n/m, (m, indent: string) => `${indent}keepalive_requests 100000;\n${m}`);
  return conf;
}

/** The whole nginx.conf: a private prefix, and the documented configuration for nodes listening on `upstreamPorts`. */
export function nginxConfig(opts: { dir: string; port: number; upstreamPorts: number[] }): string {
  const { dir } = opts;
  return `
daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${adaptedNginxConfig(documentedNginxConfig(), opts)}
}
`;
}

export interface Nginx {
  url: string;
  child: ChildProcess;
  /** nginx's error log so far (its warnings and upstream errors). */
  errorLog(): Promise<string>;
  stop(): Promise<void>;
}

export async function startNginx(binary: string, upstreamPorts: number[]): Promise<Nginx> {
  const dir = await mkdtemp(join(tmpdir(), 'mps-nginx-'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  await writeFile(conf, nginxConfig({ dir, port, upstreamPorts }));
  const child = spawn(binary, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited at start:\n${output}\n${await readFile(join(dir, 'error.log'), 'utf8').catch(() => '')}`);
    const up = await fetch(`${url}/healthz`).then(
      async (r) => (await r.text(), true),
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`nginx did not answer in 10 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    child,
    errorLog: () => readFile(join(dir, 'error.log'), 'utf8').catch(() => ''),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

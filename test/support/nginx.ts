// nginx (Debian's package) as the load balancer of the multi-node tests: a
// generated configuration with the settings docs/deploy.md recommends, in a
// private directory, run in the foreground on a free port.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.js';

/** The nginx binary, or undefined when it is not installed (.ci/run installs it). */
export function findNginx(): string | undefined {
  for (const p of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/bin/nginx', '/usr/bin/nginx']) if (existsSync(p)) return p;
  const which = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : undefined;
}

/** The `upstream` and `location` of docs/deploy.md, for nodes listening on `ports`. */
export function nginxConfig(opts: { dir: string; port: number; upstreamPorts: number[]; maxBodyMb: number }): string {
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
  upstream media_portfolio {
${opts.upstreamPorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${opts.port};
    # Uploads through the service (step 2 to the local target, direct uploads).
    client_max_body_size ${opts.maxBodyMb}m;
    client_body_timeout 60s;
    # nginx closes a client's keep-alive connection after 1000 requests by default; a client
    # sending its next request at that moment sees a reset.
    keepalive_requests 100000;
    location / {
      proxy_pass http://media_portfolio;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      # A node that refuses the connection, or answers 503 while it drains, is
      # skipped; nginx never resends a POST that reached a node (non_idempotent off).
      proxy_next_upstream error timeout http_502 http_503;
      proxy_next_upstream_tries 3;
      proxy_connect_timeout 2s;
      proxy_send_timeout 300s;
      proxy_read_timeout 300s;
      proxy_request_buffering off;
      proxy_buffering off;
    }
  }
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

export async function startNginx(binary: string, upstreamPorts: number[], maxBodyMb = 64): Promise<Nginx> {
  const dir = await mkdtemp(join(tmpdir(), 'mps-nginx-'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  await writeFile(conf, nginxConfig({ dir, port, upstreamPorts, maxBodyMb }));
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

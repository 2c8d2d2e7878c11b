// The service process at scale's edges: a ROLE that cannot run on node-local
// state stops at start with a clear message and a non-zero exit, and SIGTERM's
// drain is bounded by SHUTDOWN_TIMEOUT_SECONDS.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSignature, rfc2822 } from '../../src/http/signing.js';
import { buildCore } from '../../src/app.js';
import { spawnService, waitForPing, type AppKeys, type ServiceProcess } from '../support/processes.js';

describe('service process roles and shutdown', () => {
  let dataDir: string;
  let app: AppKeys;
  let proc: ServiceProcess | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mps-proc-'));
    const core = await buildCore({ dataDir });
    app = await core.apps.create('proc');
    await core.close();
  });
  afterAll(async () => {
    await proc?.stop('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a ROLE=api or worker process on SQLite and local files refuses to start, saying what to set', async () => {
    for (const role of ['api', 'worker']) {
      const p = await spawnService({ env: { DATA_DIR: dataDir, ROLE: role } });
      expect(await p.exited).toBe(2);
      expect(p.output()).toContain(`ROLE=${role} runs as one of several processes and needs: DATABASE_URL`);
      expect(p.output()).toContain('UPLOAD_SECRET');
    }
  });

  it('on SIGTERM a request that never completes holds the exit no longer than SHUTDOWN_TIMEOUT_SECONDS; exit 0', async () => {
    proc = await spawnService({ env: { DATA_DIR: dataDir, RATE_LIMIT: 'off', SHUTDOWN_TIMEOUT_SECONDS: '1' } });
    await waitForPing(proc, app);
    const timestamp = rfc2822();
    const socket = connect({ port: proc.port, host: '127.0.0.1' });
    socket.on('error', () => undefined);
    let received = '';
    socket.setEncoding('utf8').on('data', (d: string) => (received += d));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    await new Promise<void>((r) => socket.once('connect', () => r()));
    // A request whose body never comes: taken by the server (100 Continue), then nothing.
    socket.write(
      [
        'POST /ping.xml HTTP/1.1',
        `Host: 127.0.0.1:${proc.port}`,
        `X-Service-Authorization: ${app.key}:${computeSignature('POST', '/ping.xml', '', app.secret, timestamp, 'sha1')}`,
        `X-Service-Timestamp: ${timestamp}`,
        'Content-Type: application/x-www-form-urlencoded',
        'Content-Length: 1000',
        'Expect: 100-continue',
        '',
        '',
      ].join('\r\n') + `text=${randomBytes(4).toString('hex')}`,
    );
    for (let i = 0; i < 200 && !received.includes('100 Continue'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(received).toContain('100 Continue');
    // The default REQUEST_TIMEOUT_SECONDS is an hour: without the bound the process would still be waiting when stop() kills it.
    expect(await proc.stop('SIGTERM', 8_000)).toBe(0);
    await closed;
  });
});

// RATE_LIMIT with REDIS_URL: two service processes on one Redis share each
// application-and-user bucket (operations.md), with the headers of client-compat.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCore } from '../../src/app.js';
import { signedFetch, spawnService, waitForPing, type AppKeys, type ServiceProcess } from '../support/processes.js';
import { basicAuth, REDIS_URL, sessionCookieOf } from '../support/service.js';

interface Login {
  email: string;
  password: string;
}

describe.skipIf(!REDIS_URL)('rate limit shared through Redis by two service processes', () => {
  let dataDir: string;
  let a: ServiceProcess | undefined;
  let b: ServiceProcess | undefined;
  // A fresh (random) key per run: buckets left in Redis by earlier runs never match.
  let app: AppKeys;
  let otherApp: AppKeys;
  const ann: Login = { email: `ann-${randomBytes(4).toString('hex')}@example.com`, password: 'ann password 1' };
  const bob: Login = { email: `bob-${randomBytes(4).toString('hex')}@example.com`, password: 'bob password 1' };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mps-redis-'));
    const core = await buildCore({ dataDir });
    try {
      app = await core.apps.create('rate test');
      otherApp = await core.apps.create('rate test');
      for (const u of [ann, bob]) await core.users.create({ ...u, firstName: 'R', lastName: 'L' });
    } finally {
      await core.close();
    }
    const env = { DATA_DIR: dataDir, RATE_LIMIT: '6/60s', REDIS_URL, LOG_LEVEL: 'warn' };
    [a, b] = await Promise.all([spawnService({ env }), spawnService({ env })]);
    await Promise.all([waitForPing(a, app), waitForPing(b, app)]);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  function expectRateHeaders(res: Response, remaining: number): void {
    expect(res.headers.get('ratelimit-limit')).toBe('6, 6;w=60');
    expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
    const reset = res.headers.get('ratelimit-reset') ?? '';
    expect(reset).toMatch(/^\d+$/);
    expect(Number(reset)).toBeGreaterThanOrEqual(1);
    expect(Number(reset)).toBeLessThanOrEqual(120);
  }

  it('one user alternating between the processes spends one bucket, then both refuse with 429', async () => {
    const whoami = (proc: ServiceProcess, headers: Record<string, string>) => signedFetch(proc.url, app, 'GET', '/whoami.xml', { headers });

    // Logs in on A (counted against the address: no session yet); the session (in the shared database) works on B as well.
    const first = await whoami(a!, { Authorization: basicAuth(ann.email, ann.password) });
    expect(first.status).toBe(200);
    await first.text();
    // The address's budget, which the readiness pings of this application spent from as well.
    expect(Number(first.headers.get('ratelimit-remaining'))).toBeLessThan(6);
    const cookie = sessionCookieOf(first);
    expect(cookie).toBeTruthy();

    const order = [b!, a!, b!, a!, b!, a!];
    for (let i = 0; i < order.length; i++) {
      const res = await whoami(order[i], { Cookie: cookie! });
      expect(res.status, `request ${i + 2}`).toBe(200);
      expect(await res.text()).toContain(ann.email);
      expectRateHeaders(res, 5 - i);
    }

    for (const proc of [a!, b!]) {
      const refused = await whoami(proc, { Cookie: cookie! });
      expect(refused.status).toBe(429);
      expectRateHeaders(refused, 0);
      const retryAfter = refused.headers.get('retry-after') ?? '';
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(120);
      expect(refused.headers.get('content-type')).toMatch(/^application\/xml/);
      const body = await refused.text();
      expect(body).toMatch(/<error>[^<]+<\/error>/);
      expect(body).toContain('<error-code>rate_limited</error-code>');
    }
  });

  it('another user of the same application, and the same user through another application, have buckets of their own', async () => {
    const login = await signedFetch(b!.url, app, 'GET', '/whoami.xml', { headers: { Authorization: basicAuth(bob.email, bob.password) } });
    expect(login.status).toBe(200);
    await login.text();
    const other = await signedFetch(a!.url, app, 'GET', '/whoami.xml', { headers: { Cookie: sessionCookieOf(login)! } });
    expect(other.status).toBe(200);
    expect(await other.text()).toContain(bob.email);
    expectRateHeaders(other, 5);

    const annLogin = await signedFetch(a!.url, otherApp, 'GET', '/whoami.xml', { headers: { Authorization: basicAuth(ann.email, ann.password) } });
    expect(annLogin.status).toBe(200);
    await annLogin.text();
    const otherAppRes = await signedFetch(b!.url, otherApp, 'GET', '/whoami.xml', { headers: { Cookie: sessionCookieOf(annLogin)! } });
    expect(otherAppRes.status).toBe(200);
    await otherAppRes.text();
    expectRateHeaders(otherAppRes, 5);
  });
});

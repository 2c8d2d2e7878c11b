import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/api.js';
import { MediaPortfolioClient } from '../../src/client/client.js';
import { ApiRequestError } from '../../src/client/errors.js';
import { FileSessionStore, sessionFromSetCookie } from '../../src/client/session.js';
import { text } from '../../src/client/xml.js';
import { computeSignature } from '../../src/http/signing.js';
import { basicCredentials, KEYS, reply, startServer, type Recorded, type TestServer } from './client-test-server.js';

let server: TestServer | undefined;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mps-client-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const COOKIE = 'sess-abc';
const cookieOf = (r: Recorded) => r.headers.cookie;

/**
 * A service with one user (ann/pw, optionally with 2FA code 123456): Basic
 * opens a session, the cookie carries it, `expired` sessions are refused.
 */
function userService(opts: { otp?: boolean; expired?: Set<string> } = {}) {
  return startServer((req, res) => {
    const cookie = /_ficelle_session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const path = req.url.split('?')[0];
    if (path === '/logout.xml') return reply(res, 200, '<message>bye</message>', { 'Set-Cookie': '_ficelle_session=; Path=/; Max-Age=0' });
    if (cookie && !opts.expired?.has(cookie)) return reply(res, 200, `<user><email>ann@x.y</email></user><via>cookie</via>`);
    const creds = basicCredentials(req.headers);
    const expected = opts.otp ? 'ann:pw+123456' : 'ann:pw';
    if (creds === expected) {
      return reply(res, 200, `<user><email>ann@x.y</email></user><via>basic</via>`, { 'Set-Cookie': `_ficelle_session=${COOKIE}; Path=/; HttpOnly` });
    }
    // Right password but the code missing or wrong: ask for the code.
    const method = opts.otp && (creds === 'ann:pw' || creds?.startsWith('ann:pw+')) ? 'basic:password+otp' : 'basic';
    reply(res, 401, `<error>authentication required</error><auth-method>${method}</auth-method>`);
  });
}

describe('client session', () => {
  it('sends Basic once, then only the session cookie', async () => {
    server = await userService();
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS, login: 'ann', password: 'pw' });
    const first = await client.whoami();
    const second = await client.pingAuth('hi');
    expect(text(first.doc, 'via')).toBe('basic');
    expect(text(second.doc, 'via')).toBe('cookie');
    expect(basicCredentials(server.requests[0].headers)).toBe('ann:pw');
    expect(server.requests[1].headers.authorization).toBeUndefined();
    expect(cookieOf(server.requests[1])).toBe(`_ficelle_session=${COOKIE}`);
    expect(await client.sessionCookie()).toBe(COOKIE);
  });

  it('ping never sends user credentials', async () => {
    server = await startServer((_req, res) => reply(res, 200, '<message>OK</message>'));
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS, login: 'ann', password: 'pw' });
    await client.ping('x');
    expect(server.requests[0].headers.authorization).toBeUndefined();
    expect(server.requests[0].url).toBe('/ping.xml?text=x');
  });

  it('2FA: on auth-method basic:password+otp asks for a code and re-sends the same request with PASSWORD+CODE', async () => {
    server = await userService({ otp: true });
    let asked = 0;
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS, login: 'ann', password: 'pw', otp: () => (asked++, '123456') });
    const r = await client.request('POST', '/websites/s/galleries.xml', { 'gallery[name]': 'N', 'gallery[parent]': 'P' });
    expect(r.status).toBe(200);
    expect(asked).toBe(1);
    const [first, second] = server.requests;
    expect(server.requests).toHaveLength(2);
    expect(basicCredentials(first.headers)).toBe('ann:pw');
    expect(basicCredentials(second.headers)).toBe('ann:pw+123456');
    expect([second.method, second.url, second.body.toString()]).toEqual([first.method, first.url, first.body.toString()]);
    // The session opened by the code is used from then on: no second prompt.
    await client.whoami();
    expect(asked).toBe(1);
    expect(server.requests[2].headers.authorization).toBeUndefined();
  });

  it('2FA without an otp callback, or with a wrong code, fails as otp_required', async () => {
    server = await userService({ otp: true });
    const noCallback = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS, login: 'ann', password: 'pw' });
    await expect(noCallback.whoami()).rejects.toMatchObject({ kind: 'otp_required', status: 401, authMethod: 'basic:password+otp' });
    const wrong = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS, login: 'ann', password: 'pw', otp: async () => '000000' });
    const err = await wrong.whoami().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiRequestError);
    expect((err as ApiRequestError).kind).toBe('otp_required');
    expect((err as ApiRequestError).message).toBe('authentication required');
    expect(server.requests).toHaveLength(3); // one try, then one try + one retry
  });

  it('an expired session is dropped and the request retried once with Basic', async () => {
    const expired = new Set<string>(['old']);
    server = await userService({ expired });
    const client = new MediaPortfolioClient({
      baseUrl: server.url, ...KEYS, login: 'ann', password: 'pw',
      session: { load: () => 'old', save: () => undefined },
    });
    const r = await client.whoami();
    expect(text(r.doc, 'via')).toBe('basic');
    expect(cookieOf(server.requests[0])).toBe('_ficelle_session=old');
    expect(server.requests[1].headers.cookie).toBeUndefined();
    expect(basicCredentials(server.requests[1].headers)).toBe('ann:pw');
    expect(await client.sessionCookie()).toBe(COOKIE);
  });

  it('logout calls /logout.xml and forgets the cookie', async () => {
    server = await userService();
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS, login: 'ann', password: 'pw' });
    await client.whoami();
    await client.logout();
    expect(server.requests[1].url).toBe('/logout.xml');
    expect(cookieOf(server.requests[1])).toBe(`_ficelle_session=${COOKIE}`);
    expect(await client.sessionCookie()).toBeUndefined();
    await client.whoami();
    expect(basicCredentials(server.requests[2].headers)).toBe('ann:pw');
  });

  it('reads Set-Cookie values, deletions and unrelated cookies', () => {
    expect(sessionFromSetCookie(['other=1', '_ficelle_session=abc%3D; Path=/; HttpOnly'])).toBe('abc%3D');
    expect(sessionFromSetCookie(['_ficelle_session=; Path=/; Max-Age=0'])).toBeNull();
    expect(sessionFromSetCookie(['_ficelle_session=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT'])).toBeNull();
    expect(sessionFromSetCookie(['other=1'])).toBeUndefined();
  });
});

describe('session persistence', () => {
  it('a file store carries the session to a new client (file mode 0600)', async () => {
    server = await userService();
    const path = join(dir, 'nested', '.api-session');
    const scope = { baseUrl: server.url, login: 'ann' };
    const a = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS, login: 'ann', password: 'pw', session: new FileSessionStore(path, scope) });
    await a.whoami();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ cookie: COOKIE, login: 'ann' });

    const b = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS, login: 'ann', password: 'pw', session: new FileSessionStore(path, scope) });
    const r = await b.whoami();
    expect(text(r.doc, 'via')).toBe('cookie');
    expect(server.requests[1].headers.authorization).toBeUndefined();

    await b.logout();
    await expect(stat(path)).rejects.toThrow();
  });

  it('a session saved for another login or service is not used', async () => {
    const path = join(dir, '.api-session');
    await new FileSessionStore(path, { baseUrl: 'http://a', login: 'ann' }).save('c1');
    expect(await new FileSessionStore(path, { baseUrl: 'http://a', login: 'ann' }).load()).toBe('c1');
    expect(await new FileSessionStore(path, { baseUrl: 'http://a', login: 'bob' }).load()).toBeUndefined();
    expect(await new FileSessionStore(path, { baseUrl: 'http://b', login: 'ann' }).load()).toBeUndefined();
    await writeFile(path, 'garbage');
    expect(await new FileSessionStore(path, { baseUrl: 'http://a', login: 'ann' }).load()).toBeUndefined();
  });

  it('the CLI keeps the cookie between invocations and exits 1 on errors', async () => {
    server = await userService();
    const sessionFile = join(dir, 'sess');
    await writeFile(join(dir, '.env'), `MPS_API_KEY=${KEYS.apiKey}\nMPS_API_SECRET=wrong-but-overridden\nMPS_LOGIN=ann\n`);
    const env = { MPS_URL: server.url, MPS_API_SECRET: KEYS.apiSecret, MPS_PASSWORD: 'pw', MPS_SESSION_FILE: sessionFile };
    const run = async (...argv: string[]) => {
      const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() };
      const status = await runCli(argv, env, io, dir);
      return { status, out: String(io.stdout.read() ?? ''), err: String(io.stderr.read() ?? '') };
    };

    const first = await run('GET', '/whoami.xml');
    expect(first.status).toBe(0);
    expect(first.out).toContain('<via>basic</via>');
    expect((await stat(sessionFile)).mode & 0o777).toBe(0o600);

    const second = await run('--include', 'get', '/websites.xml', 'view=details', 'ids=a', 'ids=b');
    expect(second.status).toBe(0);
    expect(second.out).toContain('<via>cookie</via>');
    expect(second.err).toMatch(/^HTTP 200 OK\n/);
    expect(second.err).toContain('x-request-id: req-test');
    expect(server.requests[1].headers.authorization).toBeUndefined();
    expect(server.requests[1].url).toBe('/websites.xml?view=details&ids%5B%5D=a&ids%5B%5D=b');
    // .env supplied the key and login; the environment's secret won over the .env one.
    const req = server.requests[1];
    const [path, query] = req.url.split('?');
    const ts = String(req.headers['x-service-timestamp']);
    expect(req.headers['x-service-authorization']).toBe(`key-1:${computeSignature('GET', path, query, KEYS.apiSecret, ts)}`);

    await server.close();
    server = await startServer((_req, res) => reply(res, 404, '<error>gallery not found</error><error-code>not_found</error-code>'));
    env.MPS_URL = server.url;
    const failing = await run('GET', '/websites/s/galleries/x.xml');
    expect(failing.status).toBe(1);
    expect(failing.out).toContain('<error>gallery not found</error>');
    expect(failing.err).toContain('HTTP 404 (not_found)');
    const usage = await run('GET');
    expect(usage.status).toBe(2);
    expect(usage.err).toContain('usage:');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { MediaPortfolioClient } from '../../src/client/client.js';
import { ApiRequestError } from '../../src/client/errors.js';
import { retryAfterSeconds } from '../../src/client/throttle.js';
import { KEYS, reply, startServer, type TestServer } from './client-test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const THROTTLED = '<error>too many requests</error><error-code>rate_limited</error-code>';

describe('client throttling', () => {
  it('on 429 waits Retry-After seconds (real time) and retries once', async () => {
    server = await startServer((_req, res, i) =>
      i === 0 ? reply(res, 429, THROTTLED, { 'Retry-After': '1' }) : reply(res, 200, '<message>OK</message>'),
    );
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS });
    const started = Date.now();
    const r = await client.ping();
    expect(r.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
    // A fresh signature for the retry, over the same request line.
    expect(server.requests[1].url).toBe(server.requests[0].url);
  });

  it('retries a 429 only once, then throws rate_limited with the Retry-After', async () => {
    server = await startServer((_req, res) => reply(res, 429, THROTTLED, { 'Retry-After': '7' }));
    const waits: number[] = [];
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS, throttle: false, sleep: async (ms) => void waits.push(ms) });
    const err = await client.ping().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiRequestError);
    expect(err).toMatchObject({ kind: 'rate_limited', status: 429, retryAfter: 7, errorCode: 'rate_limited', requestId: 'req-test' });
    expect(waits).toEqual([7000]);
    expect(server.requests).toHaveLength(2);
  });

  it('with retry429: false the first 429 throws', async () => {
    server = await startServer((_req, res) => reply(res, 429, THROTTLED, { 'Retry-After': '3' }));
    const waits: number[] = [];
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS, retry429: false, throttle: false, sleep: async (ms) => void waits.push(ms) });
    await expect(client.ping()).rejects.toMatchObject({ kind: 'rate_limited', retryAfter: 3 });
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('waits RateLimit-Reset seconds before the next request once RateLimit-Remaining is 0', async () => {
    let remaining = 2;
    server = await startServer((_req, res) => {
      remaining = Math.max(0, remaining - 1);
      reply(res, 200, '<message>OK</message>', { 'RateLimit-Limit': '2, 2;w=60', 'RateLimit-Remaining': String(remaining), 'RateLimit-Reset': '5' });
    });
    const waits: number[] = [];
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS, sleep: async (ms) => void waits.push(ms) });
    await client.ping();
    expect(waits).toEqual([]);
    expect(client.rateLimit).toEqual({ limit: '2, 2;w=60', remaining: 1, reset: 5 });
    await client.ping(); // this reply says remaining 0
    expect(waits).toEqual([]);
    await client.ping(); // so this one waits ~5 s first
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(4500);
    expect(waits[0]).toBeLessThanOrEqual(5000);
  });

  it('does not wait when throttling is off', async () => {
    server = await startServer((_req, res) => reply(res, 200, '<message>OK</message>', { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '5' }));
    const waits: number[] = [];
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS, throttle: false, sleep: async (ms) => void waits.push(ms) });
    await client.ping();
    await client.ping();
    expect(waits).toEqual([]);
    expect(client.rateLimit.remaining).toBe(0);
  });

  it('reads Retry-After as seconds or an HTTP date, capped at 120 s', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds(new Headers({ 'Retry-After': '12' }))).toBe(12);
    expect(retryAfterSeconds(new Headers({ 'Retry-After': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30);
    expect(retryAfterSeconds(new Headers({ 'Retry-After': '99999' }))).toBe(120);
    expect(retryAfterSeconds(new Headers())).toBeUndefined();
  });
});

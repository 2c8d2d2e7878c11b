// Spec 5.1: every request is signed; each failure is a 401 XML error that says
// what was wrong without revealing the expected signature.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { computeSignature, rfc2822 } from '../../src/http/signing.js';
import { eachDatabase, serviceWithApp, type TestApp, type TestService } from '../support/service.js';
import { replyOf } from '../support/xml.js';

const MIN = 60_000;
const iso = (ms: number, offsetMinutes = 0) => {
  const local = new Date(ms + offsetMinutes * MIN).toISOString().slice(0, 19);
  if (offsetMinutes === 0) return local + 'Z';
  const sign = offsetMinutes > 0 ? '+' : '-';
  const a = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
};

eachDatabase((kind) => {
  let svc: TestService;
  let app: TestApp;
  beforeAll(async () => void ({ svc, app } = await serviceWithApp(kind)));
  afterAll(() => svc?.close());

  describe('timestamp forms', () => {
    const forms: Array<[string, () => string]> = [
      ['RFC 2822 with +0000', () => rfc2822()],
      ['RFC 2822 with GMT', () => new Date().toUTCString()],
      ['RFC 2822 with a local offset', () => {
        const d = new Date(Date.now() + 2 * 3600_000);
        return d.toUTCString().replace('GMT', '+0200');
      }],
      ['ISO 8601 UTC (Z)', () => iso(Date.now())],
      ['ISO 8601 with +01:00', () => iso(Date.now(), 60)],
      ['ISO 8601 with -05:30', () => iso(Date.now(), -330)],
      ['ISO 8601 with fractional seconds', () => new Date().toISOString()],
      ['POSIX seconds', () => String(Math.floor(Date.now() / 1000))],
    ];
    for (const [name, make] of forms) {
      it(`accepts ${name}`, async () => {
        const res = await svc.raw(app, 'GET', '/ping.xml?text=hi', { timestamp: make() });
        const { status, doc } = await replyOf(res);
        expect(status).toBe(200);
        expect(text(doc, 'input-text')).toBe('hi');
      });
    }

    it('refuses an unparsable timestamp with 401', async () => {
      const { status, doc } = await replyOf(await svc.raw(app, 'GET', '/ping.xml', { timestamp: 'yesterday at noon' }));
      expect(status).toBe(401);
      expect(text(doc, 'error')).toMatch(/X-Service-Timestamp/);
      expect(text(doc, 'error-code')).toBe('timestamp_invalid');
    });
  });

  describe('30-minute window, both ways', () => {
    const cases: Array<[string, number, number]> = [
      ['29m50s in the past', -(29 * MIN + 50_000), 200],
      ['29m50s in the future', 29 * MIN + 50_000, 200],
      ['30m10s in the past', -(30 * MIN + 10_000), 401],
      ['30m10s in the future', 30 * MIN + 10_000, 401],
    ];
    for (const [name, delta, expected] of cases) {
      it(`${expected === 200 ? 'accepts' : 'refuses'} a timestamp ${name}`, async () => {
        const { status, doc } = await replyOf(await svc.raw(app, 'GET', '/ping.xml', { timestamp: iso(Date.now() + delta, 60) }));
        expect(status).toBe(expected);
        if (expected === 401) expect(text(doc, 'error-code')).toBe('timestamp_out_of_window');
      });
    }
  });

  it('detects MD5 as well as SHA-1', async () => {
    expect((await svc.raw(app, 'GET', '/ping.xml', { algorithm: 'md5' })).status).toBe(200);
    expect((await svc.raw(app, 'GET', '/ping.xml', { algorithm: 'sha1' })).status).toBe(200);
  });

  it('takes the hex signature in upper case too, and refuses it one digit off', async () => {
    for (const algorithm of ['sha1', 'md5'] as const) {
      const ts = rfc2822();
      const sig = computeSignature('GET', '/ping.xml', '', app.secret, ts, algorithm);
      const send = (signature: string) => fetch(`${svc.url}/ping.xml`, { headers: { 'X-Service-Authorization': `${app.key}:${signature}`, 'X-Service-Timestamp': ts } });
      expect((await send(sig.toUpperCase())).status).toBe(200);
      const off = sig.slice(0, -1) + (sig.endsWith('0') ? '1' : '0');
      expect((await send(off.toUpperCase())).status).toBe(401);
    }
  });

  it('says which header is missing', async () => {
    const none = await replyOf(await svc.raw(app, 'GET', '/ping.xml', { sign: false }));
    expect(none.status).toBe(401);
    expect(text(none.doc, 'error')).toMatch(/X-Service-Authorization/);
    const ts = rfc2822();
    const sig = computeSignature('GET', '/ping.xml', '', app.secret, ts);
    const noTs = await replyOf(await fetch(`${svc.url}/ping.xml`, { headers: { 'X-Service-Authorization': `${app.key}:${sig}` } }));
    expect(noTs.status).toBe(401);
    expect(text(noTs.doc, 'error')).toMatch(/X-Service-Timestamp/);
  });

  it('refuses an unknown key and a wrong signature without leaking the expected one', async () => {
    const ts = rfc2822();
    const good = computeSignature('GET', '/ping.xml', '', app.secret, ts);
    const unknown = await replyOf(await fetch(`${svc.url}/ping.xml`, { headers: { 'X-Service-Authorization': `nope:${good}`, 'X-Service-Timestamp': ts } }));
    expect(unknown.status).toBe(401);
    expect(text(unknown.doc, 'error-code')).toBe('unknown_api_key');
    const wrong = computeSignature('GET', '/ping.xml', '', 'not-the-secret', ts);
    const bad = await replyOf(await fetch(`${svc.url}/ping.xml`, { headers: { 'X-Service-Authorization': `${app.key}:${wrong}`, 'X-Service-Timestamp': ts } }));
    expect(bad.status).toBe(401);
    expect(text(bad.doc, 'error-code')).toBe('signature_invalid');
    expect(bad.body).not.toContain(good);
    expect(bad.body).not.toContain(app.secret);
  });

  it('signs the query string exactly as sent: fully percent-encoded, any order', async () => {
    const ok = await replyOf(await svc.raw(app, 'GET', '/ping.xml?%74%65%78%74=caf%C3%A9%5Fau%20lait'));
    expect(ok.status).toBe(200);
    expect(text(ok.doc, 'input-text')).toBe('café_au lait');
    expect(text(ok.doc, 'query-string')).toBe('%74%65%78%74=caf%C3%A9%5Fau%20lait');
    // …and a signature computed over a re-encoded form of the same query does not match.
    const ts = rfc2822();
    const reencoded = computeSignature('GET', '/ping.xml', 'text=caf%C3%A9_au%20lait', app.secret, ts);
    const res = await fetch(`${svc.url}/ping.xml?%74%65%78%74=caf%C3%A9%5Fau%20lait`, {
      headers: { 'X-Service-Authorization': `${app.key}:${reencoded}`, 'X-Service-Timestamp': ts },
    });
    expect(res.status).toBe(401);
  });

  it('a signature is bound to the method and the path', async () => {
    const ts = rfc2822();
    const forOtherPath = computeSignature('GET', '/ping_auth.xml', '', app.secret, ts);
    const res = await fetch(`${svc.url}/ping.xml`, { headers: { 'X-Service-Authorization': `${app.key}:${forOtherPath}`, 'X-Service-Timestamp': ts } });
    expect(res.status).toBe(401);
  });
});

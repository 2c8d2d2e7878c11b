// The studio's cookies and tokens (src/studio/guard.ts): the `__Host-` prefix under https (which
// browsers accept only with Path=/ and Secure), plain names under /studio over http; the CSRF
// token of a session; the proof of a right password before the second factor; where a post comes from.
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { fromOwnOrigin, same, StudioCookies, StudioTokens } from '../../src/studio/guard.js';

const request = (headers: Record<string, string>, protocol = 'http', host = 'studio.test:8080') => ({ headers, protocol, host }) as unknown as FastifyRequest;

describe('studio cookies', () => {
  it('are __Host- prefixed, Secure and at Path=/ under https; plain at Path=/studio over http; always HttpOnly and SameSite=Strict', () => {
    const https = new StudioCookies(true).sessionCookie('t'.repeat(43));
    expect(https).toMatch(/^__Host-studio_session=/);
    expect(https).toMatch(/Path=\/(;|$)/);
    expect(https).toMatch(/Secure/);
    expect(https).toMatch(/HttpOnly/);
    expect(https).toMatch(/SameSite=Strict/);
    expect(https).not.toMatch(/Domain=/);
    const http = new StudioCookies(false).sessionCookie('t'.repeat(43));
    expect(http).toMatch(/^studio_session=/);
    expect(http).toMatch(/Path=\/studio/);
    expect(http).not.toMatch(/Secure/);
    expect(http).toMatch(/HttpOnly/);
    expect(http).toMatch(/SameSite=Strict/);
  });

  it('reads only well-formed values', () => {
    const c = new StudioCookies(false);
    expect(c.read(request({ cookie: `a=1; studio_session=${'x'.repeat(43)}` }), 'studio_session')).toBe('x'.repeat(43));
    expect(c.read(request({ cookie: 'studio_session=short' }), 'studio_session')).toBeUndefined();
    expect(c.read(request({ cookie: 'studio_session=<script>aaaaaaaaaaaaaaaa' }), 'studio_session')).toBeUndefined();
    expect(c.read(request({ cookie: 'x'.repeat(9000) }), 'studio_session')).toBeUndefined();
  });
});

describe('studio tokens', () => {
  const tokens = new StudioTokens(Buffer.from('a secret of the service, 32 bytes!'));

  it('gives each session its own CSRF token, unknown under another key', () => {
    const a = tokens.csrfOf('session-a');
    expect(tokens.csrfOf('session-a')).toBe(a);
    expect(tokens.csrfOf('session-b')).not.toBe(a);
    expect(new StudioTokens(Buffer.from('another secret')).csrfOf('session-a')).not.toBe(a);
    expect(same(a, a)).toBe(true);
    expect(same(a.slice(0, -1), a)).toBe(false);
    expect(same(undefined, a)).toBe(false);
  });

  it('proves a right password for five minutes, for that user and that password hash only', () => {
    const now = Date.UTC(2026, 10, 26, 12);
    const proof = tokens.pending(42, '$argon2id$hash-1', now);
    expect(tokens.pendingUser(proof, now + 60_000)).toBe(42);
    expect(tokens.pendingValid(proof, 42, '$argon2id$hash-1')).toBe(true);
    expect(tokens.pendingValid(proof, 42, '$argon2id$hash-2')).toBe(false);
    expect(tokens.pendingValid(proof.replace(/^42\./, '43.'), 43, '$argon2id$hash-1')).toBe(false);
    expect(tokens.pendingUser(proof, now + 301_000)).toBeUndefined();
    // A later expiry written in by hand does not match its MAC.
    const [id, until, mac] = proof.split('.');
    expect(tokens.pendingValid(`${id}.${Number(until) + 3600}.${mac}`, 42, '$argon2id$hash-1')).toBe(false);
    expect(tokens.pendingUser('not a proof')).toBeUndefined();
  });
});

describe('where a post comes from', () => {
  const PUBLIC = 'https://photos.example.com';
  it('accepts the studio itself and a client that is not a browser; refuses other origins and cross-site fetches', () => {
    expect(fromOwnOrigin(request({ origin: PUBLIC, 'sec-fetch-site': 'same-origin' }), PUBLIC)).toBe(true);
    expect(fromOwnOrigin(request({ origin: 'http://studio.test:8080' }), PUBLIC)).toBe(true);
    expect(fromOwnOrigin(request({}), PUBLIC)).toBe(true);
    expect(fromOwnOrigin(request({ origin: 'https://evil.example' }), PUBLIC)).toBe(false);
    expect(fromOwnOrigin(request({ origin: 'null' }), PUBLIC)).toBe(false);
    expect(fromOwnOrigin(request({ origin: PUBLIC, 'sec-fetch-site': 'same-site' }), PUBLIC)).toBe(false);
    expect(fromOwnOrigin(request({ 'sec-fetch-site': 'cross-site' }), PUBLIC)).toBe(false);
  });
});

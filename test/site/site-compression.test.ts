// The website's pages compressed for visitors who take it (docs/website.md, "What loads at first"):
// a micro-cached page's brotli and gzip copies are made once per copy and served with
// Content-Encoding, Vary: Accept-Encoding, the right Content-Length and an ETag per coding (a 304
// to a match); a page rendered for its visitor (a pass) is compressed for its request, without an
// ETag. Whatever the Accept-Encoding says, the answer is a 200 in a coding it allows. SQLite and PostgreSQL.
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create, publishMedias } from '../api/galleries-fixtures.js';
import { eachDatabase } from '../support/service.js';
import type { World } from '../support/world.js';
import { cookieOf, mediaLinks, startSite, visit } from './site-support.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** One request whose body is read as sent (fetch would decode it). */
function raw(url: string, path: string, headers: Record<string, string>, method = 'GET'): Promise<Raw> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The page a reply carries, decoded as its Content-Encoding says (only the codings the service sends). */
function decoded(r: Raw): Buffer {
  const coding = r.headers['content-encoding'];
  if (coding === undefined) return r.bytes;
  if (coding === 'br') return brotliDecompressSync(r.bytes);
  if (coding === 'gzip') return gunzipSync(r.bytes);
  throw new Error(`unexpected content-encoding ${String(coding)}`);
}

const varies = (r: Raw) => String(r.headers.vary ?? '').toLowerCase().split(/\s*,\s*/).includes('accept-encoding');

eachDatabase((kind) => {
  describe('compressed pages', () => {
    let w: World;
    let home: string;
    let path: string;
    let plain: Raw;
    beforeAll(async () => {
      ({ w, home } = await startSite(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '60' }));
      const g = await create(w, 'Sixty');
      await publishMedias(w.svc.db, w.user, g, Array.from({ length: 60 }, (_, i) => `photo-${i}.jpg`));
      path = `${home}/-/sixty`;
      plain = await raw(w.svc.url, path, {});
    });
    afterAll(() => w?.svc.close());

    it('sends the page as it is to a client that names no coding, saying that it varies', async () => {
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(mediaLinks(plain.bytes.toString('utf8'))).toHaveLength(60);
      expect(Number(plain.headers['content-length'])).toBe(plain.bytes.length);
      expect(varies(plain)).toBe(true);
      expect(String(plain.headers.vary)).toMatch(/cookie/i);
      expect(plain.headers.etag).toMatch(/^"[\w-]+"$/);
    });

    it('sends brotli or gzip as the client takes them: the same page once decoded, its own length and ETag', async () => {
      const etags = new Set([plain.headers.etag]);
      for (const [accept, coding] of [
        ['gzip, deflate, br', 'br'],
        ['br', 'br'],
        ['gzip', 'gzip'],
        ['br;q=0, gzip', 'gzip'],
        ['gzip;q=1, br;q=0.5', 'gzip'],
        ['x-gzip', 'gzip'],
        ['*', 'br'],
        ['identity', undefined],
        ['br;q=0, gzip;q=0', undefined],
        ['deflate', undefined],
      ] as const) {
        const r = await raw(w.svc.url, path, { 'accept-encoding': accept });
        expect([accept, r.status, r.headers['content-encoding']]).toEqual([accept, 200, coding]);
        expect(Number(r.headers['content-length'])).toBe(r.bytes.length);
        expect(varies(r)).toBe(true);
        expect(decoded(r).equals(plain.bytes)).toBe(true);
        if (coding) {
          expect(r.bytes.length).toBeLessThan(plain.bytes.length / 3);
          etags.add(r.headers.etag);
        } else expect(r.headers.etag).toBe(plain.headers.etag);
      }
      // One tag per coding: a cache holding one coding never answers for another.
      expect(etags.size).toBe(3);
    });

    it('answers a matching If-None-Match with a 304 per coding, and another coding’s tag with the page', async () => {
      const tags: Record<string, string> = {};
      for (const accept of ['br', 'gzip', 'identity']) {
        const first = await raw(w.svc.url, path, { 'accept-encoding': accept });
        tags[accept] = String(first.headers.etag);
        const again = await raw(w.svc.url, path, { 'accept-encoding': accept, 'if-none-match': tags[accept] });
        expect([accept, again.status, again.bytes.length]).toEqual([accept, 304, 0]);
        expect(again.headers.etag).toBe(tags[accept]);
        expect(varies(again)).toBe(true);
        // Weak comparison, in a list.
        expect((await raw(w.svc.url, path, { 'accept-encoding': accept, 'if-none-match': `"other", W/${tags[accept]}` })).status).toBe(304);
      }
      const crossed = await raw(w.svc.url, path, { 'accept-encoding': 'gzip', 'if-none-match': tags.br });
      expect([crossed.status, crossed.headers['content-encoding']]).toEqual([200, 'gzip']);
      expect(decoded(crossed).equals(plain.bytes)).toBe(true);
      const stale = await raw(w.svc.url, path, { 'accept-encoding': 'br', 'if-none-match': '"not-this-page"' });
      expect(stale.status).toBe(200);
    });

    it('answers HEAD with the headers of the GET in the same coding and no body', async () => {
      for (const accept of ['br', 'gzip', 'identity']) {
        const get = await raw(w.svc.url, path, { 'accept-encoding': accept });
        const head = await raw(w.svc.url, path, { 'accept-encoding': accept }, 'HEAD');
        expect([accept, head.status, head.bytes.length]).toEqual([accept, 200, 0]);
        expect(head.headers['content-encoding']).toBe(get.headers['content-encoding']);
        expect(head.headers['content-length']).toBe(String(get.bytes.length));
        expect(head.headers.etag).toBe(get.headers.etag);
        expect(varies(head)).toBe(true);
      }
    });

    it('gives a 200 in a coding the header allows, whatever the header', async () => {
      for (const accept of [
        'br;q=2',
        'br;q=abc, gzip;q=-1',
        ';;;,,,;q=1',
        'gzip;q=0.5;q=0',
        `${'br;q=0.1, '.repeat(1400)}gzip`,
        'x'.repeat(12_000),
        'BR',
        'gzip ; q = 0.8 , br ; q=0.9',
        'br;q=1.0001',
        'identity;q=0',
        '\u00e9t\u00e9, gzip',
      ]) {
        const r = await raw(w.svc.url, path, { 'accept-encoding': accept });
        expect([accept.slice(0, 40), r.status]).toEqual([accept.slice(0, 40), 200]);
        expect([undefined, 'br', 'gzip']).toContain(r.headers['content-encoding']);
        expect(decoded(r).equals(plain.bytes)).toBe(true);
      }
      // A coding given a q of 0, or an invalid one, is not sent.
      for (const accept of ['br;q=0', 'br;q=2', 'br;q=abc', 'BR;Q=0']) {
        expect((await raw(w.svc.url, path, { 'accept-encoding': accept })).headers['content-encoding']).toBeUndefined();
      }
      expect((await raw(w.svc.url, path, { 'accept-encoding': 'BR' })).headers['content-encoding']).toBe('br');
    });

    it('compresses a page rendered for a visitor with a pass, for that request, without an ETag', async () => {
      const locked = await create(w, 'Locked', w.rootUuid, { password: 'pw' });
      await publishMedias(w.svc.db, w.user, locked, Array.from({ length: 30 }, (_, i) => `locked-${i}.jpg`));
      const cookie = cookieOf(await visit(w.svc, `${home}/_password`, { form: { gallery: locked, password: 'pw', back: `${home}/-/locked` } }))!;
      const mine = await raw(w.svc.url, `${home}/-/locked`, { cookie });
      expect(mine.status).toBe(200);
      expect(mediaLinks(mine.bytes.toString('utf8'))).toHaveLength(30);
      for (const [accept, coding] of [['gzip, deflate, br', 'br'], ['gzip', 'gzip'], ['identity', undefined]] as const) {
        const r = await raw(w.svc.url, `${home}/-/locked`, { cookie, 'accept-encoding': accept });
        expect([accept, r.status, r.headers['content-encoding']]).toEqual([accept, 200, coding]);
        expect(r.headers.etag).toBeUndefined();
        expect(varies(r)).toBe(true);
        expect(Number(r.headers['content-length'])).toBe(r.bytes.length);
        expect(decoded(r).equals(mine.bytes)).toBe(true);
      }
    });

    it('sends a page under a kilobyte as it is', async () => {
      // A redirect's empty body and the sign-in refusal's short page: nothing to gain.
      const moved = await raw(w.svc.url, `${path}?utm=1`, { 'accept-encoding': 'br' });
      expect([moved.status, moved.headers['content-encoding'], moved.bytes.length]).toEqual([301, undefined, 0]);
      const missing = await raw(w.svc.url, `${home}/-/no-such-gallery`, { 'accept-encoding': 'br' });
      expect(missing.status).toBe(404);
      const size = decoded(missing).length;
      expect(missing.headers['content-encoding']).toBe(size < 1024 ? undefined : 'br');
    });

    it('leaves robots.txt and the stylesheet’s negotiation as they were', async () => {
      const robots = await raw(w.svc.url, `${home}/robots.txt`, { 'accept-encoding': 'br' });
      expect([robots.status, robots.headers['content-encoding']]).toEqual([200, undefined]);
      const css = /href="(\/_site\/[\w-]+\.css)"/.exec(plain.bytes.toString('utf8'))![1];
      const sheet = await raw(w.svc.url, css, { 'accept-encoding': 'br;q=0, gzip' });
      expect(sheet.headers['content-encoding']).toBe('gzip');
      expect(varies(sheet)).toBe(true);
    });
  });
});

// The one reading of Accept-Encoding (src/core/content-coding.ts); test/site/site-compression.test.ts
// holds the same contract over HTTP.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { codingFor, Encoded, matchesEtag, MIN_COMPRESSED_BYTES } from '../../src/core/content-coding.js';

describe('codingFor', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['gzip, deflate, br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br;q=0', undefined],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0.5, gzip;q=1', 'gzip'],
    ['br;q=1, gzip;q=1', 'br'],
    ['*', 'br'],
    ['*;q=0, gzip', 'gzip'],
    ['br;q=0, *', 'gzip'],
    ['BR', 'br'],
    ['gzip ; q = 0.8 , br ; q=0.9', 'br'],
    ['br;q=2', undefined],
    ['br;q=1.0001', undefined],
    ['br;q=abc, gzip;q=-1', undefined],
    [';;;,,,;q=1', undefined],
    [`${'x, '.repeat(400)}br`, undefined],
    [['gzip', 'br;q=0'], 'gzip'],
  ] as const)('%j → %s', (header, coding) => {
    expect(codingFor(header as string | string[] | undefined)).toBe(coding);
  });
});

describe('Encoded', () => {
  const page = Buffer.from('<li>a photo</li>'.repeat(200));
  it('gives each coding its bytes and its own tag, and a small body as it is', () => {
    const e = new Encoded(page, 'cached');
    expect(brotliDecompressSync(e.for('br').body).equals(page)).toBe(true);
    expect(gunzipSync(e.for('gzip').body).equals(page)).toBe(true);
    expect(e.for('br').body).toBe(e.for('gzip, br').body);
    expect(new Set([e.etag(undefined), e.etag('br'), e.etag('gzip')]).size).toBe(3);
    const small = new Encoded(Buffer.alloc(MIN_COMPRESSED_BYTES - 1, 'a'), 'fresh');
    expect(small.for('br').coding).toBeUndefined();
  });

  it('matches If-None-Match weakly, in a list, or *', () => {
    expect(matchesEtag('"a", W/"b"', '"b"')).toBe(true);
    expect(matchesEtag('*', '"b"')).toBe(true);
    expect(matchesEtag('"b-br"', '"b"')).toBe(false);
  });
});

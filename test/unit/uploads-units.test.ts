// The pure parts of the upload machinery: policies, names, types, locations, STORAGE_URL.
import { describe, expect, it } from 'vitest';
import { sanitizeFileName } from '../../src/uploads/file-names.js';
import { normalizeDeclaredType } from '../../src/uploads/sniff.js';
import { chooseLocation } from '../../src/uploads/locations.js';
import { parseS3Url } from '../../src/file-storage/factory.js';
import { isSafeKey, newOriginalKey } from '../../src/file-storage/object-keys.js';
import { signPolicy, verifyPolicy } from '../../src/file-storage/policy.js';
import { SCAVENGE_EVERY_BYTES, ScavengePacer } from '../../src/file-storage/upload-gc.js';
import { constants, PerformanceObserver } from 'node:perf_hooks';

const secret = Buffer.from('0123456789abcdef0123456789abcdef');
const policy = { key: 'originals/x/y', expires: 2_000_000_000, minSize: 10, maxSize: 10, contentType: 'image/jpeg' };

describe('upload policy', () => {
  it('round-trips and refuses any change to document or signature', () => {
    const signed = signPolicy(policy, secret);
    expect(verifyPolicy(signed.policy, signed.signature, secret, 0)).toEqual(policy);
    const other = Buffer.from(JSON.stringify({ ...policy, maxSize: 11 })).toString('base64url');
    expect(() => verifyPolicy(other, signed.signature, secret, 0)).toThrow(/signature/);
    const flipped = (signed.signature[0] === 'a' ? 'b' : 'a') + signed.signature.slice(1);
    expect(() => verifyPolicy(signed.policy, flipped, secret, 0)).toThrow(/signature/);
    expect(() => verifyPolicy(signed.policy, signed.signature.slice(2), secret, 0)).toThrow(/signature/);
    expect(() => verifyPolicy(signed.policy, signed.signature, Buffer.from('other'), 0)).toThrow(/signature/);
  });

  it('refuses an expired policy', () => {
    const signed = signPolicy({ ...policy, expires: 1000 }, secret);
    expect(verifyPolicy(signed.policy, signed.signature, secret, 999_000).key).toBe(policy.key);
    expect(() => verifyPolicy(signed.policy, signed.signature, secret, 1_000_001)).toThrow(/expired/);
  });
});

describe('file names and types', () => {
  it('keeps the last path segment without quotes, backslashes or line breaks', () => {
    expect(sanitizeFileName('C:\\Users\\ann\\IMG "1".jpg')).toBe('IMG 1.jpg');
    expect(sanitizeFileName('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFileName('a\r\nb.png')).toBe('ab.png');
    expect(sanitizeFileName('..')).toBe('file');
    expect(sanitizeFileName('x'.repeat(300) + '.jpeg')).toMatch(/^x{250}\.jpeg$/);
  });

  it('normalises declared types, falls back to the extension, refuses non-media declarations', () => {
    expect(normalizeDeclaredType('image/JPG', 'a')).toEqual({ mimeType: 'image/jpeg', refused: false });
    expect(normalizeDeclaredType('application/octet-stream', 'a.NEF')).toEqual({ mimeType: 'image/x-nikon-nef', refused: false });
    expect(normalizeDeclaredType('', 'noext')).toEqual({ mimeType: 'application/octet-stream', refused: false });
    expect(normalizeDeclaredType('text/plain', 'a.txt').refused).toBe(true);
    expect(normalizeDeclaredType('text/plain', 'a.jpg')).toEqual({ mimeType: 'image/jpeg', refused: false });
    expect(normalizeDeclaredType('image/x-unknown-raw', 'a.xyz')).toEqual({ mimeType: 'image/x-unknown-raw', refused: false });
  });
});

describe('locations and keys', () => {
  it('takes the first location that did not fail, else the first', () => {
    expect(chooseLocation(['s3', 'local', 'local-raw'], [])).toBe('s3');
    expect(chooseLocation(['s3', 'local', 'local-raw'], ['S3 '])).toBe('local');
    expect(chooseLocation(['local', 'local-raw'], ['local'])).toBe('local-raw');
    expect(chooseLocation(['local'], ['local'])).toBe('local');
  });

  it('generates safe keys only', () => {
    const key = newOriginalKey('3F1E2D4C-0000-4000-8000-00000000ABCD');
    expect(key).toMatch(/^originals\/3f1e2d4c-0000-4000-8000-00000000abcd\/[0-9a-f]{32}$/);
    expect(isSafeKey(key)).toBe(true);
    for (const bad of ['../x', 'a//b', '/a', 'a/../b', 'a/./b', 'a\\b', '']) expect(isSafeKey(bad)).toBe(false);
    expect(() => newOriginalKey('../../x')).toThrow();
  });

  it('parses STORAGE_URL', () => {
    expect(parseS3Url('s3://photos/prod/originals?endpoint=http%3A%2F%2F127.0.0.1%3A9000&region=eu-west-3&forcePathStyle=true')).toEqual({
      bucket: 'photos',
      prefix: 'prod/originals',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-3',
      forcePathStyle: true,
      credentials: undefined,
    });
    expect(parseS3Url('s3://photos').forcePathStyle).toBe(false);
    expect(parseS3Url('s3://photos?endpoint=http://minio:9000').forcePathStyle).toBe(true);
    expect(() => parseS3Url('http://photos')).toThrow(/s3:/);
  });
});

describe('scavenges during uploads', () => {
  it('runs a minor GC once SCAVENGE_EVERY_BYTES have been received', async () => {
    const kinds: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) kinds.push((e as unknown as { detail: { kind: number } }).detail.kind);
    });
    observer.observe({ entryTypes: ['gc'] });
    const pacer = new ScavengePacer();
    pacer.received(SCAVENGE_EVERY_BYTES - 1);
    await new Promise((r) => setTimeout(r, 20));
    const before = kinds.filter((k) => k === constants.NODE_PERFORMANCE_GC_MINOR).length;
    pacer.received(1);
    await new Promise((r) => setTimeout(r, 20));
    observer.disconnect();
    expect(kinds.filter((k) => k === constants.NODE_PERFORMANCE_GC_MINOR).length).toBeGreaterThan(before);
  });
});

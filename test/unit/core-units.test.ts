import { describe, expect, it } from 'vitest';
import { loadConfig, parseDotEnv, parseRateLimit } from '../../src/config.js';
import { Params } from '../../src/http/params.js';
import { computeSignature, detectAlgorithm, parseTimestamp, signatureText } from '../../src/http/signing.js';
import { escapeXml, formatTimestamp, renderReply, storedTimestamp, xmlArray } from '../../src/http/xml.js';

describe('signing', () => {
  it('signs the five lines, each ending with a line feed', () => {
    expect(signatureText('GET', '/ping.xml', '', 's', 't')).toBe('GET\n/ping.xml\n\ns\nt\n');
    // Digests computed with sha1sum / md5sum over the same five lines.
    expect(computeSignature('GET', '/ping.xml', '', 's', 't')).toBe('d10f8e44f17142e3816b1add5edaf1962a9cbf22');
    expect(computeSignature('GET', '/ping.xml', '', 's', 't', 'md5')).toBe('f1a69400cc16baa17be304f0c713dd44');
    expect(detectAlgorithm('a'.repeat(40))).toBe('sha1');
    expect(detectAlgorithm('a'.repeat(32))).toBe('md5');
    expect(detectAlgorithm('z'.repeat(40))).toBeUndefined();
  });

  it('parses every timestamp form to the same instant', () => {
    const t = Date.UTC(2026, 10, 21, 13, 3, 7);
    expect(parseTimestamp('Sat, 21 Nov 2026 13:03:07 +0000')).toBe(t);
    expect(parseTimestamp('Sat, 21 Nov 2026 13:03:07 GMT')).toBe(t);
    expect(parseTimestamp('Sat, 21 Nov 2026 14:03:07 +0100')).toBe(t);
    expect(parseTimestamp('2026-11-21T14:03:07+01:00')).toBe(t);
    expect(parseTimestamp('2026-11-21T08:03:07-05:00')).toBe(t);
    expect(parseTimestamp('2026-11-21T13:03:07Z')).toBe(t);
    expect(parseTimestamp('2026-11-21T13:03:07')).toBe(t);
    expect(parseTimestamp('2026-11-21T13:03:07.000Z')).toBe(t);
    expect(parseTimestamp('20261121T130307Z')).toBe(t);
    expect(parseTimestamp(String(t / 1000))).toBe(t);
    expect(parseTimestamp('2026-13-21T13:03:07Z')).toBeUndefined();
    expect(parseTimestamp('soon')).toBeUndefined();
  });
});

describe('params', () => {
  it('treats a[]=x and a=x alike and decodes every character', () => {
    const p = Params.parse('media%5Bpublish%5Fto%5Fgalleries%5D%5B%5D=A&media[publish_to_galleries][]=B&x=caf%C3%A9+au+lait');
    expect(p.list('media[publish_to_galleries]')).toEqual(['A', 'B']);
    expect(Params.parse('media[publish_to_galleries]=A').list('media[publish_to_galleries]')).toEqual(['A']);
    expect(p.str('x')).toBe('café au lait');
  });

  it('keeps a lone percent sign, refuses invalid UTF-8', () => {
    expect(Params.parse('t=100%').str('t')).toBe('100%');
    expect(() => Params.parse('t=%FF')).toThrow(/percent-encoded UTF-8/);
  });

  it('validates integers and flags', () => {
    const p = Params.parse('a=12&b=x&c=1&d=2');
    expect(p.int('a', { max: 20 })).toBe(12);
    expect(() => p.int('b')).toThrow(/integer/);
    expect(p.flag('c')).toBe(true);
    expect(() => p.flag('d')).toThrow(/0 or 1/);
  });
});

describe('xml', () => {
  it('escapes text and drops characters XML cannot carry', () => {
    expect(escapeXml(`a&b<c>"d"'e`)).toBe('a&amp;b&lt;c&gt;&quot;d&quot;&apos;e');
    expect(escapeXml('bell\u0007')).toBe('bell');
    expect(escapeXml('a\r\nb')).toBe('a&#13;\nb');
  });

  it('renders dashed elements, arrays, integers, booleans and nil', () => {
    const xml = renderReply({ gallery: { 'url-path': 'a', 'medias-count': 3, hidden: false, description: null }, ids: xmlArray('id', ['x', 'y']) });
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<reply><gallery><url-path>a</url-path><medias-count type="integer">3</medias-count><hidden>false</hidden><description nil="true"/></gallery><ids type="array"><id>x</id><id>y</id></ids></reply>\n',
    );
  });
});

describe('config', () => {
  it('reads RATE_LIMIT and .env files', () => {
    expect(parseRateLimit('60/60s')).toEqual({ points: 60, windowSeconds: 60 });
    expect(parseRateLimit('100/2m')).toEqual({ points: 100, windowSeconds: 120 });
    expect(parseRateLimit('off')).toBeNull();
    expect(() => parseRateLimit('lots')).toThrow(/RATE_LIMIT/);
    expect(parseDotEnv('# c\nPORT=9000\nexport HOST="0.0.0.0"\nX=1 # note')).toEqual({ PORT: '9000', HOST: '0.0.0.0', X: '1' });
  });

  it('reads REDIS_PREFIX, mps: by default, and refuses what would not name a key plainly', () => {
    expect(loadConfig({}).redisPrefix).toBe('mps:');
    expect(loadConfig({ REDIS_PREFIX: 'studio-a:' }).redisPrefix).toBe('studio-a:');
    expect(() => loadConfig({ REDIS_PREFIX: 'a b' })).toThrow(/REDIS_PREFIX/);
    expect(() => loadConfig({ REDIS_PREFIX: 'x'.repeat(65) })).toThrow(/REDIS_PREFIX/);
  });
});

describe('session cookie', () => {
  it('finds _ficelle_session among other cookies, and only as a whole name', async () => {
    const { readSessionCookie } = await import('../../src/users/sessions.js');
    const token = 'A'.repeat(43);
    expect(readSessionCookie(`_ficelle_session=${token}`)).toBe(token);
    expect(readSessionCookie(`a=1; _ficelle_session=${token}; b=2`)).toBe(token);
    expect(readSessionCookie(`x_ficelle_session=${'B'.repeat(43)}; _ficelle_session=${token}`)).toBe(token);
    expect(readSessionCookie(`x_ficelle_session=${token}`)).toBeUndefined();
    expect(readSessionCookie('_ficelle_session=short')).toBeUndefined();
    expect(readSessionCookie(undefined)).toBeUndefined();
  });
});

describe('stored timestamps', () => {
  it('are written exactly as a Date of the same instant is', () => {
    for (const stored of ['2026-11-23T06:35:01.123Z', '2026-01-02T03:04:05Z', '1999-12-31T23:59:59.999Z', '2026-11-23T06:35:01.5+01:00']) {
      expect(storedTimestamp(stored)).toBe(formatTimestamp(new Date(stored)));
    }
  });
});

import { describe, expect, it } from 'vitest';
import { mediasProxyUuid } from '../../src/galleries/proxy-uuid.js';
import { baseUrlPath, childFullUrlPath, slugify, uniqueUrlPath } from '../../src/galleries/url-path.js';

describe('gallery url paths', () => {
  it('lower-cases, transliterates and joins words with dashes', () => {
    expect(slugify('Été à Kraków')).toBe('ete-a-krakow');
    expect(slugify('Großstadt Æsir Øre Œuvre Łódź Đakovo Þing')).toBe('grossstadt-aesir-ore-oeuvre-lodz-dakovo-thing');
    expect(slugify('  "Quotes" \\ back\nslash  ')).toBe('quotes-back-slash');
    expect(slugify('日本')).toBe('');
    expect(baseUrlPath(undefined, '日本')).toBe('gallery');
    expect(baseUrlPath('!!!', 'From name')).toBe('from-name');
    expect(baseUrlPath('Given', 'From name')).toBe('given');
  });

  it('never exceeds 100 characters, suffix included, and never ends with a dash', () => {
    const base = slugify('word '.repeat(60));
    expect(base.length).toBeLessThanOrEqual(100);
    expect(base.endsWith('-')).toBe(false);
    const taken = new Set([base]);
    for (let i = 0; i < 12; i++) taken.add(uniqueUrlPath(base, taken));
    for (const p of taken) expect(p.length).toBeLessThanOrEqual(100);
    expect(taken.size).toBe(13);
    expect(uniqueUrlPath('a', new Set(['a', 'a-2']))).toBe('a-3');
  });

  it('joins full url paths below the root', () => {
    expect(childFullUrlPath('', 'a')).toBe('a');
    expect(childFullUrlPath('a/b', 'c')).toBe('a/b/c');
  });

  it('derives a stable version 5 proxy UUID distinct from the gallery UUID', () => {
    const g = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';
    const p = mediasProxyUuid(g);
    expect(p).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(p).not.toBe(g);
    expect(mediasProxyUuid(g.toUpperCase())).toBe(p);
  });
});

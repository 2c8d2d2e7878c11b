// filter[name] of the sub-galleries listing is a plain case-insensitive
// substring: `_`, `%` and `\` match themselves only, on both databases.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, parseXml, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { create, startWorld, type GalleryWorld } from './galleries-fixtures.js';

eachDatabase((kind) => {
  let w: GalleryWorld;
  let parent: string;
  const NAMES = ['A_B', 'ab', 'axb', '100%', '1000', 'back\\slash', 'backslash', 'a%_\\z'];
  beforeAll(async () => {
    w = await startWorld(kind);
    parent = await create(w, 'Wildcards');
    for (const name of NAMES) await create(w, name, parent);
  });
  afterAll(() => w?.svc.close());

  /** Names of the sub-galleries the filter keeps, with the query string sent exactly as given. */
  async function filtered(encodedFilter: string): Promise<string[]> {
    const res = await w.svc.raw(w.app, 'GET', `/websites/${w.urlname}/galleries/${parent}/subgalleries.xml?filter%5Bname%5D=${encodedFilter}`, {
      headers: { authorization: `Basic ${Buffer.from(`${w.user.email}:${w.user.password}`).toString('base64')}` },
    });
    expect(res.status).toBe(200);
    // The root, the gallery, then its children.
    return all(parseXml(await res.text()), 'galleries/gallery')
      .slice(2)
      .map((g) => text(g, 'name')!);
  }

  it('matches _ , % and \\ literally', async () => {
    expect(await filtered('_')).toEqual(['A_B', 'a%_\\z']);
    expect(await filtered('a_b')).toEqual(['A_B']);
    expect(await filtered('%25')).toEqual(['100%', 'a%_\\z']);
    expect(await filtered('%')).toEqual(['100%', 'a%_\\z']); // a lone % stays a %
    expect(await filtered('0%25')).toEqual(['100%']);
    expect(await filtered('%5C')).toEqual(['back\\slash', 'a%_\\z']);
    expect(await filtered('k%5Cs')).toEqual(['back\\slash']);
    expect(await filtered('%25_%5C')).toEqual(['a%_\\z']);
    // An ordinary substring, case-insensitive.
    expect(await filtered('AB')).toEqual(['ab']);
    expect(await filtered('slash')).toEqual(['back\\slash', 'backslash']);
  });

  it('pages and counts only what the filter keeps', async () => {
    const res = await w.client.request('GET', `/websites/${w.urlname}/galleries/${parent}/subgalleries.xml`, { 'filter[name]': '_', page: 1, per_page: 1 });
    expect(all(res.doc, 'galleries/gallery').slice(2).map((g) => text(g, 'name'))).toEqual(['A_B']);
    expect(text(res.doc, 'total-pages')).toBe('2');
  });
});

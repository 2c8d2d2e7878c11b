// The rules of favourites on or off and of named lists (src/lightboxes/lists.ts): the default by
// kind of gallery, and list names as sent, bounded, refused at the field they came in.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { bracketNames } from '../../src/core/fields.js';
import { favouritesOn, listNamesOf, readListNames } from '../../src/lightboxes/lists.js';

const at = { key: 'favouriteLists', name: 'gallery[favourite_lists]', mode: 'update' as const, naming: bracketNames('gallery', {}) };
const refusal = (v: string) => {
  try {
    readListNames(v, at);
  } catch (e) {
    return e instanceof ApiError ? { status: e.status, field: e.field, message: e.message } : e;
  }
  return undefined;
};

describe('favourites on or off', () => {
  it('follows the setting, else on in client galleries only', () => {
    expect([favouritesOn(null, true), favouritesOn(null, false)]).toEqual([true, false]);
    expect([favouritesOn('on', false), favouritesOn('off', true)]).toEqual([true, false]);
  });
});

describe('named lists', () => {
  it('reads names one a line or comma-separated, trimmed; blank is none', () => {
    expect(readListNames(' Album \r\n\nPrints,  Retouch  me ', at)).toEqual(['Album', 'Prints', 'Retouch me']);
    expect(readListNames(' \n ', at)).toBeNull();
    expect(readListNames(undefined, at)).toBeUndefined();
    expect(listNamesOf('Album\nPrints')).toEqual(['Album', 'Prints']);
    expect(listNamesOf(null)).toEqual([]);
  });

  it('refuses more than 10, longer than 40, twice, or control characters: 422 at the field', () => {
    for (const bad of [Array.from({ length: 11 }, (_, i) => `n${i}`).join('\n'), 'é'.repeat(41), 'Album\nALBUM', 'A\u0000b']) {
      expect(refusal(bad)).toMatchObject({ status: 422, field: 'favouriteLists', message: expect.stringContaining('gallery[favourite_lists]') });
    }
    expect(readListNames(Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(40, 'é')).join('\n'), at)).toHaveLength(10);
  });
});

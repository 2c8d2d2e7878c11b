// Smart collections' rules (docs/media-groups.md): how a request's rules are
// read and refused (src/groups/rules.ts), how a stored set is read back
// (smart-rules.ts), and what the compiled condition (smart-repository.ts)
// selects, run on the real SQLite of buildCore. The HTTP-level contract
// (replies, counts, listings, both databases, PostgreSQL's
// standard_conforming_strings=off) stays in test/api/groups-smart.test.ts and
// groups-smart-patterns.test.ts.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_RULES, rulesInput } from '../../src/groups/rules.js';
import { rulesCondition } from '../../src/groups/smart-repository.js';
import { parseStoredRules, type SmartRules } from '../../src/groups/smart-rules.js';
import { ApiError } from '../../src/core/errors.js';
import { Params } from '../../src/http/params.js';
import { nowIso } from '../../src/database/db.js';
import { withCore } from '../support/core.js';

type Rule = [field: string, operator: string, value?: string];
const PREFIX = 'medias_smart_collection';
const reader = rulesInput(PREFIX);

function paramsOf(rules: Rule[], match?: string): Params {
  const p = new Params();
  if (match !== undefined) p.add(`${PREFIX}[rules][match]`, match);
  rules.forEach(([field, operator, value], i) => {
    p.add(`${PREFIX}[rules][${i}][field]`, field);
    p.add(`${PREFIX}[rules][${i}][operator]`, operator);
    if (value !== undefined) p.add(`${PREFIX}[rules][${i}][value]`, value);
  });
  return p;
}
const read = (rules: Rule[], match?: string) => reader.read(paramsOf(rules, match), undefined);

/** The 422 a reading is refused with. */
function refusedWith(rules: Rule[], match?: string): { status: number; code: string; message: string } {
  try {
    read(rules, match);
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, code: err.code, message: err.message };
    throw err;
  }
  throw new Error(`rules ${JSON.stringify(rules)} were accepted`);
}

describe('reading rules from a request', () => {
  it('declares its parameter names, and reads no rules as none', () => {
    expect(reader.names).toEqual([`${PREFIX}[rules][match]`, `${PREFIX}[rules][*][field]`, `${PREFIX}[rules][*][operator]`, `${PREFIX}[rules][*][value]`]);
    expect(read([])).toBeUndefined();
  });

  it('refuses each wrong part with a 422 naming the parameter', () => {
    const cases: Array<[Rule[], string, string?]> = [
      [[['colour', 'is', 'red']], `${PREFIX}[rules][0][field] must be one of keyword, rating, shot_at, file_type, mime_type, gallery, file_name, title, got "colour"`],
      // Only the model's own fields: nothing every object has.
      [[['__proto__', 'is', 'x']], `${PREFIX}[rules][0][field] must be one of`],
      [[['constructor', 'is', 'x']], `${PREFIX}[rules][0][field] must be one of`],
      [[['rating', 'contains', '4']], `${PREFIX}[rules][0][operator] for rating must be one of eq, ne, gt, gte, lt, lte, got "contains"`],
      [[['rating', 'gte', '9']], `${PREFIX}[rules][0][value] must be an integer from 0 to 5`],
      [[['rating', 'gte', '4.5']], `${PREFIX}[rules][0][value] must be an integer from 0 to 5`],
      [[['shot_at', 'before', 'last week']], `${PREFIX}[rules][0][value]`],
      [[['file_type', 'is', 'audio']], `${PREFIX}[rules][0][value] must be one of image, video, document`],
      [[['keyword', 'is']], `${PREFIX}[rules][0][value] is required for keyword is`],
      [[['title', 'contains', 'x'.repeat(1001)]], `${PREFIX}[rules][0][value] is longer than 1000 characters`],
      [[], `${PREFIX}[rules][match] must be all or any, got "some"`, 'some'],
    ];
    for (const [rules, message, match] of cases) {
      const refused = refusedWith(rules, match);
      expect(refused.status, message).toBe(422);
      expect(refused.code).toBe('invalid_parameter');
      expect(refused.message).toContain(message);
    }
  });

  it(`takes at most ${MAX_RULES} rules`, () => {
    const rules = Array.from({ length: MAX_RULES }, (): Rule => ['rating', 'gte', '1']);
    expect(read(rules)!.rules.rules).toHaveLength(MAX_RULES);
    expect(refusedWith([...rules, ['rating', 'gte', '1']]).message).toBe(`${PREFIX}[rules]: at most ${MAX_RULES} rules`);
  });

  it('keeps rules in the order of their numbers, trims, and stores what it reads in one form', () => {
    const p = new Params();
    for (const [n, field, operator, value] of [
      ['10', 'rating', 'gte', ' 3 '],
      ['2', ' gallery ', 'in', 'ABCDEF00-0000-4000-8000-000000000000'],
      ['1', 'title', 'is_set', 'ignored'],
    ]) {
      p.add(`${PREFIX}[rules][${n}][field]`, field);
      p.add(`${PREFIX}[rules][${n}][operator]`, operator);
      p.add(`${PREFIX}[rules][${n}][value]`, value);
    }
    p.add(`${PREFIX}[rules][match]`, ' any ');
    const got = reader.read(p, undefined)!;
    expect(got.rules).toEqual({
      match: 'any',
      rules: [
        // No value for an operator that takes none, whatever was sent.
        { field: 'title', operator: 'is_set', value: '' },
        // Gallery UUIDs lower-cased; the service checks they are the user's.
        { field: 'gallery', operator: 'in', value: 'abcdef00-0000-4000-8000-000000000000' },
        { field: 'rating', operator: 'gte', value: '3' },
      ],
    });
    expect(got.galleries).toEqual([{ uuid: 'abcdef00-0000-4000-8000-000000000000', param: `${PREFIX}[rules][2][value]` }]);
    // Capture times are stored as UTC instants, whatever form they came in.
    expect(read([['shot_at', 'on_or_after', '2024-07-01T22:00:00+02:00']])!.rules.rules[0].value).toBe('2024-07-01T20:00:00.000Z');
  });

  it('reads a stored set back, and anything unreadable as no rules (every media)', () => {
    const stored: SmartRules = { match: 'any', rules: [{ field: 'rating', operator: 'eq', value: '5' }] };
    expect(parseStoredRules(JSON.stringify(stored))).toEqual(stored);
    for (const broken of [null, '', '{', '[]', '{"match":"some","rules":"x"}']) expect(parseStoredRules(broken)).toEqual({ match: 'all', rules: [] });
  });
});

describe('what the compiled rules select', () => {
  const w = withCore();
  let names: Record<number, string>;
  let ownerId: number;
  let galleryUuid: string;

  /** The seeded medias the rules select, by name, sorted. */
  async function selected(rules: Rule[], match: 'all' | 'any' = 'all'): Promise<string[]> {
    const compiled = read(rules, match)?.rules ?? parseStoredRules(null);
    const rows = await w.core.store.db.selectFrom('medias as m').select('m.id').where('m.owner_id', '=', ownerId).where(rulesCondition(compiled)).execute();
    return rows.map((r) => names[r.id]).sort();
  }

  // Five medias of one user, two of them in the root gallery of a website of theirs.
  beforeAll(async () => {
    const owner = await w.user('owner');
    ownerId = owner.id;
    const artistId = await w.core.access.defaultArtist(owner);
    const site = await w.core.websites.create(owner, { urlname: 'smart-rules' });
    galleryUuid = site.rootGalleryUuid;
    const db = w.core.store.db;
    const now = nowIso();
    const seed: Array<{ name: string; file_name: string; mime_type: string | null; title?: string; artist_rating?: number; shot_at?: string; keywords?: string[] }> = [
      { name: 'sunset', file_name: 'sunset_beach.jpg', mime_type: 'image/jpeg', title: 'Sunset at the beach', artist_rating: 5, shot_at: '2024-07-01T20:00:00.000Z', keywords: ['Beach', 'sunset'] },
      { name: 'forest', file_name: 'forest.JPG', mime_type: 'image/jpeg', title: 'Forest', artist_rating: 3, shot_at: '2023-01-10T08:00:00.000Z', keywords: ['forest', 'green'] },
      { name: 'clip', file_name: 'clip.mp4', mime_type: 'video/mp4', artist_rating: 4, shot_at: '2024-07-01T09:00:00.000Z', keywords: ['beach'] },
      { name: 'doc', file_name: '100%_contract.pdf', mime_type: 'application/pdf' },
      { name: 'unrated', file_name: 'unrated.png', mime_type: 'image/png', title: 'Sunset again' },
    ];
    names = {};
    for (const m of seed) {
      const { id } = await db
        .insertInto('medias')
        .values({ uuid: randomUUID(), owner_id: owner.id, artist_id: artistId, status: 'live', file_name: m.file_name, file_size: 1000, mime_type: m.mime_type, storage_key: null, title: m.title ?? null, artist_rating: m.artist_rating ?? null, shot_at: m.shot_at ?? null, width: 40, height: 30, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      names[id] = m.name;
      for (const [i, keyword] of (m.keywords ?? []).entries()) await db.insertInto('media_keywords').values({ media_id: id, position: i + 1, keyword }).execute();
    }
    const gallery = await db.selectFrom('galleries').select('id').where('uuid', '=', galleryUuid).executeTakeFirstOrThrow();
    for (const [id, name] of Object.entries(names)) {
      if (name === 'forest' || name === 'clip') await db.insertInto('media_galleries').values({ gallery_id: gallery.id, media_id: Number(id), position: 1, published_at: now }).execute();
    }
  });

  it('selects every media of the user when there are no rules', async () => {
    expect(await selected([])).toEqual(['clip', 'doc', 'forest', 'sunset', 'unrated']);
  });

  it('evaluates each field and operator', async () => {
    expect(await selected([['keyword', 'is', 'BEACH']])).toEqual(['clip', 'sunset']);
    expect(await selected([['keyword', 'is_not', 'beach']])).toEqual(['doc', 'forest', 'unrated']);
    expect(await selected([['keyword', 'contains', 'ree']])).toEqual(['forest']);
    expect(await selected([['rating', 'gte', '4']])).toEqual(['clip', 'sunset']);
    expect(await selected([['rating', 'lt', '4']])).toEqual(['doc', 'forest', 'unrated']);
    expect(await selected([['rating', 'ne', '5']])).toEqual(['clip', 'doc', 'forest', 'unrated']);
    // Unrated medias count as 0 stars.
    expect(await selected([['rating', 'eq', '0']])).toEqual(['doc', 'unrated']);
    expect(await selected([['shot_at', 'on_or_after', '2024-01-01']])).toEqual(['clip', 'sunset']);
    expect(await selected([['shot_at', 'before', '2024-01-01']])).toEqual(['forest']);
    expect(await selected([['shot_at', 'on', '2024-07-01']])).toEqual(['clip', 'sunset']);
    expect(await selected([['shot_at', 'is_set']])).toEqual(['clip', 'forest', 'sunset']);
    expect(await selected([['shot_at', 'is_not_set']])).toEqual(['doc', 'unrated']);
    expect(await selected([['file_type', 'is', 'image']])).toEqual(['forest', 'sunset', 'unrated']);
    expect(await selected([['file_type', 'is', 'video']])).toEqual(['clip']);
    expect(await selected([['file_type', 'is', 'document']])).toEqual(['doc']);
    expect(await selected([['file_type', 'is_not', 'image']])).toEqual(['clip', 'doc']);
    expect(await selected([['mime_type', 'starts_with', 'IMAGE/']])).toEqual(['forest', 'sunset', 'unrated']);
    expect(await selected([['mime_type', 'is', 'image/png']])).toEqual(['unrated']);
    expect(await selected([['mime_type', 'is_not', 'image/jpeg']])).toEqual(['clip', 'doc', 'unrated']);
    expect(await selected([['gallery', 'in', galleryUuid]])).toEqual(['clip', 'forest']);
    expect(await selected([['gallery', 'not_in', galleryUuid.toUpperCase()]])).toEqual(['doc', 'sunset', 'unrated']);
    expect(await selected([['file_name', 'is', 'FOREST.jpg']])).toEqual(['forest']);
    expect(await selected([['file_name', 'ends_with', '.jpg']])).toEqual(['forest', 'sunset']);
    expect(await selected([['title', 'starts_with', 'sunset']])).toEqual(['sunset', 'unrated']);
    expect(await selected([['title', 'is_not_set']])).toEqual(['clip', 'doc']);
  });

  it('matches LIKE wildcards and its escape character literally', async () => {
    expect(await selected([['file_name', 'contains', '_']])).toEqual(['doc', 'sunset']);
    expect(await selected([['file_name', 'contains', '%']])).toEqual(['doc']);
    expect(await selected([['file_name', 'starts_with', '100%_']])).toEqual(['doc']);
    expect(await selected([['file_name', 'contains', '!']])).toEqual([]);
    expect(await selected([['keyword', 'contains', '%']])).toEqual([]);
  });

  it('combines rules with match=all and match=any', async () => {
    expect(await selected([['keyword', 'is', 'beach'], ['file_type', 'is', 'image']], 'all')).toEqual(['sunset']);
    expect(await selected([['keyword', 'is', 'forest'], ['file_type', 'is', 'video']], 'any')).toEqual(['clip', 'forest']);
    expect(await selected([['rating', 'gt', '5'], ['title', 'is', 'nothing']], 'any')).toEqual([]);
  });
});

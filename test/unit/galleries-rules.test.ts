// The rules of galleries that need no database (docs/galleries.md): the tree's
// limits, the reading of a create's or update's attributes and access list,
// and the order of a gallery's medias. The HTTP-level contract of each (the
// 422 replies, nothing changed after a refusal, both databases) stays in
// test/api/galleries-limits.test.ts, galleries-tree.test.ts,
// galleries-acl.test.ts, galleries-attributes.test.ts and galleries-medias.test.ts.
import { describe, expect, it } from 'vitest';
import { readAcl } from '../../src/galleries/acl.js';
import { sortByContentOrder, type OrderableMedia } from '../../src/galleries/content-order.js';
import { galleryInput } from '../../src/galleries/input.js';
import { checkDepth, checkFullUrlPathLength, levelOf, MAX_FULL_URL_PATH_LENGTH, MAX_GALLERIES_PER_WEBSITE, MAX_GALLERY_DEPTH } from '../../src/galleries/limits.js';
import { ApiError } from '../../src/core/errors.js';
import { Params } from '../../src/http/params.js';

const ROOT = '0b7c6e1e-1111-4222-8333-944455556666';
const params = (pairs: Record<string, string>) => {
  const p = new Params();
  for (const [k, v] of Object.entries(pairs)) p.add(k, v);
  return p;
};
/** What `fn` was refused with: status, code and message. */
function refusal(fn: () => unknown): { status: number; code: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, code: err.code, message: err.message };
    throw err;
  }
  throw new Error('accepted');
}

describe('tree limits', () => {
  it('documents 32 levels, 1000 characters and 20 000 galleries', () => {
    expect([MAX_GALLERY_DEPTH, MAX_FULL_URL_PATH_LENGTH, MAX_GALLERIES_PER_WEBSITE]).toEqual([32, 1000, 20_000]);
  });

  it('counts levels below the root by the segments of the full url path', () => {
    expect(levelOf('')).toBe(0);
    expect(levelOf('a')).toBe(1);
    expect(levelOf('a/b/c')).toBe(3);
  });

  it('allows 32 levels, refuses the 33rd naming the parent, and lets a deeper tree only come back up', () => {
    expect(() => checkDepth(32, ROOT)).not.toThrow();
    expect(refusal(() => checkDepth(33, ROOT))).toEqual({
      status: 422,
      code: 'invalid_parameter',
      message: `gallery[parent]: under gallery ${ROOT} a gallery would be 33 levels below the root; galleries may be at most 32 levels deep`,
    });
    // A tree stored before the limits: 40 levels may become 39, never 41, and staying at 40 is no change.
    expect(() => checkDepth(39, ROOT, 40)).not.toThrow();
    expect(() => checkDepth(40, ROOT, 40)).not.toThrow();
    expect(refusal(() => checkDepth(41, ROOT, 40)).status).toBe(422);
  });

  it('allows 1000-character full url paths, refuses longer ones naming the attribute, and lets a longer one only shrink', () => {
    expect(() => checkFullUrlPathLength(1000, 'gallery[url_path]')).not.toThrow();
    expect(refusal(() => checkFullUrlPathLength(1001, 'gallery[url_path]'))).toEqual({
      status: 422,
      code: 'invalid_parameter',
      message: 'gallery[url_path]: a full-url-path would be 1001 characters long; it may be at most 1000 characters long',
    });
    expect(() => checkFullUrlPathLength(1100, 'gallery[name]', 1200)).not.toThrow();
    expect(refusal(() => checkFullUrlPathLength(1201, 'gallery[name]', 1200)).message).toMatch(/^gallery\[name\]: /);
  });
});

describe('gallery attributes as a request gives them', () => {
  const create = (pairs: Record<string, string>) => galleryInput('create').read(params(pairs), undefined);
  const update = (pairs: Record<string, string>) => galleryInput('update').read(params(pairs), undefined);

  it('needs a name and a parent on create, and reads them trimmed and lower-cased', () => {
    expect(refusal(() => create({ 'gallery[parent]': ROOT }))).toEqual({ status: 422, code: 'missing_parameter', message: 'parameter gallery[name] is required' });
    expect(refusal(() => create({ 'gallery[name]': '  ' , 'gallery[parent]': ROOT })).code).toBe('missing_parameter');
    expect(refusal(() => create({ 'gallery[name]': 'A' })).message).toBe('parameter gallery[parent] is required');
    expect(create({ 'gallery[name]': ' Summer ', 'gallery[parent]': ROOT.toUpperCase() })).toMatchObject({ name: 'Summer', parent: ROOT });
  });

  it('refuses a blank name on update, control characters, and values outside their choices', () => {
    expect(refusal(() => update({ 'gallery[name]': ' ' })).message).toBe('gallery[name] cannot be blank');
    expect(refusal(() => update({ 'gallery[name]': 'a\u0007b' })).message).toBe('gallery[name] must not contain control characters');
    expect(refusal(() => update({ 'gallery[name]': 'x'.repeat(256) })).message).toBe('gallery[name] must be at most 255 characters long');
    expect(refusal(() => update({ 'gallery[parent]': 'nope' })).message).toBe('gallery[parent] must be a UUID, got "nope"');
    expect(refusal(() => update({ 'gallery[content_order]': 'random' })).message).toMatch(/^gallery\[content_order\] must be one of manual-first, manual-last, file_name, /);
    expect(refusal(() => update({ 'gallery[content_order_direction]': 'up' })).message).toBe('gallery[content_order_direction] must be one of asc, desc, got "up"');
    expect(refusal(() => update({ 'gallery[indexing]': '3' })).status).toBe(422);
    expect(refusal(() => update({ 'gallery[hidden]': 'yes' })).message).toBe('parameter gallery[hidden] must be 0 or 1, got "yes"');
    expect(update({ 'gallery[hidden]': 'true', 'gallery[indexing]': '2', 'gallery[description]': '  ', 'gallery[password]': '' })).toMatchObject({
      hidden: true,
      indexing: 2,
      description: null,
      password: null,
    });
  });

  it('takes some attributes only on create and the medias order only on update, without duplicates', () => {
    expect(refusal(() => update({ 'gallery[order_subgalleries]': '1' })).message).toBe('gallery[order_subgalleries] can only be set when the gallery is created');
    expect(refusal(() => update({ 'gallery[acl][0][email]': 'DEFAULT' })).message).toBe('gallery[acl] can only be given when the gallery is created');
    expect(refusal(() => create({ 'gallery[name]': 'A', 'gallery[parent]': ROOT, 'gallery[medias_order]': ROOT })).message).toMatch(/^gallery\[medias_order\] is accepted on update only/);
    const a = '00000000-0000-4000-8000-00000000000a';
    expect(update({ 'gallery[medias_order]': `${ROOT},${a.toUpperCase()}` }).mediasOrder).toEqual([ROOT, a]);
    expect(refusal(() => update({ 'gallery[medias_order]': `${a},${a.toUpperCase()}` })).message).toBe(`gallery[medias_order] lists media ${a.toUpperCase()} twice`);
    expect(refusal(() => update({ 'gallery[medias_order]': 'x' })).message).toBe('gallery[medias_order] must list media UUIDs, got "x"');
  });
});

describe('access lists', () => {
  it('reads the DEFAULT entry and client entries in the order of their numbers, addresses lower-cased', () => {
    const acl = readAcl(
      params({
        'gallery[acl][0][email]': 'default',
        'gallery[acl][0][read]': '0',
        'gallery[acl][10][email]': 'Late@Example.com',
        'gallery[acl][2][email]': 'client@example.com',
        'gallery[acl][2][hires_download]': '1',
      }),
    );
    expect(acl).toEqual([
      { position: 0, email: 'DEFAULT', read: false, compDownload: false, hiresDownload: false },
      { position: 2, email: 'client@example.com', read: true, compDownload: false, hiresDownload: true },
      { position: 10, email: 'late@example.com', read: true, compDownload: false, hiresDownload: false },
    ]);
    expect(readAcl(params({ 'gallery[name]': 'x' }))).toBeUndefined();
  });

  it('refuses an access list without its DEFAULT entry first, a bad number, a bad or repeated address', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'gallery[acl][1][email]': 'a@example.com' }, 'gallery[acl][0] must be the DEFAULT entry and come first'],
      [{ 'gallery[acl][0][email]': 'someone@example.com' }, 'gallery[acl][0][email] must be the word DEFAULT'],
      [{ 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][x][email]': 'a@example.com' }, 'gallery[acl][x]: the entry number must be 0 (DEFAULT) or a client entry id (1, 2, 3…)'],
      [{ 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][1][read]': '1' }, 'gallery[acl][1][email] is required'],
      [{ 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][1][email]': 'a"b@example.com' }, 'gallery[acl][1][email] must be an e-mail address, got "a\\"b@example.com"'],
      [{ 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][1][email]': 'a@example.com', 'gallery[acl][2][email]': 'A@example.com' }, 'gallery[acl][2][email]: a@example.com appears twice in the access list'],
      [{ 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][0][read]': 'maybe' }, 'parameter gallery[acl][0][read] must be 0 or 1, got "maybe"'],
    ];
    for (const [pairs, message] of cases) expect(refusal(() => readAcl(params(pairs)))).toEqual({ status: 422, code: 'invalid_parameter', message });
  });

  it('holds at most 1000 entries', () => {
    const pairs: Record<string, string> = { 'gallery[acl][0][email]': 'DEFAULT' };
    for (let i = 1; i <= 1000; i++) pairs[`gallery[acl][${i}][email]`] = `c${i}@example.com`;
    expect(refusal(() => readAcl(params(pairs))).message).toBe('gallery[acl] may hold at most 1000 entries');
    delete pairs['gallery[acl][1000][email]'];
    expect(readAcl(params(pairs))).toHaveLength(1000);
  });
});

describe('the order of a gallery\'s medias', () => {
  let id = 0;
  const media = (over: Partial<OrderableMedia>): OrderableMedia => ({
    media_id: ++id,
    uuid: `m${id}`,
    position: id,
    file_name: `f${id}.jpg`,
    mg_published_at: '2026-01-01T00:00:00.000Z',
    shot_at: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    artist_rating: null,
    ...over,
  });
  const order = (rows: OrderableMedia[], by: string, direction = 'asc') => sortByContentOrder([...rows], by, direction).map((r) => r.file_name);

  it('sorts names case-blind, or naturally with file_name_nat', () => {
    const rows = [media({ file_name: 'img10.jpg' }), media({ file_name: 'IMG2.jpg' }), media({ file_name: 'img1.jpg' })];
    expect(order(rows, 'file_name')).toEqual(['img1.jpg', 'img10.jpg', 'IMG2.jpg']);
    expect(order(rows, 'file_name_nat')).toEqual(['img1.jpg', 'IMG2.jpg', 'img10.jpg']);
    expect(order(rows, 'file_name_nat', 'desc')).toEqual(['img10.jpg', 'IMG2.jpg', 'img1.jpg']);
  });

  it('puts medias without the value last in either direction, and breaks ties by the manual order', () => {
    const rows = [
      media({ file_name: 'none-a', position: 2 }),
      media({ file_name: 'old', shot_at: '2020-01-01T00:00:00.000Z' }),
      media({ file_name: 'none-b', position: 1 }),
      media({ file_name: 'new', shot_at: '2025-01-01T00:00:00.000Z' }),
    ];
    expect(order(rows, 'shot_at')).toEqual(['old', 'new', 'none-b', 'none-a']);
    expect(order(rows, 'shot_at', 'desc')).toEqual(['new', 'old', 'none-b', 'none-a']);
    const rated = [media({ file_name: 'three', artist_rating: 3 }), media({ file_name: 'unrated' }), media({ file_name: 'five', artist_rating: 5 })];
    expect(order(rated, 'artist_rating', 'desc')).toEqual(['five', 'three', 'unrated']);
  });

  it('orders by position for the manual orders, reversed with desc, and by publication for anything unknown', () => {
    const rows = [media({ file_name: 'b', position: 2, mg_published_at: '2026-01-01T00:00:00.000Z' }), media({ file_name: 'a', position: 1, mg_published_at: '2026-02-01T00:00:00.000Z' })];
    expect(order(rows, 'manual-first')).toEqual(['a', 'b']);
    expect(order(rows, 'manual-last', 'desc')).toEqual(['b', 'a']);
    expect(order(rows, 'published_at')).toEqual(['b', 'a']);
    expect(order(rows, 'no-such-order')).toEqual(['b', 'a']);
  });
});

// The field-spec mechanism (src/core/fields.ts): one declaration read by every face, with the
// face's names in the messages and the spec key in err.field. The API's whole contract stays in
// test/api/galleries-*.test.ts; here, the gallery spec read as the API, a form, JSON and the CLI.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { bracketNames, flag, int, namesOf, objectSource, oneOf, optionNames, plainNames, readFields, text, uuid, uuidList, yesNo } from '../../src/core/fields.js';
import { GALLERY_API, GALLERY_FIELDS, readGallery, type GalleryInput } from '../../src/galleries/fields.js';
import { checkDepth, checkFullUrlPathLength } from '../../src/galleries/limits.js';
import { paramsSource } from '../../src/http/input.js';
import { Params } from '../../src/http/params.js';

const ROOT = '0b7c6e1e-1111-4222-8333-944455556666';

/** What `fn` was refused with, the field included. */
function refusal(fn: () => unknown): { code: string; message: string; field: string | undefined } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, message: err.message, field: err.field };
    throw err;
  }
  throw new Error('accepted');
}

const params = (pairs: Array<[string, string]>) => {
  const p = new Params();
  for (const [k, v] of pairs) p.add(k, v);
  return p;
};

describe('the gallery spec', () => {
  it('generates the API whitelist the router had by hand', () => {
    expect(namesOf(GALLERY_FIELDS, GALLERY_API).sort()).toEqual(
      [
        'gallery[name]',
        'gallery[parent]',
        'gallery[url_path]',
        'gallery[description]',
        'gallery[display_style]',
        'gallery[cover_media]',
        'gallery[public_cover_media]',
        'gallery[hidden]',
        'gallery[indexing]',
        'gallery[pick_limit]',
        'gallery[favourites]',
        'gallery[favourite_lists]',
        'gallery[expires_at]',
        'gallery[download_pin]',
        'gallery[download_limit]',
        'gallery[download_size]',
        'gallery[password]',
        'gallery[content_order]',
        'gallery[content_order_direction]',
        'gallery[order_subgalleries]',
        'gallery[medias_order]',
        'gallery[position]',
        'gallery[acl][*][email]',
        'gallery[acl][*][read]',
        'gallery[acl][*][comp_download]',
        'gallery[acl][*][hires_download]',
      ].sort(),
    );
  });

  it('gives the same typed input to the API, a form, a JSON body and the CLI', () => {
    const api = readGallery(
      paramsSource(params([['gallery[name]', ' Summer '], ['gallery[parent]', ROOT.toUpperCase()], ['gallery[hidden]', '1'], ['gallery[indexing]', '2'], ['gallery[description]', ' ']]), GALLERY_API),
      'create',
    );
    const expected: GalleryInput = { name: 'Summer', parent: ROOT, hidden: true, indexing: 2, description: null };
    expect(api).toEqual(expected);
    const form = { name: ' Summer ', parent: ROOT.toUpperCase(), hidden: '1', indexing: '2', description: ' ' };
    expect(readGallery((k) => (form as Record<string, string>)[plainNames(GALLERY_FIELDS)(k)], 'create', plainNames(GALLERY_FIELDS))).toEqual(expected);
    expect(readGallery(objectSource({ name: ' Summer ', parent: ROOT.toUpperCase(), hidden: true, indexing: 2, description: ' ' }), 'create', plainNames(GALLERY_FIELDS))).toEqual(expected);
    const options: Record<string, string> = { '--name': ' Summer ', '--parent': ROOT.toUpperCase(), '--hidden': '1', '--indexing': '2', '--description': ' ' };
    expect(readGallery((k) => options[optionNames(GALLERY_FIELDS)(k)], 'create', optionNames(GALLERY_FIELDS))).toEqual(expected);
  });

  it('words each refusal with the face\'s name and carries the spec key', () => {
    const long = 'x'.repeat(256);
    expect(refusal(() => readGallery(paramsSource(params([['gallery[name]', long]]), GALLERY_API), 'update'))).toEqual({
      code: 'invalid_parameter',
      message: 'gallery[name] must be at most 255 characters long',
      field: 'name',
    });
    expect(refusal(() => readGallery({ value: (k) => (k === 'name' ? long : undefined) }, 'update', optionNames(GALLERY_FIELDS)))).toEqual({
      code: 'invalid_parameter',
      message: '--name must be at most 255 characters long',
      field: 'name',
    });
    expect(refusal(() => readGallery(() => undefined, 'create'))).toEqual({ code: 'missing_parameter', message: 'parameter gallery[name] is required', field: 'name' });
  });

  it('carries the field of every kind of refusal, mode rules and nested entries included', () => {
    const update = (pairs: Array<[string, string]>) => refusal(() => readGallery(paramsSource(params(pairs), GALLERY_API), 'update'));
    const create = (pairs: Array<[string, string]>) => refusal(() => readGallery(paramsSource(params([['gallery[name]', 'A'], ['gallery[parent]', ROOT], ...pairs]), GALLERY_API), 'create'));
    expect(update([['gallery[name]', ' ']])).toMatchObject({ field: 'name', message: 'gallery[name] cannot be blank' });
    expect(update([['gallery[name]', 'a\x01b']])).toMatchObject({ field: 'name', message: 'gallery[name] must not contain control characters' });
    expect(update([['gallery[cover_media]', 'nope']])).toMatchObject({ field: 'coverMedia', message: 'gallery[cover_media] must be a UUID, got "nope"' });
    expect(update([['gallery[hidden]', 'maybe']])).toMatchObject({ field: 'hidden', message: 'parameter gallery[hidden] must be 0 or 1, got "maybe"' });
    expect(update([['gallery[pick_limit]', '0']])).toMatchObject({ field: 'pickLimit', message: 'parameter gallery[pick_limit] must be at least 1' });
    expect(update([['gallery[indexing]', '3']])).toMatchObject({ field: 'indexing', message: 'gallery[indexing] must be one of 0, 1, 2, got "3"' });
    expect(update([['gallery[position]', '1001']])).toMatchObject({ field: 'position', message: 'gallery[position] must be a whole number from 1 to 1000, got "1001"' });
    expect(update([['gallery[medias_order]', `${ROOT},${ROOT.toUpperCase()}`]])).toMatchObject({ field: 'mediasOrder', message: `gallery[medias_order] lists media ${ROOT.toUpperCase()} twice` });
    expect(update([['gallery[order_subgalleries]', '1']])).toMatchObject({ field: 'orderSubgalleries', message: 'gallery[order_subgalleries] can only be set when the gallery is created' });
    expect(update([['gallery[acl][0][email]', 'DEFAULT']])).toMatchObject({ field: 'acl', message: 'gallery[acl] can only be given when the gallery is created' });
    expect(create([['gallery[position]', '2']])).toMatchObject({ field: 'position', message: 'gallery[position] is accepted on update only' });
    expect(create([['gallery[acl][1][email]', 'a@b.c']])).toMatchObject({ field: 'acl', message: 'gallery[acl][0] must be the DEFAULT entry and come first' });
    expect(create([['gallery[acl][0][email]', 'DEFAULT'], ['gallery[acl][1][email]', 'x']])).toMatchObject({ field: 'acl', message: 'gallery[acl][1][email] must be an e-mail address, got "x"' });
  });

  it('names the field of the domain\'s own refusals too', () => {
    expect(refusal(() => checkFullUrlPathLength(1001, 'gallery[url_path]'))).toMatchObject({ field: 'urlPath' });
    expect(refusal(() => checkDepth(33, ROOT))).toMatchObject({ field: 'parent' });
  });

  it('reads an access list from JSON entries like the API reads its numbered parameters', () => {
    const input = readGallery(objectSource({ name: 'A', parent: ROOT, acl: [{ email: 'DEFAULT', read: false }, { email: ' Ann@Example.com ', hires_download: true }] }), 'create', plainNames(GALLERY_FIELDS));
    expect(input.acl).toEqual([
      { position: 0, email: 'DEFAULT', read: false, compDownload: false, hiresDownload: false },
      { position: 1, email: 'ann@example.com', read: true, compDownload: false, hiresDownload: true },
    ]);
  });
});

describe('the kinds of field', () => {
  const spec = {
    title: text({ max: 5, trim: true, blank: 'null' }),
    ref: uuid({ required: 'always' }),
    on: flag(),
    answer: yesNo(),
    count: int({ min: 0, max: 9 }),
    look: oneOf(['a', 'b'] as const, { lower: true, blank: 'absent', got: false }),
    ids: uuidList({ max: 2, what: 'item' }),
  };
  const read = (values: Record<string, string | string[]>) => readFields(spec, objectSource(values), bracketNames('x', spec));

  it('normalises: trim, blank means null, UUID lower-cased, 0/1 and yes/no, words lower-cased, lists split and capped', () => {
    const out = read({ title: ' ab ', ref: ROOT.toUpperCase(), on: 'true', answer: 'Yes', count: '7', look: ' B ', ids: [`${ROOT},`] });
    expect(out).toEqual({ title: 'ab', ref: ROOT, on: true, answer: true, count: 7, look: 'b', ids: [ROOT] });
    // The inferred type: a compile-time check as much as a runtime one.
    const typed: { title?: string | null; ref?: string | null; count?: number; look?: 'a' | 'b'; ids?: string[] } = out;
    expect(typed.title).toBe('ab');
    expect(read({ title: '  ', ref: ROOT, answer: '', look: '' })).toEqual({ title: null, ref: ROOT });
  });

  it('refuses with the name and the key', () => {
    expect(refusal(() => read({}))).toEqual({ code: 'missing_parameter', message: 'parameter x[ref] is required', field: 'ref' });
    expect(refusal(() => read({ ref: ROOT, title: '123456' }))).toMatchObject({ field: 'title', message: 'x[title] must be at most 5 characters long' });
    expect(refusal(() => read({ ref: ROOT, answer: 'perhaps' }))).toMatchObject({ field: 'answer', message: 'x[answer] must be yes or no' });
    expect(refusal(() => read({ ref: ROOT, count: '10' }))).toMatchObject({ field: 'count', message: 'parameter x[count] must be at most 9' });
    expect(refusal(() => read({ ref: ROOT, look: 'c' }))).toMatchObject({ field: 'look', message: 'x[look] must be one of a, b' });
    expect(refusal(() => read({ ref: ROOT, ids: ['a', 'b', 'c'] }))).toMatchObject({ field: 'ids', message: 'parameter x[ids] takes at most 2 values, got 3' });
  });
});

describe('the other resources\' specs', () => {
  const api = <S extends Parameters<typeof readFields>[0]>(spec: S, naming: (k: string) => string, pairs: Array<[string, string]>, mode: 'create' | 'update' = 'update') =>
    refusal(() => readFields(spec, paramsSource(params(pairs), naming), naming, mode));

  it('media: the API names, the field of each refusal, both coordinates named', async () => {
    const { MEDIA_FIELDS, MEDIAS_BATCH_FIELDS } = await import('../../src/media/metadata.js');
    const media = bracketNames('media', MEDIA_FIELDS);
    expect(api(MEDIA_FIELDS, media, [['media[title]', 'x'.repeat(1001)]])).toMatchObject({ field: 'title', message: 'media[title] is longer than 1000 characters' });
    expect(api(MEDIA_FIELDS, media, [['media[longitude]', '3']])).toMatchObject({ field: 'latitude', message: 'media[latitude] must be sent with media[longitude]' });
    expect(api(MEDIA_FIELDS, media, [['media[latitude]', '1'], ['media[longitude]', '181']])).toMatchObject({ field: 'longitude', message: 'media[longitude] must be decimal degrees from -180 to 180, got "181"' });
    expect(api(MEDIA_FIELDS, media, [['media[date_created]', 'soon']])).toMatchObject({ field: 'dateCreated', message: 'media[date_created]: not an ISO 8601 date or time: "soon"' });
    const medias = bracketNames('medias', MEDIAS_BATCH_FIELDS);
    expect(api(MEDIAS_BATCH_FIELDS, medias, [['medias[delete]', 'yes']])).toMatchObject({ field: 'delete', message: 'medias[delete] must be 1 to delete the medias, got "yes"' });
    expect(namesOf(MEDIAS_BATCH_FIELDS, medias)).not.toContain('medias[author]');
  });

  it('brand, pages, display styles and watermarks: the API\'s and the options\' wording', async () => {
    const { BRAND_API, BRAND_FIELDS, PAGE_API, PAGE_FIELDS } = await import('../../src/websites/brand.js');
    const { DISPLAY_STYLE_FIELDS } = await import('../../src/websites/display-style-input.js');
    const { WATERMARK_LOOK_FIELDS } = await import('../../src/artists/watermark-input.js');
    expect(api(BRAND_FIELDS, BRAND_API, [['website[accent_color]', 'teal']])).toMatchObject({ field: 'accentColor', message: 'website[accent_color] must be a colour written #rrggbb' });
    expect(api(BRAND_FIELDS, BRAND_API, [['website[social_links]', 'ftp://x.example']])).toMatchObject({ field: 'socialLinks' });
    expect(api(PAGE_FIELDS, PAGE_API, [['page[title]', ' ']])).toMatchObject({ field: 'title', message: 'page[title] may not be blank' });
    const cli = (spec: Parameters<typeof readFields>[0], values: Record<string, string>) =>
      refusal(() => readFields(spec, (k) => values[optionNames(spec)(k)], optionNames(spec)));
    expect(cli(DISPLAY_STYLE_FIELDS, { '--spacing': 'huge' })).toMatchObject({ field: 'spacing', message: '--spacing must be one of none, tight, normal, wide' });
    expect(cli(WATERMARK_LOOK_FIELDS, { '--strength': '101' })).toMatchObject({ field: 'strength', message: '--strength must be a whole number from 0 to 100' });
    expect(readFields(WATERMARK_LOOK_FIELDS, objectSource({ strength: '40', position: 'TOP', tile: 'yes' }), plainNames(WATERMARK_LOOK_FIELDS))).toEqual({ strength: 40, position: 'top', tile: true });
  });

  it('groups, lightboxes, pricing profiles: nested rules, required states, mode rules', async () => {
    const { GROUP_API, GROUP_CREATE_FIELDS } = await import('../../src/groups/fields.js');
    const { LIGHTBOX_API, LIGHTBOX_STATE_FIELDS } = await import('../../src/lightboxes/service.js');
    const { PRICING_PROFILE_API, PRICING_PROFILE_FIELDS } = await import('../../src/pricing-profiles/input.js');
    expect(api(GROUP_CREATE_FIELDS, GROUP_API, [['medias_smart_collection[rules][0][field]', 'colour']])).toMatchObject({ field: 'rules', message: expect.stringMatching(/^medias_smart_collection\[rules\]\[0\]\[field\] must be one of /) });
    expect(api(GROUP_CREATE_FIELDS, GROUP_API, [['medias_smart_collection[rules][match]', 'some']])).toMatchObject({ field: 'rulesMatch', message: 'medias_smart_collection[rules][match] must be all or any, got "some"' });
    expect(namesOf(GROUP_CREATE_FIELDS, GROUP_API)).toEqual(expect.arrayContaining(['artist_id', 'medias_smart_collection[rules][match]', 'medias_smart_collection[rules][*][value]']));
    expect(api(LIGHTBOX_STATE_FIELDS, LIGHTBOX_API, [])).toMatchObject({ code: 'missing_parameter', field: 'state', message: 'parameter lightbox[state] is required' });
    expect(api(PRICING_PROFILE_FIELDS, PRICING_PROFILE_API, [['pricing_profile[name]', 'A']], 'create')).toMatchObject({ code: 'missing_parameter', field: 'kind' });
    expect(api(PRICING_PROFILE_FIELDS, PRICING_PROFILE_API, [['pricing_profile[name]', ' ']])).toMatchObject({ field: 'name', message: 'pricing_profile[name] cannot be blank' });
  });
});

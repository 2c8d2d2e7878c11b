// Smart collections: rules read from medias_smart_collection[rules][...],
// validated, and evaluated at read time (counts and listings): a page kept in
// memory (src/media/list-memo.ts) is never older than the last write.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, int, text } from '../../src/client/xml.js';
import type { Params } from '../../src/client/params.js';
import { eachDatabase } from '../support/service.js';
import { createGallery, failure, insertMedias, startMediaWorld, updateMedia, uuidsOf, waitForJob, worldOn, type MediaWorld } from '../support/media.js';

type Rule = [field: string, operator: string, value?: string];

function ruleParams(rules: Rule[], match?: 'all' | 'any'): Params {
  const p: Params = {};
  if (match) p['medias_smart_collection[rules][match]'] = match;
  rules.forEach(([field, operator, value], i) => {
    p[`medias_smart_collection[rules][${i}][field]`] = field;
    p[`medias_smart_collection[rules][${i}][operator]`] = operator;
    if (value !== undefined) p[`medias_smart_collection[rules][${i}][value]`] = value;
  });
  return p;
}

eachDatabase((kind) => {
  let w: MediaWorld;
  let m: Record<string, string>;
  let gallery: string;
  beforeAll(async () => {
    w = await startMediaWorld(kind);
    const [sunset, forest, clip, doc, unrated] = await insertMedias(w.svc.db, w.user, [
      { file_name: 'sunset_beach.jpg', title: 'Sunset at the beach', artist_rating: 5, shot_at: '2024-07-01T20:00:00.000Z', keywords: ['Beach', 'sunset'] },
      { file_name: 'forest.JPG', title: 'Forest', artist_rating: 3, shot_at: '2023-01-10T08:00:00.000Z', keywords: ['forest', 'green'] },
      { file_name: 'clip.mp4', mime_type: 'video/mp4', artist_rating: 4, shot_at: '2024-07-01T09:00:00.000Z', keywords: ['beach'] },
      { file_name: 'contract.pdf', mime_type: 'application/pdf' },
      { file_name: 'unrated.png', mime_type: 'image/png', title: 'Sunset again' },
    ]);
    m = { sunset, forest, clip, doc, unrated };
    gallery = await createGallery(w, 'Best');
    await updateMedia(w.client, forest, { 'media[publish_to_galleries]': [gallery] });
    await updateMedia(w.client, clip, { 'media[publish_to_galleries]': [gallery] });
  });
  afterAll(() => w?.svc.close());

  async function smart(rules: Rule[], match?: 'all' | 'any'): Promise<string> {
    const res = await w.client.request('POST', '/medias_groups.xml', { 'medias_smart_collection[name]': 'S', ...ruleParams(rules, match) });
    return text(res.doc, 'medias-smart-collection-uuid')!;
  }
  async function members(rules: Rule[], match?: 'all' | 'any'): Promise<string[]> {
    const uuid = await smart(rules, match);
    const listed = uuidsOf(await w.client.request('GET', '/medias.xml', { medias_group_id: uuid }));
    const one = await w.client.request('GET', `/medias_groups/${uuid}.xml`);
    expect(int(one.doc, 'medias-group/medias-count')).toBe(listed.length);
    return listed;
  }
  const names = (uuids: string[]) => uuids.map((u) => Object.keys(m).find((k) => m[k] === u)).sort();

  it('evaluates each field and operator', async () => {
    expect(names(await members([['keyword', 'is', 'BEACH']]))).toEqual(['clip', 'sunset']);
    expect(names(await members([['keyword', 'is_not', 'beach']]))).toEqual(['doc', 'forest', 'unrated']);
    expect(names(await members([['keyword', 'contains', 'ree']]))).toEqual(['forest']);
    expect(names(await members([['rating', 'gte', '4']]))).toEqual(['clip', 'sunset']);
    expect(names(await members([['rating', 'eq', '0']]))).toEqual(['doc', 'unrated']);
    expect(names(await members([['shot_at', 'on_or_after', '2024-01-01']]))).toEqual(['clip', 'sunset']);
    expect(names(await members([['shot_at', 'before', '2024-01-01']]))).toEqual(['forest']);
    expect(names(await members([['shot_at', 'on', '2024-07-01']]))).toEqual(['clip', 'sunset']);
    expect(names(await members([['shot_at', 'is_not_set']]))).toEqual(['doc', 'unrated']);
    expect(names(await members([['file_type', 'is', 'video']]))).toEqual(['clip']);
    expect(names(await members([['file_type', 'is', 'document']]))).toEqual(['doc']);
    expect(names(await members([['mime_type', 'starts_with', 'image/']]))).toEqual(['forest', 'sunset', 'unrated']);
    expect(names(await members([['mime_type', 'is', 'image/png']]))).toEqual(['unrated']);
    expect(names(await members([['gallery', 'in', gallery]]))).toEqual(['clip', 'forest']);
    expect(names(await members([['gallery', 'not_in', gallery]]))).toEqual(['doc', 'sunset', 'unrated']);
    expect(names(await members([['file_name', 'ends_with', '.jpg']]))).toEqual(['forest', 'sunset']);
    expect(names(await members([['file_name', 'contains', '_']]))).toEqual(['sunset']);
    expect(names(await members([['title', 'starts_with', 'sunset']]))).toEqual(['sunset', 'unrated']);
    expect(names(await members([['title', 'is_not_set']]))).toEqual(['clip', 'doc']);
  });

  it('combines rules with match=all and match=any; no rules match everything', async () => {
    expect(names(await members([['keyword', 'is', 'beach'], ['file_type', 'is', 'image']], 'all'))).toEqual(['sunset']);
    expect(names(await members([['keyword', 'is', 'forest'], ['file_type', 'is', 'video']], 'any'))).toEqual(['clip', 'forest']);
    expect(names(await members([]))).toEqual(['clip', 'doc', 'forest', 'sunset', 'unrated']);
  });

  it('is evaluated at read time: later changes move medias in and out', async () => {
    const uuid = await smart([['keyword', 'is', 'portfolio']]);
    expect(uuidsOf(await w.client.request('GET', '/medias.xml', { medias_group_id: uuid }))).toEqual([]);
    await updateMedia(w.client, m.doc, { 'media[add_keywords]': 'Portfolio' });
    expect(uuidsOf(await w.client.request('GET', '/medias.xml', { medias_group_id: uuid }))).toEqual([m.doc]);
    await updateMedia(w.client, m.doc, { 'media[remove_keywords]': 'portfolio' });
    expect(uuidsOf(await w.client.request('GET', '/medias.xml', { medias_group_id: uuid }))).toEqual([]);
  });

  it('shows the stored rules and replaces them on PUT', async () => {
    const uuid = await smart([['rating', 'gte', '5']], 'any');
    const res = await w.client.request('GET', `/medias_groups/${uuid}.xml`);
    expect(text(res.doc, 'medias-group/match')).toBe('any');
    expect(all(res.doc, 'medias-group/rules/rule').map((r) => [text(r, 'field'), text(r, 'operator'), text(r, 'value')])).toEqual([['rating', 'gte', '5']]);
    await w.client.request('PUT', `/medias_groups/${uuid}.xml`, { 'medias_smart_collection[name]': 'Videos', ...ruleParams([['file_type', 'is', 'video']]) });
    expect(uuidsOf(await w.client.request('GET', '/medias.xml', { medias_group_id: uuid }))).toEqual([m.clip]);
  });

  it('validates rules with a 422 naming the parameter', async () => {
    const cases: Array<[Rule[], string]> = [
      [[['colour', 'is', 'red']], 'medias_smart_collection[rules][0][field]'],
      [[['rating', 'contains', '4']], 'medias_smart_collection[rules][0][operator]'],
      [[['rating', 'gte', '9']], 'medias_smart_collection[rules][0][value]'],
      [[['shot_at', 'before', 'last week']], 'medias_smart_collection[rules][0][value]'],
      [[['file_type', 'is', 'audio']], 'medias_smart_collection[rules][0][value]'],
      [[['gallery', 'in', '00000000-0000-4000-8000-000000000000']], 'medias_smart_collection[rules][0][value]'],
      [[['keyword', 'is']], 'medias_smart_collection[rules][0][value]'],
    ];
    for (const [rules, param] of cases) {
      const bad = await failure(w.client.request('POST', '/medias_groups.xml', { 'medias_smart_collection[name]': 'Bad', ...ruleParams(rules) }));
      expect(bad.status).toBe(422);
      expect(bad.message).toContain(param);
    }
    const match = await failure(w.client.request('POST', '/medias_groups.xml', { 'medias_smart_collection[name]': 'Bad', 'medias_smart_collection[rules][match]': 'some' }));
    expect(match.status).toBe(422);
    expect((await failure(w.client.request('POST', '/medias_groups.xml', { 'medias_collection[name]': 'C', ...ruleParams([['rating', 'gte', '1']]) }))).status).toBe(422);
  });

  it('cannot take medias into a smart collection by hand', async () => {
    const uuid = await smart([]);
    const bad = await failure(updateMedia(w.client, m.sunset, { 'media[add_to_medias_collections]': [uuid] }));
    expect(bad.status).toBe(422);
  });
  it('reads back every write at once: pages, totals and counts are never older than the last write', async () => {
    // A user of their own: the medias here must not enter the other tests' collections.
    const v = await worldOn(w.svc);
    const ms = await insertMedias(w.svc.db, v.user, [
      { title: 'Sunset', artist_rating: 5, keywords: ['portfolio'] },
      { title: 'Forest', artist_rating: 1 },
      { title: 'Lake', artist_rating: 2, keywords: ['lake'] },
      { file_name: 'clip.mp4', mime_type: 'video/mp4', artist_rating: 4 },
      { title: 'Sunrise', artist_rating: 0, shot_at: '2024-07-01T09:00:00.000Z' },
      { title: 'Dunes' },
      { title: 'Snow', artist_rating: 3 },
    ]);
    const g = (await v.client.createGallery(v.urlname, { name: 'Picked', parent: v.rootUuid })).doc;
    const picked = text(g, 'gallery/uuid')!;
    const create = async (rules: Rule[]) => text((await v.client.request('POST', '/medias_groups.xml', { 'medias_smart_collection[name]': 'S', ...ruleParams(rules) })).doc, 'medias-smart-collection-uuid')!;
    const groups = {
      title: await create([['title', 'contains', 'sun']]),
      rating: await create([['rating', 'gte', '4']]),
      keyword: await create([['keyword', 'is', 'portfolio']]),
      gallery: await create([['gallery', 'in', picked]]),
      images: await create([['file_type', 'is', 'image']]),
      shot: await create([['shot_at', 'is_set']]),
      // A plain collection beside them: its count in the groups list is read from the same memo.
      collection: text((await v.client.request('POST', '/medias_groups.xml', { 'medias_collection[name]': 'C' })).doc, 'medias-collection-uuid')!,
    };
    type Name = keyof typeof groups;
    // What each collection must hold, as indexes into ms (id order): kept in step with each write below.
    const want: Record<Name, number[]> = { title: [0, 4], rating: [0, 3], keyword: [0], gallery: [], images: [0, 1, 2, 4, 5, 6], shot: [4], collection: [] };

    /** Every page at per_page 2, the totals, and the counts of the group and of the groups list, against `want`. */
    const check = async (after: string) => {
      const counts = new Map(
        all((await v.client.request('GET', '/medias_groups.xml', { view: 'details' })).doc, 'medias-groups/medias-group').map((r) => [text(r, 'uuid'), int(r, 'medias-count')]),
      );
      for (const name of Object.keys(groups) as Name[]) {
        const expected = want[name].map((i) => ms[i]);
        const pages = Math.max(1, Math.ceil(expected.length / 2));
        const seen: string[] = [];
        for (let page = 1; page <= pages + 1; page++) {
          const res = await v.client.request('GET', '/medias.xml', { medias_group_id: groups[name], per_page: 2, page });
          expect({ after, name, page, total: int(res.doc, 'total-count'), pages: int(res.doc, 'total-pages') }).toEqual({ after, name, page, total: expected.length, pages });
          seen.push(...uuidsOf(res));
        }
        const one = await v.client.request('GET', `/medias_groups/${groups[name]}.xml`);
        expect({ after, name, listed: seen, count: int(one.doc, 'medias-group/medias-count'), inList: counts.get(groups[name]) }).toEqual({
          after,
          name,
          listed: expected,
          count: expected.length,
          inList: expected.length,
        });
      }
    };
    const batch = async (params: Params) => {
      const res = await v.client.request('PUT', '/medias/batch_update.xml', params, { multipart: true, methodOverride: true });
      expect(text((await waitForJob(v.client, text(res.doc, 'location')!)).doc, 'job/state')).toBe('done');
    };

    await check('nothing yet');
    await updateMedia(v.client, ms[1], { 'media[title]': 'Sunny forest' });
    want.title = [0, 1, 4];
    await check('a title edited');
    await batch({ select: [ms[2], ms[6]].join(','), 'medias[artist_rating]': 4 });
    want.rating = [0, 2, 3, 6];
    await check('ratings set by a batch update');
    await updateMedia(v.client, ms[0], { 'media[artist_rating]': 2 });
    want.rating = [2, 3, 6];
    await check('a rating lowered');
    await batch({ select: [ms[3], ms[5]].join(','), 'medias[add_keywords]': 'Portfolio' });
    want.keyword = [0, 3, 5];
    await check('a keyword added by a batch update');
    await updateMedia(v.client, ms[0], { 'media[remove_keywords]': 'portfolio' });
    want.keyword = [3, 5];
    await check('a keyword removed from one media');
    await updateMedia(v.client, ms[1], { 'media[add_keywords]': 'portfolio' });
    want.keyword = [1, 3, 5];
    await check('a keyword added to one media');
    await batch({ select: [ms[3], ms[5]].join(','), 'medias[remove_keywords]': 'PORTFOLIO' });
    want.keyword = [1];
    await check('a keyword removed by a batch update');
    await updateMedia(v.client, ms[2], { 'media[publish_to_galleries]': [picked] });
    await updateMedia(v.client, ms[6], { 'media[publish_to_galleries]': [picked] });
    want.gallery = [2, 6];
    await check('published in a gallery');
    await updateMedia(v.client, ms[2], { 'media[unpublish_from_galleries]': [picked] });
    want.gallery = [6];
    await check('unpublished from the gallery');
    await batch({ select: [ms[4], ms[6]].join(','), 'medias[add_to_medias_collections]': [groups.collection] });
    want.collection = [4, 6];
    await check('added to a collection');
    await updateMedia(v.client, ms[5], { 'media[date_created]': '2023-05-01T10:00:00Z' });
    want.shot = [4, 5];
    await check('a capture time set');
    await v.client.request('DELETE', `/medias/${ms[4]}.xml`);
    for (const name of Object.keys(want) as Name[]) want[name] = want[name].filter((i) => i !== 4);
    await check('a media deleted');
    await batch({ select: ms[6], 'medias[delete]': 1 });
    for (const name of Object.keys(want) as Name[]) want[name] = want[name].filter((i) => i !== 6);
    await check('a media deleted by a batch update');
    await v.client.request('PUT', `/medias_groups/${groups.rating}.xml`, ruleParams([['rating', 'lte', '1']]));
    want.rating = [1, 5];
    await check('the rules changed');
    await v.client.request('PUT', `/medias_groups/${groups.rating}.xml`, ruleParams([['rating', 'lte', '1'], ['title', 'is_set']]));
    want.rating = [1, 5];
    await v.client.request('PUT', `/medias_groups/${groups.rating}.xml`, ruleParams([['rating', 'lte', '1'], ['title', 'is', 'dunes']], 'all'));
    want.rating = [5];
    await check('the rules changed twice in a row');
  });
});

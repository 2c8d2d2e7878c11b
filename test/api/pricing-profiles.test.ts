// Pricing profiles as price lists (issue 33; an API extension, docs/shop.md):
// create, read, list, replace and delete through the signed API; every bad
// value a 422 naming the field with nothing written; another user's profile a
// 404; the existing uses of bare profiles unchanged.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, find, int, isNil, text, type XmlNode } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { getMedia, insertMedias, updateMedia } from '../support/media.js';
import { failure, startWorld, worldOn, type World } from '../support/world.js';

type P = Record<string, string | number>;

const DOWNLOADS: P = {
  'pricing_profile[name]': 'Downloads',
  'pricing_profile[kind]': 'download',
  'pricing_profile[currency]': 'EUR',
  'pricing_profile[items][0][label]': 'Web',
  'pricing_profile[items][0][long_edge]': 1200,
  'pricing_profile[items][0][price]': 900,
  'pricing_profile[items][1][label]': 'Original file',
  'pricing_profile[items][1][long_edge]': '',
  'pricing_profile[items][1][price]': 4900,
};

const PRINTS: P = {
  'pricing_profile[name]': 'Fine art prints',
  'pricing_profile[kind]': 'print',
  'pricing_profile[currency]': 'GBP',
  'pricing_profile[minimum_price]': 2500,
  'pricing_profile[items][0][label]': 'Hahnemühle Photo Rag',
  'pricing_profile[items][0][price]': 10000,
  'pricing_profile[items][0][options][0][label]': 'A4',
  'pricing_profile[items][0][options][0][ratio]': 200,
  'pricing_profile[items][0][options][1][label]': 'A3',
  'pricing_profile[items][0][options][1][ratio]': 300,
  'pricing_profile[items][0][options][2][label]': 'Framed A3',
  'pricing_profile[items][0][options][2][price]': 29900,
};

const profile = (doc: XmlNode) => find(doc, 'pricing-profile')!;

eachDatabase((kind) => {
  let w: World;
  let other: World;
  const count = async (table: 'pricing_profiles' | 'pricing_profile_items' | 'pricing_profile_options') =>
    Number((await w.svc.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const counts = async () => [await count('pricing_profiles'), await count('pricing_profile_items'), await count('pricing_profile_options')];

  beforeAll(async () => {
    w = await startWorld(kind);
    other = await worldOn(w.svc);
  });
  afterAll(() => w?.svc.close());

  it('creates a download price list and replies <pricing-profile> with its uuid and items', async () => {
    const res = await w.client.request('POST', '/pricing_profiles.xml', DOWNLOADS);
    const p = profile(res.doc);
    const uuid = text(p, 'uuid')!;
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect([text(p, 'name'), text(p, 'kind'), text(p, 'currency')]).toEqual(['Downloads', 'download', 'EUR']);
    const items = all(p, 'items/item');
    expect(items.map((i) => [text(i, 'label'), int(i, 'long-edge') ?? null, int(i, 'price')])).toEqual([
      ['Web', 1200, 900],
      ['Original file', null, 4900],
    ]);
    expect(isNil(find(items[1], 'long-edge')!)).toBe(true);
    const read = profile((await w.client.request('GET', `/pricing_profiles/${uuid}.xml`)).doc);
    expect(all(read, 'items/item').map((i) => text(i, 'label'))).toEqual(['Web', 'Original file']);
  });

  it('creates a print price list: products with options by ratio or price, and a minimum price', async () => {
    const p = profile((await w.client.request('POST', '/pricing_profiles.xml', PRINTS)).doc);
    expect([text(p, 'kind'), text(p, 'currency'), int(p, 'minimum-price')]).toEqual(['print', 'GBP', 2500]);
    const [paper] = all(p, 'items/item');
    expect([text(paper, 'label'), int(paper, 'price')]).toEqual(['Hahnemühle Photo Rag', 10000]);
    // Each option shows what it is set to and what it costs (base × ratio / 200, half-up; never below the minimum).
    expect(all(paper, 'options/option').map((o) => [text(o, 'label'), int(o, 'ratio') ?? null, int(o, 'price') ?? null, int(o, 'unit-price')])).toEqual([
      ['A4', 200, null, 10000],
      ['A3', 300, null, 15000],
      ['Framed A3', null, 29900, 29900],
    ]);
  });

  it('lists the owner’s profiles (bare ones made by the admin command too), paged', async () => {
    const mine = await worldOn(w.svc);
    const bare = await w.svc.core.pricingProfiles.create(mine.user, 'Bare');
    await mine.client.request('POST', '/pricing_profiles.xml', DOWNLOADS);
    const list = (await mine.client.request('GET', '/pricing_profiles.xml')).doc;
    const rows = all(list, 'pricing-profiles/pricing-profile');
    expect(rows.map((r) => [text(r, 'name'), text(r, 'kind'), text(r, 'currency'), int(r, 'items-count')])).toEqual([
      ['Bare', 'download', 'EUR', 0],
      ['Downloads', 'download', 'EUR', 2],
    ]);
    expect(text(rows[0], 'uuid')).toBe(bare.uuid);
    const paged = (await mine.client.request('GET', '/pricing_profiles.xml', { page: 2, per_page: 1 })).doc;
    expect(all(paged, 'pricing-profiles/pricing-profile').map((r) => text(r, 'name'))).toEqual(['Downloads']);
    expect(int(paged, 'total-pages')).toBe(2);
  });

  it('replaces the name, the currency and the items with a PUT, and keeps the items when none are sent', async () => {
    const uuid = text(profile((await w.client.request('POST', '/pricing_profiles.xml', DOWNLOADS)).doc), 'uuid')!;
    let p = profile((await w.client.request('PUT', `/pricing_profiles/${uuid}.xml`, { 'pricing_profile[name]': 'Renamed', 'pricing_profile[currency]': 'CHF' })).doc);
    expect([text(p, 'name'), text(p, 'currency'), all(p, 'items/item').length]).toEqual(['Renamed', 'CHF', 2]);
    p = profile((await w.client.request('PUT', `/pricing_profiles/${uuid}.xml`, { 'pricing_profile[items][5][label]': 'Only', 'pricing_profile[items][5][price]': 100 })).doc);
    expect(all(p, 'items/item').map((i) => text(i, 'label'))).toEqual(['Only']);
    // A blank items parameter empties the list.
    p = profile((await w.client.request('PUT', `/pricing_profiles/${uuid}.xml`, { 'pricing_profile[items]': '' })).doc);
    expect(all(p, 'items/item')).toEqual([]);
  });

  it('turns a bare profile (admin command) into a print list with a PUT', async () => {
    const { uuid } = await w.svc.core.pricingProfiles.create(w.user, 'Bare');
    let p = profile((await w.client.request('PUT', `/pricing_profiles/${uuid}.xml`, { 'pricing_profile[kind]': 'print', 'pricing_profile[currency]': 'JPY' })).doc);
    expect([text(p, 'name'), text(p, 'kind'), text(p, 'currency'), all(p, 'items/item').length]).toEqual(['Bare', 'print', 'JPY', 0]);
    p = profile((await w.client.request('PUT', `/pricing_profiles/${uuid}.xml`, { 'pricing_profile[items][0][label]': 'Postcard', 'pricing_profile[items][0][price]': 500, 'pricing_profile[minimum_price]': 800 })).doc);
    expect([int(p, 'minimum-price'), all(p, 'items/item').map((i) => [text(i, 'label'), int(i, 'price'), int(i, 'unit-price')])]).toEqual([800, [['Postcard', 500, 800]]]);
  });

  it('deletes a profile, its items and its attachments to medias', async () => {
    const uuid = text(profile((await w.client.request('POST', '/pricing_profiles.xml', PRINTS)).doc), 'uuid')!;
    const before = await counts();
    await w.client.request('DELETE', `/pricing_profiles/${uuid}.xml`);
    expect(await counts()).toEqual([before[0] - 1, before[1] - 1, before[2] - 3]);
    expect((await failure(w.client.request('GET', `/pricing_profiles/${uuid}.xml`))).status).toBe(404);
  });

  it("answers 404 for another user's profile, whatever the method, and changes nothing", async () => {
    const theirs = text(profile((await other.client.request('POST', '/pricing_profiles.xml', DOWNLOADS)).doc), 'uuid')!;
    const before = await counts();
    expect((await failure(w.client.request('GET', `/pricing_profiles/${theirs}.xml`))).status).toBe(404);
    // A bad value too: the missing resource comes first.
    expect((await failure(w.client.request('PUT', `/pricing_profiles/${theirs}.xml`, { 'pricing_profile[name]': 'Mine' }))).status).toBe(404);
    expect((await failure(w.client.request('PUT', `/pricing_profiles/${theirs}.xml`, { 'pricing_profile[kind]': 'nope' }))).status).toBe(404);
    expect((await failure(w.client.request('DELETE', `/pricing_profiles/${theirs}.xml`))).status).toBe(404);
    expect((await failure(w.client.request('GET', '/pricing_profiles/not-a-uuid.xml'))).status).toBe(404);
    expect(await counts()).toEqual(before);
    const list = (await w.client.request('GET', '/pricing_profiles.xml')).doc;
    expect(all(list, 'pricing-profiles/pricing-profile').map((r) => text(r, 'uuid'))).not.toContain(theirs);
    expect(text(profile((await other.client.request('GET', `/pricing_profiles/${theirs}.xml`)).doc), 'name')).toBe('Downloads');
  });

  const tooMany: P = { ...DOWNLOADS };
  for (let i = 0; i < 101; i++) Object.assign(tooMany, { [`pricing_profile[items][${i}][label]`]: `S${i}`, [`pricing_profile[items][${i}][price]`]: 1 });
  const tooManyOptions: P = { ...PRINTS };
  for (let i = 0; i < 51; i++) Object.assign(tooManyOptions, { [`pricing_profile[items][0][options][${i}][label]`]: `O${i}`, [`pricing_profile[items][0][options][${i}][ratio]`]: 200 });
  const bad: Array<[string, P]> = [
    ['pricing_profile[name]', { ...DOWNLOADS, 'pricing_profile[name]': '' }],
    ['pricing_profile[kind]', { ...DOWNLOADS, 'pricing_profile[kind]': 'licence' }],
    ['pricing_profile[kind]', { 'pricing_profile[name]': 'No kind', 'pricing_profile[currency]': 'EUR' }],
    ['pricing_profile[currency]', { ...DOWNLOADS, 'pricing_profile[currency]': 'XBT' }],
    ['pricing_profile[currency]', { ...DOWNLOADS, 'pricing_profile[currency]': 'eur' }],
    ['pricing_profile[items][1][price]', { ...DOWNLOADS, 'pricing_profile[items][1][price]': -1 }],
    ['pricing_profile[items][1][price]', { ...DOWNLOADS, 'pricing_profile[items][1][price]': '49.00' }],
    ['pricing_profile[items][1][price]', { ...DOWNLOADS, 'pricing_profile[items][1][price]': '1e3' }],
    ['pricing_profile[items][1][price]', { ...DOWNLOADS, 'pricing_profile[items][1][price]': 1_000_000_001 }],
    ['pricing_profile[items][1][price]', { ...DOWNLOADS, 'pricing_profile[items][1][price]': '' }],
    ['pricing_profile[items][0][label]', { ...DOWNLOADS, 'pricing_profile[items][0][label]': ' ' }],
    ['pricing_profile[items][0][long_edge]', { ...DOWNLOADS, 'pricing_profile[items][0][long_edge]': 0 }],
    ['pricing_profile[items][0][long_edge]', { ...DOWNLOADS, 'pricing_profile[items][0][long_edge]': 'big' }],
    ['pricing_profile[items][x]', { ...DOWNLOADS, 'pricing_profile[items][x][label]': 'X' }],
    ['pricing_profile[items]', tooMany],
    ['pricing_profile[items][0][options]', { ...DOWNLOADS, 'pricing_profile[items][0][options][0][label]': 'A4', 'pricing_profile[items][0][options][0][ratio]': 200 }],
    ['pricing_profile[minimum_price]', { ...DOWNLOADS, 'pricing_profile[minimum_price]': 100 }],
    ['pricing_profile[minimum_price]', { ...PRINTS, 'pricing_profile[minimum_price]': -5 }],
    ['pricing_profile[items][0][long_edge]', { ...PRINTS, 'pricing_profile[items][0][long_edge]': 3000 }],
    ['pricing_profile[items][0][options][0]', { ...PRINTS, 'pricing_profile[items][0][options][0][price]': 100 }],
    ['pricing_profile[items][0][options][1]', { ...PRINTS, 'pricing_profile[items][0][options][1][ratio]': '' }],
    ['pricing_profile[items][0][options][0][ratio]', { ...PRINTS, 'pricing_profile[items][0][options][0][ratio]': '1.5' }],
    ['pricing_profile[items][0][options][0][ratio]', { ...PRINTS, 'pricing_profile[items][0][options][0][ratio]': 0 }],
    ['pricing_profile[items][0][options][2][price]', { ...PRINTS, 'pricing_profile[items][0][options][2][price]': -100 }],
    ['pricing_profile[items][0][options]', tooManyOptions],
  ];
  it.each(bad)('refuses a bad value (%s): 422 naming it, nothing created', async (field, params) => {
    const before = await counts();
    const f = await failure(w.client.request('POST', '/pricing_profiles.xml', params));
    expect(f.status).toBe(422);
    expect(f.message).toContain(field);
    expect(await counts()).toEqual(before);
  });

  it('refuses a parameter it does not know with a 400, before anything is written', async () => {
    const before = await counts();
    for (const extra of [{ 'pricing_profile[colour]': 'red' }, { 'pricing_profile[items][0][size]': '2' }, { 'pricing_profile[items][0][options][0][options][0][label]': 'x' }]) {
      expect((await failure(w.client.request('POST', '/pricing_profiles.xml', { ...DOWNLOADS, ...extra }))).status).toBe(400);
    }
    expect(await counts()).toEqual(before);
  });

  it('refuses a bad PUT with 422 and leaves the profile as it was', async () => {
    const uuid = text(profile((await w.client.request('POST', '/pricing_profiles.xml', PRINTS)).doc), 'uuid')!;
    const shown = async () => (await w.client.request('GET', `/pricing_profiles/${uuid}.xml`)).body;
    const before = await shown();
    for (const params of [
      { 'pricing_profile[name]': 'New', 'pricing_profile[items][0][label]': 'P', 'pricing_profile[items][0][price]': -1 },
      // A new kind must come with items of that kind: the print products are no download sizes.
      { 'pricing_profile[kind]': 'download' },
      { 'pricing_profile[name]': '' },
    ]) {
      expect((await failure(w.client.request('PUT', `/pricing_profiles/${uuid}.xml`, params))).status).toBe(422);
      expect(await shown()).toBe(before);
    }
    // With its items, a kind change is fine, and the print-only minimum price goes.
    const p = profile((await w.client.request('PUT', `/pricing_profiles/${uuid}.xml`, { 'pricing_profile[kind]': 'download', 'pricing_profile[items][0][label]': 'Web', 'pricing_profile[items][0][price]': 500 })).doc);
    expect([text(p, 'kind'), isNil(find(p, 'minimum-price')!)]).toEqual(['download', true]);
  });

  it('keeps attaching profiles to medias with add_pricing_profiles[] and remove_pricing_profiles[]', async () => {
    const uuid = text(profile((await w.client.request('POST', '/pricing_profiles.xml', DOWNLOADS)).doc), 'uuid')!;
    const [media] = await insertMedias(w.svc.db, w.user, 1);
    await updateMedia(w.client, media, { 'media[add_pricing_profiles]': [uuid] });
    expect(all((await getMedia(w.client, media)).doc, 'media/pricing-profiles/pricing-profile/uuid').map((n) => n.text)).toEqual([uuid]);
    await updateMedia(w.client, media, { 'media[remove_pricing_profiles]': [uuid] });
    expect(all((await getMedia(w.client, media)).doc, 'media/pricing-profiles/pricing-profile')).toEqual([]);
    await updateMedia(w.client, media, { 'media[add_pricing_profiles]': [uuid] });
    // Deleting the profile takes it off the media.
    await w.client.request('DELETE', `/pricing_profiles/${uuid}.xml`);
    expect(all((await getMedia(w.client, media)).doc, 'media/pricing-profiles/pricing-profile')).toEqual([]);
  });
});

// Who may use what (src/access/access.ts), decided on the services buildCore
// builds over a real SQLite: a thing a user may not see is refused exactly as
// one that does not exist, a 404 when it names the resource addressed and a
// 422 naming the parameter when it is the value of an attribute. The same
// contract through HTTP: test/api/galleries-ownership.test.ts,
// galleries-wire.test.ts, media-records.test.ts.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { nowIso } from '../../src/database/db.js';
import { withCore } from '../support/core.js';

/** What a call was refused with: code, status and message, as the XML reply would carry them. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; status: number; message: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return { code: err.code, status: err.status, message: err.message };
}

describe('access decisions', () => {
  const w = withCore();

  it('lets the owner and a member use a website and answers anyone else as if it did not exist', async () => {
    const owner = await w.user('owner');
    const member = await w.user('member');
    const stranger = await w.user('stranger');
    const { uuid, rootGalleryUuid } = await w.core.websites.create(owner, { urlname: 'access-shared' });
    await w.core.websites.share('access-shared', member);

    expect((await w.core.access.website(owner, 'access-shared')).uuid).toBe(uuid);
    expect((await w.core.access.website(member, 'access-shared')).uuid).toBe(uuid);
    const hidden = await refusal(w.core.access.website(stranger, 'access-shared'));
    const absent = await refusal(w.core.access.website(stranger, 'access-nowhere'));
    expect(hidden).toEqual({ code: 'not_found', status: 404, message: 'website access-shared not found' });
    expect(absent).toEqual({ code: 'not_found', status: 404, message: 'website access-nowhere not found' });

    // Its galleries follow the website: the member may use the root, the stranger not.
    const [rootId] = await w.core.access.require(owner, 'gallery', [rootGalleryUuid], { notFound: 'gallery' });
    expect(await w.core.access.require(member, 'gallery', [rootGalleryUuid], { notFound: 'gallery' })).toEqual([rootId]);
    expect(await refusal(w.core.access.require(stranger, 'gallery', [rootGalleryUuid], { notFound: 'gallery' }))).toEqual({
      code: 'not_found',
      status: 404,
      message: `gallery ${rootGalleryUuid} not found`,
    });
  });

  it('refuses another user\'s things, and unknown or malformed UUIDs, with the refusal the caller chose', async () => {
    const owner = await w.user('owner');
    const other = await w.user('other');
    const { uuid: profile } = await w.core.pricingProfiles.create(owner, 'Prints');
    const { uuid: lightbox } = await w.core.lightboxes.create(owner, 'Picks');

    expect(await w.core.access.require(owner, 'pricing-profile', [profile], { invalid: 'add_pricing_profiles[]' })).toHaveLength(1);
    expect(await refusal(w.core.access.require(other, 'pricing-profile', [profile], { invalid: 'add_pricing_profiles[]' }))).toEqual({
      code: 'invalid_parameter',
      status: 422,
      message: `add_pricing_profiles[]: unknown pricing profile ${profile}`,
    });
    expect(await refusal(w.core.access.requireOne(other, 'lightbox', lightbox, { notFound: 'lightbox' }))).toMatchObject({ status: 404 });
    // A malformed UUID is refused like an unknown one, before any query.
    expect(await refusal(w.core.access.requireOne(owner, 'lightbox', 'not-a-uuid', { invalid: 'lightbox_id' }))).toEqual({
      code: 'invalid_parameter',
      status: 422,
      message: 'lightbox_id: unknown lightbox not-a-uuid',
    });
    // One refused UUID among allowed ones refuses the whole request.
    expect(await refusal(w.core.access.require(owner, 'pricing-profile', [profile, '00000000-0000-4000-8000-000000000000'], { invalid: 'p' }))).toMatchObject({
      status: 422,
      message: 'p: unknown pricing profile 00000000-0000-4000-8000-000000000000',
    });
  });

  it('reads UUIDs in any case and with spaces around them, keeps their order and drops duplicates', async () => {
    const owner = await w.user('owner');
    const a = (await w.core.pricingProfiles.create(owner, 'A')).uuid;
    const b = (await w.core.pricingProfiles.create(owner, 'B')).uuid;
    const [idA] = await w.core.access.require(owner, 'pricing-profile', [a], { invalid: 'p' });
    const [idB] = await w.core.access.require(owner, 'pricing-profile', [b], { invalid: 'p' });
    expect(await w.core.access.require(owner, 'pricing-profile', [b, ` ${a.toUpperCase()} `, b], { invalid: 'p' })).toEqual([idB, idA]);
    expect(await w.core.access.require(owner, 'pricing-profile', [], { invalid: 'p' })).toEqual([]);
  });

  it('takes medias into plain collections only: a smart collection is a group, not a collection', async () => {
    const owner = await w.user('owner');
    // Groups as the groups feature stores them (buildCore does not build that feature).
    const group = async (kind: 'collection' | 'smart') => {
      const uuid = randomUUID();
      const now = nowIso();
      await w.core.store.db.insertInto('media_groups').values({ uuid, owner_id: owner.id, artist_id: null, kind, name: kind, rules: kind === 'smart' ? '{"match":"all","rules":[]}' : null, created_at: now, updated_at: now }).execute();
      return uuid;
    };
    const plain = await group('collection');
    const smart = await group('smart');
    expect(await w.core.access.require(owner, 'collection', [plain], { invalid: 'media[add_to_medias_collections]' })).toHaveLength(1);
    expect(await refusal(w.core.access.require(owner, 'collection', [smart], { invalid: 'media[add_to_medias_collections]' }))).toEqual({
      code: 'invalid_parameter',
      status: 422,
      message: `media[add_to_medias_collections]: unknown collection ${smart}`,
    });
    // Both are groups: a listing may filter on either.
    expect(await w.core.access.require(owner, 'group', [plain, smart], { notFound: 'medias group' })).toHaveLength(2);
    expect(await refusal(w.core.access.require(await w.user('other'), 'group', [plain], { notFound: 'medias group' }))).toMatchObject({ status: 404 });
  });

  it('gives every user a default media library, and lightboxes only of their own medias', async () => {
    const owner = await w.user('owner');
    const artistId = await w.core.access.defaultArtist(owner);
    expect(artistId).toBeGreaterThan(0);
    const other = await w.user('other');
    expect(await w.core.access.defaultArtist(other)).not.toBe(artistId);
    // A lightbox names its medias by UUID: someone else's (or none) is a 422 on `media`, and no lightbox is made.
    expect(await refusal(w.core.lightboxes.create(other, 'Theirs', ['00000000-0000-4000-8000-00000000000a']))).toEqual({
      code: 'invalid_parameter',
      status: 422,
      message: 'media: unknown media 00000000-0000-4000-8000-00000000000a',
    });
  });
});

describe('websites and users', () => {
  const w = withCore();

  it('creates a website with its root gallery and four display styles, Grid the default, titled by its urlname', async () => {
    const owner = await w.user('owner');
    const created = await w.core.websites.create(owner, { urlname: 'styles-site' });
    const { total, websites } = await w.core.websites.list(owner, { limit: 10, offset: 0 });
    expect(total).toBe(1);
    expect(websites[0]).toMatchObject({ uuid: created.uuid, urlname: 'styles-site', title: 'styles-site', hostname: null, root_uuid: created.rootGalleryUuid });
    const styles = await w.core.websites.displayStyles(owner, 'styles-site', { limit: 10, offset: 0 });
    expect(styles.total).toBe(4);
    expect(styles.styles.map((s) => [s.name, s.layout, Boolean(s.is_default)])).toEqual([
      ['Grid', 'grid', true],
      ['Slideshow', 'slideshow', false],
      ['Masonry', 'masonry', false],
      ['Filmstrip', 'filmstrip', false],
    ]);
    // A page of them, and the total still counts all.
    const page = await w.core.websites.displayStyles(owner, 'styles-site', { limit: 2, offset: 2 });
    expect([page.total, page.styles.map((s) => s.name)]).toEqual([4, ['Masonry', 'Filmstrip']]);
    // Another user is told it does not exist.
    const stranger = await w.user('stranger');
    expect(await refusal(w.core.websites.displayStyles(stranger, 'styles-site', { limit: 10, offset: 0 }))).toMatchObject({ status: 404 });
  });

  it('refuses a taken urlname as a conflict, whoever owns it, and creates nothing', async () => {
    const first = await w.user('first');
    const second = await w.user('second');
    await w.core.websites.create(first, { urlname: 'taken-site', title: 'Mine' });
    expect(await refusal(w.core.websites.create(second, { urlname: 'taken-site' }))).toEqual({ code: 'conflict', status: 409, message: 'urlname taken-site is taken' });
    expect((await w.core.websites.list(second, { limit: 10, offset: 0 })).total).toBe(0);
  });

  it('lists the websites a user owns and those shared with them, in the order they were made', async () => {
    const owner = await w.user('owner');
    const member = await w.user('member');
    await w.core.websites.create(member, { urlname: 'list-own' });
    await w.core.websites.create(owner, { urlname: 'list-shared' });
    await w.core.websites.share('list-shared', member);
    const all = await w.core.websites.list(member, { limit: 10, offset: 0 });
    expect([all.total, all.websites.map((s) => s.urlname)]).toEqual([2, ['list-own', 'list-shared']]);
    const second = await w.core.websites.list(member, { limit: 1, offset: 1 });
    expect([second.total, second.websites.map((s) => s.urlname)]).toEqual([2, ['list-shared']]);
    expect(await refusal(w.core.websites.share('list-nowhere', member))).toMatchObject({ status: 404, message: 'website list-nowhere not found' });
  });

  it('refuses a second user with the same e-mail address in any case', async () => {
    const { user } = await w.core.users.create({ email: ' Mixed.Case@Example.com ', password: 'correct horse battery staple' });
    expect(user.email).toBe('mixed.case@example.com');
    expect(await refusal(w.core.users.create({ email: 'MIXED.case@example.COM', password: 'another one entirely' }))).toEqual({
      code: 'conflict',
      status: 409,
      message: 'a user with e-mail mixed.case@example.com exists already',
    });
  });
});

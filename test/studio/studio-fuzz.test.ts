// Seeded fuzzing of every studio route (fast-check), on SQLite and PostgreSQL: hostile paths,
// methods, cookies, Origin and Sec-Fetch-Site headers, content types and bodies. Every post
// carries no token, a wrong one, another session's, or a right one from a foreign origin: each
// is refused (4xx) and changes nothing. Every reply is below 500, an HTML reply carries the CSP
// and nosniff, a redirect stays in the studio or on the service; afterwards the website is as
// it was and the session still works.
//
//   FUZZ_RUNS=2000   requests per database (default 200);  FUZZ_SEED=123 another seed
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { find, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { StudioBrowser } from './studio-support.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_126);
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

const POSTS = [
  '/studio/signin',
  '/studio/signin/code',
  '/studio/signout',
  '/studio/signout-everywhere',
  '/studio/account/password',
  '/studio/account/two-factor',
  '/studio/account/two-factor/off',
  '/studio/websites/{site}',
  '/studio/websites/{site}/hostname/verify',
  '/studio/websites/{site}/new-page',
  '/studio/websites/{site}/pages/{slug}',
  '/studio/websites/{site}/pages/{slug}/delete',
  '/studio/websites/{site}/galleries',
  '/studio/websites/{site}/galleries/order',
  '/studio/galleries/{gallery}',
  '/studio/galleries/{gallery}/move',
  '/studio/galleries/{gallery}/delete',
  '/studio/galleries/{gallery}/password',
  '/studio/galleries/{gallery}/acl',
  '/studio/galleries/{gallery}/invite',
  '/studio/galleries/{gallery}/proofing/{uuid}/reopen',
  '/studio/galleries/{gallery}/proofing/{junk}/reopen',
  '/studio/media/batch',
  '/studio/media/move',
  '/studio/media/{uuid}/replace',
  '/studio/media/{uuid}/delete',
  '/studio/websites/{site}/styles',
  '/studio/websites/{site}/styles/{uuid}',
  '/studio/account/apps',
  '/studio/account/apps/{junk}/revoke',
  '/studio/collections',
  '/studio/collections/{uuid}',
  '/studio/collections/{uuid}/delete',
  '/studio/watermarks/libraries/{uuid}/text',
  '/studio/watermarks/libraries/{junk}/image',
  '/studio/watermarks/{uuid}/default',
  '/studio/watermarks/{junk}/delete',
  '/studio/watermarks/{uuid}/look',
  '/studio/watermarks/{junk}/look',
  '/studio/shop/price-lists',
  '/studio/shop/price-lists/{uuid}',
  '/studio/shop/price-lists/{junk}/delete',
  '/studio/shop/payments/stripe',
  '/studio/shop/payments/stripe/remove',
  '/studio/shop/payments/instructions',
  '/studio/shop/orders/{uuid}/paid',
  '/studio/shop/orders/{junk}/refund',
  '/studio/shop/orders/{uuid}/ship',
  '/studio/shop/orders/{junk}/lab',
  '/studio/shop/coupons/{site}',
  '/studio/shop/coupons/{junk}',
  '/studio/shop/coupons/{site}/{uuid}',
  '/studio/shop/coupons/{site}/{junk}/active',
  '/studio/shop/coupons/{site}/{uuid}/delete',
  '/studio/shop/settings/{site}',
  '/studio/shop/settings/{junk}',
  '/studio/shop/lab',
  '/studio/galleries/{gallery}/sale',
  '/studio/galleries/{junk}/sale',
  '/studio/admin/accounts',
  '/studio/admin/accounts/{uuid}/disable',
  '/studio/admin/accounts/{uuid}/enable',
  '/studio/admin/accounts/{uuid}/mail-off',
  '/studio/admin/accounts/{uuid}/mail-on',
  '/studio/admin/apps',
  '/studio/admin/apps/{junk}/revoke',
  '/studio/welcome/{junk}',
  '/studio/uploads/check',
  '/studio/uploads/finish',
  '/studio/uploads/tus',
  '/studio/uploads/tus/{junk}',
];
const GETS = [
  '/studio',
  '/studio/',
  '/studio/signin',
  '/studio/signin/code',
  '/studio/account',
  '/studio/account/two-factor',
  '/studio/websites',
  '/studio/websites/{site}',
  '/studio/websites/{site}/pages',
  '/studio/websites/{site}/new-page',
  '/studio/websites/{site}/pages/{slug}',
  '/studio/thumbs/{uuid}',
  '/studio/galleries',
  '/studio/websites/{site}/galleries',
  '/studio/websites/{site}/galleries/grid',
  '/studio/websites/{site}/galleries/grid?q={junk}&sort={junk}&state={junk}&page={junk}',
  '/studio/websites/{site}/galleries/grid?sort=photos&state=public&q={junk}',
  '/studio/galleries/{gallery}',
  '/studio/galleries/{gallery}/move',
  '/studio/galleries/{gallery}/delete',
  '/studio/galleries/{gallery}/proofing',
  '/studio/galleries/{gallery}/proofing?selection={junk}',
  '/studio/galleries/{junk}/proofing',
  '/studio/media',
  '/studio/media?gallery={junk}&page={junk}&job={junk}',
  '/studio/media/items.json?offset={junk}&limit={junk}&gallery={junk}',
  '/studio/media/jobs/{uuid}',
  '/studio/media/{uuid}',
  '/studio/websites/{site}/styles',
  '/studio/account/apps',
  '/studio/collections',
  '/studio/collections/{uuid}',
  '/studio/watermarks',
  '/studio/watermarks/{uuid}/preview.jpg',
  '/studio/watermarks/{junk}/preview.jpg',
  '/studio/watermarks/{uuid}/preview.jpg?look={junk}',
  '/studio/jobs',
  '/studio/jobs.json',
  '/studio/shop',
  '/studio/shop/price-lists',
  '/studio/shop/price-lists/{uuid}',
  '/studio/shop/price-lists/{junk}',
  '/studio/shop/payments',
  '/studio/shop/orders',
  '/studio/shop/orders?status={junk}',
  '/studio/shop/orders?from={junk}',
  '/studio/shop/orders/{uuid}',
  '/studio/shop/orders/{junk}',
  '/studio/shop/orders/export/{junk}',
  '/studio/shop/orders/{uuid}/sheet',
  '/studio/shop/orders/{junk}/sheet',
  '/studio/shop/coupons',
  '/studio/shop/coupons?website={junk}',
  '/studio/shop/coupons/{site}/{uuid}',
  '/studio/shop/coupons/{junk}/{junk}',
  '/studio/shop/settings',
  '/studio/shop/settings?website={junk}',
  '/studio/admin',
  '/studio/admin/accounts',
  '/studio/admin/apps',
  '/studio/admin/jobs',
  '/studio/welcome/{junk}',
  '/studio/upload',
  '/studio/uploads/tus/{junk}',
  '/studio/_assets/{junk}',
  '/studio/{junk}',
];

const junk = fc.oneof(
  fc.constantFrom('', '..', '%2e%2e', '%00', '%ff', 'A_B', 'a'.repeat(300), '<script>', '%3Cb%3E', 'about', 'new', '-', '🙂'),
  fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s)),
);

eachDatabase((kind) => {
  let w: World;
  let b: StudioBrowser;
  let other: StudioBrowser;
  let csrf: string;
  let otherCsrf: string;
  let theirs: string;
  let title: string;
  let gallery: string;
  const galleryNames = async () => (await w.client.request('GET', `/websites/${w.urlname}/galleries.xml`, { view: 'details' })).body;
  let galleriesBefore: string;

  beforeAll(async () => {
    w = await startWorld(kind);
    await w.client.request('PUT', `/websites/${w.urlname}/pages/about.xml`, { 'page[title]': 'About', 'page[body]': 'Hello' });
    b = await new StudioBrowser(w.svc).signIn(w.user);
    other = await new StudioBrowser(w.svc).signIn(await w.svc.user());
    csrf = StudioBrowser.csrf(await b.get('/studio/account'));
    otherCsrf = StudioBrowser.csrf(await other.get('/studio/account'));
    theirs = (await w.svc.website(await w.svc.user())).urlname;
    title = text(find((await w.client.request('GET', `/websites/${w.urlname}.xml`)).doc, 'website')!, 'title')!;
    gallery = text(find((await w.client.createGallery(w.urlname, { name: 'Fuzzed', parent: w.rootUuid })).doc, 'gallery')!, 'uuid')!;
    galleriesBefore = (await galleryNames()).replace(/<updated-at[^<]*<\/updated-at>/g, '');
  }, 120_000);
  afterAll(() => w?.svc.close());

  it('refuses every post without a valid token from the studio itself, and never answers 5xx', async () => {
    const pathArb = (templates: string[]) =>
      fc.tuple(fc.constantFrom(...templates), fc.constantFrom('mine', 'theirs', 'junk'), fc.constantFrom('about', 'nope'), junk).map(([t, site, slug, j]) =>
        t
          .replace('{site}', site === 'mine' ? w.urlname : site === 'theirs' ? theirs : j || 'x')
          .replace('{slug}', slug === 'about' ? 'about' : j || 'y')
          .replace('{uuid}', j || '00000000-0000-4000-8000-000000000000')
          .replace('{gallery}', site === 'mine' ? gallery : site === 'theirs' ? w.rootUuid : j || '00000000-0000-4000-8000-000000000000')
          .replace('{junk}', j),
      );
    const cookieArb = fc.constantFrom('mine', 'none', 'garbage', 'other');
    const postArb = fc.record({
      method: fc.constant('POST' as const),
      path: pathArb(POSTS),
      cookie: cookieArb,
      // A post is always missing something: the token, a right token, or its own origin.
      token: fc.constantFrom('none', 'wrong', 'others', 'mine-foreign-origin', 'mine-cross-site'),
      contentType: fc.constantFrom('application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8', 'text/plain', 'multipart/form-data; boundary=x', 'application/json', ''),
      fields: fc.dictionary(fc.constantFrom('title', 'tagline', 'email', 'password', 'code', 'slug', 'body', 'current', 'next', 'secret', 'logo', 'social_links', 'csrf[]', '', '%', 'name', 'parent', 'medias', 'entry', 'new_email', 'up'), fc.string({ maxLength: 40 }), { maxKeys: 5 }),
      raw: fc.option(fc.constantFrom('%ff%fe=1', '=', '&&&', 'a=%', 'title=' + 'x'.repeat(70_000)), { nil: undefined }),
    });
    const getArb = fc.record({ method: fc.constant('GET' as const), path: pathArb(GETS), cookie: cookieArb });

    const cookieFor = (c: string) => {
      if (c === 'none') return '';
      if (c === 'garbage') return 'studio_session=' + 'x'.repeat(40) + '; studio_csrf=%%%';
      const jar = c === 'mine' ? b.jar : other.jar;
      return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    };

    await fc.assert(
      fc.asyncProperty(fc.oneof(postArb, getArb), async (r) => {
        const headers: Record<string, string> = {};
        const cookie = cookieFor(r.cookie);
        if (cookie) headers.cookie = cookie;
        let body: string | undefined;
        if (r.method === 'POST') {
          const fields: Record<string, string> = { ...r.fields };
          if (r.token === 'wrong') fields.csrf = csrf.slice(0, -3) + 'abc';
          if (r.token === 'others') fields.csrf = otherCsrf;
          if (r.token.startsWith('mine')) fields.csrf = r.cookie === 'mine' ? csrf : otherCsrf;
          headers.origin = r.token === 'mine-foreign-origin' ? 'https://evil.example' : w.svc.url;
          headers['sec-fetch-site'] = r.token === 'mine-cross-site' ? 'cross-site' : 'same-origin';
          if (r.contentType) headers['content-type'] = r.contentType;
          body = r.raw ?? new URLSearchParams(fields).toString();
        }
        const res = await fetch(w.svc.url + r.path, { method: r.method, headers, body, redirect: 'manual' });
        const answer = await res.text();
        expect(res.status, `${r.method} ${r.path}: ${answer.slice(0, 200)}`).toBeLessThan(500);
        if (r.method === 'POST') expect(res.status, `${r.path} ${JSON.stringify(r)}`).toBeGreaterThanOrEqual(400);
        if ((res.headers.get('content-type') ?? '').startsWith('text/html')) {
          expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
          expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        }
        const location = res.headers.get('location');
        if (location) expect(location.startsWith('/studio/') || location.startsWith('/')).toBe(true);
        if (location) expect(location.startsWith('//')).toBe(false);
      }),
      { seed: SEED, numRuns: RUNS },
    );

    // Nothing changed: no upload was created, the title, the page, both sessions.
    expect(await w.svc.db.selectFrom('resumable_uploads').select('id').execute()).toEqual([]);
    expect(text(find((await w.client.request('GET', `/websites/${w.urlname}.xml`)).doc, 'website')!, 'title')).toBe(title);
    expect((await w.client.request('GET', `/websites/${w.urlname}/pages.xml`)).doc).toBeTruthy();
    expect((await b.get('/studio/account')).status).toBe(200);
    expect((await other.get('/studio/account')).status).toBe(200);
    expect((await b.get(`/studio/websites/${w.urlname}/pages/about`)).status).toBe(200);
    // The gallery tree and every gallery's settings, access list and password as they were.
    expect((await galleryNames()).replace(/<updated-at[^<]*<\/updated-at>/g, '')).toBe(galleriesBefore);
  }, 300_000);
});

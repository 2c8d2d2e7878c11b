// The studio's website extras (docs/studio.md "Website extras"), on SQLite and PostgreSQL:
// host name and indexing on the settings screen, read back through the signed API and seen
// by the website; the API's own refusals next to their fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text } from '../../src/client/xml.js';
import { eachDatabase, TestService } from '../support/service.js';
import { worldOn, type World } from '../support/world.js';
import { uploadLogo } from '../site/brand-support.js';
import { visit, waitForRenditions } from '../site/site-support.js';
import { fieldError, StudioBrowser } from './studio-support.js';

eachDatabase((kind) => {
  let w: World;
  let b: StudioBrowser;
  /** The DNS the service looks the host names' proofs up in (never the network): TXT records by name. */
  const txt = new Map<string, string[][]>();
  const resolver = {
    resolveTxt: async (name: string) => txt.get(name) ?? Promise.reject(Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' })),
  };
  beforeAll(async () => {
    w = await worldOn(await TestService.start(kind, {}, undefined, { resolver }));
    b = await new StudioBrowser(w.svc).signIn(w.user);
  });
  afterAll(() => w?.svc.close());

  const apiWebsite = async (urlname = w.urlname) => find((await w.client.request('GET', `/websites/${urlname}.xml`)).doc, 'website')!;
  const settings = () => `/studio/websites/${w.urlname}`;

  describe('host name and indexing', () => {
    it('sets the host name and the indexing switch; the signed API answers the same, the website obeys', async () => {
      const host = `photos-${w.urlname}.example.com`;
      const res = await b.submit(settings(), settings(), { title: 'Extras', hostname: host.toUpperCase(), indexing: '0' });
      expect(res.status).toBe(303);
      // The name waits for its proof (docs/website.md "Host names"): the TXT record, then "Verify now".
      const asked = await apiWebsite();
      expect([text(asked, 'hostname') ?? '', text(asked, 'hostname-pending')]).toEqual(['', host]);
      txt.set(`_mps-challenge.${host}`, [[text(asked, 'hostname-token')!]]);
      expect((await b.submit(settings(), `${settings()}/hostname/verify`, {})).status).toBe(303);
      const site = await apiWebsite();
      expect(text(site, 'hostname')).toBe(host);
      expect(text(site, 'home-url')).toBe(`https://${host}`);
      expect(text(site, 'indexing')).toBe('0');
      const page = await b.get(settings());
      expect(page.body).toContain(`value="${host}"`);
      expect(page.body).toMatch(/<option value="0" selected/);
      // The website at its host name: robots.txt keeps crawlers out, pages say noindex.
      const robots = await visit(w.svc, '/robots.txt', { host });
      expect(robots.status).toBe(200);
      expect(robots.body).toContain('Disallow: /\n');
      const home = await visit(w.svc, '/', { host });
      expect(home.status).toBe(200);
      expect(home.headers['x-robots-tag']).toBe('noindex');
      // Back on: cleared host name, indexing as the galleries say.
      expect((await b.submit(settings(), settings(), { title: 'Extras', hostname: '', indexing: '1' })).status).toBe(303);
      const after = await apiWebsite();
      expect(text(after, 'hostname') ?? '').toBe('');
      expect(text(after, 'indexing')).toBe('1');
      const robotsPath = await visit(w.svc, `/sites/${w.urlname}/robots.txt`);
      expect(robotsPath.status).toBe(200);
      expect((await visit(w.svc, `/sites/${w.urlname}/`)).headers['x-robots-tag']).toBeUndefined();
    });

    it("refuses another website's host name and a malformed one with the API's message next to the field", async () => {
      const other = await w.svc.user();
      const theirs = await w.svc.website(other);
      const taken = `taken-${theirs.urlname}.example.com`;
      await w.svc.core.websites.setBrand({ operator: true }, theirs.urlname, { hostname: taken });
      const res = await b.submit(settings(), settings(), { title: 'Extras', hostname: taken.toUpperCase() });
      expect(res.status).toBe(422);
      expect(fieldError(res.body, 'hostname')).toContain('another website');
      for (const bad of ['not a host', 'a..b', '-x.example', 'x.example:99999']) {
        const r = await b.submit(settings(), settings(), { title: 'Extras', hostname: bad });
        expect(r.status).toBe(422);
        expect(fieldError(r.body, 'hostname')).toContain('must be a host name');
      }
      // The API: the same rule, the same refusal.
      const api = await w.svc.raw(w.app, 'PUT', `/websites/${w.urlname}.xml?website[hostname]=${encodeURIComponent(taken)}`, { headers: { authorization: 'Basic ' + Buffer.from(`${w.user.email}:${w.user.password}`).toString('base64') } });
      expect(api.status).toBe(422);
      expect(text(await apiWebsite(), 'hostname') ?? '').toBe('');
    });
  });

  describe('display styles', () => {
    const stylesPath = () => `/studio/websites/${w.urlname}/styles`;
    const apiStyles = async () => all((await w.client.request('GET', `/websites/${w.urlname}/gallery_display_styles.xml`, { view: 'details' })).doc, 'gallery-display-styles/gallery-display-style');

    it('lists the styles, creates one and edits one; the signed API lists the same', async () => {
      const page = await b.get(stylesPath());
      expect(page.status).toBe(200);
      for (const name of ['Grid', 'Slideshow', 'Masonry', 'Filmstrip']) expect(page.body).toContain(`>${name}<`);
      const created = await b.submit(stylesPath(), stylesPath(), { name: 'Square wall', layout: 'grid', crop: 'yes', spacing: 'tight', captions: 'yes' });
      expect(created.status).toBe(303);
      const styles = await apiStyles();
      const made = styles.find((n) => text(n, 'name') === 'Square wall')!;
      expect(text(made, 'layout')).toBe('grid');
      expect(text(made, 'default')).toBe('false');
      const uuid = text(made, 'uuid')!;
      // Edit the default Grid: cropped, wide spacing; rename Masonry.
      const grid = text(styles.find((n) => text(n, 'name') === 'Grid')!, 'uuid')!;
      expect((await b.submit(stylesPath(), `${stylesPath()}/${grid}`, { name: 'Grid', layout: 'grid', crop: 'yes', spacing: 'wide', captions: 'no' })).status).toBe(303);
      const row = await w.svc.db.selectFrom('display_styles').select(['crop', 'spacing', 'captions']).where('uuid', '=', grid).executeTakeFirstOrThrow();
      expect(row).toEqual({ crop: 1, spacing: 'wide', captions: 0 });
      expect((await b.submit(stylesPath(), `${stylesPath()}/${uuid}`, { name: 'Square wall 2', layout: 'masonry', crop: 'no', spacing: 'normal', captions: 'no' })).status).toBe(303);
      const again = (await apiStyles()).find((n) => text(n, 'uuid') === uuid)!;
      expect(text(again, 'name')).toBe('Square wall 2');
      expect(text(again, 'layout')).toBe('masonry');
    });

    it("refuses a taken name, an unknown layout, and another owner's style", async () => {
      const dup = await b.submit(stylesPath(), stylesPath(), { name: 'Slideshow', layout: 'grid' });
      expect(dup.status).toBe(422);
      expect(dup.body).toContain('a style named Slideshow already');
      expect(fieldError(dup.body, 'name-new')).toContain('Slideshow');
      const bad = await b.submit(stylesPath(), stylesPath(), { name: 'Odd', layout: 'carousel' });
      expect(bad.status).toBe(422);
      expect(bad.body).toContain('layout must be one of');
      expect((await apiStyles()).some((n) => text(n, 'name') === 'Odd')).toBe(false);
      const stranger = await w.svc.user();
      const theirs = await w.svc.website(stranger);
      const theirStyle = await w.svc.db.selectFrom('display_styles').innerJoin('websites', 'websites.id', 'display_styles.website_id').select('display_styles.uuid').where('websites.urlname', '=', theirs.urlname).executeTakeFirstOrThrow();
      const csrf = StudioBrowser.csrf(await b.get(stylesPath()));
      expect((await b.post(`/studio/websites/${theirs.urlname}/styles/${theirStyle.uuid}`, { csrf, name: 'Mine', layout: 'grid' })).status).toBe(404);
      // Another website's style through mine: not mine either.
      expect((await b.post(`${stylesPath()}/${theirStyle.uuid}`, { csrf, name: 'Mine', layout: 'grid' })).status).toBe(404);
      expect((await b.get(`/studio/websites/${theirs.urlname}/styles`)).status).toBe(404);
    });
  });

  describe('collections, smart collections, lightboxes', () => {
    let media: string;
    beforeAll(async () => {
      media = await uploadLogo(w);
      await waitForRenditions(w, [media]);
    });
    const apiGroup = async (uuid: string) => (await w.client.request('GET', `/medias_groups/${uuid}.xml`)).doc;

    it('creates a smart collection, sets its rules, renames it, deletes it; the signed API answers the same', async () => {
      const made = await b.submit('/studio/collections', '/studio/collections', { name: 'Five stars', kind: 'smart' });
      expect(made.status).toBe(303);
      const uuid = /\/studio\/collections\/([0-9a-f-]{36})/.exec(made.headers.get('location')!)![1];
      const path = `/studio/collections/${uuid}`;
      let doc = await apiGroup(uuid);
      expect(text(doc, 'medias-group/name')).toBe('Five stars');
      // Rules: rows with no field are left out; a title rule matches the uploaded logo.
      const saved = await b.submit(path, path, {
        name: 'Logos',
        match: 'any',
        'rules[0][field]': 'title',
        'rules[0][operator]': 'is',
        'rules[0][value]': 'Logo',
        'rules[1][field]': '',
        'rules[2][field]': 'rating',
        'rules[2][operator]': 'gte',
        'rules[2][value]': '5',
      });
      expect(saved.status).toBe(303);
      doc = await apiGroup(uuid);
      expect(text(doc, 'medias-group/name')).toBe('Logos');
      expect(text(doc, 'medias-group/match')).toBe('any');
      expect(all(doc, 'medias-group/rules/rule/field').map((n) => n.text)).toEqual(['title', 'rating']);
      expect(text(doc, 'medias-group/medias-count')).toBe('1');
      const page = await b.get(path);
      expect(page.body).toContain(`href="/studio/media?group=${uuid}"`);
      expect(page.body).toContain('See its 1 media');
      // A wrong value: the API's message, nothing saved.
      const bad = await b.submit(path, path, { name: 'Logos', match: 'all', 'rules[0][field]': 'rating', 'rules[0][operator]': 'gte', 'rules[0][value]': 'eleven' });
      expect(bad.status).toBe(422);
      expect(bad.body).toContain("Rule 1's value");
      expect(all(await apiGroup(uuid), 'medias-group/rules/rule/field').map((n) => n.text)).toEqual(['title', 'rating']);
      // Listed with its count; deleted (its medias kept).
      expect((await b.get('/studio/collections')).body).toContain(`/studio/media?group=${uuid}`);
      expect((await b.submit(path, `${path}/delete`, {})).status).toBe(303);
      expect((await w.client.request('GET', '/medias.xml', { view: 'list' })).body).toContain(media);
      expect((await w.svc.raw(w.app, 'GET', `/medias_groups/${uuid}.xml`, { headers: { authorization: 'Basic ' + Buffer.from(`${w.user.email}:${w.user.password}`).toString('base64') } })).status).toBe(404);
    });

    it("creates and renames a plain collection; a blank name is refused; another user's is a 404", async () => {
      const blank = await b.submit('/studio/collections', '/studio/collections', { name: ' ', kind: 'collection' });
      expect(blank.status).toBe(422);
      expect(fieldError(blank.body, 'name')).toContain('must not be blank');
      const made = await b.submit('/studio/collections', '/studio/collections', { name: 'Portfolio picks', kind: 'collection' });
      const uuid = /([0-9a-f-]{36})/.exec(made.headers.get('location')!)![1];
      expect((await b.submit(`/studio/collections/${uuid}`, `/studio/collections/${uuid}`, { name: 'Picks 2026' })).status).toBe(303);
      expect(text(await apiGroup(uuid), 'medias-group/name')).toBe('Picks 2026');
      const other = await new StudioBrowser(w.svc).signIn(await w.svc.user());
      expect((await other.get(`/studio/collections/${uuid}`)).status).toBe(404);
      const csrf = StudioBrowser.csrf(await other.get('/studio/collections'));
      expect((await other.post(`/studio/collections/${uuid}/delete`, { csrf })).status).toBe(404);
      expect(text(await apiGroup(uuid), 'medias-group/name')).toBe('Picks 2026');
    });

    it('lists the lightboxes with their counts, linked to the grid', async () => {
      const { uuid } = await w.svc.core.lightboxes.create({ id: w.user.id }, 'Client picks <b>', [media]);
      const page = await b.get('/studio/collections');
      expect(page.body).toContain(`href="/studio/media?lightbox=${uuid}"`);
      expect(page.body).toContain('Client picks &lt;b>');
      expect(page.body).toMatch(new RegExp(`lightbox=${uuid}">1 media<`));
      const other = await new StudioBrowser(w.svc).signIn(await w.svc.user());
      expect((await other.get('/studio/collections')).body).not.toContain(uuid);
    });
  });

  describe('jobs', () => {
    it("lists the user's jobs with state and progress, as a page and as JSON; another user's are not there", async () => {
      const media = await uploadLogo(w, 'JOBS');
      await waitForRenditions(w, [media]);
      const mine = await w.svc.db.selectFrom('jobs').select(['uuid', 'state', 'total']).where('owner_id', '=', w.user.id).orderBy('id', 'desc').executeTakeFirstOrThrow();
      const page = await b.get('/studio/jobs');
      expect(page.status).toBe(200);
      expect(page.body).toContain(`data-job="${mine.uuid}"`);
      expect(page.body).toMatch(/<script type="module" src="\/studio\/_assets\/[A-Za-z0-9_-]+\.js">/);
      const json = await b.get('/studio/jobs.json', { accept: 'application/json' });
      expect(json.headers.get('content-type')).toContain('application/json');
      const jobs = (JSON.parse(json.body) as { jobs: Array<{ uuid: string; state: string; total: number }> }).jobs;
      expect(jobs.find((j) => j.uuid === mine.uuid)).toMatchObject({ state: mine.state, total: mine.total });
      const other = await new StudioBrowser(w.svc).signIn(await w.svc.user());
      expect((await other.get('/studio/jobs.json')).body).not.toContain(mine.uuid);
      expect((await new StudioBrowser(w.svc).get('/studio/jobs.json', { accept: 'application/json' })).status).toBe(401);
    });
  });
});

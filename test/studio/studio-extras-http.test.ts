// The studio's website extras (docs/studio.md "Website extras"), on SQLite and PostgreSQL:
// host name and indexing on the settings screen, read back through the signed API and seen
// by the website; the API's own refusals next to their fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { visit } from '../site/site-support.js';
import { fieldError, StudioBrowser } from './studio-support.js';

eachDatabase((kind) => {
  let w: World;
  let b: StudioBrowser;
  beforeAll(async () => {
    w = await startWorld(kind);
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
});

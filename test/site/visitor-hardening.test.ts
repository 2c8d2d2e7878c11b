// What a visitor is given and where they are sent, tried as a hostile visitor
// would (issue 18): the return address of the password form (no open redirect,
// at a website's own hostname or under /sites/<urlname>), the form's origin
// check, passes that outlive a password change, and signed file addresses that
// outlive what they were signed for.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import type { World } from '../support/world.js';
import { create, publishMedias } from '../api/galleries-fixtures.js';
import { updateMedia } from '../support/media.js';
import { cookieOf, startSite, type Page, uploadPhoto, visit, waitForRenditions } from './site-support.js';

/** A form post with any headers (an Origin, a Host), as a cross-site page or a browser would send it. */
function post(w: World, path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
  const url = new URL(w.svc.url);
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

eachDatabase((kind) => {
  let w: World;
  let home: string;
  beforeAll(async () => void ({ w, home } = await startSite(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' })));
  afterAll(() => w?.svc.close());

  describe('the password form sends visitors back only within the website', () => {
    it('at a website\'s own hostname, a "back" of //evil.example is neither followed nor echoed', async () => {
      const host = `pw-${randomBytes(3).toString('hex')}.example.test`;
      const site = await w.svc.core.websites.create(w.user, { urlname: `pw-${randomBytes(3).toString('hex')}`, title: 'By host', hostname: host });
      const locked = text((await w.client.createGallery(site.urlname, { name: 'Private', parent: site.rootGalleryUuid, password: 'pw' })).doc, 'gallery/uuid')!;
      for (const back of ['//evil.example/x', '/\\evil.example/x', '/-/private/../../x', 'https://evil.example/']) {
        const right = await visit(w.svc, '/_password', { host, form: { gallery: locked, password: 'pw', back } });
        expect([right.status, right.headers.location]).toEqual([303, '/']);
        const wrong = await visit(w.svc, '/_password', { host, form: { gallery: locked, password: 'nope', back } });
        expect(wrong.status).toBe(403);
        expect(wrong.body).toContain('name="back" value="/"');
        expect(wrong.body).not.toContain('evil.example');
      }
      // A path of the website is kept.
      const ok = await visit(w.svc, '/_password', { host, form: { gallery: locked, password: 'pw', back: '/-/private?page=2' } });
      expect([ok.status, ok.headers.location]).toEqual([303, '/-/private?page=2']);
    });

    it('under /sites/<urlname>, dot segments (plain or %2e-encoded) cannot lead to another website', async () => {
      const locked = await create(w, 'Dots', w.rootUuid, { password: 'pw' });
      const other = await w.svc.website(w.user);
      for (const back of [`${home}/../${other.urlname}/`, `${home}/%2e%2e/${other.urlname}/`, `${home}/.%2E/${other.urlname}/`, `${home}/-/dots/./x`]) {
        const right = await visit(w.svc, `${home}/_password`, { form: { gallery: locked, password: 'pw', back } });
        expect([right.status, right.headers.location]).toEqual([303, `${home}/`]);
        const wrong = await visit(w.svc, `${home}/_password`, { form: { gallery: locked, password: 'nope', back } });
        expect(wrong.status).toBe(403);
        expect(wrong.body).toContain(`name="back" value="${home}/"`);
        expect(wrong.body).not.toContain(other.urlname);
      }
    });

    it('refuses a post from another origin (a cross-site page planting a return address), accepts its own', async () => {
      const locked = await create(w, 'Origins', w.rootUuid, { password: 'pw' });
      const form = { gallery: locked, password: 'pw', back: `${home}/-/origins` };
      for (const origin of ['https://evil.example', 'null', new URL(w.svc.url).origin.replace('http:', 'https:')]) {
        const refused = await post(w, `${home}/_password`, form, { origin });
        expect(refused.status).toBe(403);
        expect(refused.headers['set-cookie']).toBeUndefined();
        expect(refused.headers.location).toBeUndefined();
        expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      }
      const own = await post(w, `${home}/_password`, form, { origin: new URL(w.svc.url).origin });
      expect([own.status, own.headers.location]).toEqual([303, `${home}/-/origins`]);
      expect(cookieOf(own)).toMatch(/^mps_visitor=/);
      // Browsers that send no Origin (older ones, same-origin GET-then-POST) are not locked out.
      expect((await post(w, `${home}/_password`, form)).status).toBe(303);
    });
  });

  describe('a pass opens a gallery only while its password stays the one given', () => {
    it('changing, removing and re-setting the password (even to the same one) revokes passes already given', async () => {
      const locked = await create(w, 'Revoked', w.rootUuid, { password: 'one' });
      await create(w, 'Inside', locked);
      await publishMedias(w.svc.db, w.user, locked, ['kept.jpg']);
      const open = async (password: string) => {
        const res = await visit(w.svc, `${home}/_password`, { form: { gallery: locked, password, back: `${home}/-/revoked` } });
        expect(res.status).toBe(303);
        return cookieOf(res)!;
      };
      const refused = async (cookie: string) => {
        for (const path of [`${home}/-/revoked`, `${home}/-/revoked/inside`]) {
          const page = await visit(w.svc, path, { cookie });
          expect(page.status).toBe(403);
          expect(page.body).toContain(`name="gallery" value="${locked}"`);
          expect(page.body).not.toContain('kept.jpg');
          expect(page.body).not.toContain('/files/');
        }
      };
      const first = await open('one');
      expect((await visit(w.svc, `${home}/-/revoked`, { cookie: first })).status).toBe(200);
      expect((await visit(w.svc, `${home}/-/revoked/inside`, { cookie: first })).status).toBe(200);

      // Changed: the old pass no longer opens it; the new password does.
      await w.client.updateGallery(w.urlname, locked, { password: 'two' });
      await refused(first);
      const second = await open('two');
      expect((await visit(w.svc, `${home}/-/revoked/inside`, { cookie: second })).status).toBe(200);

      // Removed, then set again to the very same password: the pass given before is not good any more.
      await w.client.updateGallery(w.urlname, locked, { password: '' });
      expect((await visit(w.svc, `${home}/-/revoked`)).status).toBe(200);
      await w.client.updateGallery(w.urlname, locked, { password: 'two' });
      await refused(second);
      await refused(first);
      const third = await open('two');
      expect((await visit(w.svc, `${home}/-/revoked`, { cookie: third })).status).toBe(200);
      // Other galleries the pass opened stay open: only the changed one is revoked.
      const kept = await create(w, 'Kept', w.rootUuid, { password: 'three' });
      const both = cookieOf(await visit(w.svc, `${home}/_password`, { cookie: third, form: { gallery: kept, password: 'three', back: `${home}/-/kept` } }))!;
      await w.client.updateGallery(w.urlname, locked, { password: 'four' });
      expect((await visit(w.svc, `${home}/-/kept`, { cookie: both })).status).toBe(200);
      await refused(both);
    });
  });

  describe('a signed file address is good for minutes, and only while the media stays where it was signed for', () => {
    it('an original offered for download expires within minutes and stops working once unpublished from its gallery', async () => {
      const hires = [{ email: 'DEFAULT', read: 1, comp_download: 0, hires_download: 1 }];
      const first = await create(w, 'Originals', w.rootUuid, { acl: hires });
      const second = await create(w, 'Originals too', w.rootUuid, { acl: hires });
      const m = await uploadPhoto(w, first, 7, 400);
      await updateMedia(w.client, m, { 'media[publish_to_galleries]': [second] });
      const originalOf = async (path: string) => {
        const page = await visit(w.svc, path);
        expect(page.status).toBe(200);
        const href = /<a href="([^"]+)" download>Download the original/.exec(page.body.replace(/&amp;/g, '&'))?.[1];
        expect(href).toMatch(/^\/files\/[^?]+\?/);
        return href!;
      };
      const fromFirst = await originalOf(`${home}/-/originals/_/${m}`);
      const fromSecond = await originalOf(`${home}/-/originals-too/_/${m}`);
      // Minutes, not hours: a forwarded download link dies soon.
      const e = Number(new URL(fromFirst, 'http://x').searchParams.get('e'));
      expect(e * 1000 - Date.now()).toBeGreaterThan(60_000);
      expect(e * 1000 - Date.now()).toBeLessThanOrEqual(15 * 60_000);
      expect((await fetch(w.svc.url + fromFirst)).status).toBe(200);
      expect((await fetch(w.svc.url + fromSecond)).status).toBe(200);

      // Unpublished from the first gallery: the address signed there is refused, like an unknown file,
      // while the one signed for the gallery it is still published in keeps working.
      await updateMedia(w.client, m, { 'media[unpublish_from_galleries]': [first] });
      const gone = await fetch(w.svc.url + fromFirst);
      expect(gone.status).toBe(404);
      expect(await gone.text()).toBe('not found');
      expect((await fetch(w.svc.url + fromSecond)).status).toBe(200);
      // Unpublished everywhere: nothing signed before opens it.
      await updateMedia(w.client, m, { 'media[unpublish_from_galleries]': [second] });
      expect((await fetch(w.svc.url + fromSecond)).status).toBe(404);
    });

    it('a change of who may see the gallery (a new password, a move under another gallery) revokes the addresses already given', async () => {
      const g = await create(w, 'Guarded', w.rootUuid, { password: 'one', acl: [{ email: 'DEFAULT', read: 1, comp_download: 0, hires_download: 1 }] });
      const m = await uploadPhoto(w, g, 8, 400);
      const made = await waitForRenditions(w, [m]);
      const addresses = async (password: string) => {
        const cookie = cookieOf(await visit(w.svc, `${home}/_password`, { form: { gallery: g, password, back: `${home}/-/guarded` } }))!;
        const page = await visit(w.svc, `${home}/-/guarded/_/${m}`, { cookie });
        expect(page.status).toBe(200);
        const html = page.body.replace(/&amp;/g, '&');
        const original = /<a href="([^"]+)" download>Download the original/.exec(html)![1];
        const picture = made ? /<img src="([^"]+)"/.exec(html)![1] : undefined;
        for (const url of [original, picture]) if (url) expect((await fetch(w.svc.url + url)).status).toBe(200);
        return [original, picture].filter((u): u is string => u !== undefined);
      };
      const revoked = async (urls: string[]) => {
        for (const url of urls) {
          const res = await fetch(w.svc.url + url);
          expect(res.status).toBe(404);
          expect(await res.text()).toBe('not found');
        }
      };
      // A new password: what was signed under the old one stops working.
      const before = await addresses('one');
      await w.client.updateGallery(w.urlname, g, { password: 'two' });
      await revoked(before);
      // Moved under another gallery (whose access list now applies too): the same.
      const again = await addresses('two');
      const elsewhere = await create(w, 'Elsewhere', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 1, comp_download: 1, hires_download: 1 }] });
      await w.client.updateGallery(w.urlname, g, { parent: elsewhere });
      await revoked(again);
      // Addresses given after the change work.
      const cookie = cookieOf(await visit(w.svc, `${home}/_password`, { form: { gallery: g, password: 'two', back: `${home}/-/elsewhere/guarded` } }))!;
      const page = await visit(w.svc, `${home}/-/elsewhere/guarded/_/${m}`, { cookie });
      const fresh = /<a href="([^"]+)" download>Download the original/.exec(page.body.replace(/&amp;/g, '&'))![1];
      expect((await fetch(w.svc.url + fresh)).status).toBe(200);
    });
  });
});

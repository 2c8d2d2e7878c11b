// The studio's media library over HTTP (docs/studio.md, "Media"), on SQLite and PostgreSQL:
// the grid's data a page at a time, the batch edit through the API's batch job (read back
// through the signed API), publish/remove, the manual order of a gallery, replacing a file,
// editing one media (title, caption, alt text, keywords), deleting, another user's medias 404, CSRF refused on forms and on scripts' JSON.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { createGallery, getMedia, insertMedias, uuidsOf, waitForJob } from '../support/media.js';
import { startWorld, type World } from '../support/world.js';
import { StudioBrowser, type Answer } from './studio-support.js';

/** A script's JSON request as the screen sends it (its CSRF header, same-origin). */
async function sendJson(b: StudioBrowser, path: string, body: unknown, csrf: string | null): Promise<Answer & { json: any }> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    cookie: [...b.jar].map(([k, v]) => `${k}=${v}`).join('; '),
    origin: b.svc.url,
    'sec-fetch-site': 'same-origin',
  };
  if (csrf !== null) headers['x-studio-csrf'] = csrf;
  const res = await fetch(b.svc.url + path, { method: 'POST', redirect: 'manual', headers, body: JSON.stringify(body) });
  const raw = await res.text();
  return { status: res.status, headers: res.headers, body: raw, setCookies: [], json: raw ? JSON.parse(raw) : undefined };
}

async function getJson(b: StudioBrowser, path: string): Promise<{ status: number; json: any }> {
  const res = await b.get(path, { accept: 'application/json' });
  return { status: res.status, json: JSON.parse(res.body) };
}

async function waitStudioJob(b: StudioBrowser, uuid: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await getJson(b, `/studio/media/jobs/${uuid}`);
    expect(r.status).toBe(200);
    if (r.json.state === 'done' || r.json.state === 'failed') return r.json;
    if (Date.now() > deadline) throw new Error(`job still ${r.json.state}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

eachDatabase((kind) => {
  let w: World;
  let b: StudioBrowser;
  let csrf: string;
  let medias: string[];
  beforeAll(async () => {
    w = await startWorld(kind);
    medias = await insertMedias(w.svc.db, w.user, 130);
    b = await new StudioBrowser(w.svc).signIn(w.user);
    csrf = StudioBrowser.csrf(await b.get('/studio/media'));
  }, 60_000);
  afterAll(() => w?.svc.close());

  const keywordsOf = async (uuid: string) => all(find((await getMedia(w.client, uuid, 'details')).doc, 'media')!, 'keywords/keyword').map((n) => n.text);

  describe('the grid', () => {
    it('shows a page of the library with checkboxes, the batch form, and the script', async () => {
      const page = await b.get('/studio/media');
      expect(page.status).toBe(200);
      expect(page.body).toContain('130 medias');
      expect(page.body.match(/name="media" value="/g)?.length).toBe(60);
      expect(page.body).toContain('action="/studio/media/batch"');
      expect(page.body).toMatch(/<script type="module" src="\/studio\/_assets\/[\w-]+\.js"/);
      expect(page.body).not.toMatch(/style=/);
      const last = await b.get('/studio/media?page=3');
      expect(last.body.match(/name="media" value="/g)?.length).toBe(10);
      expect(last.body).toContain(medias[129]);
    });

    it('sends the screen script brotli or gzip when the browser takes it, and plain otherwise', async () => {
      const page = await b.get('/studio/media');
      const script = /src="(\/studio\/_assets\/[\w-]+\.js)"/.exec(page.body)![1];
      const plain = await fetch(w.svc.url + script, { headers: { 'accept-encoding': 'identity' } });
      const text = await plain.text();
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(text).toContain('virtualised');
      const { brotliDecompressSync, gunzipSync } = await import('node:zlib');
      for (const [accept, coding, decode] of [
        ['gzip, deflate, br', 'br', brotliDecompressSync],
        ['gzip', 'gzip', gunzipSync],
        ['br;q=0, gzip;q=0.5', 'gzip', gunzipSync],
      ] as const) {
        // node's fetch would decode: a raw request reads the bytes as sent.
        const res = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
          import('node:http').then(({ get }) =>
            get(w.svc.url + script, { headers: { 'accept-encoding': accept } }, (r) => {
              const parts: Buffer[] = [];
              r.on('data', (c: Buffer) => parts.push(c));
              r.on('end', () => resolve({ headers: r.headers, body: Buffer.concat(parts) }));
            }).on('error', reject),
          );
        });
        expect(res.headers['content-encoding']).toBe(coding);
        expect(res.headers.vary).toContain('accept-encoding');
        expect(res.body.length).toBeLessThan(text.length / 2);
        expect(decode(res.body).toString('utf8')).toBe(text);
      }
    });

    it('sends its pages brotli or gzip when the browser takes them, and plain otherwise', async () => {
      const plain = await b.get('/studio/media', { 'accept-encoding': 'identity' });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(plain.headers.get('vary')).toContain('accept-encoding');
      const { brotliDecompressSync, gunzipSync } = await import('node:zlib');
      const { get } = await import('node:http');
      const cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ');
      for (const [accept, coding, decode] of [
        ['gzip, deflate, br', 'br', brotliDecompressSync],
        ['br;q=0, gzip', 'gzip', gunzipSync],
      ] as const) {
        const res = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
          get(w.svc.url + '/studio/media', { headers: { 'accept-encoding': accept, cookie } }, (r) => {
            const parts: Buffer[] = [];
            r.on('data', (c: Buffer) => parts.push(c));
            r.on('end', () => resolve({ headers: r.headers, body: Buffer.concat(parts) }));
          }).on('error', reject);
        });
        expect(res.headers['content-encoding']).toBe(coding);
        expect(Number(res.headers['content-length'])).toBe(res.body.length);
        expect(decode(res.body).toString('utf8')).toBe(plain.body);
      }
    });

    it('answers the items a page at a time, in the API listing order', async () => {
      const first = await getJson(b, '/studio/media/items.json?offset=0&limit=50');
      expect(first.status).toBe(200);
      expect(first.json.total).toBe(130);
      expect(first.json.items.map((i: { uuid: string }) => i.uuid)).toEqual(medias.slice(0, 50));
      const tail = await getJson(b, '/studio/media/items.json?offset=120&limit=50');
      expect(tail.json.items.map((i: { uuid: string }) => i.uuid)).toEqual(medias.slice(120));
      const api = await w.client.request('GET', '/medias.xml', { page: 3, per_page: 50 });
      expect(uuidsOf(api).slice(-10)).toEqual(tail.json.items.map((i: { uuid: string }) => i.uuid).slice(-10));
      for (const bad of ['offset=-1', 'limit=0', 'limit=501', 'offset=x', 'offset=1e400']) {
        const r = await getJson(b, `/studio/media/items.json?${bad}`);
        expect(r.status).toBe(422);
        expect(r.json.error).toBeTruthy();
      }
    });

    it('answers a page of a 10 000-media library with that page only', async () => {
      const big = await startWorld(kind);
      try {
        await insertMedias(big.svc.db, big.user, 10_000);
        const bb = await new StudioBrowser(big.svc).signIn(big.user);
        const r = await getJson(bb, '/studio/media/items.json?offset=9990&limit=10');
        expect(r.json.total).toBe(10_000);
        expect(r.json.items).toHaveLength(10);
        // The reply holds the page only, whatever the scope's size.
        const mid = await bb.get('/studio/media/items.json?offset=5000&limit=10', { accept: 'application/json' });
        expect(mid.body.length).toBeLessThan(4000);
      } finally {
        await big.svc.close();
      }
    }, 120_000);
  });

  describe('batch edit', () => {
    it('edits the selected medias keywords through the batch job, and the API shows them', async () => {
      const chosen = medias.slice(0, 3);
      const r = await sendJson(b, '/studio/media/batch', { media: chosen, keywords: 'wedding, Paris', keywords_mode: 'add', title: 'Ceremony' }, csrf);
      expect(r.status).toBe(200);
      expect(r.json.count).toBe(3);
      const done = await waitStudioJob(b, r.json.job.uuid);
      expect(done).toMatchObject({ state: 'done', processed: 3, total: 3 });
      // The job is the API's: its status resource answers it too.
      expect(text((await w.client.request('GET', `/jobs/${r.json.job.uuid}.xml`)).doc, 'job/state')).toBe('done');
      for (const u of chosen) expect(await keywordsOf(u)).toEqual(['wedding', 'Paris']);
      expect(text((await getMedia(w.client, chosen[0])).doc, 'media/title')).toBe('Ceremony');
      expect(await keywordsOf(medias[3])).toEqual([]);
      // Removing one keyword, then replacing them all.
      const rm = await sendJson(b, '/studio/media/batch', { media: chosen, keywords: 'Paris', keywords_mode: 'remove' }, csrf);
      await waitStudioJob(b, rm.json.job.uuid);
      expect(await keywordsOf(chosen[1])).toEqual(['wedding']);
    });

    it('selects all of a scope as the scope, with the count the screen showed (409 when it changed)', async () => {
      const gallery = await createGallery(w, 'Select all');
      const pub = await sendJson(b, '/studio/media/batch', { media: medias.slice(10, 15), publish: gallery }, csrf);
      await waitStudioJob(b, pub.json.job.uuid);
      const stale = await sendJson(b, '/studio/media/batch', { all: true, gallery, count: 4, location: 'Lyon' }, csrf);
      expect(stale.status).toBe(409);
      const r = await sendJson(b, '/studio/media/batch', { all: true, gallery, count: 5, location: 'Lyon' }, csrf);
      expect(r.status).toBe(200);
      expect(r.json.count).toBe(5);
      await waitStudioJob(b, r.json.job.uuid);
      const listed = await w.client.request('GET', '/medias.xml', { gallery_id: gallery, view: 'details' });
      expect(all(listed.doc, 'medias/media/location').map((n) => n.text)).toEqual(Array(5).fill('Lyon'));
      expect(text((await getMedia(w.client, medias[16])).doc, 'media/location')).toBeFalsy();
    });

    it('takes the batch form without script and shows the job on the page it redirects to', async () => {
      const res = await b.post('/studio/media/batch', { csrf, media: medias[20], keywords: 'form', keywords_mode: 'replace' });
      expect(res.status).toBe(303);
      const to = res.headers.get('location')!;
      expect(to).toMatch(/^\/studio\/media\?job=[0-9a-f-]{36}$/);
      await waitForJob(w.client, `/jobs/${to.split('=')[1]}.xml`);
      const page = await b.get(to);
      expect(page.body).toContain('Done: 1 of 1 medias.');
      expect(await keywordsOf(medias[20])).toEqual(['form']);
      // Several checkboxes of the form.
      const body = new URLSearchParams([['csrf', csrf], ['media', medias[21]], ['media', medias[22]], ['title', 'Two']]);
      const two = await fetch(`${w.svc.url}/studio/media/batch`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...b.jar].map(([k, v]) => `${k}=${v}`).join('; '), origin: w.svc.url, 'sec-fetch-site': 'same-origin' },
        body: body.toString(),
      });
      expect(two.status).toBe(303);
      await waitForJob(w.client, `/jobs/${two.headers.get('location')!.split('=')[1]}.xml`);
      expect(text((await getMedia(w.client, medias[22])).doc, 'media/title')).toBe('Two');
    });

    it("refuses a 422 of the API's reader with its message, and nothing selected", async () => {
      const long = await sendJson(b, '/studio/media/batch', { media: [medias[0]], title: 'x'.repeat(1001) }, csrf);
      expect(long.status).toBe(422);
      expect(long.json.error).toMatch(/title/);
      const none = await sendJson(b, '/studio/media/batch', { media: [], title: 'x' }, csrf);
      expect(none.status).toBe(422);
      const nothing = await sendJson(b, '/studio/media/batch', { media: [medias[0]] }, csrf);
      expect(nothing.status).toBe(422);
    });

    it('publishes to and removes from a gallery', async () => {
      const gallery = await createGallery(w, 'Publish here');
      const r = await sendJson(b, '/studio/media/batch', { media: medias.slice(30, 34), publish: gallery }, csrf);
      await waitStudioJob(b, r.json.job.uuid);
      expect(uuidsOf(await w.client.request('GET', '/medias.xml', { gallery_id: gallery }))).toEqual(medias.slice(30, 34));
      const off = await sendJson(b, '/studio/media/batch', { media: [medias[31]], unpublish: gallery }, csrf);
      await waitStudioJob(b, off.json.job.uuid);
      expect(uuidsOf(await w.client.request('GET', '/medias.xml', { gallery_id: gallery }))).toEqual([medias[30], medias[32], medias[33]]);
      // The gallery's own grid shows the same.
      const page = await b.get(`/studio/media?gallery=${gallery}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('Gallery: Publish here');
      expect(page.body).toContain('3 medias');
    });
  });

  describe('order, replace, delete', () => {
    it("moves medias within a gallery's manual order (drag and drop, earlier/later), as the API lists them", async () => {
      const gallery = await createGallery(w, 'Order');
      const chosen = medias.slice(40, 45);
      const r = await sendJson(b, '/studio/media/batch', { media: chosen, publish: gallery }, csrf);
      await waitStudioJob(b, r.json.job.uuid);
      const order = async () => uuidsOf(await w.client.request('GET', '/medias.xml', { gallery_id: gallery }));
      expect(await order()).toEqual(chosen);
      const [a, bb, c, d, e] = chosen;
      // Two medias dropped before the first.
      expect((await sendJson(b, '/studio/media/move', { gallery, media: [d, e], before: a }, csrf)).status).toBe(200);
      expect(await order()).toEqual([d, e, a, bb, c]);
      // To the end.
      await sendJson(b, '/studio/media/move', { gallery, media: [d], before: null }, csrf);
      expect(await order()).toEqual([e, a, bb, c, d]);
      // The form's "later" button (no script).
      const later = await b.post('/studio/media/move', { csrf, gallery, media: e, before: bb });
      expect(later.status).toBe(303);
      expect(await order()).toEqual([a, e, bb, c, d]);
      // A media not in the gallery, or an unknown gallery.
      expect((await sendJson(b, '/studio/media/move', { gallery, media: [medias[0]], before: null }, csrf)).status).toBe(404);
      expect((await sendJson(b, '/studio/media/move', { gallery: '00000000-0000-4000-8000-000000000000', media: [a], before: null }, csrf)).status).toBe(404);
      expect((await sendJson(b, '/studio/media/move', { gallery, media: [a], before: a }, csrf)).status).toBe(422);
    });

    it('replaces a media file through the API direct upload: same UUID, new file', async () => {
      const target = medias[50];
      const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c33' } }).jpeg().toBuffer();
      const detail = await b.get(`/studio/media/${target}`);
      expect(detail.status).toBe(200);
      const form = new FormData();
      form.append('csrf', StudioBrowser.csrf(detail));
      form.append('file', new Blob([jpeg], { type: 'image/jpeg' }), 'new-photo.jpg');
      const cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ');
      const post = (f: FormData, headers: Record<string, string> = {}) =>
        fetch(`${w.svc.url}/studio/media/${target}/replace`, { method: 'POST', redirect: 'manual', headers: { cookie, origin: w.svc.url, 'sec-fetch-site': 'same-origin', ...headers }, body: f });
      const res = await post(form);
      expect(res.status).toBe(303);
      const media = find((await getMedia(w.client, target, 'details')).doc, 'media')!;
      expect(text(media, 'file-name')).toBe('new-photo.jpg');
      expect(Number(text(media, 'file-size'))).toBe(jpeg.length);
      // Without the token first, nothing is taken.
      const bad = new FormData();
      bad.append('file', new Blob([jpeg], { type: 'image/jpeg' }), 'other.jpg');
      expect((await post(bad)).status).toBe(403);
      const wrong = new FormData();
      wrong.append('csrf', 'nope');
      wrong.append('file', new Blob([jpeg], { type: 'image/jpeg' }), 'other.jpg');
      expect((await post(wrong)).status).toBe(403);
      expect(text(find((await getMedia(w.client, target, 'details')).doc, 'media')!, 'file-name')).toBe('new-photo.jpg');
    });

    it('edits one media (title, caption, alt text, keywords) as the API does; a bad value is a 422 at its field, nothing saved', async () => {
      const one = medias[59];
      const res = await b.post(`/studio/media/${one}/edit`, { csrf, title: ' Ridge ', description: 'Dawn <light>', alt_text: 'A ridge at dawn', keywords: 'ridge, Ridge, dawn' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`/studio/media/${one}?done=saved`);
      const m = find((await getMedia(w.client, one)).doc, 'media')!;
      expect([text(m, 'title'), text(m, 'description'), text(m, 'alt-text')]).toEqual(['Ridge', 'Dawn <light>', 'A ridge at dawn']);
      expect(all(m, 'keywords/keyword').map((k) => k.text)).toEqual(['ridge', 'dawn']);
      const page = await b.get(`/studio/media/${one}`);
      expect(page.body).toContain('Dawn &lt;light>');
      expect(page.body).not.toContain('<light>');
      // A blank field clears it; one over its bound is refused at its field, nothing saved.
      const bad = await b.post(`/studio/media/${one}/edit`, { csrf, title: 'Changed', description: '', alt_text: 'x'.repeat(1001), keywords: '' });
      expect(bad.status).toBe(422);
      expect(bad.body).toContain('id="alt_text-error"');
      expect(bad.body).toContain('The alt text is longer than 1000 characters');
      expect(text((await getMedia(w.client, one)).doc, 'media/title')).toBe('Ridge');
      expect((await b.post(`/studio/media/${one}/edit`, { csrf, title: 'Ridge', description: '', alt_text: '', keywords: '' })).status).toBe(303);
      const cleared = find((await getMedia(w.client, one)).doc, 'media')!;
      expect([text(cleared, 'description'), text(cleared, 'alt-text'), all(cleared, 'keywords/keyword').length]).toEqual([undefined, undefined, 0]);
    });

    it('deletes one media after the confirmation, and a selection through the batch job', async () => {
      const one = medias[60];
      expect((await b.post(`/studio/media/${one}/delete`, { csrf })).status).toBe(422);
      expect((await getMedia(w.client, one)).status).toBe(200);
      const res = await b.post(`/studio/media/${one}/delete`, { csrf, confirm: 'yes' });
      expect(res.status).toBe(303);
      expect((await w.client.request('GET', `/medias/${one}.xml`).catch((e) => e)).status).toBe(404);
      const many = medias.slice(61, 64);
      const unconfirmed = await b.post('/studio/media/batch', { csrf, media: many[0], delete: '1' });
      expect(unconfirmed.status).toBe(422);
      const r = await sendJson(b, '/studio/media/batch', { media: many, delete: true, confirm_delete: 'yes', title: 'ignored' }, csrf);
      expect(r.status).toBe(200);
      await waitStudioJob(b, r.json.job.uuid);
      for (const u of many) expect((await w.client.request('GET', `/medias/${u}.xml`).catch((e) => e)).status).toBe(404);
    });
  });

  describe('refusals', () => {
    it("answers another user's medias, galleries and jobs with 404, and changes nothing", async () => {
      const other = await startWorldUser();
      const theirs = await insertMedias(w.svc.db, other.user, 2);
      const theirGallery = await createGallery(other.w, 'Theirs');
      expect((await b.get(`/studio/media/${theirs[0]}`)).status).toBe(404);
      expect((await b.get(`/studio/media?gallery=${theirGallery}`)).status).toBe(404);
      expect((await getJson(b, `/studio/media/items.json?gallery=${theirGallery}`)).status).toBe(404);
      expect((await sendJson(b, '/studio/media/batch', { media: [theirs[0]], title: 'Mine now' }, csrf)).status).toBe(404);
      expect((await sendJson(b, '/studio/media/batch', { media: [medias[70]], publish: theirGallery }, csrf)).status).toBe(422);
      expect((await b.post(`/studio/media/${theirs[0]}/delete`, { csrf, confirm: 'yes' })).status).toBe(404);
      expect((await b.post(`/studio/media/${theirs[0]}/edit`, { csrf, title: 'Mine now', alt_text: 'Mine now' })).status).toBe(404);
      expect((await b.post('/studio/media/not-a-uuid/edit', { csrf, title: 'x' })).status).toBe(404);
      const theirJob = await other.w.client.request('PUT', '/medias/batch_update.xml', { select: theirs.join(','), 'medias[title]': 'T' });
      expect((await getJson(b, `/studio/media/jobs/${text(theirJob.doc, 'job-uuid')}`)).status).toBe(404);
      expect((await b.get('/studio/media/not-a-uuid')).status).toBe(404);
      expect(text((await other.w.client.request('GET', `/medias/${theirs[0]}.xml`)).doc, 'media/title')).not.toBe('Mine now');
    });

    it('refuses changes without the CSRF token (form and JSON), from another origin, and signed out', async () => {
      const target = medias[80];
      expect((await sendJson(b, '/studio/media/batch', { media: [target], title: 'Hijacked' }, null)).status).toBe(403);
      expect((await sendJson(b, '/studio/media/batch', { media: [target], title: 'Hijacked' }, csrf.slice(0, -2) + 'xx')).status).toBe(403);
      expect((await b.post('/studio/media/batch', { media: target, title: 'Hijacked' })).status).toBe(403);
      expect((await b.post('/studio/media/batch', { csrf, media: target, title: 'Hijacked' }, { origin: 'https://evil.example' })).status).toBe(403);
      expect((await b.post(`/studio/media/${target}/delete`, { confirm: 'yes' })).status).toBe(403);
      expect((await b.post(`/studio/media/${target}/edit`, { title: 'Hijacked' })).status).toBe(403);
      expect((await b.post(`/studio/media/${target}/edit`, { csrf, title: 'Hijacked' }, { origin: 'https://evil.example' })).status).toBe(403);
      expect((await b.post('/studio/media/move', { gallery: w.rootUuid, media: target })).status).toBe(403);
      const anon = new StudioBrowser(w.svc);
      expect((await anon.get('/studio/media')).status).toBe(303);
      expect((await anon.post('/studio/media/batch', { csrf, media: target, title: 'Hijacked' })).status).toBe(401);
      expect(text((await getMedia(w.client, target)).doc, 'media/title')).toBeFalsy();
    });
  });

  async function startWorldUser() {
    const user = await w.svc.user();
    const site = await w.svc.website(user);
    const app = await w.svc.app();
    return { user, w: { ...w, user, urlname: site.urlname, rootUuid: site.rootGalleryUuid, client: w.svc.client(app, user) } };
  }
});

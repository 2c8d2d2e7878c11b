// The studio's watermarks over HTTP (docs/studio.md "Watermarks"), on SQLite and PostgreSQL:
// a text and an uploaded image, read back through the signed API; a file that is no image
// refused on its field; the preview a bounded JPEG, on a grey canvas and then on the user's
// latest photo; the default; deleting one (the medias that named it name none); another
// user's library or watermark 404; CSRF refused. The look (strength, position, tile): chosen on
// creation and changed on an existing one, read back through the signed API, refused on its
// field, drawn by the preview where it says; another user's 404, CSRF refused.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text } from '../../src/client/xml.js';
import { insertMedias, mediaId } from '../support/media.js';
import { eachDatabase } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { fieldError, StudioBrowser } from './studio-support.js';

eachDatabase((kind) => {
  let w: World;
  let b: StudioBrowser;
  let csrf: string;
  let library: string;
  beforeAll(async () => {
    w = await startWorld(kind);
    library = w.user.defaultArtistUuid;
    b = await new StudioBrowser(w.svc).signIn(w.user);
    csrf = StudioBrowser.csrf(await b.get('/studio/watermarks'));
  }, 60_000);
  afterAll(() => w?.svc.close());

  const listed = async () => {
    const res = await w.client.request('GET', `/artists/${library}/watermarks.xml`, { view: 'details' });
    return all(res.doc, 'watermarks/watermark').map((m) => ({
      uuid: text(m, 'uuid')!,
      text: text(m, 'text'),
      fileName: text(m, 'file-name'),
      width: text(m, 'width'),
      height: text(m, 'height'),
      isDefault: text(m, 'default') === 'true',
      strength: text(m, 'strength'),
      position: text(m, 'position'),
      tile: text(m, 'tile'),
    }));
  };
  const cookie = () => [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const postImage = (form: FormData, artist = library) =>
    fetch(`${w.svc.url}/studio/watermarks/libraries/${artist}/image`, { method: 'POST', redirect: 'manual', headers: { cookie: cookie(), origin: w.svc.url, 'sec-fetch-site': 'same-origin' }, body: form });
  const preview = async (uuid: string) => {
    const res = await fetch(`${w.svc.url}/studio/watermarks/${uuid}/preview.jpg`, { headers: { cookie: cookie() } });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  };

  let textMark: string;
  let imageMark: string;

  it('creates a text watermark, listed by the signed API, and refuses an empty or too long one on its field', async () => {
    const res = await b.post(`/studio/watermarks/libraries/${library}/text`, { csrf, text: '© Ann Lee <b>', default: 'yes' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/studio/watermarks?done=created');
    const marks = await listed();
    expect(marks).toHaveLength(1);
    expect(marks[0]).toMatchObject({ text: '© Ann Lee <b>', isDefault: true });
    textMark = marks[0].uuid;
    const page = await b.get('/studio/watermarks');
    expect(page.body).toContain('© Ann Lee &lt;b>');
    expect(page.body).toContain(`/studio/watermarks/${textMark}/preview.jpg`);

    for (const bad of ['   ', 'x'.repeat(201)]) {
      const refused = await b.post(`/studio/watermarks/libraries/${library}/text`, { csrf, text: bad });
      expect(refused.status).toBe(422);
      expect(fieldError(refused.body, `text-${library}`)).toMatch(/empty|longer than 200/);
    }
    expect(await listed()).toHaveLength(1);
  });

  it('uploads an image watermark (listed with its size), refuses a file that is no image and keeps nothing of it', async () => {
    const png = await sharp({ create: { width: 300, height: 120, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 0.6 } } }).png().toBuffer();
    const form = new FormData();
    form.append('csrf', csrf);
    form.append('file', new Blob([png], { type: 'image/png' }), 'logo.png');
    const res = await postImage(form);
    expect(res.status).toBe(303);
    const marks = await listed();
    const image = marks.find((m) => m.fileName === 'logo.png')!;
    expect(image).toMatchObject({ width: '300', height: '120', isDefault: false });
    expect(image.text).toBeUndefined();
    imageMark = image.uuid;

    const fake = new FormData();
    fake.append('csrf', csrf);
    fake.append('file', new Blob(['plain text, not a picture'], { type: 'image/png' }), 'fake.png');
    const refused = await postImage(fake);
    expect(refused.status).toBe(422);
    expect(fieldError(await refused.text(), `file-${library}`)).toMatch(/not a readable image/);
    expect(await listed()).toHaveLength(2);
    // In the store (local files here: DATA_DIR/media), and no partial file of the refused one left.
    expect((await readdir(join(w.svc.config.dataDir, 'media', 'watermarks'))).sort()).toEqual([`${imageMark}.png`]);
    expect((await readdir(join(w.svc.config.dataDir, 'tmp'))).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('refuses an image watermark of more than 8 megapixels on its field, and keeps nothing of it', async () => {
    // 9 Mpx of one colour: a small file, and far more pixels than a watermark drawn at most 1280 px wide needs.
    const big = await sharp({ create: { width: 3000, height: 3000, channels: 4, background: '#ffffff80' } }).png().toBuffer();
    const form = new FormData();
    form.append('csrf', csrf);
    form.append('file', new Blob([big], { type: 'image/png' }), 'huge.png');
    const refused = await postImage(form);
    expect(refused.status).toBe(422);
    expect(fieldError(await refused.text(), `file-${library}`)).toMatch(/more than 8 megapixels/);
    expect((await listed()).map((m) => m.fileName)).not.toContain('huge.png');
    expect((await readdir(join(w.svc.config.dataDir, 'tmp'))).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('refuses forms without the CSRF token (the image before anything is received)', async () => {
    expect((await b.post(`/studio/watermarks/libraries/${library}/text`, { text: 'x' })).status).toBe(403);
    expect((await b.post(`/studio/watermarks/libraries/${library}/text`, { csrf: 'nope', text: 'x' })).status).toBe(403);
    const png = await sharp({ create: { width: 8, height: 8, channels: 4, background: '#fff' } }).png().toBuffer();
    const form = new FormData();
    form.append('file', new Blob([png], { type: 'image/png' }), 'x.png');
    expect((await postImage(form)).status).toBe(403);
    expect((await b.post(`/studio/watermarks/${textMark}/delete`, { confirm: 'yes' })).status).toBe(403);
    expect((await b.post(`/studio/watermarks/${imageMark}/default`, {})).status).toBe(403);
    expect(await listed()).toHaveLength(2);
  });

  it('previews a watermark as a JPEG within 1200 px: on a grey canvas, then on the latest photo', async () => {
    const grey = await preview(textMark);
    expect(grey.status).toBe(200);
    expect(grey.headers.get('content-type')).toBe('image/jpeg');
    expect(grey.headers.get('cache-control')).toBe('private, max-age=60');
    const meta = await sharp(grey.body).metadata();
    expect(meta.format).toBe('jpeg');
    expect([meta.width, meta.height]).toEqual([1200, 800]);
    // The text is drawn: the canvas is no longer one grey.
    expect((await sharp(grey.body).stats()).channels[0].max).toBeGreaterThan(0x8a + 20);

    const image = await preview(imageMark);
    expect(image.status).toBe(200);
    expect((await sharp(image.body).stats()).channels[0].max).toBeGreaterThan(0x8a + 20);

    // A photo with renditions: the preview is drawn on it, at its proportions.
    const photo = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#204080' } }).jpeg().toBuffer();
    const up = await w.client.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'blue.jpg', data: photo } });
    const uuid = text(up.doc, 'media/uuid')!;
    const deadline = Date.now() + 60_000;
    while (text(find((await w.client.request('GET', `/medias/${uuid}.xml`)).doc, 'media')!, 'renditions-state') === 'processing') {
      if (Date.now() > deadline) throw new Error('renditions still processing');
      await new Promise((r) => setTimeout(r, 50));
    }
    const onPhoto = await preview(textMark);
    const m = await sharp(onPhoto.body).metadata();
    expect(Math.max(m.width!, m.height!)).toBeLessThanOrEqual(1200);
    expect(m.width! / m.height!).toBeCloseTo(4 / 3, 1);
    // The photo's blue shows (the grey canvas has equal channels).
    const stats = await sharp(onPhoto.body).stats();
    expect(stats.channels[2].mean).toBeGreaterThan(stats.channels[0].mean + 40);
  }, 90_000);

  it('makes another watermark the default (one default per library)', async () => {
    expect((await b.post(`/studio/watermarks/${imageMark}/default`, { csrf })).status).toBe(303);
    const marks = await listed();
    expect(marks.filter((m) => m.isDefault).map((m) => m.uuid)).toEqual([imageMark]);
  });

  it("answers 404 for another user's library and watermark, and for unknown ones", async () => {
    const other = await w.svc.user();
    const otherBrowser = await new StudioBrowser(w.svc).signIn(other);
    const otherCsrf = StudioBrowser.csrf(await otherBrowser.get('/studio/watermarks'));
    expect((await otherBrowser.get(`/studio/watermarks/${textMark}/preview.jpg`)).status).toBe(404);
    expect((await otherBrowser.post(`/studio/watermarks/${textMark}/delete`, { csrf: otherCsrf, confirm: 'yes' })).status).toBe(404);
    expect((await otherBrowser.post(`/studio/watermarks/${textMark}/default`, { csrf: otherCsrf })).status).toBe(404);
    expect((await otherBrowser.post(`/studio/watermarks/libraries/${library}/text`, { csrf: otherCsrf, text: 'mine' })).status).toBe(404);
    expect((await b.get(`/studio/watermarks/${randomUUID()}/preview.jpg`)).status).toBe(404);
    expect((await b.get('/studio/watermarks/nope/preview.jpg')).status).toBe(404);
    expect(await listed()).toHaveLength(2);
    expect((await otherBrowser.get('/studio/watermarks')).body).not.toContain(textMark);
  });

  describe('delete', () => {
    it('needs the confirmation; then the watermark, its file and the medias naming it let go, in one step', async () => {
      const [media] = await insertMedias(w.svc.db, w.user, 1);
      const id = await mediaId(w.svc.db, media);
      const markId = (await w.svc.db.selectFrom('watermarks').select('id').where('uuid', '=', imageMark).executeTakeFirstOrThrow()).id;
      await w.svc.db.updateTable('medias').set({ watermark_id: markId }).where('id', '=', id).execute();

      expect((await b.post(`/studio/watermarks/${imageMark}/delete`, { csrf })).status).toBe(422);
      expect(await listed()).toHaveLength(2);
      const res = await b.post(`/studio/watermarks/${imageMark}/delete`, { csrf, confirm: 'yes' });
      expect(res.status).toBe(303);
      expect((await listed()).map((m) => m.uuid)).toEqual([textMark]);
      // The local store takes the emptied folder away too.
      expect(existsSync(join(w.svc.config.dataDir, 'media', 'watermarks', `${imageMark}.png`))).toBe(false);
      expect((await w.svc.db.selectFrom('medias').select('watermark_id').where('id', '=', id).executeTakeFirstOrThrow()).watermark_id).toBeNull();
      expect((await preview(imageMark)).status).toBe(404);
    });

    it('deletes the watermark even when its image cannot be removed at once; the cleanup sweep removes it then', async () => {
      const png = await sharp({ create: { width: 20, height: 20, channels: 4, background: '#fff' } }).png().toBuffer();
      const form = new FormData();
      form.append('csrf', csrf);
      form.append('file', new Blob([png], { type: 'image/png' }), 'stuck.png');
      expect((await postImage(form)).status).toBe(303);
      const uuid = (await listed()).find((m) => m.fileName === 'stuck.png')!.uuid;
      const key = `watermarks/${uuid}.png`;
      const file = join(w.svc.config.dataDir, 'media', key);
      // A folder where the file was: the store's removal fails (as a store that does not answer would).
      await rm(file);
      await mkdir(join(file, 'in-the-way'), { recursive: true });
      expect((await b.post(`/studio/watermarks/${uuid}/delete`, { csrf, confirm: 'yes' })).status).toBe(303);
      expect((await listed()).map((m) => m.uuid)).not.toContain(uuid);
      const recorded = () => w.svc.db.selectFrom('file_deletions').select('storage_key').where('storage_key', '=', key).execute();
      expect(await recorded()).toEqual([{ storage_key: key }]);
      // Once the store can remove it again, the sweep does.
      await rm(file, { recursive: true });
      await writeFile(file, png);
      await w.svc.service.sweep();
      expect(existsSync(file)).toBe(false);
      expect(await recorded()).toEqual([]);
    });
  });
  describe('the look: strength, position, tile', () => {
    /** The red channel's largest value in a region of the preview (the photo is #204080: text drawn white raises it). */
    const redMax = async (jpeg: Buffer, region: 'top-left' | 'bottom-right') => {
      const { width, height } = await sharp(jpeg).metadata();
      const w3 = Math.floor(width! / 3);
      const h3 = Math.floor(height! / 3);
      const area = region === 'top-left' ? { left: 0, top: 0, width: w3, height: h3 } : { left: width! - w3, top: height! - h3, width: w3, height: h3 };
      // stats() reads the whole input, not what extract() cut: cut first.
      return (await sharp(await sharp(jpeg).extract(area).toBuffer()).stats()).channels[0].max;
    };

    it('creates text and image watermarks with the chosen look, read back through the signed API; a wrong value is refused on its field and nothing is kept', async () => {
      const res = await b.post(`/studio/watermarks/libraries/${library}/text`, { csrf, text: 'Tiled', strength: '80', position: 'bottom-right', tile: 'yes' });
      expect(res.status).toBe(303);
      const tiled = (await listed()).find((m) => m.text === 'Tiled')!;
      expect(tiled).toMatchObject({ strength: '80', position: 'bottom-right', tile: 'true' });

      // Without the checkbox, not tiled; the table's defaults are what the forms offer.
      expect((await b.post(`/studio/watermarks/libraries/${library}/text`, { csrf, text: 'Plain', strength: '50', position: 'center' })).status).toBe(303);
      expect((await listed()).find((m) => m.text === 'Plain')).toMatchObject({ strength: '50', position: 'center', tile: 'false' });

      const png = await sharp({ create: { width: 200, height: 80, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 1 } } }).png().toBuffer();
      const form = new FormData();
      form.append('csrf', csrf);
      form.append('strength', '35');
      form.append('position', 'top-left');
      form.append('tile', 'yes');
      form.append('file', new Blob([png], { type: 'image/png' }), 'corner.png');
      expect((await postImage(form)).status).toBe(303);
      expect((await listed()).find((m) => m.fileName === 'corner.png')).toMatchObject({ strength: '35', position: 'top-left', tile: 'true' });

      const count = (await listed()).length;
      for (const [values, field, message] of [
        [{ strength: '101', position: 'center' }, `strength-text-${library}`, /whole number from 0 to 100/],
        [{ strength: '-1', position: 'center' }, `strength-text-${library}`, /whole number from 0 to 100/],
        [{ strength: '4.5', position: 'center' }, `strength-text-${library}`, /whole number/],
        [{ strength: '50', position: 'middle' }, `position-text-${library}`, /one of top-left, top, top-right/],
      ] as const) {
        const refused = await b.post(`/studio/watermarks/libraries/${library}/text`, { csrf, text: 'Nope', ...values });
        expect(refused.status).toBe(422);
        expect(fieldError(refused.body, field)).toMatch(message);
        // The form comes back as sent.
        expect(refused.body).toContain('value="Nope"');
      }
      const bad = new FormData();
      bad.append('csrf', csrf);
      bad.append('strength', '500');
      bad.append('position', 'center');
      bad.append('file', new Blob([png], { type: 'image/png' }), 'bad.png');
      const refused = await postImage(bad);
      expect(refused.status).toBe(422);
      expect(fieldError(await refused.text(), `strength-file-${library}`)).toMatch(/whole number from 0 to 100/);
      expect(await listed()).toHaveLength(count);
      expect((await readdir(join(w.svc.config.dataDir, 'tmp'))).filter((f) => f.endsWith('.part'))).toEqual([]);
    });

    it('changes the look of a watermark: the signed API reads it back and the preview draws it where it says', async () => {
      const before = (await listed()).find((m) => m.uuid === textMark)!;
      expect(before).toMatchObject({ strength: '50', position: 'center', tile: 'false' });
      const centred = (await preview(textMark)).body;

      expect((await b.post(`/studio/watermarks/${textMark}/look`, { csrf, strength: '100', position: 'top-left' })).status).toBe(303);
      expect((await listed()).find((m) => m.uuid === textMark)).toMatchObject({ strength: '100', position: 'top-left', tile: 'false' });
      const topLeft = (await preview(textMark)).body;
      expect(topLeft.equals(centred)).toBe(false);
      // On the blue photo: white in the top-left third, none in the bottom-right one.
      expect(await redMax(topLeft, 'top-left')).toBeGreaterThan(0xc0);
      expect(await redMax(topLeft, 'bottom-right')).toBeLessThan(0x60);

      expect((await b.post(`/studio/watermarks/${textMark}/look`, { csrf, strength: '100', position: 'top-left', tile: 'yes' })).status).toBe(303);
      expect((await listed()).find((m) => m.uuid === textMark)).toMatchObject({ tile: 'true' });
      expect(await redMax((await preview(textMark)).body, 'bottom-right')).toBeGreaterThan(0xc0);

      // Strength 0: nothing is drawn.
      expect((await b.post(`/studio/watermarks/${textMark}/look`, { csrf, strength: '0', position: 'top-left', tile: 'yes' })).status).toBe(303);
      const none = (await preview(textMark)).body;
      expect(await redMax(none, 'top-left')).toBeLessThan(0x60);
      expect(await redMax(none, 'bottom-right')).toBeLessThan(0x60);

      // The screen shows the saved look, and a preview address of its own for it (the browser keeps a preview a minute).
      const page = await b.get('/studio/watermarks');
      expect(page.body).toContain(`/studio/watermarks/${textMark}/preview.jpg?look=0-top-left-1`);
      expect(page.body).toMatch(new RegExp(`id="strength-${textMark}"[^>]*value="0"`));
    }, 60_000);

    it('refuses a wrong value on its field and changes nothing', async () => {
      const was = (await listed()).find((m) => m.uuid === textMark)!;
      const refused = await b.post(`/studio/watermarks/${textMark}/look`, { csrf, strength: 'lots', position: 'center', tile: 'yes' });
      expect(refused.status).toBe(422);
      expect(fieldError(refused.body, `strength-${textMark}`)).toMatch(/whole number from 0 to 100/);
      const wrongPlace = await b.post(`/studio/watermarks/${textMark}/look`, { csrf, strength: '40', position: 'everywhere' });
      expect(wrongPlace.status).toBe(422);
      expect(fieldError(wrongPlace.body, `position-${textMark}`)).toMatch(/one of/);
      expect((await listed()).find((m) => m.uuid === textMark)).toEqual(was);
    });

    it("answers 404 for another user's watermark or library (whatever the values) and refuses a change without the CSRF token", async () => {
      const was = (await listed()).find((m) => m.uuid === textMark)!;
      const count = (await listed()).length;
      const other = await w.svc.user();
      const otherBrowser = await new StudioBrowser(w.svc).signIn(other);
      const otherCsrf = StudioBrowser.csrf(await otherBrowser.get('/studio/watermarks'));
      expect((await otherBrowser.post(`/studio/watermarks/${textMark}/look`, { csrf: otherCsrf, strength: '90', position: 'top' })).status).toBe(404);
      expect((await otherBrowser.post(`/studio/watermarks/${textMark}/look`, { csrf: otherCsrf, strength: 'junk', position: 'top' })).status).toBe(404);
      // Creating in another's library with a wrong look: the library's 404 first, on both forms.
      expect((await otherBrowser.post(`/studio/watermarks/libraries/${library}/text`, { csrf: otherCsrf, text: 'mine', strength: '900' })).status).toBe(404);
      const form = new FormData();
      form.append('csrf', otherCsrf);
      form.append('strength', '900');
      form.append('file', new Blob([await sharp({ create: { width: 8, height: 8, channels: 4, background: '#fff' } }).png().toBuffer()], { type: 'image/png' }), 'x.png');
      const otherCookie = [...otherBrowser.jar].map(([k, v]) => `${k}=${v}`).join('; ');
      const image = await fetch(`${w.svc.url}/studio/watermarks/libraries/${library}/image`, { method: 'POST', redirect: 'manual', headers: { cookie: otherCookie, origin: w.svc.url, 'sec-fetch-site': 'same-origin' }, body: form });
      expect(image.status).toBe(404);
      expect((await b.post(`/studio/watermarks/${randomUUID()}/look`, { csrf, strength: '90', position: 'top' })).status).toBe(404);
      expect((await b.post('/studio/watermarks/nope/look', { csrf, strength: '90', position: 'top' })).status).toBe(404);
      expect((await b.post(`/studio/watermarks/${textMark}/look`, { strength: '90', position: 'top' })).status).toBe(403);
      expect((await b.post(`/studio/watermarks/${textMark}/look`, { csrf: 'nope', strength: '90', position: 'top' })).status).toBe(403);
      expect((await listed()).find((m) => m.uuid === textMark)).toEqual(was);
      expect(await listed()).toHaveLength(count);
    });
  });
});

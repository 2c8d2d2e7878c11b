// The cleanup feature's own timer: with a short UPLOAD_EXPIRY_SECONDS an
// abandoned upload disappears without anyone calling the sweep; a live media
// whose replacement was abandoned keeps its file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { find, text, type XmlNode } from '../../src/client/xml.js';
import { eachDatabase, TestService } from '../support/service.js';
import { png, postUpload, uploadParamsOf } from './uploads-support.js';

eachDatabase((kind) => {
  let svc: TestService;
  let c: MediaPortfolioClient;

  beforeAll(async () => {
    svc = await TestService.start(kind, { UPLOAD_EXPIRY_SECONDS: '2' });
    c = svc.client(await svc.app(), await svc.user());
  });
  afterAll(() => svc?.close());

  const storedFile = (key: string) => join(svc.config.dataDir, 'media', ...key.split('/'));
  const keyOf = (media: XmlNode) => uploadParamsOf(media).find(([k]) => k === 'key')![1];

  async function begin(path: string, method: 'POST' | 'PUT', data: Buffer): Promise<XmlNode> {
    const r = await c.request(
      method,
      path,
      { 'media[content][upload_location]': 'REQUEST', 'media[content][file_name]': 'a.png', 'media[content][file_size]': data.length, 'media[content][mime_type]': 'image/png' },
      { multipart: method === 'PUT' },
    );
    const media = find(r.doc, 'media')!;
    const sent = await postUpload(text(media, 'upload-url')!, uploadParamsOf(media), { field: 'file', data });
    expect(sent.status).toBe(200);
    return media;
  }

  async function waitFor(check: () => Promise<boolean>, ms = 8000): Promise<void> {
    const until = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > until) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('sweeps abandoned uploads on its own, and leaves a live media alone', async () => {
    const image = await png();
    // A live media (step 3 done right away), then an abandoned replacement of its file.
    const live = await begin('/medias.xml', 'POST', image);
    const uuid = text(live, 'uuid')!;
    await c.request(
      'PUT',
      `/medias/${uuid}.xml`,
      { 'media[content][upload_location]': 'local', 'media[content][file_name]': 'a.png', 'media[content][file_size]': image.length, 'media[content][mime_type]': 'image/png' },
      { multipart: true },
    );
    const replacement = await begin(`/medias/${uuid}.xml`, 'PUT', await png(5, 5));
    const abandoned = await begin('/medias.xml', 'POST', image);

    await waitFor(async () => (await svc.db.selectFrom('uploads').select('id').execute()).length === 0);
    // The files go just after the commit that ended the uploads.
    await waitFor(async () => !existsSync(storedFile(keyOf(abandoned))) && !existsSync(storedFile(keyOf(replacement))), 2000).catch(() => undefined);
    expect(existsSync(storedFile(keyOf(abandoned)))).toBe(false);
    expect(existsSync(storedFile(keyOf(replacement)))).toBe(false);
    expect(await svc.db.selectFrom('medias').select('uuid').where('uuid', '=', text(abandoned, 'uuid')!).execute()).toEqual([]);
    const kept = await svc.db.selectFrom('medias').selectAll().where('uuid', '=', uuid).executeTakeFirstOrThrow();
    expect(kept.status).toBe('live');
    expect(existsSync(storedFile(kept.storage_key!))).toBe(true);
  });
});

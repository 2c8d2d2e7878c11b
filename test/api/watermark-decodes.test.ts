// A watermark image is decoded once per ladder, not once per rung it is drawn on
// (docs/renditions.md, "Watermarks"), counted by mps_watermark_image_decodes_total.
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, text } from '../../src/client/xml.js';
import { nowIso } from '../../src/database/db.js';
import { TestService } from '../support/service.js';
import { worldOn, type MediaWorld } from '../support/media.js';

const TOKEN = randomUUID();

async function metric(url: string, name: string): Promise<number> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(await res.text());
  return m ? Number(m[1]) : 0;
}

// The database plays no part: SQLite only.
let w: MediaWorld;
beforeAll(async () => {
  w = await worldOn(await TestService.start('sqlite', { METRICS_TOKEN: TOKEN, JOB_POLL_MS: '50' }));
}, 60_000);
afterAll(() => w?.svc.close());

it('decodes an image watermark once for the four rungs it is drawn on', async () => {
  const artist = await w.svc.db.selectFrom('artists').select('id').where('uuid', '=', w.user.defaultArtistUuid).executeTakeFirstOrThrow();
  // The layout of installs from before (DATA_DIR/<storage key>): read as it is by the renditions.
  await mkdir(join(w.svc.config.dataDir, 'watermarks'), { recursive: true });
  await writeFile(join(w.svc.config.dataDir, 'watermarks', 'logo.png'), await sharp({ create: { width: 600, height: 200, channels: 4, background: '#ff000080' } }).png().toBuffer());
  const mark = randomUUID();
  await w.svc.db
    .insertInto('watermarks')
    .values({ uuid: mark, artist_id: artist.id, file_name: 'logo.png', storage_key: 'watermarks/logo.png', width: 600, height: 200, strength: 80, position: 'center', tile: 0, is_default: 0, created_at: nowIso() })
    .execute();
  const before = await metric(w.svc.url, 'mps_watermark_image_decodes_total');
  // 4000 px long: rungs 1152 (the website's phone rung), 1280, 2048 and 3840 get the watermark.
  const data = await sharp({ create: { width: 4000, height: 2000, channels: 3, background: '#808080' } }).jpeg().toBuffer();
  const up = await w.client.request('POST', '/medias.xml', { 'media[watermark_uuid]': mark }, { file: { field: 'media[content]', fileName: 'wide.jpg', data } });
  const uuid = text(up.doc, 'media/uuid')!;
  const deadline = Date.now() + 60_000;
  let media = (await w.client.request('GET', `/medias/${uuid}.xml`)).doc;
  while (text(media, 'media/renditions-state') === 'processing' && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    media = (await w.client.request('GET', `/medias/${uuid}.xml`)).doc;
  }
  expect(text(media, 'media/renditions-state')).toBe('ready');
  const flags = await w.svc.db.selectFrom('renditions as r').innerJoin('medias as m', 'm.id', 'r.media_id').select(['r.name', 'r.watermarked']).where('m.uuid', '=', uuid).execute();
  expect(Object.fromEntries(flags.map((f) => [f.name, f.watermarked]))).toEqual({ '320': 0, '640': 0, '1152': 1, '1280': 1, '2048': 1, '3840': 1 });
  expect(all(media, 'media/renditions/rendition')).toHaveLength(10);
  expect((await metric(w.svc.url, 'mps_watermark_image_decodes_total')) - before).toBe(1);
}, 120_000);

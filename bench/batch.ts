// Batch update of 10 000 medias on SQLite: from the request to the job being
// done, as a client sees it (target: within 5 s).
import { randomUUID } from 'node:crypto';
import { text } from '../src/client/xml.js';
import { nowIso } from '../src/database/db.js';
import type { BenchContext, BenchLine } from './lib.js';

const MEDIAS = Number(process.env.BENCH_BATCH_MEDIAS ?? 10_000);
const TARGET_SECONDS = 5;

async function seedMedias(b: BenchContext): Promise<void> {
  const artist = await b.db.selectFrom('artists').select('id').where('uuid', '=', b.user.defaultArtistUuid).executeTakeFirstOrThrow();
  const now = nowIso();
  await b.db.transaction().execute(async (trx) => {
    for (let i = 0; i < MEDIAS; i += 500) {
      const rows = Array.from({ length: Math.min(500, MEDIAS - i) }, (_, k) => ({
        uuid: randomUUID(),
        owner_id: b.user.id,
        artist_id: artist.id,
        status: 'live',
        file_name: `BATCH_${String(i + k).padStart(6, '0')}.jpg`,
        file_size: 2_000_000,
        mime_type: 'image/jpeg',
        storage_key: null,
        created_at: now,
        updated_at: now,
      }));
      await trx.insertInto('medias').values(rows).execute();
    }
  });
}

export async function benchBatch(b: BenchContext): Promise<BenchLine[]> {
  await seedMedias(b);
  const root = await b.db
    .selectFrom('galleries')
    .innerJoin('websites', 'websites.id', 'galleries.website_id')
    .select('galleries.uuid')
    .where('websites.owner_id', '=', b.user.id)
    .where('galleries.parent_id', 'is', null)
    .executeTakeFirstOrThrow();
  const urlname = (await b.db.selectFrom('websites').select('urlname').where('owner_id', '=', b.user.id).executeTakeFirstOrThrow()).urlname;
  const created = await b.client.createGallery(urlname, { name: `Batch ${Date.now()}`, parent: root.uuid });
  const gallery = text(created.doc, 'gallery/uuid')!;

  let total = 0;
  let state = '';
  let requestMs = 0;
  const wallMs = await b.time(async () => {
    const t0 = performance.now();
    const res = await b.client.request(
      'PUT',
      '/medias/batch_update.xml',
      { select: 'all', 'medias[add_keywords]': 'bench,batch', 'medias[title]': 'Batch updated', 'medias[publish_to_galleries]': [gallery] },
      { multipart: true, methodOverride: true },
    );
    requestMs = performance.now() - t0;
    const location = text(res.doc, 'location')!;
    for (;;) {
      const job = await b.client.request('GET', location);
      state = text(job.doc, 'job/state') ?? '';
      total = Number(text(job.doc, 'job/total'));
      if (state === 'done' || state === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  const seconds = wallMs / 1000;
  return [
    { name: `batch update request (select=all, ${total} medias: resolve + enqueue)`, value: requestMs, unit: 'ms' },
    {
      name: `batch update of ${total} medias, request to job done (${state})`,
      value: seconds,
      unit: 's',
      target: `<= ${TARGET_SECONDS} s`,
      ok: state === 'done' && total >= MEDIAS && seconds <= TARGET_SECONDS,
    },
  ];
}

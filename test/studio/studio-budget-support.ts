// A library seeded in bulk for the studio's budget tests: medias inserted in batches, each with
// one small rendition whose file is a hard link of one JPEG in the local store (keys are unique
// per rendition), so that 10 000 thumbnails cost seconds to set up, not uploads.
import { linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { nowIso } from '../../src/database/db.js';
import { insertMedias } from '../support/media.js';
import type { World } from '../support/world.js';

/** A small JPEG of its own colour. */
export function tinyJpeg(width = 48, height = 36): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 120, g: 90, b: 60 } } }).jpeg().toBuffer();
}

/**
 * `count` live medias of the user with one rendition each: `body`'s bytes (a tiny JPEG unless
 * told), stored once and linked under each rendition's own key. Returns the medias' UUIDs in order.
 */
export async function seedLibrary(w: World, count: number, body?: Buffer, seedName = 'seed'): Promise<string[]> {
  const db = w.svc.db;
  const bytes = body ?? (await tinyJpeg());
  const root = join(w.svc.config.dataDir, 'media', seedName);
  mkdirSync(root, { recursive: true });
  const source = join(root, 'source.jpg');
  writeFileSync(source, bytes);
  const uuids = await insertMedias(db, w.user, count);
  const now = nowIso();
  for (let i = 0; i < uuids.length; i += 500) {
    const ids = await db.selectFrom('medias').select('id').where('uuid', 'in', uuids.slice(i, i + 500)).execute();
    const rows = ids.map((m) => {
      linkSync(source, join(root, `r-${m.id}.jpg`));
      return { media_id: m.id, name: '320', width: 48, height: 36, mime_type: 'image/jpeg', storage_key: `${seedName}/r-${m.id}.jpg`, bytes: bytes.length, created_at: now };
    });
    for (let k = 0; k < rows.length; k += 100) await db.insertInto('renditions').values(rows.slice(k, k + 100)).execute();
    await db.updateTable('medias').set({ renditions_state: 'ready' }).where('id', 'in', ids.map((m) => m.id)).execute();
  }
  return uuids;
}

// Media libraries and their watermarks (src/artists/service.ts), on the
// services buildCore builds: what a user lists, who may see a library's
// watermarks, and how the operator's image watermarks land in DATA_DIR. The
// HTTP-level listings stay in test/api/galleries-styles-watermarks.test.ts,
// the admin commands in test/api/cli.test.ts.
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { withCore } from '../support/core.js';

async function refusal(p: Promise<unknown>): Promise<{ code: string; status: number; message: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return { code: err.code, status: err.status, message: err.message };
}

describe('media libraries and watermarks', () => {
  const w = withCore();
  const all = { limit: 100, offset: 0 };

  it('lists the default library first, then the others in the order they were made, a page at a time', async () => {
    const owner = await w.user('owner');
    await w.core.artists.create(owner, 'Weddings');
    await w.core.artists.create(owner, 'Landscapes');
    const { total, artists } = await w.core.artists.list(owner, all);
    expect(total).toBe(3);
    expect(artists.map((a) => Boolean(a.is_default))).toEqual([true, false, false]);
    expect(artists.slice(1).map((a) => a.name)).toEqual(['Weddings', 'Landscapes']);
    const page = await w.core.artists.list(owner, { limit: 1, offset: 2 });
    expect([page.total, page.artists.map((a) => a.name)]).toEqual([3, ['Landscapes']]);
    // Another user sees only their own default library.
    expect((await w.core.artists.list(await w.user('other'), all)).total).toBe(1);
  });

  it('keeps one default watermark per library, and shows a library\'s watermarks to its owner only', async () => {
    const owner = await w.user('owner');
    const { uuid: library } = await w.core.artists.create(owner, 'Marked');
    const first = await w.core.artists.createWatermark({ artistUuid: library, isDefault: true, text: '© First' });
    const second = await w.core.artists.createWatermark({ artistUuid: library, isDefault: true, text: '© Second' });
    await w.core.artists.createWatermark({ artistUuid: library, isDefault: false, text: '© Third' });
    const { total, watermarks } = await w.core.artists.watermarks(owner, library, all);
    expect(total).toBe(3);
    const byUuid = new Map(watermarks.map((m) => [m.uuid, m]));
    expect(Boolean(byUuid.get(first.uuid)!.is_default)).toBe(false);
    expect(Boolean(byUuid.get(second.uuid)!.is_default)).toBe(true);
    expect(watermarks.filter((m) => m.is_default)).toHaveLength(1);

    const stranger = await w.user('stranger');
    expect(await refusal(w.core.artists.watermarks(stranger, library, all))).toEqual({ code: 'not_found', status: 404, message: `media library ${library} not found` });
    expect(await refusal(w.core.artists.createWatermark({ artistUuid: '00000000-0000-4000-8000-000000000000', isDefault: false, text: 'x' }))).toMatchObject({ status: 404 });
  });

  it('copies an image watermark into the store (local: DATA_DIR/media), private, with its size; refuses a file that is no image and keeps nothing', async () => {
    const owner = await w.user('owner');
    const { uuid: library } = await w.core.artists.create(owner, 'Images');
    const png = join(w.dataDir, 'Logo "big".PNG');
    await writeFile(png, await sharp({ create: { width: 12, height: 7, channels: 4, background: '#fff8' } }).png().toBuffer());
    const { uuid } = await w.core.artists.createWatermark({ artistUuid: library, isDefault: false, file: png });
    const [mark] = (await w.core.artists.watermarks(owner, library, all)).watermarks;
    expect(mark).toMatchObject({ uuid, text: null, file_name: 'Logo _big_.PNG', storage_key: `watermarks/${uuid}.png`, width: 12, height: 7 });
    expect((await stat(join(w.dataDir, 'media', mark.storage_key!))).mode & 0o777).toBe(0o600);

    const fake = join(w.dataDir, 'not-an-image.png');
    await writeFile(fake, 'plain text, not a picture');
    expect(await refusal(w.core.artists.createWatermark({ artistUuid: library, isDefault: false, file: fake }))).toMatchObject({ code: 'invalid_parameter', status: 422 });
    expect(await readdir(join(w.dataDir, 'media', 'watermarks'))).toEqual([`${uuid}.png`]);
    expect((await readdir(join(w.dataDir, 'tmp'))).filter((f) => f.endsWith('.part'))).toEqual([]);
    expect((await w.core.artists.watermarks(owner, library, all)).total).toBe(1);
  });
});

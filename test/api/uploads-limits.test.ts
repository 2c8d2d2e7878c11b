// MAX_UPLOAD_BYTES: declared in step 1 or streamed in a direct upload, a file
// above the limit is refused and leaves nothing behind.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { eachDatabase, TestService } from '../support/service.js';
import { png } from './uploads-support.js';
import { rejection as failure } from '../support/world.js';

const LIMIT = 4096;

eachDatabase((kind) => {
  let svc: TestService;
  let c: MediaPortfolioClient;

  beforeAll(async () => {
    svc = await TestService.start(kind, { MAX_UPLOAD_BYTES: String(LIMIT) });
    c = svc.client(await svc.app(), await svc.user());
  });
  afterAll(() => svc?.close());

  const tmpFiles = () => (existsSync(join(svc.config.dataDir, 'tmp')) ? readdirSync(join(svc.config.dataDir, 'tmp')) : []);


  it('refuses a declared size above the limit with stop-with-error', async () => {
    const err = await failure(
      c.request('POST', '/medias.xml', {
        'media[content][upload_location]': 'REQUEST',
        'media[content][file_name]': 'big.jpg',
        'media[content][file_size]': LIMIT + 1,
        'media[content][mime_type]': 'image/jpeg',
      }),
    );
    expect(err.status).toBe(422);
    expect(err.stopWithError).toBe(true);
  });

  it('stops a direct upload at the limit: 413, no media, no temporary file', async () => {
    const big = Buffer.concat([await png(), Buffer.alloc(LIMIT * 4, 9)]);
    const err = await failure(c.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'big.png', data: big } }));
    expect(err.status).toBe(413);
    expect(await svc.db.selectFrom('medias').select('id').execute()).toEqual([]);
    expect(tmpFiles()).toEqual([]);
    // Below the limit it goes through.
    const small = await png();
    const ok = await c.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'small.png', data: small } });
    expect(ok.status).toBe(200);
  });
});

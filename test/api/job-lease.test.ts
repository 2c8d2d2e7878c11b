// A job that runs longer than its lease (JOB_LEASE_SECONDS) stays its worker's: the lease is
// renewed while the job runs (docs/batch-updates.md, "Claiming"), so a second service on the same
// database never takes it over and makes the same renditions again.
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { loadConfig } from '../../src/config.js';
import { buildApp as createService, type App as Service } from '../../src/app.js';
import { eachDatabase, TestService } from '../support/service.js';
import { worldOn, type MediaWorld } from '../support/media.js';

const TOKEN = randomUUID();
// A lease far shorter than one ladder of the picture below; both services look for work every 50 ms.
const ENV = { JOB_LEASE_SECONDS: '1', JOB_POLL_MS: '50', METRICS_TOKEN: TOKEN };

/** Ladders this service made: the count of its renditions jobs' slow step (GET /metrics). */
async function laddersMade(url: string): Promise<number> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  const body = await res.text();
  let n = 0;
  for (const m of body.matchAll(/^mps_job_prepare_duration_seconds_count\{[^}]*kind="renditions"[^}]*\} (\d+)$/gm)) n += Number(m[1]);
  return n;
}

eachDatabase((kind) => {
  let w: MediaWorld;
  let other: { service: Service; url: string } | undefined;

  beforeAll(async () => {
    w = await worldOn(await TestService.start(kind, ENV));
    // A second service on the same database and DATA_DIR, with a worker of its own.
    const config = loadConfig({ PORT: '0', RATE_LIMIT: 'off', LOG_LEVEL: 'warn', DATA_DIR: w.svc.config.dataDir, ...(w.svc.config.databaseUrl ? { DATABASE_URL: w.svc.config.databaseUrl } : {}), ...ENV });
    const service = await createService(config);
    await service.fastify.listen({ port: 0, host: '127.0.0.1' });
    const addr = service.fastify.server.address();
    other = { service, url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}` };
  }, 60_000);
  afterAll(async () => {
    await other?.service.close();
    await w?.svc.close();
  });

  it('makes the renditions of a picture once when its ladder outlasts the lease, with two workers on the database', async () => {
    // Noise encodes slowly: the ladder of 6 Mpx takes seconds, several times the 1 s lease.
    const data = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).jpeg({ quality: 90 }).toBuffer();
    const up = await w.client.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'noise.jpg', data } });
    const uuid = text(up.doc, 'media/uuid')!;
    const deadline = Date.now() + 120_000;
    let state: string | undefined;
    do {
      await new Promise((r) => setTimeout(r, 100));
      state = text((await w.client.request('GET', `/medias/${uuid}.xml`)).doc, 'media/renditions-state');
    } while (state === 'processing' && Date.now() < deadline);
    expect(state).toBe('ready');
    // Every ladder begun is over once the renditions are recorded: a worker that took the job over records them last.
    expect((await laddersMade(w.svc.url)) + (await laddersMade(other!.url))).toBe(1);
    const job = await w.svc.db.selectFrom('jobs').select(['state', 'attempts']).where('kind', '=', 'renditions').executeTakeFirstOrThrow();
    expect(job).toEqual({ state: 'done', attempts: 1 });
  }, 180_000);
});

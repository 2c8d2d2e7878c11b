// Owners take turns in the interactive lane chunk by chunk (docs/batch-updates.md, "Lanes and
// turns"): one photographer's "select all" batch does not keep the lane's only runner for its
// whole run; another's batch advances between its chunks.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { int, text } from '../../src/client/xml.js';
import type { Params } from '../../src/client/params.js';
import { eachDatabase } from '../support/service.js';
import { insertMedias, startMediaWorld, waitForJob, worldOn, type MediaWorld } from '../support/media.js';

// One interactive runner, chunks of 2 medias, a short pause so that each chunk's time is its own.
const JOB_ENV = { JOB_POLL_MS: '50', JOB_INTERACTIVE_CONCURRENCY: '1', JOB_CHUNK_SIZE: '2', JOB_CHUNK_PAUSE_MS: '20' };

eachDatabase((kind) => {
  let a: MediaWorld;
  let b: MediaWorld;
  beforeAll(async () => {
    a = await startMediaWorld(kind, JOB_ENV);
    b = await worldOn(a.svc);
  });
  afterAll(() => a?.svc.close());

  const batch = (w: MediaWorld, params: Params) => w.client.request('PUT', '/medias/batch_update.xml', params, { multipart: true, methodOverride: true });

  it("runs two photographers' batches side by side, one chunk each in turn", async () => {
    const PER_OWNER = 8;
    const mediasA = await insertMedias(a.svc.db, a.user, PER_OWNER);
    const mediasB = await insertMedias(b.svc.db, b.user, PER_OWNER);
    // Both queued before the runner looks: A's first, then B's.
    const worker = a.svc.service.worker;
    await worker.stop();
    const jobA = await batch(a, { select: mediasA.join(','), medias_count: PER_OWNER, 'medias[title]': 'A' });
    const jobB = await batch(b, { select: mediasB.join(','), medias_count: PER_OWNER, 'medias[title]': 'B' });
    worker.start();
    for (const [w, res] of [[a, jobA], [b, jobB]] as const) {
      const done = await waitForJob(w.client, text(res.doc, 'location')!);
      expect(text(done.doc, 'job/state')).toBe('done');
      expect(int(done.doc, 'job/processed')).toBe(PER_OWNER);
    }
    // Each chunk stamps its medias with its own time: the owners in the order their chunks ran. A
    // chunk is its owner and its time together: when A's last chunk ends its job, B's may start in
    // the same millisecond (seen once in CI), and keyed by time alone the two chunks were one.
    const rows = await a.svc.db.selectFrom('medias').select(['owner_id', 'updated_at']).where('owner_id', 'in', [a.user.id, b.user.id]).execute();
    const letter = (owner: number) => (owner === a.user.id ? 'A' : 'B');
    const chunks = [...new Set(rows.map((r) => `${r.updated_at}|${letter(r.owner_id)}`))].sort().map((key) => key.slice(-1));
    expect(chunks).toEqual(['A', 'B', 'A', 'B', 'A', 'B', 'A', 'B']);
  });
});

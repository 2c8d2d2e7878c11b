// Hostile parameter values: huge arrays and names that are properties of
// every JavaScript object. Each is a client mistake, so a 4xx naming the
// parameter, never a 500 (too many SQL variables, a prototype method taken
// for a table entry).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { int, text } from '../../src/client/xml.js';
import type { Params } from '../../src/client/params.js';
import { eachDatabase } from '../support/service.js';
import { createGallery, failure, insertMedias, waitForJob, type MediaWorld } from '../support/media.js';
import { signedInWorld } from '../support/world.js';
import { replyOf } from '../support/xml.js';

// Chunks as large as an operator may set: a chunk of ids must still never become one SQL statement's variables.
const JOB_ENV = { JOB_POLL_MS: '50', JOB_CHUNK_SIZE: '100000', JOB_RETRY_SECONDS: '0', JOB_MAX_ATTEMPTS: '1' };
const PROTOTYPE_KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

const uuids = (n: number) => Array.from({ length: n }, () => randomUUID());

eachDatabase((kind) => {
  let w: MediaWorld;
  let cookie: string;
  beforeAll(async () => {
    ({ cookie, ...w } = await signedInWorld(kind, JOB_ENV));
  });
  afterAll(() => w?.svc.close());

  const mediaCount = async () => Number((await w.svc.db.selectFrom('medias').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  /** A form body sent as is (the SDK would take long to build 40 000 pairs). */
  async function form(method: string, path: string, body: string) {
    const res = await w.svc.raw(w.app, method, path, { headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body });
    return replyOf(res);
  }

  it('caps an array parameter at 1000 values: 422 naming it, nothing created', async () => {
    const before = await mediaCount();
    const step1 = 'media[content][upload_location]=REQUEST&media[content][file_name]=a.jpg&media[content][file_size]=10&media[content][mime_type]=image/jpeg';
    // Repeated, as spec 4.7 shows it: more values than SQLite takes variables in one statement.
    const repeated = uuids(40_000).map((u) => `media%5Bpublish_to_galleries%5D%5B%5D=${u}`).join('&');
    const r = await form('POST', '/medias.xml', `${step1}&${repeated}`);
    expect(r.status, r.body).toBe(422);
    expect(text(r.doc, 'error-code')).toBe('invalid_parameter');
    expect(text(r.doc, 'error')).toContain('media[publish_to_galleries]');
    expect(text(r.doc, 'error')).toContain('1000');
    // One comma-separated value: more than PostgreSQL takes too.
    const csv = await form('POST', '/medias.xml', `${step1}&media[add_to_medias_collections]=${uuids(70_000).join(',')}`);
    expect(csv.status, csv.body).toBe(422);
    expect(text(csv.doc, 'error')).toContain('media[add_to_medias_collections]');
    expect(await mediaCount()).toBe(before);
    // 1000 is still taken (and checked: unknown galleries).
    const edge = await form('POST', '/medias.xml', `${step1}&media[publish_to_galleries]=${uuids(1000).join(',')}`);
    expect(edge.status).toBe(422);
    expect(text(edge.doc, 'error')).toMatch(/unknown gallery/);
  });

  it('takes up to 100 000 UUIDs in select and medias[medias]; more is a 422 naming the parameter', async () => {
    const many = uuids(100_001).join(',');
    for (const body of [`select=${many}&medias[title]=x`, `medias[on]=medias&medias[medias]=${many}&medias[title]=x`]) {
      const r = await form('PUT', '/medias/batch_update.xml', body);
      expect(r.status, r.body).toBe(422);
      expect(text(r.doc, 'error')).toContain(body.startsWith('select') ? 'select' : 'medias[medias]');
      expect(text(r.doc, 'error')).toContain('100000');
    }
  });

  it('updates 35 000 named medias in a batch without hitting the SQL variable limit', async () => {
    const named = await insertMedias(w.svc.db, w.user, 35_000);
    const r = await form('PUT', '/medias/batch_update.xml', `select=${named.join(',')}&medias_count=35000&medias[title]=Batched`);
    expect(r.status, r.body).toBe(200);
    const done = await waitForJob(w.client, text(r.doc, 'location')!, 120_000);
    expect(text(done.doc, 'job/state'), done.body).toBe('done');
    expect(int(done.doc, 'job/processed')).toBe(35_000);
    const titled = await w.svc.db.selectFrom('medias').select((eb) => eb.fn.countAll<number>().as('n')).where('title', '=', 'Batched').executeTakeFirstOrThrow();
    expect(Number(titled.n)).toBe(35_000);
  }, 180_000);

  it('takes up to 100 000 UUIDs in gallery[medias_order]; more is a 422', async () => {
    const g = await createGallery(w, 'Ordered');
    const r = await form('PUT', `/websites/${w.urlname}/galleries/${g}.xml`, `gallery[medias_order]=${uuids(100_001).join(',')}`);
    expect(r.status, r.body).toBe(422);
    expect(text(r.doc, 'error')).toContain('gallery[medias_order]');
    expect(text(r.doc, 'error')).toContain('100000');
  });

  it('refuses smart-rule fields named like Object.prototype properties with a 422 naming the parameter', async () => {
    for (const field of PROTOTYPE_KEYS) {
      const params: Params = {
        'medias_smart_collection[name]': 'Odd',
        'medias_smart_collection[rules][0][field]': field,
        'medias_smart_collection[rules][0][operator]': 'is',
        'medias_smart_collection[rules][0][value]': 'x',
      };
      const e = await failure(w.client.request('POST', '/medias_groups.xml', params));
      expect(e.status, `${field}: ${e.message}`).toBe(422);
      expect(e.message).toContain('medias_smart_collection[rules][0][field]');
    }
  });

  it('takes step-1 file names and types named like Object.prototype properties as unknown ones', async () => {
    for (const key of PROTOTYPE_KEYS) {
      const res = await w.client.request('POST', '/medias.xml', {
        'media[content][upload_location]': 'REQUEST',
        'media[content][file_name]': `x.${key}`,
        'media[content][file_size]': 10,
        'media[content][mime_type]': key,
      });
      expect(text(res.doc, 'media/mime-type'), key).toBe('application/octet-stream');
      const declared = await w.client.request('POST', '/medias.xml', {
        'media[content][upload_location]': 'REQUEST',
        'media[content][file_name]': `y.${key}`,
        'media[content][file_size]': 10,
        'media[content][mime_type]': 'image/png',
      });
      expect(text(declared.doc, 'media/mime-type'), key).toBe('image/png');
    }
  });
});

// Hostile multipart bodies: whatever arrives, the reply is a 4xx XML error
// with an X-Request-Id, nothing is saved, memory stays bounded (the service
// stops reading a refused body and closes the connection), and the process
// keeps serving. The upload target reaches the parser without any credential.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { FORM_LIMIT_BYTES } from '../../src/http/router.js';
import { migrate, nowIso, openStore } from '../../src/database/db.js';
import { signedFetch, spawnService, waitForPing } from '../support/processes.js';
import { createPgDatabase, eachDatabase, type DbKind, type TestApp, type TestService } from '../support/service.js';
import { signedInWorld } from '../support/world.js';
import { parseReply } from '../support/xml.js';
import { exchange, multipart, MULTIPART_TYPE, multipartHeaders, partBytes, signatureHeaders, type Part, type RawReply } from './hostile-support.js';
import { png } from './uploads-support.js';

const UPLOAD_TARGET = '/uploads/local.xml';
const MiB = 1024 * 1024;

function expectXmlRefusal(r: RawReply, status?: number): string {
  if (status !== undefined) expect(r.status, r.body).toBe(status);
  expect(r.status, r.body).toBeGreaterThanOrEqual(400);
  expect(r.status, r.body).toBeLessThan(500);
  expect(r.headers['content-type']).toMatch(/^application\/xml/);
  expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  const doc = parseReply(r.body);
  return `${text(doc, 'error-code')}: ${text(doc, 'error')}`;
}

/** Parts of `size` bytes each, up to `total` bytes of body: only a service that reads it all sees its end. */
function* manyFields(name: string, size: number, total: number): Generator<Buffer> {
  const one = partBytes({ name, value: 'v'.repeat(size) });
  for (let sent = 0; sent + one.length <= total; sent += one.length) yield one;
}

/** Unauthenticated bodies that used to end the process (an 'error' event or a throw nobody caught). */
const KILLERS: Array<[string, Buffer]> = [
  ['a part without a name', multipart([{ value: 'x' }])],
  ['a part with an empty name', multipart([{ name: '', value: 'x' }])],
  ['a file part without a name', multipart([{ name: 'key', value: 'k' }, { filename: 'a.jpg', contentType: 'image/jpeg', value: 'xyz' }])],
  ['a file part cut before its end', multipart([{ name: 'key', value: 'k' }, { name: 'file', filename: 'a.jpg', contentType: 'image/jpeg', value: Buffer.alloc(5000, 1) }], { end: false })],
  [
    'a second file part cut before its end',
    multipart(
      [
        { name: 'file', filename: 'a.jpg', contentType: 'image/jpeg', value: Buffer.alloc(100, 1) },
        { name: 'other', filename: 'b.jpg', contentType: 'image/jpeg', value: Buffer.alloc(5000, 1) },
      ],
      { end: false },
    ),
  ],
];

/** The service as its own process, with an application key to ping it. */
async function spawnSeeded(kind: DbKind) {
  const dataDir = await mkdtemp(join(tmpdir(), 'mps-hostile-'));
  const pgDb = kind === 'postgres' ? await createPgDatabase() : undefined;
  const app = { key: randomBytes(16).toString('hex'), secret: randomBytes(32).toString('hex') };
  const store = openStore({ dataDir, databaseUrl: pgDb?.url });
  try {
    await migrate(store);
    await store.db.insertInto('apps').values({ name: 'hostile', api_key: app.key, api_secret: app.secret, created_at: nowIso() }).execute();
  } finally {
    await store.close();
  }
  const proc = await spawnService({ env: { DATA_DIR: dataDir, RATE_LIMIT: 'off', ...(pgDb ? { DATABASE_URL: pgDb.url } : {}) } });
  await waitForPing(proc, app);
  return {
    proc,
    app,
    async close() {
      await proc.stop('SIGKILL');
      await pgDb?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

eachDatabase((kind) => {
  describe('the service process', () => {
    let spawned: Awaited<ReturnType<typeof spawnSeeded>>;
    beforeAll(async () => {
      spawned = await spawnSeeded(kind);
    });
    afterAll(() => spawned?.close());

    it('outlives every unauthenticated hostile body sent to the upload target', async () => {
      const { proc, app } = spawned;
      for (const [what, body] of KILLERS) {
        const r = await exchange(proc.port, { method: 'POST', path: UPLOAD_TARGET, headers: multipartHeaders(body.length) }, [body]);
        expectXmlRefusal(r);
        const ping = await signedFetch(proc.url, app, 'GET', '/ping.xml').catch((err: Error) => err);
        expect(ping instanceof Response ? ping.status : `${what}: ${ping.message}\n${proc.output()}`).toBe(200);
        if (ping instanceof Response) await ping.text();
        expect(proc.child.exitCode, `${what}:\n${proc.output()}`).toBeNull();
      }
    });
  });
});

eachDatabase((kind) => {
  let svc: TestService;
  let app: TestApp;
  let cookie: string;
  let site: { urlname: string; rootGalleryUuid: string };
  let mediaUuid: string;

  beforeAll(async () => {
    ({ svc, app, cookie, site } = await signedInWorld(kind));
    const created = await svc.raw(app, 'POST', '/medias.xml', {
      headers: { cookie, 'content-type': MULTIPART_TYPE },
      body: multipart([{ name: 'media[content]', filename: 'seed.png', contentType: 'image/png', value: await png() }]),
    });
    const body = await created.text();
    expect(created.status, body).toBe(200);
    mediaUuid = /<media-uuid>([^<]+)<\/media-uuid>/.exec(body)![1];
  });
  afterAll(() => svc?.close());

  const port = () => Number(new URL(svc.url).port);
  const mediaCount = async () => Number((await svc.db.selectFrom('medias').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const galleryCount = async () => Number((await svc.db.selectFrom('galleries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  async function expectAlive(): Promise<void> {
    const r = await svc.raw(app, 'GET', '/ping.xml');
    expect(r.status).toBe(200);
    await r.text();
  }

  /** One multipart request, signed with the session unless `signed` is false. */
  function send(method: string, path: string, body: Buffer, opts: { signed?: boolean; headers?: Record<string, string> } = {}): Promise<RawReply> {
    const auth = opts.signed === false ? {} : { ...signatureHeaders(app, method, path), Cookie: cookie };
    return exchange(port(), { method, path, headers: { ...multipartHeaders(body.length), ...auth, ...opts.headers } }, [body]);
  }

  describe('the unauthenticated upload target', () => {
    it('refuses a part without a name, or with an empty one, with a 400', async () => {
      for (const parts of [
        [{ value: 'x' }],
        [{ name: '', value: 'x' }],
        [{ name: 'key', value: 'k' }, { filename: 'a.jpg', contentType: 'image/jpeg', value: 'xyz' }],
        [{ name: 'key', value: 'k' }, { name: '', filename: 'a.jpg', contentType: 'image/jpeg', value: 'xyz' }],
      ] as Part[][]) {
        const r = await send('POST', UPLOAD_TARGET, multipart(parts), { signed: false });
        expect(expectXmlRefusal(r, 400)).toMatch(/^bad_request: .*name/);
        await expectAlive();
      }
    });

    it('survives a file part whose body ends before the closing boundary', async () => {
      const body = multipart([{ name: 'key', value: 'k' }, { name: 'file', filename: 'a.jpg', contentType: 'image/jpeg', value: Buffer.alloc(5000, 1) }], { end: false });
      const r = await send('POST', UPLOAD_TARGET, body, { signed: false });
      expectXmlRefusal(r);
      await expectAlive();
    });

    it('stops reading form fields beyond 64 KiB in all: 413, connection closed', async () => {
      const declared = 16 * MiB;
      const r = await exchange(port(), { method: 'POST', path: UPLOAD_TARGET, headers: multipartHeaders(declared) }, manyFields('policy', 16 * 1024, declared));
      expectXmlRefusal(r, 413);
      expect(r.headers.connection).toBe('close');
      await r.closed;
      expect(r.bytesSent).toBeLessThan(declared);
      await expectAlive();
    });
  });

  describe('signed multipart routes', () => {
    it('bound the form fields of one request to 4 MiB in all, not per field: 413, connection closed, nothing saved', async () => {
      const before = { galleries: await galleryCount(), medias: await mediaCount() };
      // Under the announced-size limit of a form (4 MiB and room for part headers), over it in field bytes.
      const gallery: Part[] = [{ name: 'gallery[parent]', value: site.rootGalleryUuid }, { name: 'gallery[name]', value: 'big' }];
      for (let i = 0; i < 4; i++) gallery.push({ name: 'gallery[description]', value: 'd'.repeat(MiB) });
      const r = await send('POST', `/websites/${site.urlname}/galleries.xml`, multipart(gallery));
      expect(expectXmlRefusal(r, 413)).toContain(`larger than ${FORM_LIMIT_BYTES} bytes in all`);
      expect(r.headers.connection).toBe('close');
      // A route that takes a file may announce gigabytes: its fields are bounded all the same.
      const media: Part[] = [];
      for (let i = 0; i < 5; i++) media.push({ name: 'media[description]', value: 'd'.repeat(MiB) });
      media.push({ name: 'media[content]', filename: 'a.png', contentType: 'image/png', value: await png() });
      const m = await send('POST', '/medias.xml', multipart(media));
      expect(expectXmlRefusal(m, 413)).toContain(`larger than ${FORM_LIMIT_BYTES} bytes in all`);
      expect(m.headers.connection).toBe('close');
      await m.closed;
      expect({ galleries: await galleryCount(), medias: await mediaCount() }).toEqual(before);
      await expectAlive();
    });

    it('refuse a form body announcing more than a form may hold before reading it: 413, connection closed', async () => {
      const path = `/websites/${site.urlname}/galleries.xml`;
      for (const contentType of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
        const r = await exchange(port(), { method: 'POST', path, headers: { 'Content-Type': contentType, 'Content-Length': String(64 * MiB), ...signatureHeaders(app, 'POST', path), Cookie: cookie } }, [
          Buffer.from('gallery[name]=x'),
        ]);
        expectXmlRefusal(r, 413);
        expect(r.headers.connection).toBe('close');
        await r.closed;
      }
      await expectAlive();
    });

    it('refuse invalid UTF-8 in a field value or name, whatever charset the part declares: 400 bad_encoding, nothing saved', async () => {
      const before = await galleryCount();
      const path = `/websites/${site.urlname}/galleries.xml`;
      const parent = { name: 'gallery[parent]', value: site.rootGalleryUuid };
      const bad = Buffer.from([0x61, 0xff, 0xfe, 0x62]);
      for (const name of [
        { name: 'gallery[name]', value: bad },
        { name: 'gallery[name]', value: bad, contentType: 'text/plain; charset=utf-8' },
        { name: 'gallery[name]', value: bad, contentType: 'text/plain; charset=UTF-8' },
        { name: 'gallery[name]', value: Buffer.from([0xc3, 0x28]), contentType: 'text/plain;charset="utf8"' },
        { name: 'gallery[name]', value: 'abc', contentType: 'text/plain; charset=x-no-such-charset' },
        { disposition: Buffer.concat([Buffer.from('form-data; name="gallery[n'), Buffer.from([0xff]), Buffer.from('ame]"')]), value: 'abc' },
      ] as Part[]) {
        const r = await send('POST', path, multipart([parent, name]));
        expect(expectXmlRefusal(r, 400), JSON.stringify(name)).toMatch(/^bad_encoding: /);
      }
      // busboy takes the name from `name` only: an RFC 5987 `name*` leaves the part nameless.
      expectXmlRefusal(await send('POST', path, multipart([parent, { disposition: "form-data; name*=utf-8''gallery%5Bn%FFame%5D", value: 'abc' }])), 400);
      expect(await galleryCount()).toBe(before);

      const title = async () => (await svc.db.selectFrom('medias').select('title').where('uuid', '=', mediaUuid).executeTakeFirstOrThrow()).title;
      const was = await title();
      const r = await send('PUT', `/medias/${mediaUuid}.xml`, multipart([{ name: 'media[title]', value: Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9])]) }]));
      expect(expectXmlRefusal(r, 400)).toMatch(/^bad_encoding: /);
      expect(await title()).toBe(was);
      // The same words in UTF-8 are taken as they are, declared or not.
      for (const contentType of [undefined, 'text/plain; charset=utf-8']) {
        const ok = await send('PUT', `/medias/${mediaUuid}.xml`, multipart([{ name: 'media[title]', value: 'café ☕', contentType }]));
        expect(ok.status, ok.body).toBe(200);
        expect(await title()).toBe('café ☕');
      }
      await expectAlive();
    });

    it('refuse a file name that is not UTF-8: 400 bad_encoding, no media', async () => {
      const before = await mediaCount();
      const image = await png();
      for (const disposition of [
        Buffer.concat([Buffer.from('form-data; name="media[content]"; filename="'), Buffer.from([0xff, 0x41]), Buffer.from('.png"')]),
        "form-data; name=\"media[content]\"; filename*=utf-8''%FF%41.png",
      ]) {
        const r = await send('POST', '/medias.xml', multipart([{ disposition, contentType: 'image/png', value: image }]));
        expect(expectXmlRefusal(r, 400)).toMatch(/^bad_encoding: /);
      }
      expect(await mediaCount()).toBe(before);
      await expectAlive();
    });

    it('refuse a direct upload whose body ends mid-file: nothing saved, the service keeps serving', async () => {
      const before = await mediaCount();
      const image = await png();
      const body = multipart([{ name: 'media[title]', value: 'cut' }, { name: 'media[content]', filename: 'cut.png', contentType: 'image/png', value: image }], { end: false });
      const r = await send('POST', '/medias.xml', body);
      expectXmlRefusal(r, 400);
      expect(await mediaCount()).toBe(before);
      await expectAlive();
    });

    it('refuse a direct upload announcing more than MAX_UPLOAD_BYTES before reading it: 413, connection closed', async () => {
      for (const [method, path] of [
        ['POST', '/medias.xml'],
        ['PUT', `/medias/${mediaUuid}.xml`],
      ]) {
        const head = multipart([{ name: 'media[content]', filename: 'huge.png', contentType: 'image/png', value: Buffer.alloc(1024) }], { end: false });
        const r = await exchange(port(), { method, path, headers: { ...multipartHeaders(5_000_000_000), ...signatureHeaders(app, method, path), Cookie: cookie } }, [head]);
        expect(expectXmlRefusal(r, 413)).toMatch(/^payload_too_large/);
        expect(r.headers.connection).toBe('close');
        await r.closed;
      }
      await expectAlive();
    }, 20_000);
  });

  it('every multipart route answers hostile bodies with a 4xx XML reply and keeps serving', async () => {
    const gallery = site.rootGalleryUuid;
    const group = '7c0e4b1a-0000-4000-8000-000000000001';
    const routes: Array<[method: string, path: string, signed: boolean]> = [
      ['POST', UPLOAD_TARGET, false],
      ['PUT', '/uploads/raw.xml', false],
      ['POST', '/medias.xml', true],
      ['PUT', `/medias/${mediaUuid}.xml`, true],
      ['POST', `/medias/${mediaUuid}.xml`, true],
      ['DELETE', `/medias/${mediaUuid}.xml`, true],
      ['PUT', '/medias/batch_update.xml', true],
      ['POST', '/medias/batch_update.xml', true],
      ['POST', `/websites/${site.urlname}/galleries.xml`, true],
      ['PUT', `/websites/${site.urlname}/galleries/${gallery}.xml`, true],
      ['POST', `/websites/${site.urlname}/galleries/${gallery}.xml`, true],
      ['DELETE', `/websites/${site.urlname}/galleries/${gallery}.xml`, true],
      ['POST', '/medias_groups.xml', true],
      ['PUT', `/medias_groups/${group}.xml`, true],
      ['DELETE', `/medias_groups/${group}.xml`, true],
    ];
    const file = (value: Buffer | string): Part => ({ name: 'media[content]', filename: 'a.png', contentType: 'image/png', value });
    const overLimit = (path: string): Buffer => {
      const limit = path === UPLOAD_TARGET ? 64 * 1024 : FORM_LIMIT_BYTES;
      return multipart([{ name: '_method', value: 'PUT' }, ...Array.from({ length: 5 }, () => ({ name: 'policy', value: 'p'.repeat(Math.ceil(limit / 4)) }))]);
    };
    const hostile: Array<[what: string, body: (path: string) => Buffer, headers?: Record<string, string>]> = [
      ['a nameless part', () => multipart([{ value: 'x' }])],
      ['an empty name', () => multipart([{ name: '', value: 'x' }])],
      ['a nameless file part', () => multipart([{ filename: 'a.png', contentType: 'image/png', value: 'x' }])],
      ['invalid UTF-8 declared as UTF-8', () => multipart([{ name: '_method', value: Buffer.from([0xff, 0xfe]), contentType: 'text/plain; charset=utf-8' }])],
      ['an unknown charset', () => multipart([{ name: '_method', value: 'PUT', contentType: 'text/plain; charset=x-unknown' }])],
      ['a file cut before its end', () => multipart([{ name: '_method', value: 'PUT' }, file(Buffer.alloc(3000, 7))], { end: false })],
      ['a malformed part header', () => Buffer.from('--hostile-boundary-7d1f\r\nContent-Disposition form-data\r\n\r\nx\r\n--hostile-boundary-7d1f--\r\n')],
      ['fields over the limit in all', overLimit],
      ['no boundary', () => multipart([{ name: 'a', value: 'b' }]), { 'Content-Type': 'multipart/form-data' }],
    ];
    for (const [method, path, signed] of routes) {
      for (const [what, build, headers] of hostile) {
        const body = build(path);
        const r = await send(method, path, body, { signed, headers });
        const label = `${method} ${path}, ${what}`;
        expect(r.status, `${label}: ${r.body}`).toBeGreaterThanOrEqual(400);
        expect(r.status, `${label}: ${r.body}`).toBeLessThan(500);
        expect(r.headers['x-request-id'], label).toMatch(/^[0-9a-f-]{36}$/);
        expect(r.body, label).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<reply>[\s\S]*<\/reply>\n?$/);
        await expectAlive();
      }
      // Announcing more than the route takes: refused before a byte of the body is read.
      const head = multipart([file(Buffer.alloc(1024))], { end: false });
      const auth = signed ? { ...signatureHeaders(app, method, path), Cookie: cookie } : {};
      const big = await exchange(port(), { method, path, headers: { ...multipartHeaders(5_000_000_000), ...auth } }, [head]);
      expect(big.status, `${method} ${path}: ${big.body}`).toBe(413);
      expect(big.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(big.headers.connection).toBe('close');
      await expectAlive();
    }
    expect((await svc.db.selectFrom('medias').select('uuid').where('uuid', '=', mediaUuid).executeTakeFirst())?.uuid).toBe(mediaUuid);
  }, 120_000);
});

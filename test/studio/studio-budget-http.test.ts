// The studio's own budget per session (issue 30, defects 1 and 2; docs/studio.md "Budgets"),
// with the service's default limits (RATE_LIMIT 60/60s, STUDIO_RATE_LIMIT unset): screens
// clicked through fast and hundreds of thumbnails pass; a session beyond a person's pace is
// bounded all the same: its 601st page request in the window, its thumbnails beyond 512 MiB,
// its seventh upload at once are refused with a 429 and Retry-After, while another session of
// the same user goes on. In memory and with the limits in Redis (TEST_REDIS_URL).
import { request as httpRequest, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { seedLibrary, tinyJpeg } from './studio-budget-support.js';
import { StudioBrowser } from './studio-support.js';
import { TusSession } from './studio-upload-support.js';

const DEFAULTS = { RATE_LIMIT: '60/60s' };
const STORES: Array<{ name: string; env: Record<string, string> }> = [{ name: 'memory', env: {} }, ...(REDIS_URL ? [{ name: 'redis', env: { REDIS_URL } }] : [])];

describe.each(STORES)('the studio budget, limits in $name', ({ env }) => {
  let w: World;
  let library: string[];
  let big: string;

  beforeAll(async () => {
    w = await startWorld('sqlite', { ...DEFAULTS, ...env });
    library = await seedLibrary(w, 300);
    // One media whose thumbnail weighs 8 MiB: 64 of them are the session's 512 MiB.
    [big] = await seedLibrary(w, 1, Buffer.alloc(8 * 1024 * 1024, 7), 'big');
  }, 120_000);
  afterAll(() => w?.svc.close());

  it('passes six screens clicked through fifteen times in a row (90 pages, beyond the API budget of 60)', async () => {
    const b = await new StudioBrowser(w.svc).signIn(w.user);
    const screens = ['/studio/websites', '/studio/media', '/studio/upload', '/studio/account', '/studio/collections', `/studio/media/items.json?offset=0&limit=200`];
    const statuses: number[] = [];
    for (let round = 0; round < 15; round++) for (const path of screens) statuses.push((await b.get(path)).status);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it('serves 300 thumbnails of a scroll, six at a time, with no 429', async () => {
    const b = await new StudioBrowser(w.svc).signIn(w.user);
    const statuses: number[] = [];
    for (let i = 0; i < library.length; i += 6) {
      const got = await Promise.all(library.slice(i, i + 6).map((u) => b.get(`/studio/thumbs/${u}`)));
      statuses.push(...got.map((r) => r.status));
      for (const r of got) expect(r.headers.get('content-type')).toBe('image/jpeg');
    }
    expect(statuses).toHaveLength(300);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it('bounds a session beyond a person’s pace: 600 pages a minute, then 429 with Retry-After; another session goes on', async () => {
    const b = await new StudioBrowser(w.svc).signIn(w.user);
    const first = await b.get('/studio/media/items.json?offset=0&limit=1');
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('600, 600;w=60');
    expect(first.headers.get('ratelimit-remaining')).toBe('599');
    let passed = 1;
    let refused: Awaited<ReturnType<StudioBrowser['get']>> | undefined;
    while (!refused && passed < 1000) {
      const r = await b.get('/studio/media/items.json?offset=0&limit=1');
      if (r.status === 200) passed++;
      else refused = r;
    }
    expect(passed).toBe(600);
    expect(refused!.status).toBe(429);
    const wait = Number(refused!.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    // Its thumbnails are counted apart (bytes), and another session of the same user has its own budget.
    expect((await b.get(`/studio/thumbs/${library[0]}`)).status).toBe(200);
    const other = await new StudioBrowser(w.svc).signIn(w.user);
    expect((await other.get('/studio/media')).status).toBe(200);
  });

  it('bounds a session’s thumbnails by bytes: 64 of 8 MiB within the window, then 429 with Retry-After', async () => {
    const b = await new StudioBrowser(w.svc).signIn(w.user);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<StudioBrowser['get']>> | undefined;
    while (statuses.length < 100) {
      last = await b.get(`/studio/thumbs/${big}`);
      statuses.push(last.status);
      if (last.status !== 200) break;
      expect(last.body.length).toBeGreaterThan(0);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(64);
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The session's pages are not held back by its thumbnails.
    expect((await b.get('/studio/media')).status).toBe(200);
  });

  it('counts uploads by bytes and at once, not per request: 80 uploads’ requests pass, a seventh upload at once waits with its reason', async () => {
    const b = await new StudioBrowser(w.svc).signIn(w.user);
    const tus = await TusSession.of(b);
    const photo = await tinyJpeg();
    // 80 small uploads, each created, asked for its offset, sent and finished: 320 requests, none refused by the budget.
    const statuses: number[] = [];
    for (let i = 0; i < 80; i++) {
      // The same photo each time: the first is a media, the others are found already in the library.
      const url = await tus.created({ filename: `small-${i}.jpg`, size: photo.length });
      statuses.push((await tus.head(url)).status, (await tus.patch(url, 0, photo)).status);
      statuses.push((await tus.finish(url.split('/').pop()!)).status);
    }
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    expect(statuses).toHaveLength(240);

    // Six uploads whose bytes are still arriving hold the session's six places.
    const stalled: ClientRequest[] = [];
    const answered: Promise<number>[] = [];
    for (let i = 0; i < 6; i++) {
      const url = await tus.created({ filename: `slow-${i}.bin`, size: 100_000 });
      const req = httpRequest(w.svc.url + url, { method: 'PATCH', headers: { ...tus.headers({ 'upload-offset': '0', 'content-type': 'application/offset+octet-stream', 'content-length': '100000' }) } });
      answered.push(new Promise((resolve) => req.on('response', (res) => resolve(res.statusCode ?? 0)).on('error', () => resolve(0))));
      req.write(Buffer.alloc(1000, i));
      stalled.push(req);
    }
    // A seventh upload's bytes: refused once the six are in (asked until then; each early answer took a byte).
    const seventh = await tus.created({ filename: 'seventh.bin', size: 100_000 });
    let offset = 0;
    let refusal: Awaited<ReturnType<TusSession['patch']>> | undefined;
    for (let tries = 0; tries < 500 && !refusal; tries++) {
      const r = await tus.patch(seventh, offset, Buffer.alloc(1, 1));
      if (r.status === 429) refusal = r;
      else {
        expect(r.status).toBe(204);
        offset++;
      }
    }
    expect(refusal?.status).toBe(429);
    expect(refusal!.body).toContain('waiting: 6 uploads at once');
    expect(refusal!.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(Number(refusal!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The six let go: the seventh goes on from where it was.
    for (const req of stalled) req.destroy();
    await Promise.all(answered);
    let resumed = 0;
    for (let tries = 0; tries < 500 && resumed !== 204; tries++) resumed = (await tus.patch(seventh, offset, Buffer.alloc(1, 1))).status;
    expect(resumed).toBe(204);
  });
});

// The service's memory while hostile clients hammer it: huge multipart forms
// at the unauthenticated upload target, parts without names and unterminated
// files, oversized arrays and forms from a signed-in user, deep gallery
// chains read over and over, and stalled bodies holding connections; and
// hostile visitors at the same time (site pages with hostile Host headers and
// cache-busting query strings, /files misses and ranges, password form posts,
// sign-in forms and links). RSS is sampled all along; the service must stay
// under 256 MiB, answer no 5xx and keep serving.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { buildCore } from '../src/app.js';
import { text } from '../src/client/xml.js';
import type { BenchContext, BenchLine } from './lib.js';
import { signedHeaders } from './lib.js';

const MiB = 1024 * 1024;
const RSS_TARGET_MIB = 256;

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/**
 * Writes `head` then `bodyChunks` chunks of `chunk` (flow-controlled, never
 * buffered beyond the socket) and resolves with the status code the service
 * answered, or 0 when it closed without one.
 */
function rawRequest(port: number, head: string, chunk: Buffer = Buffer.alloc(0), bodyChunks = 0, tail = ''): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    const pump = () => {
      while (sent < bodyChunks) {
        sent++;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      if (tail) socket.write(tail);
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
    socket.on('data', (d) => {
      answer += d.toString('latin1');
      // The status line is all we need; the service closes refused uploads itself.
      if (answer.includes('\r\n')) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
  });
}

function multipartHead(port: number, path: string, boundary: string, length: number, extra: Record<string, string> = {}): string {
  const headers = Object.entries(extra).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n${headers}\r\n`;
}

export async function benchHostile(b: BenchContext): Promise<BenchLine[]> {
  const port = Number(new URL(b.url).port);
  const statuses: number[] = [];
  const record = (p: Promise<number>) => p.then((s) => void statuses.push(s));

  // A deep chain of galleries to read: 31 levels below the root, near the depth limit.
  const site = (await b.client.request('GET', '/websites.xml', { view: 'details' })).doc;
  const urlname = text(site, 'websites/website/urlname')!;
  let parent = text(site, 'websites/website/root-gallery-uuid')!;
  for (let depth = 1; depth < 32; depth++) {
    parent = text((await b.client.createGallery(urlname, { name: `Deep ${depth}`, parent })).doc, 'gallery/uuid')!;
  }
  const deepest = parent;
  const visitors = await seedVisitorSite(b);

  const before = rssMiB(b.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(b.pid))), 20);
  const fourMiB = Buffer.alloc(4 * MiB, 0x61);
  const seconds = Number(process.env.BENCH_HOSTILE_SECONDS ?? 10);
  const until = Date.now() + seconds * 1000;
  const stalled: Array<Promise<number>> = [];
  const visitorStatuses: number[] = [];
  try {
    // Stalled bodies: announced, never sent; they hold connections for the whole section.
    for (let i = 0; i < 100; i++) {
      stalled.push(rawRequest(port, multipartHead(port, '/uploads/local.xml', 'stall', 10 * MiB), Buffer.from('--stall\r\nContent-Disposition: form-data; name="key"\r\n\r\n'), 1));
    }
    // BENCH_HOSTILE_CASES=0,3 runs some kinds of request only (0-5, below).
    const cases = (process.env.BENCH_HOSTILE_CASES ?? '0,1,2,3,4,5').split(',').map(Number);
    const workers = Array.from({ length: 8 }, async (_, w) => {
      for (let round = 0; Date.now() < until; round++) {
        const boundary = `hostile${w}x${round}`;
        const field = (name: string) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`);
        switch (cases[(round + w) % cases.length]) {
          case 0: {
            // ~1000 text fields of 4 MiB each at the unauthenticated upload target.
            const part = Buffer.concat([field('f'), fourMiB, Buffer.from('\r\n')]);
            await record(rawRequest(port, multipartHead(port, '/uploads/local.xml', boundary, part.length * 1000), part, 1000));
            break;
          }
          case 1: {
            // A part without a name, then a file part whose closing boundary never comes.
            const body = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data\r\n\r\nx\r\n`), field('file'), fourMiB]);
            await record(rawRequest(port, multipartHead(port, '/uploads/local.xml', boundary, body.length), body, 1));
            break;
          }
          case 2: {
            // 40 000 UUIDs in one array parameter, signed in.
            const ids = Array.from({ length: 40_000 }, () => `media%5Bpublish_to_galleries%5D%5B%5D=${randomUUID()}`).join('&');
            const body = `media%5Btitle%5D=x&${ids}`;
            const path = `/medias/${randomUUID()}.xml`;
            const headers = Object.entries({ ...signedHeaders(b.app, 'POST', path), Cookie: b.sessionCookie }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
            await record(rawRequest(port, `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body) + 12}\r\n${headers}\r\n`, Buffer.from(body), 1, '&_method=PUT'));
            break;
          }
          case 3: {
            // A direct upload announcing 5 GB.
            const path = '/medias.xml';
            const head = multipartHead(port, path, boundary, 5_000_000_000, { ...signedHeaders(b.app, 'POST', path), Cookie: b.sessionCookie });
            await record(rawRequest(port, head, Buffer.concat([field('media[content]'), fourMiB]), 1));
            break;
          }
          case 4: {
            // The deepest gallery's sub-galleries (every ancestor in the reply) and its details.
            const path = `/websites/${urlname}/galleries/${deepest}/subgalleries.xml`;
            const headers = Object.entries({ ...signedHeaders(b.app, 'GET', path), Cookie: b.sessionCookie }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
            await record(rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: x\r\n${headers}\r\n`));
            break;
          }
          default: {
            // Invalid UTF-8 and a 300-character segment in the path, unsigned.
            await record(rawRequest(port, `GET /medias/%C3%28.xml HTTP/1.1\r\nHost: x\r\n\r\n`));
            await record(rawRequest(port, `GET /medias/${'a'.repeat(300)}.xml HTTP/1.1\r\nHost: x\r\n\r\n`));
          }
        }
      }
    });
    await Promise.all([...workers, ...hostileVisitors(port, visitors, until, (s) => void visitorStatuses.push(s))]);
  } finally {
    clearInterval(sampler);
  }
  // The service still serves a signed-in user.
  const alive = (await b.client.whoami()).status === 200;
  const fivexx = statuses.filter((s) => s >= 500).length;
  const visitorFivexx = visitorStatuses.filter((s) => s >= 500 || s === 0).length;
  // Which answers the visitors met: pages, ranges, redirects and refusals, not only 404s.
  const visitorMix = [...visitorStatuses.reduce((m, s) => m.set(s, (m.get(s) ?? 0) + 1), new Map<number, number>())]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}:${n}`)
    .join(' ');
  return [
    { name: `hostile inputs for ${seconds} s: requests answered (no 5xx: ${fivexx === 0})`, value: statuses.length, unit: 'req', ok: fivexx === 0 && alive },
    { name: `hostile visitors meanwhile: answered (no 5xx or drop: ${visitorFivexx === 0})`, value: visitorStatuses.length, unit: 'req', ok: visitorFivexx === 0 },
    { name: `  their statuses ${visitorMix}`, value: visitorStatuses.length, unit: 'req' },
    { name: 'service RSS before the hostile input', value: Math.round(before), unit: 'MiB' },
    { name: 'service RSS peak under hostile input (sampled every 20 ms)', value: Math.round(peak), unit: 'MiB', target: `<= ${RSS_TARGET_MIB}`, ok: peak <= RSS_TARGET_MIB },
  ];
}

// ---- hostile visitors ----------------------------------------------------------

interface VisitorSite {
  urlname: string;
  hostname: string;
  galleryPath: string;
  lockedUuid: string;
  lockedPath: string;
  fileKey: string;
  tokens: string[];
}

/**
 * A website at its own hostname with a listed gallery holding one photo (its
 * renditions made before the hostile input starts), a password gallery, an
 * access-list gallery and unused sign-in links: what hostile visitors aim at.
 */
async function seedVisitorSite(b: BenchContext): Promise<VisitorSite> {
  const hostname = 'hostile-bench.example.test';
  const urlname = `hostile-${randomBytes(3).toString('hex')}`;
  // The websites service the admin command line uses, on the same database (the service has no API for hostnames).
  const core = await buildCore({ dataDir: b.dataDir, databaseUrl: undefined, publicUrl: b.url });
  let tokens: string[] = [];
  try {
    const owner = (await core.users.byEmail(b.user.email))!;
    const site = await core.websites.create(owner, { urlname, title: 'Hostile bench', hostname });
    const gallery = async (name: string, attrs: Record<string, unknown> = {}) => {
      const doc = (await b.client.createGallery(urlname, { name, parent: site.rootGalleryUuid, ...attrs })).doc;
      return { uuid: text(doc, 'gallery/uuid')!, path: text(doc, 'gallery/full-url-path')! };
    };
    const listed = await gallery('Listed');
    const locked = await gallery('Locked', { password: 'right password' });
    await gallery('Clients', { acl: [{ email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 }, { email: 'client@example.com', read: 1, comp_download: 0, hires_download: 0 }] });
    const photo = await sharp({ create: { width: 1600, height: 1067, channels: 3, background: '#405060', noise: { type: 'gaussian', mean: 128, sigma: 30 } } }).jpeg({ quality: 85 }).toBuffer();
    const media = text((await b.client.request('POST', '/medias.xml', { 'media[galleries]': listed.uuid }, { file: { field: 'media[content]', fileName: 'visitor.jpg', contentType: 'image/jpeg', data: photo } })).doc, 'media-uuid')!;
    const links = core.visitorLinks;
    const at = links.canonical((await links.site(urlname))!);
    tokens = await Promise.all(Array.from({ length: 50 }, async () => new URL((await links.create(at, 'client@example.com', '/')).url).pathname.split('/').pop()!));
    for (let i = 0; ; i++) {
      const row = await b.db.selectFrom('medias').select(['id', 'renditions_state']).where('uuid', '=', media).executeTakeFirstOrThrow();
      if (row.renditions_state === 'ready') {
        const key = (await b.db.selectFrom('renditions').select('storage_key').where('media_id', '=', row.id).orderBy('width').executeTakeFirstOrThrow()).storage_key;
        return { urlname, hostname, galleryPath: listed.path, lockedUuid: locked.uuid, lockedPath: locked.path, fileKey: key, tokens };
      }
      if (row.renditions_state === 'failed' || i > 600) throw new Error(`the visitor photo's renditions are ${row.renditions_state}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await core.close();
  }
}

const HOSTILE_HOSTS = ['evil.example', 'a'.repeat(300), '', '[::1', 'hostile-bench.example.test@evil.example', 'hostile-bench.example.test:99999', 'HOSTILE-BENCH.EXAMPLE.TEST.'];

/** Four visitors sending one hostile request after another until `until`; each status goes to `record`. */
function hostileVisitors(port: number, v: VisitorSite, until: number, record: (status: number) => void): Array<Promise<void>> {
  const get = (path: string, host: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`;
  const post = (path: string, host: string, body: string, extra = '') =>
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`;
  const service = `127.0.0.1:${port}`;
  const prefix = `/sites/${v.urlname}`;
  return Array.from({ length: 4 }, async (_, w) => {
    for (let round = 0; Date.now() < until; round++) {
      const n = `${w}-${round}`;
      const requests: string[] = [];
      switch ((round + w) % 5) {
        case 0:
          // Pages with query strings no page knows (each one its own cache entry today), by hostname and by prefix, and hostile Hosts.
          requests.push(get(`/-/${v.galleryPath}?utm_source=${n}`, v.hostname), get(`${prefix}/-/${v.galleryPath}?x=${n}&page=1`, service), get(`/?q=${'x'.repeat(2000)}${n}`, v.hostname));
          requests.push(get(`/-/${v.galleryPath}`, HOSTILE_HOSTS[round % HOSTILE_HOSTS.length]), get(`${prefix}/sitemap.xml?${n}`, HOSTILE_HOSTS[(round + 1) % HOSTILE_HOSTS.length]), get('/robots.txt', v.hostname));
          break;
        case 1:
          // /files: misses of well-formed keys, traversal, ranges and conditions on a real rendition, forged and expired signatures.
          requests.push(get(`/files/renditions/${randomBytes(8).toString('hex')}-640.webp`, service), get(`/files/${v.fileKey}/..%2f..%2fetc%2fpasswd`, service));
          requests.push(get(`/files/${v.fileKey}`, service, `Range: bytes=${round % 100}-${(round % 100) + 10}\r\n`), get(`/files/${v.fileKey}`, service, 'Range: bytes=1-2,3-4,5-6\r\n'), get(`/files/${v.fileKey}`, service, `If-None-Match: ${'"x",'.repeat(1000)}"y"\r\n`));
          requests.push(get(`/files/${v.fileKey}?e=1&v=x&d=0&s=${'A'.repeat(43)}`, service), get(`/files/${v.fileKey}?e=9999999999&v=${'v'.repeat(100)}&d=1&s=${n}`, service));
          break;
        case 2:
          // Password form posts: wrong passwords (the throttle's answer), open-redirect attempts, junk and an oversized form.
          requests.push(post('/_password', v.hostname, `gallery=${v.lockedUuid}&password=guess-${n}&back=%2F%2Fevil.example%2F`, 'Origin: https://evil.example\r\n'));
          requests.push(post(`${prefix}/_password`, service, `gallery=${v.lockedUuid}&password=guess-${n}&back=${encodeURIComponent(`${prefix}/../x/`)}`));
          requests.push(post(`${prefix}/_password`, service, `gallery=${randomUUID()}&password=x`), post(`${prefix}/_password`, service, `gallery=x&password=${'p'.repeat(5000)}`));
          break;
        case 3:
          // Sign-in links: unknown tokens (each an UPDATE today), the seeded ones, junk.
          requests.push(get(`/_signin/${randomBytes(32).toString('base64url')}`, v.hostname), get(`${prefix}/_signin/${randomBytes(32).toString('base64url')}`, service));
          requests.push(get(`/_signin/${v.tokens[round % v.tokens.length]}`, v.hostname), get(`${prefix}/_signin/${'%ff'.repeat(50)}`, service));
          break;
        default:
          // Sign-in forms: hostile return addresses, many addresses asked for, cross-site posts.
          requests.push(get(`/_signin?back=${encodeURIComponent('//evil.example/')}`, v.hostname), get(`${prefix}/_signin?back=${encodeURIComponent(`${prefix}/-/${v.lockedPath}`)}`, service));
          requests.push(post('/_signin', v.hostname, `email=visitor-${n}%40example.com&back=%2F`), post(`${prefix}/_signin`, service, `email=client%40example.com&back=%2F`, 'Origin: https://evil.example\r\n'));
      }
      // A round's requests at once, as a page of a hostile site would make a browser send them.
      for (const s of await Promise.all(requests.map((r) => rawRequest(port, r)))) record(s);
    }
  });
}

/**
 * The decoder corpus (test/support/decoder-corpus.ts) uploaded while RSS is
 * sampled: polyglots, declared-huge sizes, thousands of frames, truncated
 * files, manifests disguised as video. One file at a time, each until its
 * renditions job is over (ready or failed; a refused upload is over at once),
 * so the peak is known per file; then a good photo must get its renditions.
 * The corpus's legitimate 196 Mpx RGBA PNG (png-196mpx, refused from its
 * header since a PNG may have 40 Mpx; its ladder grew the service by
 * 255–269 MiB before) counts in the peak held to the target like every other
 * file, and has a line of its own. The corpus's slow PNG (png-slow, 38 Mpx
 * RGBA, there for the time bound's test) is not hostile input but the largest
 * picture a PNG may be: it is uploaded last and reported on its own line,
 * without the hostile target, as what one ladder of a large picture costs.
 */
export async function benchHostileDecoders(b: BenchContext): Promise<BenchLine[]> {
  const { decoderCorpus } = await import('../test/support/decoder-corpus.js');
  const all = await decoderCorpus();
  const corpus = all.filter((f) => f.name !== 'png-slow.png');
  const largest = all.find((f) => f.name === 'png-slow.png')!;
  const good = await (await import('sharp')).default({ create: { width: 1600, height: 1200, channels: 3, background: '#336699' } }).jpeg().toBuffer();
  const before = rssMiB(b.pid);
  let peak = before;
  let filePeak = before;
  const sampler = setInterval(() => {
    const now = rssMiB(b.pid);
    peak = Math.max(peak, now);
    filePeak = Math.max(filePeak, now);
  }, 20);
  const statuses: number[] = [];
  const perFile: Array<{ name: string; growth: number }> = [];
  const started = Date.now();
  let accepted = 0;
  let unsettled = 0;
  let goodReady = false;
  let corpusPeak = before;
  let largestGrowth = 0;
  let largestState: string | undefined;
  const upload = (name: string, data: Buffer) =>
    b.client.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: name, data } }).then(
      (res) => {
        statuses.push(res.status);
        return text(res.doc, 'media/uuid');
      },
      (e: { status?: number }) => void statuses.push(e.status ?? 0),
    );
  const state = async (uuid: string) => text((await b.client.request('GET', `/medias/${uuid}.xml`)).doc, 'media/renditions-state');
  const settle = async (uuid: string) => {
    const until = Date.now() + 300_000;
    let s = await state(uuid);
    while (s === 'processing' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      s = await state(uuid);
    }
    return s;
  };
  try {
    for (const file of [...corpus, { name: 'good.jpg', bytes: good }]) {
      const start = rssMiB(b.pid);
      filePeak = start;
      const uuid = await upload(file.name, file.bytes);
      const s = uuid ? await settle(uuid) : undefined;
      if (uuid && file.name !== 'good.jpg') accepted++;
      if (s === 'processing') unsettled++;
      if (file.name === 'good.jpg') goodReady = s === 'ready';
      perFile.push({ name: file.name, growth: filePeak - start });
    }
    corpusPeak = peak;
    const start = rssMiB(b.pid);
    filePeak = start;
    const uuid = await upload(largest.name, largest.bytes);
    largestState = uuid ? await settle(uuid) : 'refused';
    largestGrowth = filePeak - start;
  } finally {
    clearInterval(sampler);
  }
  const fivexx = statuses.filter((s) => s >= 500 || s === 0).length;
  const refused = statuses.filter((s) => s >= 400 && s < 500).length;
  const worst = perFile.reduce((a, f) => (f.growth > a.growth ? f : a));
  return [
    {
      name: `decoder corpus: ${corpus.length} files, ${refused} refused, ${accepted} accepted and settled in ${((Date.now() - started) / 1000).toFixed(1)} s (no 5xx: ${fivexx === 0}, none left processing: ${unsettled === 0}, good photo after it ready: ${goodReady})`,
      value: corpus.length,
      unit: 'files',
      ok: fivexx === 0 && unsettled === 0 && goodReady,
    },
    { name: 'service RSS before the decoder corpus', value: Math.round(before), unit: 'MiB' },
    { name: `largest RSS growth over one corpus file (${worst.name})`, value: Math.round(worst.growth), unit: 'MiB' },
    { name: 'service RSS peak during the decoder corpus, the 196 Mpx PNG included (sampled every 20 ms)', value: Math.round(corpusPeak), unit: 'MiB', target: `<= ${RSS_TARGET_MIB}`, ok: corpusPeak <= RSS_TARGET_MIB },
    { name: `of which the 196 Mpx RGBA PNG (png-196mpx.png): RSS growth during its job`, value: Math.round(perFile.find((f) => f.name === 'png-196mpx.png')?.growth ?? 0), unit: 'MiB' },
    { name: `then the largest picture a PNG may be (38 Mpx RGBA, 6200 × 6200, renditions ${largestState}): RSS growth during its ladder`, value: Math.round(largestGrowth), unit: 'MiB' },
  ];
}

// The studio's tus endpoint spoken as a browser speaks it (tus-js-client's requests: creation,
// HEAD, PATCH with Upload-Offset, then the studio's own finish), with the session's cookie,
// the page's CSRF token in X-Studio-CSRF, and the studio's Origin.
import { createHash } from 'node:crypto';
import { StudioBrowser } from './studio-support.js';

export const TUS = '/studio/uploads/tus';

export interface TusAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/** The content probe of src/uploads/probe.ts, computed here independently (whole files up to 32 MiB). */
export function wholeProbe(data: Buffer): string {
  return `w:${createHash('sha256').update(data).digest('hex')}`;
}

export class TusSession {
  constructor(
    readonly b: StudioBrowser,
    readonly csrf: string,
  ) {}

  static async of(b: StudioBrowser): Promise<TusSession> {
    const page = await b.get('/studio/upload');
    if (page.status !== 200) throw new Error(`/studio/upload answered ${page.status}`);
    const m = /<meta name="studio-csrf" content="([^"]+)"/.exec(page.body);
    if (!m) throw new Error('no studio-csrf meta');
    return new TusSession(b, m[1]);
  }

  headers(extra: Record<string, string> = {}, opts: { csrf?: string | null; origin?: string } = {}): Record<string, string> {
    const h: Record<string, string> = {
      cookie: [...this.b.jar].map(([k, v]) => `${k}=${v}`).join('; '),
      origin: opts.origin ?? this.b.svc.url,
      'sec-fetch-site': 'same-origin',
      'tus-resumable': '1.0.0',
      ...extra,
    };
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (csrf !== null) h['x-studio-csrf'] = csrf;
    return h;
  }

  async request(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<TusAnswer> {
    const res = await fetch(this.b.svc.url + path, { method, headers, body: body as BodyInit | undefined, redirect: 'manual' });
    return { status: res.status, headers: res.headers, body: await res.text() };
  }

  /** Creation: the upload's address (Location) or the refusal. */
  create(meta: { filename: string; size: number; gallery?: string }, opts: { csrf?: string | null; origin?: string } = {}): Promise<TusAnswer> {
    const enc = (s: string) => Buffer.from(s).toString('base64');
    const metadata = [`filename ${enc(meta.filename)}`, ...(meta.gallery ? [`gallery ${enc(meta.gallery)}`] : [])].join(',');
    return this.request('POST', TUS, this.headers({ 'upload-length': String(meta.size), 'upload-metadata': metadata }, opts));
  }

  async created(meta: { filename: string; size: number; gallery?: string }): Promise<string> {
    const r = await this.create(meta);
    if (r.status !== 201) throw new Error(`creation answered ${r.status}: ${r.body}`);
    return r.headers.get('location')!;
  }

  patch(url: string, offset: number, bytes: Buffer, opts: { csrf?: string | null } = {}): Promise<TusAnswer> {
    return this.request('PATCH', url, this.headers({ 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, opts), bytes);
  }

  head(url: string): Promise<TusAnswer> {
    return this.request('HEAD', url, this.headers());
  }

  async finish(id: string): Promise<{ status: number; body: { state?: string; media?: string; reason?: string; error?: string } }> {
    const res = await fetch(this.b.svc.url + '/studio/uploads/finish', {
      method: 'POST',
      headers: { ...this.headers({ 'content-type': 'application/json', accept: 'application/json' }) },
      body: JSON.stringify({ id }),
    });
    return { status: res.status, body: (await res.json()) as { state?: string; media?: string } };
  }

  async check(files: Array<{ size: number; probe: string }>): Promise<{ status: number; body: { media?: Array<string | null>; error?: string } }> {
    const res = await fetch(this.b.svc.url + '/studio/uploads/check', {
      method: 'POST',
      headers: { ...this.headers({ 'content-type': 'application/json', accept: 'application/json' }) },
      body: JSON.stringify({ files }),
    });
    return { status: res.status, body: (await res.json()) as { media?: Array<string | null> } };
  }

  /** A whole file in `parts` PATCH requests; the outcome as the screen reads it. */
  async upload(meta: { filename: string; gallery?: string }, data: Buffer, parts = 2): Promise<{ id: string; url: string; state?: string; media?: string; reason?: string }> {
    const url = await this.created({ ...meta, size: data.length });
    const step = Math.ceil(data.length / parts);
    for (let off = 0; off < data.length; off += step) {
      const r = await this.patch(url, off, data.subarray(off, off + step));
      if (r.status !== 204) throw new Error(`PATCH answered ${r.status}: ${r.body}`);
    }
    const id = url.split('/').pop()!;
    const f = await this.finish(id);
    return { id, url, ...f.body };
  }
}

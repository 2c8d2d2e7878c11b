// Visiting a website as a browser would: plain requests without signature,
// a cookie jar of one cookie, and requests with any Host header.
import { request } from 'node:http';
import type { TestService } from '../support/service.js';

export interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request to the service with full control of the Host header (fetch cannot set it). */
export function visit(svc: TestService, path: string, opts: { method?: string; host?: string; cookie?: string; form?: Record<string, string> } = {}): Promise<Page> {
  const url = new URL(svc.url);
  const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
  const headers: Record<string, string> = { host: opts.host ?? url.host };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (body !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: opts.method ?? (body !== undefined ? 'POST' : 'GET'), headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The name=value of a Set-Cookie header. */
export function cookieOf(page: Page): string | undefined {
  const set = page.headers['set-cookie'];
  const first = Array.isArray(set) ? set[0] : set;
  return first?.split(';')[0];
}

/** Media UUIDs linked from a page, in page order (each once). */
export function mediaLinks(html: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/href="[^"]*\/_\/([0-9a-f-]{36})"/g)) if (!out.includes(m[1])) out.push(m[1]);
  return out;
}

// The buyer's order page and its files (docs/shop.md "Delivery"): plain routes
// beside the API, unsigned, named by the order's random token. Nothing is
// there before payment, after a refund, or 30 days after payment (410); each
// file is served with its type and a download name.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StorageBackend } from '../file-storage/backend.js';
import type { DeliveriesRepository } from './repository.js';

const TOKEN = /^[A-Za-z0-9_-]{32}$/;
const POSITION = /^[1-9]\d{0,3}$/;
/** No script, no outside resource: the page is plain HTML with its own small style. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(reply: FastifyReply, status: number, title: string, body: string): FastifyReply {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}li{margin:.5rem 0}a{color:#0b57d0}</style></head><body><main>${body}</main></body></html>`;
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .send(html);
}

/** The extension a download is named with, from its type. */
function extensionOf(type: string | null, fileName: string | null): string {
  if (type === 'image/jpeg') return '.jpg';
  const own = /\.[A-Za-z0-9]{1,8}$/.exec(fileName ?? '')?.[0];
  return own ?? '';
}

/** A file name for the Content-Disposition header: the media's own name's stem, the label, the right extension. */
export function downloadName(item: { media_file_name: string | null; label: string; file_type: string | null; long_edge: number | null }): string {
  const stem = (item.media_file_name ?? 'photo').replace(/\.[A-Za-z0-9]{1,8}$/, '');
  const base = item.long_edge === null ? stem : `${stem}-${item.long_edge}px`;
  return base.replace(/[\x00-\x1f\x7f"\\/]/g, '_').slice(0, 150) + extensionOf(item.file_type, item.media_file_name);
}

function disposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export function downloadRoutes(deps: { repo: DeliveriesRepository; storage: StorageBackend }): (fastify: FastifyInstance) => void {
  /** The paid order a token names, or the reply already sent. */
  const orderOf = async (req: FastifyRequest, reply: FastifyReply) => {
    const token = (req.params as { token: string }).token;
    const order = TOKEN.test(token) ? await deps.repo.orderByToken(token) : undefined;
    if (!order || order.status !== 'paid') return void page(reply, 404, 'Not found', '<h1>Not found</h1><p>There is no order at this address.</p>');
    if (!order.downloads_expire_at || new Date(order.downloads_expire_at) <= new Date()) {
      return void page(reply, 410, 'Link expired', '<h1>This link has expired</h1><p>Ask the photographer to extend it.</p>');
    }
    return order;
  };

  return (fastify) => {
    fastify.get('/downloads/:token', { config: { auth: 'none' } }, async (req, reply) => {
      const order = await orderOf(req, reply);
      if (!order) return reply;
      const files = await deps.repo.files(order.id);
      const token = (req.params as { token: string }).token;
      const items = files
        .map((f) =>
          f.file_key
            ? `<li><a href="/downloads/${token}/${f.position}" download>${escapeHtml(downloadName(f))}</a> — ${escapeHtml(f.label)}</li>`
            : `<li>${escapeHtml(f.media_file_name ?? 'photo')} — ${escapeHtml(f.label)}: being prepared, reload in a minute</li>`,
        )
        .join('');
      const until = order.downloads_expire_at!.slice(0, 10);
      return page(reply, 200, 'Your downloads', `<h1>Your downloads</h1><ul>${items}</ul><p>These links work until ${until} (UTC).</p>`);
    });
    fastify.get('/downloads/:token/:position', { config: { auth: 'none' } }, async (req, reply) => {
      const order = await orderOf(req, reply);
      if (!order) return reply;
      const position = (req.params as { position: string }).position;
      const file = POSITION.test(position) ? (await deps.repo.files(order.id)).find((f) => f.position === Number(position)) : undefined;
      const body = file?.file_key ? await deps.storage.read(file.file_key) : undefined;
      if (!file || !body) return page(reply, 404, 'Not found', '<h1>Not found</h1><p>There is no such file in this order.</p>');
      return reply
        .header('content-type', file.file_type ?? 'application/octet-stream')
        .header('content-length', String(file.file_bytes))
        .header('content-disposition', disposition(downloadName(file)))
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .send(body);
    });
  };
}

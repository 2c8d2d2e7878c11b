// The buyer's order page and its files (docs/shop.md "Delivery"): plain routes
// beside the API, unsigned, named by the order's random token. Nothing is
// there before payment, after a refund, or 30 days after payment (410); each
// file is served with its type and a download name.
import { finished } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import yazl from 'yazl';
import { isUuid } from '../core/uuid.js';
import type { StorageBackend } from '../file-storage/backend.js';
import { isPaid, type DeliveriesRepository } from './repository.js';
import type { PrintLinks } from './sheet.js';
import { attachment } from '../core/attachment.js';

const TOKEN = /^[A-Za-z0-9_-]{32}$/;
const POSITION = /^(g?)([1-9]\d{0,5})$/;
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

type Listed = { href: string; name: string; label: string; key: string | null; type: string | null; bytes: number | null; media_file_name: string | null };

/** Every file of a paid order: its download items', then its whole galleries' (`g<n>`). */
async function listed(repo: DeliveriesRepository, orderId: number): Promise<Listed[]> {
  const [files, gallery] = await Promise.all([repo.files(orderId), repo.galleryFiles(orderId)]);
  return [
    ...files.map((f) => ({ href: String(f.position), name: downloadName(f), label: f.label, key: f.file_key, type: f.file_type, bytes: f.file_bytes === null ? null : Number(f.file_bytes), media_file_name: f.media_file_name })),
    ...gallery.map((f) => ({ href: `g${f.position}`, name: downloadName(f), label: f.label, key: f.file_key, type: f.file_type, bytes: Number(f.file_bytes), media_file_name: f.media_file_name })),
  ];
}

/** The order's files as one ZIP, streamed: one stored file open at a time, nothing written to disk. */
function zipOf(reply: FastifyReply, storage: StorageBackend, files: Listed[], name: string): FastifyReply {
  const zip = new yazl.ZipFile();
  const seen = new Set<string>();
  let current: NodeJS.ReadableStream | undefined;
  let stopped = false;
  reply.raw.once('close', () => {
    stopped = true;
    (current as { destroy?: () => void } | undefined)?.destroy?.();
  });
  void (async () => {
    for (const f of files) {
      if (stopped || !f.key) continue;
      const body = await storage.read(f.key);
      if (!body) continue;
      let entry = f.name;
      for (let n = 2; seen.has(entry.toLowerCase()); n++) entry = f.name.replace(/(\.[A-Za-z0-9]{1,8})?$/, (ext) => `-${n}${ext}`);
      seen.add(entry.toLowerCase());
      current = body;
      zip.addReadStream(body, entry, { compress: false, ...(f.bytes === null ? {} : { size: f.bytes }) });
      await finished(body);
    }
    zip.end();
  })().catch((err: unknown) => {
    stopped = true;
    (zip.outputStream as unknown as { destroy(e: Error): void }).destroy(err instanceof Error ? err : new Error(String(err)));
  });
  return reply
    .header('content-type', 'application/zip')
    .header('content-disposition', attachment(`${name}.zip`))
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'private, no-store')
    .send(zip.outputStream);
}

export function downloadRoutes(deps: { repo: DeliveriesRepository; storage: StorageBackend; links: PrintLinks }): (fastify: FastifyInstance) => void {
  /** The paid order a token names, or the reply already sent. */
  const orderOf = async (req: FastifyRequest, reply: FastifyReply) => {
    const token = (req.params as { token: string }).token;
    const order = TOKEN.test(token) ? await deps.repo.orderByToken(token) : undefined;
    if (!order || !isPaid(order.status)) return void page(reply, 404, 'Not found', '<h1>Not found</h1><p>There is no order at this address.</p>');
    if (!order.downloads_expire_at || new Date(order.downloads_expire_at) <= new Date()) {
      return void page(reply, 410, 'Link expired', '<h1>This link has expired</h1><p>Ask the photographer to extend it.</p>');
    }
    return order;
  };

  return (fastify) => {
    fastify.get('/downloads/:token', { config: { auth: 'none' } }, async (req, reply) => {
      const order = await orderOf(req, reply);
      if (!order) return reply;
      const files = await listed(deps.repo, order.id);
      const token = (req.params as { token: string }).token;
      const items = files
        .map((f) =>
          f.key
            ? `<li><a href="/downloads/${token}/${f.href}" download>${escapeHtml(f.name)}</a> — ${escapeHtml(f.label)}</li>`
            : `<li>${escapeHtml(f.media_file_name ?? 'photo')} — ${escapeHtml(f.label)}: being prepared, reload in a minute</li>`,
        )
        .join('');
      const until = order.downloads_expire_at!.slice(0, 10);
      const all = files.filter((f) => f.key).length > 1 ? `<p><a href="/downloads/${token}/all.zip" download>All ${files.length} files as one ZIP</a></p>` : '';
      return page(reply, 200, 'Your downloads', `<h1>Your downloads</h1>${all}<ul>${items}</ul><p>These links work until ${until} (UTC).</p>`);
    });
    fastify.get('/downloads/:token/:position', { config: { auth: 'none' } }, async (req, reply) => {
      const order = await orderOf(req, reply);
      if (!order) return reply;
      const position = (req.params as { position: string }).position;
      const files = await listed(deps.repo, order.id);
      if (position === 'all.zip') return zipOf(reply, deps.storage, files, `order-${order.uuid.slice(0, 8)}`);
      const file = POSITION.test(position) ? files.find((f) => f.href === position) : undefined;
      const body = file?.key ? await deps.storage.read(file.key) : undefined;
      if (!file || !body) return page(reply, 404, 'Not found', '<h1>Not found</h1><p>There is no such file in this order.</p>');
      return reply
        .header('content-type', file.type ?? 'application/octet-stream')
        .header('content-length', String(file.bytes))
        .header('content-disposition', attachment(file.name))
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .send(body);
    });
    // A print item's original at the order sheet's signed, expiring link (for the lab).
    fastify.get('/print-files/:order/:position', { config: { auth: 'none' } }, async (req, reply) => {
      const { order, position } = req.params as { order: string; position: string };
      const q = req.query as { e?: string; s?: string };
      const n = /^[1-9]\d{0,5}$/.test(position) ? Number(position) : 0;
      if (!isUuid(order) || order !== order.toLowerCase() || n === 0 || !deps.links.check(order, n, q)) return page(reply, 404, 'Not found', '<h1>Not found</h1><p>This link is not valid, or has expired.</p>');
      const item = await deps.repo.printOriginal(order, n);
      const body = item && isPaid(item.status) && item.storage_key ? await deps.storage.read(item.storage_key) : undefined;
      if (!item || !body) return page(reply, 404, 'Not found', '<h1>Not found</h1><p>There is no such file in this order.</p>');
      return reply
        .header('content-type', item.mime_type ?? 'application/octet-stream')
        .header('content-disposition', attachment(item.media_file_name ?? 'print'))
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .send(body);
    });
  };
}

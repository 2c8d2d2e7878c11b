// Delivery of a paid order's downloads (docs/shop.md "Delivery"): a background
// job makes each bought file from the original (never watermarked): an sRGB
// JPEG at the item's long edge, or the original itself, byte for byte; then the
// buyer is mailed one link to the order's page. Files are recorded for removal
// before they are stored and taken off in the job's transaction, as renditions are.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import sharp from 'sharp';
import { PRIVATE_FILE_MODE } from '../core/private-files.js';
import type { JobRow } from '../database/schema.js';
import type { Unit } from '../database/unit-of-work.js';
import type { StorageBackend } from '../file-storage/backend.js';
import type { DeletionsRepository } from '../file-storage/deletions-repository.js';
import type { FileDeletions } from '../file-storage/file-deletions.js';
import type { JobHandler } from '../jobs/handlers.js';
import type { Mailer } from '../mail/mailer.js';
import { downloadsMessage, type MailBrand } from '../mail/messages.js';
import { isPaid, type Deliverable, type DeliveriesRepository } from './repository.js';

export const DELIVERY_JOB_KIND = 'order-delivery';
export interface DeliveryPayload {
  orderId: number;
}

interface MadeFile {
  itemId: number;
  key: string;
  type: string;
  bytes: number;
}
/** A whole gallery's file: one of its medias at the item's size. */
interface GalleryFile extends MadeFile {
  mediaUuid: string;
  fileName: string | null;
}
type Prepared = { kind: 'skip' } | { kind: 'made'; files: MadeFile[]; gallery?: GalleryFile[] };

/** Sized downloads: good enough to print from, as a photographer's own export would be. */
const JPEG_QUALITY = 92;

export interface DeliverySettings {
  workDir: string;
  publicUrl(): string;
  /** The website's brand in the buyer's mail (src/site/mail-brand.ts). */
  brand?(websiteId: number): Promise<MailBrand | undefined>;
}

export class Delivery {
  constructor(
    private readonly repo: DeliveriesRepository,
    private readonly storage: StorageBackend,
    private readonly files: FileDeletions,
    private readonly deletions: DeletionsRepository,
    private readonly mailer: Pick<Mailer, 'send'>,
    private readonly settings: DeliverySettings,
    private readonly log: Pick<Logger, 'warn' | 'info'>,
  ) {}

  /** The buyer's page of a paid order. */
  pageUrl(token: string): string {
    return `${this.settings.publicUrl()}/downloads/${token}`;
  }

  handler(): JobHandler<Prepared> {
    return {
      prepare: (job, payload) => this.prepare(job, payload as DeliveryPayload),
      runChunk: (unit, _job, payload, _start, _end, prepared) => this.record(unit, payload as DeliveryPayload, prepared!),
    };
  }

  private async prepare(_job: JobRow, p: DeliveryPayload): Promise<Prepared> {
    const order = await this.repo.orderById(p.orderId);
    if (!order || !isPaid(order.status)) return { kind: 'skip' };
    const work = await mkdtemp(join(this.settings.workDir, 'delivery-'));
    const made: MadeFile[] = [];
    const gallery: GalleryFile[] = [];
    try {
      for (const item of await this.repo.deliverables(p.orderId)) {
        // Made by an earlier run of this job (its transaction committed).
        if (item.file_key) continue;
        if (!item.storage_key) {
          this.log.warn({ order: order.uuid, media: item.media_uuid }, 'a bought media has no original any more: its file is not delivered');
          continue;
        }
        made.push(await this.make(order.uuid, item, work));
      }
      await this.galleries(order.uuid, p.orderId, work, gallery);
      return { kind: 'made', files: made, gallery };
    } catch (err) {
      await this.files.remove([...made, ...gallery].map((f) => f.key));
      throw err;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  private async make(orderUuid: string, item: Deliverable, work: string, name: string = String(item.id)): Promise<MadeFile> {
    const key = `orders/${orderUuid}/${randomBytes(16).toString('hex')}`;
    // putFile moves its file into the store: the original item is a private copy, never the store's own file.
    const source = await this.localCopy(item.storage_key!, work, name, item.long_edge === null);
    let path = source;
    let type = item.mime_type ?? 'application/octet-stream';
    if (item.long_edge !== null) {
      path = join(work, `${name}.jpg`);
      const edge = item.long_edge;
      // Upright, at most `edge` on its long side, never enlarged; colours converted to sRGB and tagged so.
      await sharp(source, { failOn: 'error' })
        .rotate()
        .resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true })
        .toColourspace('srgb')
        .withIccProfile('srgb')
        .jpeg({ quality: JPEG_QUALITY })
        .toFile(path);
      type = 'image/jpeg';
    }
    const bytes = (await stat(path)).size;
    await this.files.recordUnpublished(key);
    await this.storage.putFile(key, path, bytes, type);
    return { itemId: item.id, key, type, bytes };
  }

  /**
   * Each whole gallery's medias at the item's size, as its medias are when the order is paid (a
   * run after a crash makes them again: only a committed run's files are recorded).
   */
  private async galleries(orderUuid: string, orderId: number, work: string, out: GalleryFile[]): Promise<void> {
    const done = (await this.repo.galleryFiles(orderId)).length > 0;
    if (done) return;
    for (const item of await this.repo.galleryItems(orderId)) {
      if (item.gallery_id === null) continue;
      for (const m of await this.repo.galleryMedias(item.gallery_id)) {
        const made = await this.make(orderUuid, { id: item.id, position: item.position, label: item.label, long_edge: item.long_edge, file_key: null, media_uuid: m.uuid, media_file_name: m.file_name, storage_key: m.storage_key, mime_type: m.mime_type }, work, `${item.id}-${m.id}`);
        out.push({ ...made, mediaUuid: m.uuid, fileName: m.file_name });
      }
    }
  }

  /** The original as a path on this machine: the store's own (to read only), or a private copy (`own`, or S3). */
  private async localCopy(key: string, dir: string, n: string, own: boolean): Promise<string> {
    const local = this.storage.localPath(key);
    const path = join(dir, `source-${n}`);
    if (local && !own) return local;
    if (local) {
      await copyFile(local, path);
      return path;
    }
    const body = await this.storage.read(key);
    if (!body) throw new Error(`the original ${key} is missing from the store`);
    await pipeline(body, createWriteStream(path, { mode: PRIVATE_FILE_MODE }));
    return path;
  }

  private async record(unit: Unit, p: DeliveryPayload, prepared: Prepared) {
    if (prepared.kind === 'skip') return { processed: 1, failed: 0, errors: [] };
    const gallery = prepared.gallery ?? [];
    const keys = [...prepared.files, ...gallery].map((f) => f.key);
    const order = await this.repo.orderById(p.orderId, unit.db);
    if (!order || !(await this.repo.recordDelivered(unit.db, p.orderId, prepared.files))) {
      // Refunded or gone meanwhile: what was made is garbage.
      await this.deletions.record(unit.db, keys);
      unit.afterCommit(() => this.files.remove(keys));
      return { processed: 1, failed: 0, errors: [] };
    }
    await this.repo.recordGalleryFiles(unit.db, p.orderId, gallery);
    for (const key of keys) await this.deletions.takeOff(unit.db, key);
    // Mailed once, by the run that delivered first.
    if (order.delivered_at === null) {
      const mail = await this.mailOf(p.orderId, unit.db);
      // The brand is read after the commit: outside the transaction (SQLite has one connection).
      if (mail) unit.afterCommit(async () => this.sendMail(mail));
    }
    return { processed: 1, failed: 0, errors: [] };
  }

  /** The photographer's resend: the same mail again, with the links' current end. */
  async resend(orderId: number): Promise<void> {
    const mail = await this.mailOf(orderId);
    if (mail) await this.sendMail(mail);
  }

  private async sendMail(mail: NonNullable<Awaited<ReturnType<Delivery['mailOf']>>>): Promise<void> {
    const brand = mail.websiteId === null ? undefined : await this.settings.brand?.(mail.websiteId);
    this.mailer.send(mail.message(brand), 'order downloads link', mail.url);
  }

  private async mailOf(orderId: number, tx?: Unit['db']) {
    const order = await this.repo.orderById(orderId, tx);
    if (!order?.download_token || !order.downloads_expire_at) return undefined;
    const url = this.pageUrl(order.download_token);
    const files = (await this.repo.files(orderId, tx)).length + (await this.repo.galleryFiles(orderId, tx)).length;
    // An order of prints only has nothing to download: its buyer hears of it when it ships.
    if (files === 0) return undefined;
    const siteTitle = (await this.repo.websiteTitle(order.website_id, tx)) ?? 'the photographer';
    const expires = new Date(order.downloads_expire_at);
    return { message: (brand?: MailBrand) => downloadsMessage({ to: order.email, siteTitle, url, files, expires, brand }), url, websiteId: order.website_id };
  }
}

// Where a gallery's download controls are enforced on a file (docs/delivery.md "Download
// controls"): /files, the download route and archives all ask here, so a file address taken
// from a page and opened directly meets the same size rule and the same limit.
import type { FileUrls } from '../../file-storage/file-urls.js';
import type { GateGallery } from '../access.js';
import { clientKeyOfVisitor, type DownloadControls } from './download-controls.js';
import type { DownloadsRepository } from './downloads-repository.js';

export type FileVerdict = { ok: true } | { ok: false; why: 'web-only' | 'limit'; limit?: number };

export class DownloadGuard {
  constructor(
    private readonly repo: Pick<DownloadsRepository, 'take' | 'used' | 'has'>,
    private readonly urls: Pick<FileUrls, 'openClient'>,
  ) {}

  /**
   * A signed download of a file of `mediaId` shown in `gate`'s gallery, for `visitor` (the signed
   * address's): refused when the gallery gives web sizes and this is the original, or when the
   * client's limit is spent (a photo already downloaded costs nothing). `spend` false (HEAD) only looks.
   */
  async file(gate: GateGallery, kind: 'original' | 'rendition', mediaId: number, visitor: string, spend: boolean): Promise<FileVerdict> {
    const c = gate.downloads;
    if (!c || gate.id === undefined) return { ok: true };
    if (kind === 'original' && c.size === 'web') return { ok: false, why: 'web-only' };
    if (c.limit === null) return { ok: true };
    const key = clientKeyOfVisitor(this.urls, visitor);
    if (key === undefined) return { ok: false, why: 'limit', limit: c.limit };
    if (!spend) return (await this.repo.has(gate.id, key, mediaId)) || (await this.repo.used(gate.id, key)) < c.limit ? { ok: true } : { ok: false, why: 'limit', limit: c.limit };
    const taken = await this.repo.take(gate.id, key, mediaId, c.limit);
    return taken.ok ? { ok: true } : { ok: false, why: 'limit', limit: c.limit };
  }

  /** One photo of an archive: counted as a single download of it would be. */
  take(galleryId: number, clientKey: string, mediaId: number, limit: number): Promise<boolean> {
    return this.repo.take(galleryId, clientKey, mediaId, limit).then((t) => t.ok);
  }

  /** How many of the limit the client has left here (Infinity without a limit). */
  async left(galleryId: number, c: DownloadControls, clientKey: string): Promise<number> {
    if (c.limit === null) return Infinity;
    return Math.max(0, c.limit - (await this.repo.used(galleryId, clientKey)));
  }

  /** Whether the client downloaded this photo here already (a download again is free). */
  had(galleryId: number, clientKey: string, mediaId: number): Promise<boolean> {
    return this.repo.has(galleryId, clientKey, mediaId);
  }
}

// The per-account storage quota (issue 29, item 6; docs/security.md, Storage quota): an
// account's stored originals plus its open uploads' declared sizes stay within its quota (the
// operator's for it, else STORAGE_QUOTA_BYTES). Asked at every way in before any byte is kept:
// step 1 of a three-step upload, a direct upload once its file arrived, a resumable upload's
// creation. A refusal is 422 quota_exceeded with stop-with-error (client-compat: "quota").
import type { Config } from '../config.js';
import { ApiError } from '../core/errors.js';
import type { Db } from '../database/db.js';
import type { QuotaRepository } from './quota-repository.js';

export interface QuotaState {
  /** Bytes stored or being uploaded. */
  used: number;
  /** Null: no quota. */
  quota: number | null;
}

/** 1536 → "1.5 KiB": for people; the refusal gives the bytes too. */
export function humanBytes(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${v >= 100 ? Math.round(v) : Math.round(v * 10) / 10} ${units[i]}`;
}

export class StorageQuota {
  constructor(
    private readonly repo: QuotaRepository,
    private readonly config: Pick<Config, 'storageQuotaBytes'>,
  ) {}

  /**
   * Records what will hold `adding` bytes (`record`, in the transaction given) only if they fit,
   * checked in the account's quota turn: two uploads at once cannot both pass on the same usage.
   */
  holding<T>(ownerId: number, adding: number, media: number | undefined, record: (trx: Db) => Promise<T>): Promise<T> {
    return this.repo.inQuotaTurn(ownerId, async (trx) => {
      await this.require(ownerId, adding, media, trx);
      return record(trx);
    });
  }

  /** What the account uses and may use (the studio shows it). */
  async of(ownerId: number): Promise<QuotaState> {
    const u = await this.repo.usage(ownerId, new Date().toISOString());
    return { used: u.used, quota: u.accountQuota ?? this.config.storageQuotaBytes };
  }

  /**
   * Refuses `adding` more bytes when they would take the account over its quota. `media`: the
   * media the file is for (its pending upload and its current original are being replaced).
   */
  async require(ownerId: number, adding: number, media?: number, db?: Db): Promise<void> {
    const u = await this.repo.usage(ownerId, new Date().toISOString(), media, db);
    const quota = u.accountQuota ?? this.config.storageQuotaBytes;
    if (quota === null || u.used + adding <= quota) return;
    throw new ApiError(
      'quota_exceeded',
      `the storage quota of this account is ${humanBytes(quota)} (${quota} bytes): ${humanBytes(Math.max(0, u.used))} are stored or being uploaded, and this file of ${humanBytes(adding)} does not fit. Delete medias, or ask the service's operator for a larger quota`,
      { stopWithError: true, fields: { 'quota-bytes': quota, 'used-bytes': Math.max(0, u.used) } },
    );
  }
}

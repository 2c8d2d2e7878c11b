// The studio's own budget per session, apart from the API's RATE_LIMIT (docs/studio.md "Budgets"):
// pages and actions count as requests (STUDIO_RATE_LIMIT); thumbnails and uploads count in bytes
// within the same window and in requests at once. Counters are the limiter store's (Redis with
// REDIS_URL); what is in flight is counted by each process.
import { createHash } from 'node:crypto';
import type { RateLimitConfig } from '../config.js';
import { ApiError } from '../core/errors.js';
import type { Limiter, LimiterFactory } from '../http/limiter-store.js';
import { RateLimit } from '../http/rate-limit.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** Thumbnail bytes per session and window: 10 000 thumbnails of 50 kB within a minute fit. */
export const THUMB_BYTES = 512 * MiB;
/** What a thumbnail costs at least (a tiny or a missing one): at most 32 768 per window. */
export const THUMB_MIN_CHARGE = 16 * KiB;
/** Thumbnails a session's requests read at once (per process); more wait their turn. */
export const THUMBS_AT_ONCE = 8;
/** Thumbnail requests that may wait for their turn; beyond, a 429. */
export const THUMBS_WAITING = 500;
/** Upload bytes per session and window (about 1 Gbit/s): a wedding's 800 photos are not held back by it. */
export const UPLOAD_BYTES = 8 * GiB;
/** What an upload request costs at least (a creation, an offset, a check, a finish): at most 32 768 per window. */
export const UPLOAD_MIN_CHARGE = 256 * KiB;
/** What a PATCH without a Content-Length costs: the upload screen's chunk (browser/uploads.js). */
export const TUS_CHUNK_BYTES = 16 * MiB;
/** Upload requests carrying bytes (tus PATCH) at once per session; the upload screen sends 3. */
export const UPLOADS_AT_ONCE = 6;

/** A session's key in the store: a hash of its token (the token itself never leaves the session store). */
export function sessionKey(token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 32);
}

/** In-flight counts per session, in this process. */
class InFlight {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(
    readonly atOnce: number,
    private readonly maxWaiting: number,
  ) {}

  /** A slot now (its release), or undefined when `atOnce` are taken and the line is full (0: no line). */
  async enter(key: string): Promise<(() => void) | undefined> {
    const n = this.active.get(key) ?? 0;
    if (n < this.atOnce) {
      this.active.set(key, n + 1);
      return this.releaser(key);
    }
    const line = this.waiting.get(key) ?? [];
    if (line.length >= this.maxWaiting) return undefined;
    this.waiting.set(key, line);
    // The slot is handed over by the release (active stays the same).
    await new Promise<void>((resolve) => line.push(resolve));
    return this.releaser(key);
  }

  private releaser(key: string): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.get(key)?.shift();
      if (next) return next();
      this.waiting.delete(key);
      const n = (this.active.get(key) ?? 1) - 1;
      if (n > 0) this.active.set(key, n);
      else this.active.delete(key);
    };
  }
}

export class StudioBudget {
  readonly requests: RateLimit;
  private readonly thumbBytes: Limiter;
  private readonly uploadBytes: Limiter;
  private readonly thumbs = new InFlight(THUMBS_AT_ONCE, THUMBS_WAITING);
  private readonly uploads = new InFlight(UPLOADS_AT_ONCE, 0);

  constructor(
    readonly config: RateLimitConfig,
    limiters: LimiterFactory,
    onStoreError: (err: unknown) => void,
  ) {
    this.requests = new RateLimit(config, limiters, onStoreError, 'studio-req');
    const window = config.windowSeconds;
    this.thumbBytes = limiters.create({ keyPrefix: 'studio-thumb-bytes', points: THUMB_BYTES, durationSeconds: window }, onStoreError);
    this.uploadBytes = limiters.create({ keyPrefix: 'studio-upload-bytes', points: UPLOAD_BYTES, durationSeconds: window }, onStoreError);
  }

  /**
   * A thumbnail: its least cost from the session's budget (429 beyond, before anything is read),
   * then its turn among the session's thumbnails in flight. `sent` charges the rest of its bytes
   * once they are known; `release` ends its turn.
   */
  async thumbnail(session: string): Promise<{ sent(bytes: number): Promise<void>; release(): void }> {
    const taken = await this.thumbBytes.take(session, THUMB_MIN_CHARGE);
    if (!taken.ok) throw waiting(`this session's thumbnails (${THUMB_BYTES / MiB} MiB per ${this.config.windowSeconds} s) are spent`, taken.retryAfterSeconds);
    const release = await this.thumbs.enter(session);
    if (!release) throw waiting(`${THUMBS_WAITING} thumbnails are already waiting`, 1);
    return {
      release,
      // This one is served whatever the answer: the next one is refused once the budget is spent.
      sent: async (bytes) => void (bytes > THUMB_MIN_CHARGE ? await this.thumbBytes.take(session, bytes - THUMB_MIN_CHARGE) : undefined),
    };
  }

  /** Takes an upload request of `bytes` (its body; a request without one costs the minimum) from the session's budget. */
  async upload(session: string, bytes: number): Promise<void> {
    const taken = await this.uploadBytes.take(session, Math.max(UPLOAD_MIN_CHARGE, bytes));
    if (!taken.ok) throw waiting(`this session's uploads (${UPLOAD_BYTES / GiB} GiB per ${this.config.windowSeconds} s) are spent`, taken.retryAfterSeconds);
  }

  /** A slot for an upload's bytes (tus PATCH), or a 429 "waiting: 6 uploads at once". */
  async uploadSlot(session: string): Promise<() => void> {
    const release = await this.uploads.enter(session);
    if (!release) throw waiting(`${UPLOADS_AT_ONCE} uploads at once`, 1);
    return release;
  }
}

function waiting(why: string, retryAfter: number): ApiError {
  return new ApiError('rate_limited', `waiting: ${why}; try again in ${retryAfter} s`, { retryAfter });
}

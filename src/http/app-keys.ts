// Looks up the application behind an API key and checks the request signature.
import type { FastifyRequest } from 'fastify';
import { MemoryCache } from '../ops/cache.js';
import type { AppRow } from '../database/schema.js';

/** An application with its owner's state: one a photographer made stops while they are disabled. */
export type KeyedApp = AppRow & { owner_disabled_at?: string | null };
import { ApiError } from '../core/errors.js';
import { parseTimestamp, SIGNATURE_WINDOW_MS, signatureMatches } from './signing.js';

// Applications change rarely; a short cache keeps the hot path off the database.
// Unknown keys are remembered only briefly, so a new application works at once.
const CACHE_MS = 60_000;
const UNKNOWN_CACHE_MS = 2_000;
const CACHE_ENTRIES = 10_000;

/** Where applications are kept (src/apps/repository.ts). */
export interface AppLookup {
  byKey(apiKey: string): Promise<KeyedApp | undefined>;
}

export class AppKeys {
  private readonly cache = new MemoryCache<string, { app: KeyedApp | undefined }>({ entries: CACHE_ENTRIES, ttlMs: CACHE_MS });
  private lastTimestamp = '';
  private lastParsed: number | undefined;

  constructor(private readonly apps: AppLookup) {}

  /** The cached answer for a key, or undefined when it must be looked up. */
  cached(apiKey: string): { app: KeyedApp | undefined } | undefined {
    return this.cache.get(apiKey);
  }

  /** Forgets a key (revoked in this process): its next request reads it again. Other processes keep their copy up to CACHE_MS. */
  forget(apiKey: string): void {
    this.cache.delete(apiKey);
  }

  /** Forgets the applications of one owner (disabled or enabled in this process). Other processes keep their copy up to CACHE_MS. */
  forgetOwner(ownerId: number): void {
    this.cache.deleteWhere((v) => v.app?.owner_id === ownerId);
  }

  /** Reads the key from the database and remembers the answer. */
  private async load(apiKey: string): Promise<KeyedApp | undefined> {
    const app = await this.apps.byKey(apiKey);
    this.cache.set(apiKey, { app }, app ? CACHE_MS : UNKNOWN_CACHE_MS);
    return app;
  }

  /**
   * Verifies spec 5.1 over the method, path and query string exactly as sent.
   * Synchronous (a value, or a throw) when the key is cached: the hot path then
   * waits for nothing; a promise when the key must be read.
   */
  verify(req: FastifyRequest, now = Date.now()): AppRow | Promise<AppRow> {
    const authorization = header(req, 'x-service-authorization');
    if (!authorization) throw new ApiError('signature_missing', 'missing X-Service-Authorization header');
    const timestamp = header(req, 'x-service-timestamp');
    if (!timestamp) throw new ApiError('signature_missing', 'missing X-Service-Timestamp header');
    const colon = authorization.lastIndexOf(':');
    if (colon <= 0) throw new ApiError('signature_invalid', 'X-Service-Authorization must be API_KEY:SIGNATURE');
    const apiKey = authorization.slice(0, colon).trim();
    const signature = authorization.slice(colon + 1).trim();
    const hit = this.cached(apiKey);
    if (!hit) return this.load(apiKey).then((app) => this.check(req, app, signature, timestamp, now));
    return this.check(req, hit.app, signature, timestamp, now);
  }

  /**
   * parseTimestamp, remembering the last text: timestamps have whole seconds, so
   * at any real rate most requests of a second carry the same one.
   */
  private parsed(timestamp: string): number | undefined {
    if (timestamp !== this.lastTimestamp) {
      this.lastTimestamp = timestamp;
      this.lastParsed = parseTimestamp(timestamp);
    }
    return this.lastParsed;
  }

  private check(req: FastifyRequest, app: KeyedApp | undefined, signature: string, timestamp: string, now: number): AppRow {
    if (!app) throw new ApiError('unknown_api_key');
    // A photographer's own application stops with its owner (the signature is not even checked: nothing to learn).
    if (app.owner_disabled_at) throw new ApiError('forbidden', "this application's owner is disabled: it signs nothing until the operator enables the account again");
    const at = this.parsed(timestamp);
    if (at === undefined) {
      throw new ApiError('timestamp_invalid');
    }
    if (Math.abs(now - at) > SIGNATURE_WINDOW_MS) {
      const minutes = Math.round(Math.abs(now - at) / 60_000);
      throw new ApiError('timestamp_out_of_window', `X-Service-Timestamp is ${minutes} minutes away from the service's time; the window is 30 minutes`);
    }
    const url = req.raw.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    if (!signatureMatches(signature, req.method, path, query, app.api_secret, timestamp)) {
      throw new ApiError('signature_invalid');
    }
    return app;
  }
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

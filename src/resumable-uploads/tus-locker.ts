// The tus endpoint's locker when the API runs on several nodes (docs/studio.md, Uploads, "Requests
// of one upload on several nodes"): @tus/server's MemoryLocker semantics across every node sharing
// REDIS_URL. A lock per upload (SET NX PX, a random token, renewed while held, compare-and-delete),
// and a release channel the holder listens on; a requester publishes at every try, since one made
// between a holder's SET and its SUBSCRIBE is not heard.
import { randomBytes } from 'node:crypto';
import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/server';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RELEASE, RENEW } from '../ops/sweep-lock.js';

export interface RedisTusLockerOptions {
  /** How long a request waits for an upload's lock (MemoryLocker's default: 30 s). */
  acquireTimeoutMs?: number;
  /**
   * How long a lock outlives a holder that vanished without releasing it; renewed every third of
   * it while held. Shorter than the wait, so a resume after a node's crash gets the lock.
   */
  ttlMs?: number;
  /** Between two tries of a request waiting for the lock (each try asks the holder again). */
  retryMs?: number;
  /** Starts the lock's key and the release channel's name (REDIS_PREFIX; `mps:` by default). */
  prefix?: string;
}

export class RedisTusLocker implements Locker {
  readonly acquireTimeoutMs: number;
  readonly ttlMs: number;
  readonly retryMs: number;
  readonly prefix: string;
  /** The locks held in this process, per release channel: at most one per request in flight. */
  private readonly holders = new Map<string, Set<RedisTusLock>>();
  /** Aborted by close(): every wait ends. */
  private readonly closing = new AbortController();

  /** `client` for commands, `subscriber` for release requests (each its own connection; both closed by close()). */
  constructor(
    readonly client: Redis,
    private readonly subscriber: Redis,
    private readonly log: Pick<Logger, 'warn'>,
    opts: RedisTusLockerOptions = {},
  ) {
    this.acquireTimeoutMs = opts.acquireTimeoutMs ?? 30_000;
    this.ttlMs = opts.ttlMs ?? 10_000;
    this.retryMs = opts.retryMs ?? 100;
    this.prefix = opts.prefix ?? 'mps:';
    subscriber.on('message', (channel: string) => {
      for (const lock of this.holders.get(channel) ?? []) lock.askedToRelease();
    });
  }

  newLock(id: string): Lock {
    return new RedisTusLock(this, id);
  }

  get closed(): AbortSignal {
    return this.closing.signal;
  }

  /** Listens for release requests of `lock`'s upload while it is held. */
  attach(lock: RedisTusLock): void {
    const held = this.holders.get(lock.channel);
    if (held) {
      held.add(lock);
      return;
    }
    this.holders.set(lock.channel, new Set([lock]));
    this.subscriber.subscribe(lock.channel).catch((err: unknown) => this.warn(err, lock.id, 'tus lock: release requests for this upload are not heard'));
  }

  detach(lock: RedisTusLock): void {
    const held = this.holders.get(lock.channel);
    if (!held?.delete(lock) || held.size > 0) return;
    this.holders.delete(lock.channel);
    // Sent after the SUBSCRIBE on the same connection: Redis applies them in order.
    this.subscriber.unsubscribe(lock.channel).catch(() => undefined);
  }

  warn(err: unknown, id: string, msg: string): void {
    this.log.warn({ err, upload: id }, msg);
  }

  /** Ends every wait, releases the locks still held (their requests were cut), closes both connections. */
  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    const held = [...this.holders.values()].flatMap((set) => [...set]);
    await Promise.all(held.map((lock) => lock.unlock()));
    this.holders.clear();
    await Promise.all([this.subscriber, this.client].map((c) => c.quit().catch(() => c.disconnect())));
  }
}

class RedisTusLock implements Lock {
  readonly key: string;
  readonly channel: string;
  private token: string | undefined;
  private release: RequestRelease | undefined;
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly locker: RedisTusLocker,
    readonly id: string,
  ) {
    this.key = `${locker.prefix}tus-lock:${id}`;
    this.channel = `${locker.prefix}tus-release:${id}`;
  }

  async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    const { client, ttlMs, retryMs, acquireTimeoutMs, closed } = this.locker;
    if (this.token) throw new Error('tus lock: already held');
    const stop = new AbortController();
    const end = () => stop.abort();
    const timer = setTimeout(end, acquireTimeoutMs);
    signal.addEventListener('abort', end, { once: true });
    closed.addEventListener('abort', end, { once: true });
    try {
      if (signal.aborted || closed.aborted) end();
      const token = randomBytes(16).toString('hex');
      while (!stop.signal.aborted) {
        if ((await client.set(this.key, token, 'PX', ttlMs, 'NX')) === 'OK') {
          if (stop.signal.aborted) {
            // Given up while the SET was on its way: not the caller's any more.
            await client.eval(RELEASE, 1, this.key, token).catch(() => undefined);
            break;
          }
          this.hold(token, requestRelease);
          return;
        }
        await client.publish(this.channel, 'release');
        await pause(retryMs, stop.signal);
      }
      throw ERRORS.ERR_LOCK_TIMEOUT;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', end);
      closed.removeEventListener('abort', end);
    }
  }

  private hold(token: string, requestRelease: RequestRelease): void {
    this.token = token;
    this.release = requestRelease;
    this.locker.attach(this);
    this.renewal = setInterval(() => void this.renew(token), Math.max(1, Math.floor(this.locker.ttlMs / 3)));
    this.renewal.unref();
  }

  private async renew(token: string): Promise<void> {
    let kept: unknown;
    try {
      kept = await this.locker.client.eval(RENEW, 1, this.key, token, String(this.locker.ttlMs));
    } catch {
      // Redis out of reach: tried again at the next renewal; the key lapses meanwhile only if this lasts the TTL.
      return;
    }
    if (kept === 1 || this.token !== token) return;
    // Lapsed (Redis lost it, or this process stalled past the TTL) and maybe taken: this request stops writing.
    this.locker.warn(undefined, this.id, 'tus lock: lost while held; the request is ended');
    clearInterval(this.renewal);
    this.askedToRelease();
  }

  askedToRelease(): void {
    void Promise.resolve()
      .then(() => this.release?.())
      .catch(() => undefined);
  }

  async unlock(): Promise<void> {
    const token = this.token;
    // After close() released it.
    if (token === undefined && this.locker.closed.aborted) return;
    if (token === undefined) throw new Error('Releasing an unlocked lock!');
    this.token = undefined;
    this.release = undefined;
    clearInterval(this.renewal);
    this.locker.detach(this);
    try {
      await this.locker.client.eval(RELEASE, 1, this.key, token);
    } catch (err) {
      // The request's work is done and stored: it is not failed for this. The key lapses within the TTL.
      this.locker.warn(err, this.id, 'tus lock: not released; it lapses at its TTL');
    }
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A locker on its own two connections to `redisUrl` (ioredis loaded only here, as elsewhere: only with Redis). */
export async function redisTusLocker(redisUrl: string, log: Pick<Logger, 'warn'>, opts?: RedisTusLockerOptions): Promise<RedisTusLocker> {
  const { Redis } = await import('ioredis');
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false });
  const subscriber = client.duplicate();
  for (const c of [client, subscriber]) {
    c.on('error', () => {
      /* a failed command is reported where it was sent (the request's lock fails: a 500 the client retries) */
    });
  }
  return new RedisTusLocker(client, subscriber, log, opts);
}

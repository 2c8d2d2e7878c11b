// Configuration from the environment (operations.md), with an optional .env file
// whose values the real environment overrides. The server and the `api` command
// (src/cli/api.ts) read .env with the same function.
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';

export interface RateLimitConfig {
  points: number;
  windowSeconds: number;
}

/** Limits on slow and numerous clients (docs/conventions.md "Connections"), in milliseconds. */
export interface ConnectionLimits {
  /** Whole request headers must arrive within this. */
  headersTimeoutMs: number;
  /** Whole request (headers and body) must arrive within this. */
  requestTimeoutMs: number;
  /** A connection on which nothing moves for this long during a request is closed. */
  idleTimeoutMs: number;
  /** Connections beyond this are closed as they are accepted. */
  maxConnections: number;
}

/** The job worker's pacing (docs/batch-updates.md). */
export interface JobSettings {
  /** Items per transaction. */
  chunkSize: number;
  /** Idle polling interval for jobs enqueued by other processes. */
  pollMs: number;
  /** A claimed job is the worker's for this long, renewed every third of it while the job runs. */
  leaseSeconds: number;
  /** Pause between chunks, leaving the database to requests. */
  chunkPauseMs: number;
  /** Claims of one job before it is given up as failed. */
  maxAttempts: number;
  /** Wait before retrying a failed chunk, doubled at each attempt, at most 300 s. */
  retrySeconds: number;
  /** Finished (done or failed) jobs stay readable this long, then the cleanup sweep deletes them. */
  retentionSeconds: number;
  /** Jobs of the interactive lane (batch updates) a worker process runs at once (JOB_INTERACTIVE_CONCURRENCY). */
  interactiveConcurrency: number;
  /** Jobs of the background lane (renditions) a worker process runs at once (RENDITION_CONCURRENCY). */
  backgroundConcurrency: number;
  /**
   * Background runners kept for owners with no background job running (RENDITION_NEWCOMER_RUNNERS), besides
   * backgroundConcurrency: one photographer's first rendition then starts at once instead of waiting for
   * another's running ladders. 0: none (an owner new to the lane waits for one running job).
   */
  newcomerConcurrency: number;
}

/** Memory one rendition ladder may take at most, for the default parallelism (docs/renditions.md: 3–112 MiB measured). */
const LADDER_MEMORY_BYTES = 256 * 1024 ** 2;

/**
 * Renditions at once by default: one per core, at most 4 (libuv's default
 * thread pool, where sharp's work runs, has 4 threads, shared with file I/O),
 * and no more than a quarter of the machine's memory allows at one ladder's
 * worst case.
 */
export function defaultRenditionConcurrency(cores = availableParallelism(), memory = totalmem()): number {
  return Math.max(1, Math.min(cores, 4, Math.floor((memory / 4) / LADDER_MEMORY_BYTES)));
}

/**
 * Runners kept for newcomers by default: one, if a quarter of the memory holds
 * one ladder more than the `background` runners take at their worst; else none
 * (the memory bound comes first).
 */
export function defaultNewcomerRunners(background: number, memory = totalmem()): number {
  return Math.floor((memory / 4) / LADDER_MEMORY_BYTES) > background ? 1 : 0;
}

/** Visitors' e-mail sign-in (docs/visitors.md). */
export interface VisitorSettings {
  /** smtp://user:pass@host:port or smtps://…; unset: sign-in links go to the log. */
  smtpUrl?: string;
  /** The From of sign-in mails. */
  mailFrom: string;
  /** A sign-in link works once, within this. */
  linkTtlSeconds: number;
  /** An invitation's sign-in link (docs/delivery.md "Invitations"): the same, within this (INVITATION_LINK_TTL_SECONDS). */
  invitationTtlSeconds: number;
  /** Invitations one photographer may send per hour (INVITATIONS_PER_HOUR). */
  invitationsPerHour: number;
  /** Invitations one address may receive per day, from every photographer together (INVITATIONS_PER_RECIPIENT_PER_DAY). */
  invitationsPerRecipientPerDay: number;
  /** Invitations the whole service may send per day (INVITATIONS_PER_DAY). */
  invitationsPerDay: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  publicUrl: string;
  rateLimit: RateLimitConfig | null;
  /**
   * The studio's requests per session and window (STUDIO_RATE_LIMIT, default 600/60s; off when
   * RATE_LIMIT is off and STUDIO_RATE_LIMIT unset); thumbnails and uploads have byte budgets in the same window (src/studio/budget.ts).
   */
  studioRateLimit: RateLimitConfig | null;
  /** Visitor requests per address to the website's pages (VISITOR_RATE_LIMIT), apart from the API's budget. */
  visitorRateLimit: RateLimitConfig | null;
  /** `/files` requests per address the process cannot answer from memory (VISITOR_FILES_RATE_LIMIT); null: no limit. */
  visitorFilesRateLimit: RateLimitConfig | null;
  /** Seconds an anonymous visitor's gallery or media page is served from memory (SITE_CACHE_SECONDS); 0: never. */
  siteCacheSeconds: number;
  redisUrl?: string;
  /** Starts the name of every key and channel the service uses in Redis (REDIS_PREFIX): several deployments can share one Redis. */
  redisPrefix: string;
  storageUrl?: string;
  /** RESERVED_HOSTNAMES: host names (ports ignored) no website may take, besides PUBLIC_URL's and the object store's. */
  reservedHostnames: string[];
  /** AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) for STORAGE_URL; unset: the AWS SDK's default chain. */
  storageCredentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Secret that signs local upload policies and raw-upload URLs. */
  uploadSecret?: string;
  /** Upper bound on the size of one uploaded file, in bytes. */
  maxUploadBytes: number;
  /** Seconds after which an upload whose step 3 never came is cleaned up. */
  uploadExpirySeconds: number;
  /**
   * STORAGE_QUOTA_BYTES: what one account may hold by default, its stored originals and its open
   * uploads' declared sizes (docs/security.md, Storage quota); null (`off`): no quota. An operator
   * sets another per account (`admin user quota`).
   */
  storageQuotaBytes: number | null;
  /** Cap for an unpaginated gallery list (spec: 5000, to be lowered to 500). */
  galleryListCap: number;
  logLevel: string;
  /** Whose `X-Forwarded-For` hops are believed (TRUST_PROXY); false: none, the connection's address is the client's. */
  trustProxy: TrustProxy;
  jobs: JobSettings;
  renditions: RenditionSettings;
  connections: ConnectionLimits;
  /** How often expired sessions are deleted. */
  sessionPurgeSeconds: number;
  visitors: VisitorSettings;
  /** What clients did (docs/delivery.md "Activity"): events and counters are kept this many days (ACTIVITY_RETENTION_DAYS). */
  activityRetentionDays: number;
  /** The shop's payments (docs/shop.md "Card payments"): the key photographers' provider secrets are encrypted with (PAYMENT_SECRETS_KEY), and where the Stripe client goes (STRIPE_API_BASE). */
  payments: PaymentSettings;
  /** Signed webhooks' deliveries (docs/integrations.md "Webhooks"). */
  webhooks: WebhookSettings;
  /** Running at scale (src/ops): this process's role, metrics, shutdown bound. */
  ops: OpsConfig;
}

/**
 * How many proxies in front of the service (a hop count: the client is the
 * address that many hops from the right of `X-Forwarded-For`, the connection's
 * own address counting as the first), or which addresses are proxies (IPs,
 * CIDRs, or proxy-addr's names `loopback`, `linklocal`, `uniquelocal`: the
 * client is the right-most address not in the list). Never "every hop": the
 * left-most hops are whatever the client wrote.
 */
export type TrustProxy = false | number | string[];

/** Hop counts beyond this are surely a mistake (a typo for an address, say). */
const MAX_PROXY_HOPS = 20;
const PROXY_ADDRESS_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrCidr(entry: string): boolean {
  if (PROXY_ADDRESS_NAMES.has(entry)) return true;
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return false;
  if (slash < 0) return true;
  const bits = entry.slice(slash + 1);
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}

/** TRUST_PROXY: off (unset, empty, `0`, `false`), `1` / `true` (one proxy), a hop count, or a comma-separated list of proxy addresses. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const v = (value ?? '').trim();
  if (v === '' || v === '0' || v === 'false') return false;
  if (v === 'true') return 1;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > MAX_PROXY_HOPS) throw new Error(`TRUST_PROXY as a hop count must be from 1 to ${MAX_PROXY_HOPS}, got ${JSON.stringify(value)}`);
    return hops;
  }
  const entries = v.split(',').map((e) => e.trim());
  const bad = entries.find((e) => !isAddressOrCidr(e));
  if (bad !== undefined) {
    throw new Error(
      `TRUST_PROXY must be 1 (one proxy in front), a hop count, or a comma-separated list of the proxies' addresses or CIDRs (e.g. 10.0.0.5,10.1.0.0/16); ${JSON.stringify(bad)} is none of these`,
    );
  }
  return entries;
}

/** What a process does: `all` (one process, the default), `api` (requests only) or `worker` (jobs and sweeps only). */
export type Role = 'all' | 'api' | 'worker';

export interface OpsConfig {
  role: Role;
  /** Prometheus metrics on their own listener (bound to HOST); unset: not served there. */
  metricsPort?: number;
  /** Prometheus metrics at /metrics on the main port behind `Authorization: Bearer <token>`; unset: no /metrics. */
  metricsToken?: string;
  /** SIGTERM: requests in flight get this long to finish before their connections are cut. */
  shutdownTimeoutMs: number;
}

function opsConfig(env: Record<string, string | undefined>): OpsConfig {
  const role = (env.ROLE || 'all').trim();
  if (role !== 'all' && role !== 'api' && role !== 'worker') throw new Error(`ROLE must be all, api or worker, got ${JSON.stringify(env.ROLE)}`);
  const token = env.METRICS_TOKEN || undefined;
  if (token !== undefined && token.length < 16) throw new Error('METRICS_TOKEN must have at least 16 characters');
  return {
    role,
    metricsPort: env.METRICS_PORT ? intSetting(env, 'METRICS_PORT', 0, 0, 65535) : undefined,
    metricsToken: token,
    shutdownTimeoutMs: intSetting(env, 'SHUTDOWN_TIMEOUT_SECONDS', 30, 1, 3600) * 1000,
  };
}

/**
 * The settings of a `.env` file, read by Node's own parser (util.parseEnv):
 * `NAME=value` lines, `#` comments, an optional `export ` prefix, single,
 * double or back quotes (double-quoted values may span lines and expand `\n`).
 */
export function parseDotEnv(text: string): Record<string, string> {
  return parseEnv(text) as Record<string, string>;
}

/** Environment merged over `.env` (in the working directory) — the environment wins. */
export function loadEnv(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Record<string, string | undefined> {
  const file = resolve(cwd, '.env');
  const merged: Record<string, string | undefined> = existsSync(file) ? parseDotEnv(readFileSync(file, 'utf8')) : {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  return merged;
}

export function parseRateLimit(value: string | undefined, name = 'RATE_LIMIT', fallback = '60/60s'): RateLimitConfig | null {
  const v = (value ?? fallback).trim();
  if (v === 'off' || v === '0') return null;
  const m = /^(\d+)\s*\/\s*(\d+)\s*(s|m|h)?$/.exec(v);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) throw new Error(`${name} must look like 60/60s or be off, got ${JSON.stringify(value)}`);
  const unit = m[3] === 'h' ? 3600 : m[3] === 'm' ? 60 : 1;
  return { points: Number(m[1]), windowSeconds: Number(m[2]) * unit };
}

/** A comma-separated list of host names (each with an optional port), lower-cased; anything else stops the start. */
function parseHostList(value: string | undefined, name: string): string[] {
  const out: string[] = [];
  for (const item of (value ?? '').split(',').map((x) => x.trim()).filter(Boolean)) {
    const m = /^([a-z0-9.-]{1,253})(?::\d{1,5})?$/i.exec(item);
    if (!m || !m[1].split('.').every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(l))) throw new Error(`${name} must be host names separated by commas, got ${JSON.stringify(item.slice(0, 100))}`);
    out.push(item.toLowerCase());
  }
  return out;
}

function intSetting(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return n;
}

function connectionLimits(env: Record<string, string | undefined>): ConnectionLimits {
  const headers = intSetting(env, 'HEADERS_TIMEOUT_SECONDS', 30, 1, 3600);
  // Long enough for MAX_UPLOAD_BYTES (4 GiB) over a ~10 Mbit/s line.
  const request = intSetting(env, 'REQUEST_TIMEOUT_SECONDS', 3600, 1, 7 * 24 * 3600);
  if (headers > request) throw new Error(`HEADERS_TIMEOUT_SECONDS (${headers}) must not exceed REQUEST_TIMEOUT_SECONDS (${request})`);
  return {
    headersTimeoutMs: headers * 1000,
    requestTimeoutMs: request * 1000,
    idleTimeoutMs: intSetting(env, 'IDLE_TIMEOUT_SECONDS', 60, 1, 3600) * 1000,
    maxConnections: intSetting(env, 'MAX_CONNECTIONS', 10_000, 1, 1_000_000),
  };
}

function visitorSettings(env: Record<string, string | undefined>, publicUrl: string): VisitorSettings {
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl) {
    let url: URL | undefined;
    try {
      url = new URL(smtpUrl);
    } catch {
      url = undefined;
    }
    // The URL holds a password: never echoed.
    if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) throw new Error('SMTP_URL must look like smtp://user:pass@host:587 or smtps://user:pass@host:465');
  }
  let host = 'localhost';
  try {
    host = new URL(publicUrl).hostname || host;
  } catch {
    /* PUBLIC_URL is used as given elsewhere; the default sender only needs a name */
  }
  return {
    smtpUrl,
    mailFrom: env.MAIL_FROM || `no-reply@${host}`,
    linkTtlSeconds: intSetting(env, 'VISITOR_LINK_TTL_SECONDS', 1800, 1, 7 * 24 * 3600),
    invitationTtlSeconds: intSetting(env, 'INVITATION_LINK_TTL_SECONDS', 7 * 24 * 3600, 60, 30 * 24 * 3600),
    invitationsPerHour: intSetting(env, 'INVITATIONS_PER_HOUR', 100, 1, 100_000),
    invitationsPerRecipientPerDay: intSetting(env, 'INVITATIONS_PER_RECIPIENT_PER_DAY', 3, 1, 1000),
    invitationsPerDay: intSetting(env, 'INVITATIONS_PER_DAY', 2000, 1, 10_000_000),
  };
}

/** The rendition ladder and the ffmpeg that takes video frames (docs/renditions.md). */
export interface RenditionSettings {
  /** Wall-clock bound of one ladder (RENDITION_TIMEOUT_SECONDS); the worker renews the job's lease meanwhile. */
  timeoutSeconds: number;
  /** FFMPEG_PATH: the ffmpeg to run; unset: the system's (/usr/bin/ffmpeg), else the bundled build. */
  ffmpegPath?: string;
  /** RENDITION_AVIF (on|off): AVIF alternates of the small rungs, made after the ladder (seconds of a core each). */
  avif: boolean;
}

function onOffSetting(env: Record<string, string | undefined>, name: string, fallback: boolean): boolean {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (v === 'on' || v === '1' || v === 'true') return true;
  if (v === 'off' || v === '0' || v === 'false') return false;
  throw new Error(`${name} must be on or off`);
}

export function loadConfig(env: Record<string, string | undefined> = loadEnv()): Config {
  const port = intSetting(env, 'PORT', 8080, 0, 65535);
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  const background = intSetting(env, 'RENDITION_CONCURRENCY', defaultRenditionConcurrency(), 1, 64);
  return {
    port,
    host: env.HOST || '127.0.0.1',
    dataDir: resolve(env.DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    publicUrl,
    rateLimit: parseRateLimit(env.RATE_LIMIT),
    studioRateLimit: parseRateLimit(env.STUDIO_RATE_LIMIT ?? (parseRateLimit(env.RATE_LIMIT) ? undefined : 'off'), 'STUDIO_RATE_LIMIT', '600/60s'),
    visitorRateLimit: parseRateLimit(env.VISITOR_RATE_LIMIT, 'VISITOR_RATE_LIMIT', '300/60s'),
    visitorFilesRateLimit: parseRateLimit(env.VISITOR_FILES_RATE_LIMIT, 'VISITOR_FILES_RATE_LIMIT', '1200/60s'),
    siteCacheSeconds: intSetting(env, 'SITE_CACHE_SECONDS', 2, 0, 3600),
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: redisPrefixSetting(env.REDIS_PREFIX),
    storageUrl: env.STORAGE_URL || undefined,
    reservedHostnames: parseHostList(env.RESERVED_HOSTNAMES, 'RESERVED_HOSTNAMES'),
    storageCredentials:
      env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
        ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN || undefined }
        : undefined,
    uploadSecret: env.UPLOAD_SECRET || undefined,
    maxUploadBytes: intSetting(env, 'MAX_UPLOAD_BYTES', 4 * 1024 ** 3, 1, Number.MAX_SAFE_INTEGER),
    uploadExpirySeconds: intSetting(env, 'UPLOAD_EXPIRY_SECONDS', 24 * 3600, 1, 365 * 24 * 3600),
    storageQuotaBytes: env.STORAGE_QUOTA_BYTES === 'off' ? null : intSetting(env, 'STORAGE_QUOTA_BYTES', 100 * 1024 ** 3, 0, Number.MAX_SAFE_INTEGER),
    galleryListCap: intSetting(env, 'GALLERY_LIST_CAP', 5000, 500, 5000),
    logLevel: env.LOG_LEVEL || 'info',
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    jobs: {
      chunkSize: intSetting(env, 'JOB_CHUNK_SIZE', 500, 1, 100_000),
      pollMs: intSetting(env, 'JOB_POLL_MS', 1000, 10, 3_600_000),
      leaseSeconds: intSetting(env, 'JOB_LEASE_SECONDS', 60, 1, 86_400),
      chunkPauseMs: intSetting(env, 'JOB_CHUNK_PAUSE_MS', 0, 0, 60_000),
      maxAttempts: intSetting(env, 'JOB_MAX_ATTEMPTS', 5, 1, 1000),
      retrySeconds: intSetting(env, 'JOB_RETRY_SECONDS', 5, 0, 86_400),
      retentionSeconds: intSetting(env, 'JOB_RETENTION_SECONDS', 7 * 24 * 3600, 1, 10 * 365 * 24 * 3600),
      interactiveConcurrency: intSetting(env, 'JOB_INTERACTIVE_CONCURRENCY', 1, 1, 64),
      backgroundConcurrency: background,
      newcomerConcurrency: intSetting(env, 'RENDITION_NEWCOMER_RUNNERS', defaultNewcomerRunners(background), 0, 16),
    },
    renditions: {
      timeoutSeconds: intSetting(env, 'RENDITION_TIMEOUT_SECONDS', 40, 1, 3600),
      ffmpegPath: env.FFMPEG_PATH || undefined,
      avif: onOffSetting(env, 'RENDITION_AVIF', false),
    },
    connections: connectionLimits(env),
    sessionPurgeSeconds: intSetting(env, 'SESSION_PURGE_SECONDS', 3600, 1, 7 * 24 * 3600),
    visitors: visitorSettings(env, publicUrl),
    activityRetentionDays: intSetting(env, 'ACTIVITY_RETENTION_DAYS', 400, 1, 3650),
    payments: paymentSettings(env),
    webhooks: webhookSettings(env),
    ops: opsConfig(env),
  };
}

/** Signed webhooks' deliveries (docs/integrations.md "Webhooks"; the README's configuration table). */
export interface WebhookSettings {
  /** WEBHOOKS_ALLOW_PRIVATE=1: endpoints on private, loopback and link-local addresses are let through (off by default). */
  allowPrivate: boolean;
  /** Deliveries a worker process sends at once (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Idle polling for deliveries other processes queued (WEBHOOK_POLL_MS). */
  pollMs: number;
  /** Connecting must end within this (WEBHOOK_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs: number;
  /** The whole exchange must end within this (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** The first retry's wait, doubled at each attempt (WEBHOOK_RETRY_BASE_MS), with jitter. */
  retryBaseMs: number;
  /** The longest wait between attempts (WEBHOOK_RETRY_MAX_MS). */
  retryMaxMs: number;
  /** A delivery is retried this long, then failed (WEBHOOK_RETRY_WINDOW_SECONDS, three days). */
  retryWindowSeconds: number;
  /** An endpoint failing this long without a success is disabled and its owner mailed (WEBHOOK_DISABLE_AFTER_SECONDS). */
  disableAfterSeconds: number;
  /** The delivery log is kept this long (WEBHOOK_LOG_RETENTION_DAYS). */
  logRetentionDays: number;
}

function webhookSettings(env: Record<string, string | undefined>): WebhookSettings {
  const allow = env.WEBHOOKS_ALLOW_PRIVATE?.trim() ?? '';
  if (!['', '0', '1'].includes(allow)) throw new Error(`WEBHOOKS_ALLOW_PRIVATE must be 1 or 0 (got ${JSON.stringify(allow.slice(0, 20))})`);
  const threeDays = 3 * 86_400;
  return {
    allowPrivate: allow === '1',
    concurrency: intSetting(env, 'WEBHOOK_CONCURRENCY', 4, 1, 64),
    pollMs: intSetting(env, 'WEBHOOK_POLL_MS', 1000, 10, 3_600_000),
    connectTimeoutMs: intSetting(env, 'WEBHOOK_CONNECT_TIMEOUT_MS', 5000, 100, 60_000),
    timeoutMs: intSetting(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
    retryBaseMs: intSetting(env, 'WEBHOOK_RETRY_BASE_MS', 30_000, 1, 86_400_000),
    retryMaxMs: intSetting(env, 'WEBHOOK_RETRY_MAX_MS', 6 * 3_600_000, 1, 86_400_000),
    retryWindowSeconds: intSetting(env, 'WEBHOOK_RETRY_WINDOW_SECONDS', threeDays, 0, 30 * 86_400),
    disableAfterSeconds: intSetting(env, 'WEBHOOK_DISABLE_AFTER_SECONDS', threeDays, 0, 30 * 86_400),
    logRetentionDays: intSetting(env, 'WEBHOOK_LOG_RETENTION_DAYS', 30, 1, 3650),
  };
}

export interface PaymentSettings {
  /** 32 bytes; unset: no provider keys can be stored or used. */
  secretsKey: Buffer | undefined;
  /** The Stripe API's origin: Stripe's own by default, a stand-in in tests or staging. */
  stripeApiBase: string;
}

/** PAYMENT_SECRETS_KEY: 64 hex digits or the base64 of 32 bytes; STRIPE_API_BASE: an http(s) origin. */
function paymentSettings(env: Record<string, string | undefined>): PaymentSettings {
  const raw = env.PAYMENT_SECRETS_KEY?.trim();
  let secretsKey: Buffer | undefined;
  if (raw) {
    secretsKey = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(raw) ? Buffer.from(raw, 'base64') : undefined;
    if (secretsKey?.length !== 32) throw new Error('PAYMENT_SECRETS_KEY must be 32 bytes: 64 hex digits or their base64 (openssl rand -hex 32)');
  }
  const base = (env.STRIPE_API_BASE?.trim() || 'https://api.stripe.com').replace(/\/+$/, '');
  let url: URL | undefined;
  try {
    url = new URL(base);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.username) throw new Error(`STRIPE_API_BASE must be an http(s) origin such as https://api.stripe.com (got ${JSON.stringify(base.slice(0, 80))})`);
  return { secretsKey, stripeApiBase: base };
}

/** REDIS_PREFIX: letters, digits and `:._-`, at most 64; unset: `mps:`. */
function redisPrefixSetting(value: string | undefined): string {
  if (value === undefined || value === '') return 'mps:';
  if (!/^[A-Za-z0-9:._-]{1,64}$/.test(value)) throw new Error(`REDIS_PREFIX must be 1 to 64 letters, digits or ':._-' (got ${JSON.stringify(value.slice(0, 80))})`);
  return value;
}

// Starts real services for the API tests: a fresh SQLite directory or a fresh
// PostgreSQL database per service, listening on a loopback port.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPgDatabase } from './pg.js';
import { TEST_REDIS_PREFIX } from './redis-prefix.js';
import type { Logger } from 'pino';
import { describe } from 'vitest';
import { MediaPortfolioClient, type ClientOptions } from '../../src/client/index.js';
import { loadConfig, type Config } from '../../src/config.js';
import { computeSignature, rfc2822 } from '../../src/http/signing.js';
import { buildApp as createService, type App as Service, type Seams } from '../../src/app.js';

export type DbKind = 'sqlite' | 'postgres';
export const PG_URL = process.env.TEST_DATABASE_URL;
export const REDIS_URL = process.env.TEST_REDIS_URL;
export { TEST_REDIS_PREFIX };
export const DB_KINDS: DbKind[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/** Runs a suite once per database: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export function eachDatabase(fn: (kind: DbKind) => void): void {
  for (const kind of DB_KINDS) describe(`[${kind}]`, () => fn(kind));
}

export interface TestUser {
  uuid: string;
  id: number;
  email: string;
  password: string;
  otpSecret?: string;
  defaultArtistUuid: string;
}

export interface TestApp {
  key: string;
  secret: string;
}

export function createPgDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  return freshPgDatabase(PG_URL!);
}

/** A service with one application, the setup of most suites. */
export async function serviceWithApp(kind: DbKind, env: Record<string, string> = {}): Promise<{ svc: TestService; app: TestApp }> {
  const svc = await TestService.start(kind, env);
  return { svc, app: await svc.app() };
}

export class TestService {
  private constructor(
    readonly service: Service,
    readonly config: Config,
    readonly url: string,
    private readonly cleanup: () => Promise<void>,
  ) {}

  /** `log`: a logger of the test's own, to read what the service logs. */
  static async start(kind: DbKind, env: Record<string, string> = {}, log?: Logger, seams: Seams = {}): Promise<TestService> {
    const dataDir = await mkdtemp(join(tmpdir(), 'mps-test-'));
    const pgDb = kind === 'postgres' ? await createPgDatabase() : undefined;
    const config = loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      RATE_LIMIT: 'off',
      LOG_LEVEL: 'warn',
      REDIS_PREFIX: TEST_REDIS_PREFIX,
      ...(pgDb ? { DATABASE_URL: pgDb.url } : {}),
      ...env,
    });
    const service = await createService(config, log, seams);
    await service.fastify.listen({ port: 0, host: '127.0.0.1' });
    const addr = service.fastify.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    const url = `http://127.0.0.1:${port}`;
    // PUBLIC_URL must name the real port for the addresses the service hands out.
    if (!env.PUBLIC_URL) config.publicUrl = url;
    return new TestService(service, config, url, async () => {
      await service.close();
      await pgDb?.drop();
      await rm(dataDir, { recursive: true, force: true });
    });
  }

  get db() {
    return this.service.store.db;
  }

  /**
   * Waits until no job is queued or running (the renditions job of every
   * upload included), so a sweep run with a clock moved ahead cannot take the
   * files a job is still storing for its own.
   */
  async jobsSettled(ms = 20_000): Promise<void> {
    const until = Date.now() + ms;
    for (;;) {
      const busy = await this.db.selectFrom('jobs').select('id').where('state', 'in', ['queued', 'running']).limit(1).executeTakeFirst();
      if (!busy) return;
      if (Date.now() > until) throw new Error('jobs still queued or running');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): Promise<void> {
    return this.cleanup();
  }

  /** The services users, websites and applications are created with (as the admin command line does). */
  get core() {
    return this.service.core;
  }

  app(): Promise<TestApp> {
    return this.core.apps.create('test');
  }

  async user(opts: { otpSecret?: string; firstName?: string; lastName?: string } = {}): Promise<TestUser> {
    const email = `u${randomBytes(5).toString('hex')}@example.com`;
    const password = `pw-${randomBytes(6).toString('hex')}`;
    const { user, defaultArtistUuid } = await this.core.users.create({
      email,
      password,
      firstName: opts.firstName ?? 'Test',
      lastName: opts.lastName ?? 'User',
      otpSecret: opts.otpSecret,
    });
    return { uuid: user.uuid, id: user.id, email, password, otpSecret: opts.otpSecret, defaultArtistUuid };
  }

  async website(owner: TestUser, urlname = `site-${randomBytes(4).toString('hex')}`) {
    return this.core.websites.create(owner, { urlname, title: `Site ${urlname}` });
  }

  client(app: TestApp, user?: TestUser, extra: Partial<ClientOptions> = {}): MediaPortfolioClient {
    return new MediaPortfolioClient({
      baseUrl: this.url,
      apiKey: app.key,
      apiSecret: app.secret,
      login: user?.email,
      password: user?.password,
      throttle: false,
      retry429: false,
      ...extra,
    });
  }

  /**
   * One signed request with full control over what goes on the wire: the query
   * string is sent (and signed) exactly as given.
   */
  async raw(
    app: TestApp,
    method: string,
    pathAndQuery: string,
    opts: { headers?: Record<string, string>; body?: string | Buffer | Uint8Array; timestamp?: string; sign?: boolean; signMethod?: string; algorithm?: 'sha1' | 'md5' } = {},
  ): Promise<Response> {
    const q = pathAndQuery.indexOf('?');
    const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
    const query = q < 0 ? '' : pathAndQuery.slice(q + 1);
    const timestamp = opts.timestamp ?? rfc2822();
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.sign !== false) {
      const sig = computeSignature(opts.signMethod ?? method, path, query, app.secret, timestamp, opts.algorithm ?? 'sha1');
      headers['X-Service-Authorization'] = `${app.key}:${sig}`;
      headers['X-Service-Timestamp'] = timestamp;
    }
    return fetch(this.url + pathAndQuery, { method, headers, body: opts.body as BodyInit | undefined });
  }
}

export function basicAuth(login: string, password: string): string {
  return 'Basic ' + Buffer.from(`${login}:${password}`).toString('base64');
}

/** First `Set-Cookie` value pair, e.g. `_ficelle_session=abc`. */
export function sessionCookieOf(res: Response): string | undefined {
  const set = res.headers.get('set-cookie');
  return set?.split(';')[0];
}

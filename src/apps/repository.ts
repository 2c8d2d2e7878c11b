// SQL of applications: the API keys and secrets that sign requests (spec 5.1).
import { randomBytes } from 'node:crypto';
import type { Db } from '../store/db.js';
import { nowIso } from '../store/db.js';
import type { AppRow } from '../store/schema.js';

export class AppsRepository {
  constructor(private readonly db: Db) {}

  byKey(apiKey: string): Promise<AppRow | undefined> {
    return this.db.selectFrom('apps').selectAll().where('api_key', '=', apiKey).executeTakeFirst();
  }

  /** A new application with a 128-bit key and a 256-bit secret. */
  async create(name: string): Promise<{ key: string; secret: string }> {
    const key = randomBytes(16).toString('hex');
    const secret = randomBytes(32).toString('hex');
    await this.db.insertInto('apps').values({ name, api_key: key, api_secret: secret, created_at: nowIso() }).execute();
    return { key, secret };
  }
}

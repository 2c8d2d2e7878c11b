// SQL of pricing profiles: the price lists a user attaches to medias.
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { nowIso } from '../store/db.js';

export class PricingProfilesRepository {
  constructor(private readonly db: Db) {}

  /** A new profile; its UUID. */
  async create(ownerId: number, name: string): Promise<string> {
    const uuid = randomUUID();
    await this.db.insertInto('pricing_profiles').values({ uuid, owner_id: ownerId, name, created_at: nowIso() }).execute();
    return uuid;
  }
}

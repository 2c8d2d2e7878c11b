// SQL of photographers' payment accounts (migration 026): sealed secrets and
// the webhook token that names an account.
import type { Db } from '../database/db.js';
import { nowIso } from '../database/db.js';
import { prepared } from '../database/prepared.js';

export interface AccountRow {
  owner_id: number;
  provider: string;
  secret_key: string;
  webhook_secret: string;
  webhook_token: string;
}

const COLUMNS = ['owner_id', 'provider', 'secret_key', 'webhook_secret', 'webhook_token'] as const;

// Compiled once: every cart page asks whether its photographer takes cards.
const accountOf = prepared((db: Db, ownerId: number, provider: string) => db.selectFrom('payment_accounts').select(COLUMNS).where('owner_id', '=', ownerId).where('provider', '=', provider));

export class PaymentAccountsRepository {
  constructor(private readonly db: Db) {}

  /** Stores the account (replacing the owner's previous one of the provider, keeping its webhook token); the token. */
  async save(ownerId: number, provider: string, secrets: { secret_key: string; webhook_secret: string }, newToken: string): Promise<string> {
    const now = nowIso();
    await this.db
      .insertInto('payment_accounts')
      .values({ owner_id: ownerId, provider, ...secrets, webhook_token: newToken, created_at: now, updated_at: now })
      .onConflict((oc) => oc.columns(['owner_id', 'provider']).doUpdateSet({ ...secrets, updated_at: now }))
      .execute();
    return (await this.byOwner(ownerId, provider))!.webhook_token;
  }

  async byOwner(ownerId: number, provider: string): Promise<AccountRow | undefined> {
    return accountOf(this.db, ownerId, provider);
  }

  /** Forgets the owner's account of the provider (its keys and its webhook address); whether there was one. */
  async remove(ownerId: number, provider: string): Promise<boolean> {
    const r = await this.db.deleteFrom('payment_accounts').where('owner_id', '=', ownerId).where('provider', '=', provider).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async byToken(token: string): Promise<AccountRow | undefined> {
    return this.db.selectFrom('payment_accounts').select(COLUMNS).where('webhook_token', '=', token).executeTakeFirst();
  }
}

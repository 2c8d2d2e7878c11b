// The store's half of readiness (src/ops/health.ts): one trivial query.
import { sql } from 'kysely';
import type { Store } from './db.js';

export async function pingStore(store: Store): Promise<void> {
  await sql`SELECT 1`.execute(store.db);
}

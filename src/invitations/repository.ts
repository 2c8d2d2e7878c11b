// What became of each invitation's mail (migration 038): a row when it is queued, settled by the
// mailer's outcome; the studio reads each client's latest per gallery.
import type { Db } from '../database/db.js';
import type { InvitationDeliveriesTable } from '../database/schema.js';

export type DeliveryState = InvitationDeliveriesTable['state'];

export interface Delivery {
  email: string;
  state: DeliveryState;
  code: string | null;
  queuedAt: string;
  settledAt: string | null;
}

/** Rows a gallery's screen reads at most (the newest first): an access list holds fewer clients. */
const LATEST_ROWS = 2000;

export class InvitationDeliveriesRepository {
  constructor(private readonly db: Db) {}

  async queue(galleryId: number, email: string, state: 'queued' | 'not_mailed', now: string): Promise<number> {
    const row = await this.db
      .insertInto('invitation_deliveries')
      .values({ gallery_id: galleryId, email, state, code: null, queued_at: now, settled_at: state === 'not_mailed' ? now : null })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async settle(id: number, state: 'sent' | 'failed', code: string | null, at: string): Promise<void> {
    await this.db.updateTable('invitation_deliveries').set({ state, code, settled_at: at }).where('id', '=', id).where('state', '=', 'queued').execute();
  }

  /** Each client's latest invitation to the gallery, by address. */
  async latest(galleryId: number): Promise<Map<string, Delivery>> {
    const rows = await this.db
      .selectFrom('invitation_deliveries')
      .select(['email', 'state', 'code', 'queued_at', 'settled_at'])
      .where('gallery_id', '=', galleryId)
      .orderBy('id', 'desc')
      .limit(LATEST_ROWS)
      .execute();
    const out = new Map<string, Delivery>();
    for (const r of rows) if (!out.has(r.email)) out.set(r.email, { email: r.email, state: r.state, code: r.code, queuedAt: r.queued_at, settledAt: r.settled_at });
    return out;
  }
}

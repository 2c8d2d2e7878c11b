// SQL of a website's coupons (docs/shop.md "Coupons"). Their uses are counted by the orders
// (src/orders/repository.ts), in the transaction that places or cancels one.
import { randomUUID } from 'node:crypto';
import type { Db } from '../database/db.js';
import { nowIso } from '../database/db.js';

const COLUMNS = ['id', 'uuid', 'website_id', 'code', 'kind', 'value', 'currency', 'valid_from', 'valid_until', 'usage_limit', 'times_used', 'active', 'created_at', 'updated_at'] as const;

export interface CouponValues {
  code: string;
  kind: 'percent' | 'amount';
  value: number;
  currency: string | null;
  valid_from: string | null;
  valid_until: string | null;
  usage_limit: number | null;
  active: number;
}

export class CouponsRepository {
  constructor(private readonly db: Db) {}

  async list(websiteId: number, limit: number, offset: number) {
    const q = this.db.selectFrom('coupons').where('website_id', '=', websiteId);
    const [rows, total] = await Promise.all([
      q.select(COLUMNS).orderBy('id').limit(limit).offset(offset).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  async get(websiteId: number, uuid: string) {
    return this.db.selectFrom('coupons').select(COLUMNS).where('website_id', '=', websiteId).where('uuid', '=', uuid).executeTakeFirst();
  }

  /** Whether another coupon of the owner has the (upper-cased) code: codes are unique per photographer. */
  async codeTaken(ownerId: number, code: string, exceptId?: number): Promise<boolean> {
    let q = this.db.selectFrom('coupons').select('id').where('owner_id', '=', ownerId).where('code', '=', code);
    if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  async insert(ownerId: number, websiteId: number, v: CouponValues): Promise<string> {
    const uuid = randomUUID();
    await this.db.insertInto('coupons').values({ uuid, owner_id: ownerId, website_id: websiteId, ...v, created_at: nowIso() }).execute();
    return uuid;
  }

  async update(id: number, v: CouponValues): Promise<void> {
    await this.db.updateTable('coupons').set({ ...v, updated_at: nowIso() }).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('coupons').where('id', '=', id).execute();
  }
}

export type CouponRecord = NonNullable<Awaited<ReturnType<CouponsRepository['get']>>>;

// A website's coupons (docs/shop.md "Coupons"): the photographer writes them through the API
// (and the studio); the orders apply them at checkout. Another's website or coupon is a 404.
import type { Access } from '../access/access.js';
import { invalid, notFound } from '../core/errors.js';
import { isUuid } from '../core/uuid.js';
import type { UserRow } from '../database/schema.js';
import type { CouponInput } from './fields.js';
import type { CouponRecord, CouponValues, CouponsRepository } from './repository.js';

type Owner = Pick<UserRow, 'id'>;
/** A coupon as the faces show it. */
export type Coupon = CouponRecord;
/** The API's names of the fields, for refusals across two of them. */
const NAME = (key: string) => `coupon[${key}]`;

/** The stored values after `input` is applied to `old` (none on a create), checked across fields. */
export function couponValues(input: CouponInput, old: CouponValues | undefined): CouponValues {
  if (input.percent != null && input.amount != null) throw invalid(`${NAME('percent')} and ${NAME('amount')}: send one of the two`, 'percent');
  let kind = old?.kind;
  let value = old?.value;
  if (input.percent != null) [kind, value] = ['percent', input.percent * 100];
  else if (input.amount != null) [kind, value] = ['amount', input.amount];
  else if ((input.percent === null && kind === 'percent') || (input.amount === null && kind === 'amount')) kind = undefined;
  if (kind === undefined || value === undefined) throw invalid(`parameter ${NAME('percent')} or ${NAME('amount')} is required`, 'percent');
  const currency = kind === 'percent' ? null : input.currency !== undefined ? input.currency : (old?.currency ?? null);
  if (kind === 'amount' && currency === null) throw invalid(`parameter ${NAME('currency')} is required with ${NAME('amount')}`, 'currency');
  if (kind === 'percent' && input.currency) throw invalid(`${NAME('currency')} goes with ${NAME('amount')} only: a percent is of any currency`, 'currency');
  const validFrom = input.validFrom !== undefined ? input.validFrom : (old?.valid_from ?? null);
  const validUntil = input.validUntil !== undefined ? input.validUntil : (old?.valid_until ?? null);
  if (validFrom !== null && validUntil !== null && validUntil < validFrom) throw invalid(`${NAME('valid_until')} must not be before ${NAME('valid_from')}`, 'validUntil');
  return {
    code: (input.code ?? old?.code ?? '').toUpperCase(),
    kind,
    value,
    currency,
    valid_from: validFrom,
    valid_until: validUntil,
    usage_limit: input.maxUses !== undefined ? input.maxUses : (old?.usage_limit ?? null),
    active: input.active !== undefined ? (input.active ? 1 : 0) : (old?.active ?? 1),
  };
}

export class CouponsService {
  constructor(
    private readonly repo: CouponsRepository,
    private readonly access: Access,
  ) {}

  async list(owner: Owner, urlname: string, limit: number, offset: number) {
    const website = await this.access.website(owner, urlname);
    return { website, ...(await this.repo.list(website.id, limit, offset)) };
  }

  async get(owner: Owner, urlname: string, uuid: string): Promise<CouponRecord & { urlname: string }> {
    const website = await this.access.website(owner, urlname);
    const c = isUuid(uuid) ? await this.repo.get(website.id, uuid.toLowerCase()) : undefined;
    if (!c) throw notFound(`coupon ${uuid}`);
    return { ...c, urlname: website.urlname };
  }

  async create(owner: Owner, urlname: string, input: CouponInput) {
    const website = await this.access.website(owner, urlname);
    const v = couponValues(input, undefined);
    await this.checkCode(owner, v.code);
    const uuid = await this.repo.insert(owner.id, website.id, v);
    return this.get(owner, urlname, uuid);
  }

  async update(owner: Owner, urlname: string, uuid: string, input: CouponInput) {
    const old = await this.get(owner, urlname, uuid);
    const v = couponValues(input, { ...old, kind: old.kind as CouponValues['kind'] });
    if (v.code !== old.code) await this.checkCode(owner, v.code, old.id);
    await this.repo.update(old.id, v);
    return this.get(owner, urlname, uuid);
  }

  async delete(owner: Owner, urlname: string, uuid: string) {
    const c = await this.get(owner, urlname, uuid);
    await this.repo.delete(c.id);
    return c;
  }

  private async checkCode(owner: Owner, code: string, exceptId?: number) {
    // Codes are unique per photographer: a buyer's code names one coupon whatever the website.
    if (await this.repo.codeTaken(owner.id, code, exceptId)) throw invalid(`${NAME('code')} ${code} is taken by another of your coupons`, 'code');
  }
}

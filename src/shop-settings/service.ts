// A website's shop settings (docs/shop.md "Taxes and terms"): its tax (a rate in basis
// points, included in the prices or added, a label) and its terms of sale, read by the
// checkout and written by the photographer. Another's website is a 404.
import type { Access } from '../access/access.js';
import type { UserRow } from '../database/schema.js';
import type { ShopSettingsInput } from './fields.js';
import type { ShopSettingsRepository, ShopSettingsRow } from './repository.js';

type Owner = Pick<UserRow, 'id'>;

export class ShopSettingsService {
  constructor(
    private readonly repo: ShopSettingsRepository,
    private readonly access: Access,
  ) {}

  async get(owner: Owner, urlname: string): Promise<ShopSettingsRow & { urlname: string }> {
    const website = await this.access.website(owner, urlname);
    return { ...(await this.repo.get(website.id)), urlname: website.urlname };
  }

  /** Changes what is sent; what is not stays. */
  async update(owner: Owner, urlname: string, input: ShopSettingsInput) {
    const website = await this.access.website(owner, urlname);
    const old = await this.repo.get(website.id);
    await this.repo.save(website.id, {
      tax_rate_bp: input.taxRate ?? old.tax_rate_bp,
      tax_included: input.taxIncluded === undefined ? old.tax_included : input.taxIncluded ? 1 : 0,
      tax_label: input.taxLabel !== undefined ? input.taxLabel : old.tax_label,
      terms: input.terms !== undefined ? input.terms : old.terms,
      manual_instructions: input.manualInstructions !== undefined ? input.manualInstructions : old.manual_instructions,
    });
    return this.get(owner, urlname);
  }
}

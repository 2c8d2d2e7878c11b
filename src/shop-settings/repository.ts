// SQL of a website's shop settings (docs/shop.md "Taxes and terms"): one row per website,
// absent until first written (no tax, no terms).
import type { Db } from '../database/db.js';

export interface ShopSettingsRow {
  tax_rate_bp: number;
  tax_included: number;
  tax_label: string | null;
  terms: string | null;
  manual_instructions: string | null;
}

export const NO_SETTINGS: ShopSettingsRow = { tax_rate_bp: 0, tax_included: 1, tax_label: null, terms: null, manual_instructions: null };

export class ShopSettingsRepository {
  constructor(private readonly db: Db) {}

  async get(websiteId: number): Promise<ShopSettingsRow> {
    const row = await this.db.selectFrom('shop_settings').select(['tax_rate_bp', 'tax_included', 'tax_label', 'terms', 'manual_instructions']).where('website_id', '=', websiteId).executeTakeFirst();
    return row ?? NO_SETTINGS;
  }

  async save(websiteId: number, s: ShopSettingsRow): Promise<void> {
    await this.db
      .insertInto('shop_settings')
      .values({ website_id: websiteId, ...s })
      .onConflict((oc) => oc.column('website_id').doUpdateSet(s))
      .execute();
  }
}

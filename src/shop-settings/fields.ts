// A website's shop settings as every face reads them (docs/shop.md "Taxes and terms"): the
// API's `shop_settings[…]`. The tax rate is in basis points (2000 = 20 %).
import { flag, int, line, text, type InputOf } from '../core/fields.js';
import { MAX_TAX_RATE_BP } from '../shop/cart.js';

export const MAX_TAX_LABEL = 40;
export const MAX_TERMS = 20_000;
export const MAX_INSTRUCTIONS = 2_000;

export const SHOP_SETTINGS_FIELDS = {
  taxRate: int({ min: 0, max: MAX_TAX_RATE_BP }),
  taxIncluded: flag(),
  /** Blank: "Tax". */
  taxLabel: line({ max: MAX_TAX_LABEL }),
  /** Markdown; blank: no terms, checkout asks for none. */
  terms: text({ max: MAX_TERMS, blank: 'null', trim: true, forbid: { pattern: /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/, message: (n) => `${n} must not contain control characters` } }),
  manualInstructions: text({ max: MAX_INSTRUCTIONS, blank: 'null', trim: true, forbid: { pattern: /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/, message: (n) => `${n} must not contain control characters` } }),
};

export type ShopSettingsInput = InputOf<typeof SHOP_SETTINGS_FIELDS>;

// A website's shop settings as every face reads them (docs/shop.md "Taxes and terms"): the
// API's `shop_settings[…]`. The tax rate is in basis points (2000 = 20 %).
import { flag, int, line, text, type Field, type InputOf } from '../core/fields.js';
import { MAX_TAX_RATE_BP } from '../shop/cart.js';

export const MAX_TAX_LABEL = 40;
export const MAX_TERMS = 20_000;
/** A website's manual-payment instructions (bank details, pick-up), in characters once line endings are LF: the one limit of every face. */
export const MAX_INSTRUCTIONS = 4_000;

const CONTROLS = { pattern: /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/, message: (n: string) => `${n} must not contain control characters` };
const instructionsText = text({ max: MAX_INSTRUCTIONS, blank: 'null', trim: true, forbid: CONTROLS });

export const SHOP_SETTINGS_FIELDS = {
  taxRate: int({ min: 0, max: MAX_TAX_RATE_BP }),
  taxIncluded: flag(),
  /** Blank: "Tax". */
  taxLabel: line({ max: MAX_TAX_LABEL }),
  /** Markdown; blank: no terms, checkout asks for none. */
  terms: text({ max: MAX_TERMS, blank: 'null', trim: true, forbid: { pattern: /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/, message: (n) => `${n} must not contain control characters` } }),
  /** Plain text; blank: none (checkout shows the default words). A browser's CRLF line endings count as one character, as stored. */
  manualInstructions: { ...instructionsText, read: (s, at) => instructionsText.read({ ...s, value: (key) => s.value(key)?.replace(/\r\n?/g, '\n') }, at) } satisfies Field<string | null>,
};

export type ShopSettingsInput = InputOf<typeof SHOP_SETTINGS_FIELDS>;

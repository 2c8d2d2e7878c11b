// How a website's shop settings look in a reply (API extension, docs/shop.md "Taxes and terms").
import type { XmlObject } from '../http/xml.js';
import type { ShopSettingsRow } from './repository.js';

export function shopSettingsXml(s: ShopSettingsRow): XmlObject {
  return { 'tax-rate': s.tax_rate_bp, 'tax-included': Number(s.tax_included) === 1, 'tax-label': s.tax_label, terms: s.terms, 'manual-instructions': s.manual_instructions };
}

export const shopSettingsLocation = (urlname: string) => `/websites/${urlname}/shop_settings.xml`;

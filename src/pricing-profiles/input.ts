// Reads and checks the pricing_profile[...] parameters of a create or an update (docs/shop.md, an API
// extension), through the list's field spec and items reader (fields.ts) under the API's names:
// items as pricing_profile[items][n][…], like gallery[acl][n][…]. Every refusal is a 422 naming the
// parameter, raised before anything is written.
import { readFields, type Mode } from '../core/fields.js';
import { input, paramsSource, specDocs, type Input, type ParamDoc } from '../http/input.js';
import { MAX_PRICE, MAX_RATIO } from '../shop/money.js';
import type { Params } from '../http/params.js';
import { MAX_LABEL_LENGTH, MAX_LONG_EDGE, PRICING_PROFILE_API, PRICING_PROFILE_FIELDS, readItems, type PricingProfileInput } from './fields.js';

export * from './fields.js';

const P = 'pricing_profile';

/** The items' names, numbered twice over, as the OpenAPI description tells them (read by readItems). */
const ITEM_DOCS: ParamDoc[] = [
  { name: `${P}[items]`, kind: 'text', max: 0 },
  { name: `${P}[items][*][label]`, kind: 'text', max: MAX_LABEL_LENGTH },
  { name: `${P}[items][*][long_edge]`, kind: 'int', min: 1, max: MAX_LONG_EDGE },
  { name: `${P}[items][*][price]`, kind: 'int', min: 0, max: MAX_PRICE },
  { name: `${P}[items][*][options][*][label]`, kind: 'text', max: MAX_LABEL_LENGTH },
  { name: `${P}[items][*][options][*][price]`, kind: 'int', min: 0, max: MAX_PRICE },
  { name: `${P}[items][*][options][*][ratio]`, kind: 'int', min: 1, max: MAX_RATIO },
];

export function pricingProfileInput(mode: 'create' | 'update'): Input<PricingProfileInput> {
  const docs = [...specDocs(PRICING_PROFILE_FIELDS, PRICING_PROFILE_API, mode), ...ITEM_DOCS];
  return input(
    docs.map((d) => d.name),
    (p) => readProfile(p, mode),
    docs,
  );
}

function readProfile(p: Params, mode: Mode): PricingProfileInput {
  const out: PricingProfileInput = readFields(PRICING_PROFILE_FIELDS, paramsSource(p, PRICING_PROFILE_API), PRICING_PROFILE_API, mode);
  const items = readItems(p, `${P}[items]`);
  if (items !== undefined) out.items = items;
  return out;
}

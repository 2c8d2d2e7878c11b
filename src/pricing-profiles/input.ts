// Reads and checks the pricing_profile[...] parameters of a create or an update (docs/shop.md, an API
// extension), through the list's field spec and items reader (fields.ts) under the API's names:
// items as pricing_profile[items][n][…], like gallery[acl][n][…]. Every refusal is a 422 naming the
// parameter, raised before anything is written.
import { namesOf, readFields, type Mode } from '../core/fields.js';
import { input, paramsSource, type Input } from '../http/input.js';
import type { Params } from '../http/params.js';
import { PRICING_PROFILE_API, PRICING_PROFILE_FIELDS, readItems, type PricingProfileInput } from './fields.js';

export * from './fields.js';

const P = 'pricing_profile';

const NAMES = [
  ...namesOf(PRICING_PROFILE_FIELDS, PRICING_PROFILE_API),
  `${P}[items]`,
  `${P}[items][*][label]`,
  `${P}[items][*][long_edge]`,
  `${P}[items][*][price]`,
  `${P}[items][*][options][*][label]`,
  `${P}[items][*][options][*][price]`,
  `${P}[items][*][options][*][ratio]`,
];

export function pricingProfileInput(mode: 'create' | 'update'): Input<PricingProfileInput> {
  return input(NAMES, (p) => readProfile(p, mode));
}

function readProfile(p: Params, mode: Mode): PricingProfileInput {
  const out: PricingProfileInput = readFields(PRICING_PROFILE_FIELDS, paramsSource(p, PRICING_PROFILE_API), PRICING_PROFILE_API, mode);
  const items = readItems(p, `${P}[items]`);
  if (items !== undefined) out.items = items;
  return out;
}

// Smart-collection rules as an API route's input (medias_smart_collection[rules][...]): the
// whitelist and the reading generated from RULES_FIELDS (fields.ts), the studio's form too.
import { specInput, type Input } from '../http/input.js';
import { RULES_FIELDS, rulesNames, type RulesInput } from './fields.js';

export { MAX_RULES, type RulesInput } from './fields.js';

/** The rules under `prefix` (e.g. medias_smart_collection) as a route's input: their names and their reader. */
export function rulesInput(prefix: string): Input<RulesInput | undefined> {
  const spec = specInput(RULES_FIELDS, rulesNames(prefix));
  return { names: spec.names, read: (p, file) => spec.read(p, file).rules };
}

// A collection's or smart collection's create or update declared once (src/core/fields.ts):
// the names, and the smart-collection rules (docs/media-groups.md) checked here. The model
// and the stored form of rules are in smart-rules.ts, their SQL in smart-repository.ts.
import { custom, entries, namedAs, refuse, text, type At, type Entry, type InputOf } from '../core/fields.js';
import { parseCaptureTime } from '../media/metadata.js';
import { FILE_TYPES, RULE_OPERATORS, type RuleField, type SmartRule, type SmartRules } from './smart-rules.js';

export const MAX_RULES = 50;
export const COLLECTION = 'medias_collection';
export const SMART = 'medias_smart_collection';

/** Rules read from a request; the galleries they name are checked by the service (they must be the user's). */
export interface RulesInput {
  rules: SmartRules;
  galleries: Array<{ uuid: string; param: string }>;
}

const NO_VALUE = new Set(['is_set', 'is_not_set']);

/** `all` (also when blank) or `any`. */
const ruleMatch = () =>
  custom<'all' | 'any'>((v, at) => {
    if (v === undefined) return undefined;
    const match = v.trim() || 'all';
    if (match !== 'all' && match !== 'any') throw refuse(at, `${at.name} must be all or any, got ${JSON.stringify(match)}`);
    return match;
  });

/** The numbered rules (`[rules][n][field|operator|value]`) with the match read beside them; undefined when neither was sent. */
function readRules(list: Entry[], at: At, match: string | undefined): RulesInput | undefined {
  const indexes = list.map((e) => e.id).filter((id) => id !== 'match');
  if (indexes.length === 0 && match === undefined) return undefined;
  const byId = new Map(list.map((e) => [e.id, e]));
  indexes.sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  if (indexes.length > MAX_RULES) throw refuse(at, `${at.name}: at most ${MAX_RULES} rules`);
  const rules: SmartRule[] = [];
  const galleries: RulesInput['galleries'] = [];
  for (const n of indexes) {
    const e = byId.get(n)!;
    const name = (part: string) => `${at.name}[${n}][${part}]`;
    const field = e.value('field')?.trim() ?? '';
    // Own keys only: `constructor` or `__proto__` is in every object.
    if (!Object.hasOwn(RULE_OPERATORS, field)) throw refuse(at, `${name('field')} must be one of ${Object.keys(RULE_OPERATORS).join(', ')}, got ${JSON.stringify(field)}`);
    const operators: readonly string[] = RULE_OPERATORS[field as RuleField];
    const operator = e.value('operator')?.trim() ?? '';
    if (!operators.includes(operator)) throw refuse(at, `${name('operator')} for ${field} must be one of ${operators.join(', ')}, got ${JSON.stringify(operator)}`);
    const value = ruleValue(field as RuleField, operator, e.value('value')?.trim() ?? '', name('value'), at);
    if (field === 'gallery' && value !== '') galleries.push({ uuid: value, param: name('value') });
    rules.push({ field: field as RuleField, operator, value });
  }
  return { rules: { match: (match?.trim() || 'all') as 'all' | 'any', rules }, galleries };
}

function ruleValue(field: RuleField, operator: string, value: string, name: string, at: At): string {
  if (NO_VALUE.has(operator)) return '';
  if (value === '') throw refuse(at, `${name} is required for ${field} ${operator}`);
  switch (field) {
    case 'rating':
      if (!/^[0-5]$/.test(value)) throw refuse(at, `${name} must be an integer from 0 to 5`);
      return value;
    case 'shot_at':
      return parseCaptureTime(value, name, at.key);
    case 'file_type':
      if (!(FILE_TYPES as readonly string[]).includes(value)) throw refuse(at, `${name} must be one of ${FILE_TYPES.join(', ')}`);
      return value;
    case 'gallery':
      return value.toLowerCase();
    default:
      if (value.length > 1000) throw refuse(at, `${name} is longer than 1000 characters`);
      return value;
  }
}

/** A smart collection's rules: the match, then the numbered rules. */
export const RULES_FIELDS = {
  rulesMatch: ruleMatch(),
  rules: entries(['field', 'operator', 'value'], (list, at, s) => readRules(list, at, s.value('rulesMatch'))),
};

/** A collection's or a smart collection's name (the service checks them: one of the two), and a smart collection's rules. */
export const GROUP_FIELDS = { collectionName: text(), smartName: text(), ...RULES_FIELDS };
/** A create also names the library (`artist_id`). */
export const GROUP_CREATE_FIELDS = { ...GROUP_FIELDS, artist: text() };
export type GroupInput = InputOf<typeof GROUP_CREATE_FIELDS>;

/** The API's names: under two prefixes, and `artist_id`. */
export const GROUP_API = namedAs(GROUP_CREATE_FIELDS, {
  collectionName: `${COLLECTION}[name]`,
  smartName: `${SMART}[name]`,
  rulesMatch: `${SMART}[rules][match]`,
  rules: `${SMART}[rules]`,
  artist: 'artist_id',
});

/** The API's names of the rules under another prefix (`medias_smart_collection`). */
export const rulesNames = (prefix: string) => namedAs(RULES_FIELDS, { rulesMatch: `${prefix}[rules][match]`, rules: `${prefix}[rules]` });

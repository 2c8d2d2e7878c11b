// Smart-collection rules (docs/media-groups.md) as a request gives them:
// medias_smart_collection[rules][...], read and checked here. The model and
// the stored form are in smart-rules.ts, their SQL in smart-repository.ts.
import { invalid } from '../core/errors.js';
import { input, type Input } from '../http/input.js';
import type { Params } from '../http/params.js';
import { parseCaptureTime } from '../media/metadata.js';
import { FILE_TYPES, RULE_OPERATORS, type RuleField, type SmartRule, type SmartRules } from './smart-rules.js';

export const MAX_RULES = 50;

/** Rules read from a request; the galleries they name are checked by the service (they must be the user's). */
export interface RulesInput {
  rules: SmartRules;
  galleries: Array<{ uuid: string; param: string }>;
}

/** The rules under `prefix` (e.g. medias_smart_collection) as a route's input: their names and their reader. */
export function rulesInput(prefix: string): Input<RulesInput | undefined> {
  return input(ruleNames(prefix), (params) => readRules(params, prefix));
}

function ruleNames(prefix: string): string[] {
  return [`${prefix}[rules][match]`, `${prefix}[rules][*][field]`, `${prefix}[rules][*][operator]`, `${prefix}[rules][*][value]`];
}

const NO_VALUE = new Set(['is_set', 'is_not_set']);

/** undefined when the request sends no rules; validated rules otherwise (422 naming the bad parameter). */
function readRules(params: Params, prefix: string): RulesInput | undefined {
  const base = `${prefix}[rules]`;
  const names = params.namesUnder(`${base}[`);
  if (names.length === 0) return undefined;
  const matchName = `${base}[match]`;
  const match = params.str(matchName)?.trim() || 'all';
  if (match !== 'all' && match !== 'any') throw invalid(`${matchName} must be all or any, got ${JSON.stringify(match)}`);
  const indexes = [...new Set(names.map((n) => /^\[rules\]\[([^\]]*)\]/.exec(n.slice(prefix.length))?.[1]).filter((n): n is string => n !== undefined && n !== 'match'))];
  indexes.sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  if (indexes.length > MAX_RULES) throw invalid(`${base}: at most ${MAX_RULES} rules`);
  const rules: SmartRule[] = [];
  const galleries: RulesInput['galleries'] = [];
  for (const n of indexes) {
    const at = (part: string) => `${base}[${n}][${part}]`;
    const field = params.str(at('field'))?.trim() ?? '';
    // Own keys only: `constructor` or `__proto__` is in every object.
    if (!Object.hasOwn(RULE_OPERATORS, field)) throw invalid(`${at('field')} must be one of ${Object.keys(RULE_OPERATORS).join(', ')}, got ${JSON.stringify(field)}`);
    const operators: readonly string[] = RULE_OPERATORS[field as RuleField];
    const operator = params.str(at('operator'))?.trim() ?? '';
    if (!operators.includes(operator)) throw invalid(`${at('operator')} for ${field} must be one of ${operators.join(', ')}, got ${JSON.stringify(operator)}`);
    const value = ruleValue(field as RuleField, operator, params.str(at('value'))?.trim() ?? '', at('value'));
    if (field === 'gallery' && value !== '') galleries.push({ uuid: value, param: at('value') });
    rules.push({ field: field as RuleField, operator, value });
  }
  return { rules: { match, rules }, galleries };
}

function ruleValue(field: RuleField, operator: string, value: string, name: string): string {
  if (NO_VALUE.has(operator)) return '';
  if (value === '') throw invalid(`${name} is required for ${field} ${operator}`);
  switch (field) {
    case 'rating':
      if (!/^[0-5]$/.test(value)) throw invalid(`${name} must be an integer from 0 to 5`);
      return value;
    case 'shot_at':
      return parseCaptureTime(value, name);
    case 'file_type':
      if (!(FILE_TYPES as readonly string[]).includes(value)) throw invalid(`${name} must be one of ${FILE_TYPES.join(', ')}`);
      return value;
    case 'gallery':
      return value.toLowerCase();
    default:
      if (value.length > 1000) throw invalid(`${name} is longer than 1000 characters`);
      return value;
  }
}

// Smart-collection rules (docs/media-groups.md): read from
// medias_smart_collection[rules][...], stored as JSON, evaluated in SQL at
// read time against the medias table aliased `m`.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { invalid } from '../http/errors.js';
import type { Params } from '../http/params.js';
import type { Db } from '../store/db.js';
import { parseCaptureTime } from '../media/metadata.js';
import { accessibleGalleryIds } from '../media/targets.js';

export const RULE_OPERATORS = {
  keyword: ['is', 'is_not', 'contains'],
  rating: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'],
  shot_at: ['before', 'on_or_after', 'on', 'is_set', 'is_not_set'],
  file_type: ['is', 'is_not'],
  mime_type: ['is', 'is_not', 'starts_with'],
  gallery: ['in', 'not_in'],
  file_name: ['is', 'contains', 'starts_with', 'ends_with'],
  title: ['is', 'contains', 'starts_with', 'ends_with', 'is_set', 'is_not_set'],
} as const;

export type RuleField = keyof typeof RULE_OPERATORS;
export const FILE_TYPES = ['image', 'video', 'document'] as const;
export const MAX_RULES = 50;

export interface SmartRule {
  field: RuleField;
  operator: string;
  value: string;
}

export interface SmartRules {
  match: 'all' | 'any';
  rules: SmartRule[];
}

export const EMPTY_RULES: SmartRules = { match: 'all', rules: [] };

/** Parameter names under `prefix` (e.g. medias_smart_collection) for a whitelist. */
export function ruleParams(prefix: string): string[] {
  return [`${prefix}[rules][match]`, `${prefix}[rules][*][field]`, `${prefix}[rules][*][operator]`, `${prefix}[rules][*][value]`];
}

const NO_VALUE = new Set(['is_set', 'is_not_set']);

/** undefined when the request sends no rules; validated rules otherwise (422 naming the bad parameter). */
export async function readRules(db: Db, userId: number, params: Params, prefix: string): Promise<SmartRules | undefined> {
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
  for (const n of indexes) {
    const at = (part: string) => `${base}[${n}][${part}]`;
    const field = params.str(at('field'))?.trim() ?? '';
    // Own keys only: `constructor` or `__proto__` is in every object.
    if (!Object.hasOwn(RULE_OPERATORS, field)) throw invalid(`${at('field')} must be one of ${Object.keys(RULE_OPERATORS).join(', ')}, got ${JSON.stringify(field)}`);
    const operators: readonly string[] = RULE_OPERATORS[field as RuleField];
    const operator = params.str(at('operator'))?.trim() ?? '';
    if (!operators.includes(operator)) throw invalid(`${at('operator')} for ${field} must be one of ${operators.join(', ')}, got ${JSON.stringify(operator)}`);
    const value = await ruleValue(db, userId, field as RuleField, operator, params.str(at('value'))?.trim() ?? '', at('value'));
    rules.push({ field: field as RuleField, operator, value });
  }
  return { match, rules };
}

async function ruleValue(db: Db, userId: number, field: RuleField, operator: string, value: string, name: string): Promise<string> {
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
      await accessibleGalleryIds(db, userId, [value], name);
      return value.toLowerCase();
    default:
      if (value.length > 1000) throw invalid(`${name} is longer than 1000 characters`);
      return value;
  }
}

export function parseStoredRules(text: string | null): SmartRules {
  if (!text) return EMPTY_RULES;
  try {
    const v = JSON.parse(text) as SmartRules;
    return { match: v.match === 'any' ? 'any' : 'all', rules: Array.isArray(v.rules) ? v.rules : [] };
  } catch {
    return EMPTY_RULES;
  }
}

// '!' rather than a backslash: a backslash in the ESCAPE literal breaks on
// PostgreSQL with standard_conforming_strings=off.
const escapeLike = (s: string) => s.replace(/[!%_]/g, (c) => `!${c}`);

/** Case-insensitive text comparison on `column` (ASCII case on SQLite). */
function textRule(column: RawBuilder<unknown>, operator: string, value: string): RawBuilder<SqlBool> {
  const v = value.toLowerCase();
  switch (operator) {
    case 'is':
      return sql<SqlBool>`LOWER(${column}) = LOWER(${value})`;
    case 'contains':
      return sql<SqlBool>`LOWER(${column}) LIKE LOWER(${`%${escapeLike(v)}%`}) ESCAPE '!'`;
    case 'starts_with':
      return sql<SqlBool>`LOWER(${column}) LIKE LOWER(${`${escapeLike(v)}%`}) ESCAPE '!'`;
    case 'ends_with':
      return sql<SqlBool>`LOWER(${column}) LIKE LOWER(${`%${escapeLike(v)}`}) ESCAPE '!'`;
    case 'is_set':
      return sql<SqlBool>`(${column} IS NOT NULL AND ${column} <> '')`;
    case 'is_not_set':
      return sql<SqlBool>`(${column} IS NULL OR ${column} = '')`;
  }
  throw new Error(`unknown text operator ${operator}`);
}

const COMPARE = new Map([
  ['eq', '='],
  ['ne', '<>'],
  ['gt', '>'],
  ['gte', '>='],
  ['lt', '<'],
  ['lte', '<='],
]);

function mimeOfType(type: string): RawBuilder<SqlBool> {
  if (type === 'image') return sql<SqlBool>`m.mime_type LIKE 'image/%'`;
  if (type === 'video') return sql<SqlBool>`m.mime_type LIKE 'video/%'`;
  return sql<SqlBool>`(m.mime_type IS NULL OR (m.mime_type NOT LIKE 'image/%' AND m.mime_type NOT LIKE 'video/%'))`;
}

function ruleSql(r: SmartRule): RawBuilder<SqlBool> {
  switch (r.field) {
    case 'keyword': {
      const cond =
        r.operator === 'contains'
          ? sql`LOWER(k.keyword) LIKE LOWER(${`%${escapeLike(r.value.toLowerCase())}%`}) ESCAPE '!'`
          : sql`LOWER(k.keyword) = LOWER(${r.value})`;
      const exists = sql<SqlBool>`EXISTS (SELECT 1 FROM media_keywords k WHERE k.media_id = m.id AND ${cond})`;
      return r.operator === 'is_not' ? sql<SqlBool>`NOT ${exists}` : exists;
    }
    case 'rating':
      // Unrated medias count as 0 stars.
      return sql<SqlBool>`COALESCE(m.artist_rating, 0) ${sql.raw(COMPARE.get(r.operator) ?? '=')} ${Number(r.value)}`;
    case 'shot_at': {
      if (r.operator === 'is_set') return sql<SqlBool>`m.shot_at IS NOT NULL`;
      if (r.operator === 'is_not_set') return sql<SqlBool>`m.shot_at IS NULL`;
      if (r.operator === 'before') return sql<SqlBool>`m.shot_at < ${r.value}`;
      if (r.operator === 'on_or_after') return sql<SqlBool>`m.shot_at >= ${r.value}`;
      const day = r.value.slice(0, 10);
      const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString();
      return sql<SqlBool>`(m.shot_at >= ${`${day}T00:00:00.000Z`} AND m.shot_at < ${next})`;
    }
    case 'file_type':
      return r.operator === 'is' ? mimeOfType(r.value) : sql<SqlBool>`NOT ${mimeOfType(r.value)}`;
    case 'mime_type':
      if (r.operator === 'starts_with') return textRule(sql`m.mime_type`, 'starts_with', r.value);
      return r.operator === 'is' ? sql<SqlBool>`LOWER(m.mime_type) = LOWER(${r.value})` : sql<SqlBool>`(m.mime_type IS NULL OR LOWER(m.mime_type) <> LOWER(${r.value}))`;
    case 'gallery': {
      const exists = sql<SqlBool>`EXISTS (SELECT 1 FROM media_galleries mg JOIN galleries g ON g.id = mg.gallery_id WHERE mg.media_id = m.id AND g.uuid = ${r.value})`;
      return r.operator === 'in' ? exists : sql<SqlBool>`NOT ${exists}`;
    }
    case 'file_name':
      return textRule(sql`m.file_name`, r.operator, r.value);
    case 'title':
      return textRule(sql`m.title`, r.operator, r.value);
  }
}

/** The rules as one SQL condition on `m`; no rules match every media. */
export function rulesCondition(rules: SmartRules): RawBuilder<SqlBool> {
  if (rules.rules.length === 0) return sql<SqlBool>`1 = 1`;
  const parts = rules.rules.map((r) => sql`(${ruleSql(r)})`);
  return sql<SqlBool>`(${sql.join(parts, rules.match === 'any' ? sql` OR ` : sql` AND `)})`;
}

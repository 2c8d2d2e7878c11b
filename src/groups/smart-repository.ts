// The SQL of smart collections: a stored rule set compiled to one condition on the medias table aliased
// `m`, evaluated at read time. A group reaches the media feature as a scope (groupScopeOf) whose
// condition the media repository puts in its WHERE: media knows no rules. Their model is smart-rules.ts
// (docs/media-groups.md; docs/architecture.md, "Contracts between features").
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { GroupScope } from '../media/repository.js';
import type { GroupRow } from '../database/schema.js';
import { containsText, escapeLike } from '../database/text-match.js';
import { parseStoredRules, type SmartRule, type SmartRules } from './smart-rules.js';

/** A group as the scope of medias it holds: a smart collection with its stored rules compiled. */
export function groupScopeOf(g: Pick<GroupRow, 'id' | 'kind' | 'rules' | 'artist_id'>): GroupScope {
  if (g.kind === 'smart') return { id: g.id, kind: 'smart', artistId: g.artist_id, condition: rulesCondition(parseStoredRules(g.rules)), rulesText: g.rules ?? '' };
  return { id: g.id, kind: 'collection', artistId: g.artist_id };
}

/** Case-insensitive text comparison on `column` (ASCII case on SQLite). */
function textRule(column: RawBuilder<unknown>, operator: string, value: string): RawBuilder<SqlBool> {
  const v = value.toLowerCase();
  switch (operator) {
    case 'is':
      return sql<SqlBool>`LOWER(${column}) = LOWER(${value})`;
    case 'contains':
      return containsText(column, value);
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

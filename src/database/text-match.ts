// Case-insensitive text matching in SQL, alike on SQLite and PostgreSQL. LOWER folds ASCII
// letters only on SQLite (no ICU), every letter on PostgreSQL.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

// '!' rather than a backslash: a backslash in the ESCAPE literal breaks on
// PostgreSQL with standard_conforming_strings=off.
export const escapeLike = (s: string) => s.replace(/[!%_]/g, (c) => `!${c}`);

/** `column` holds `text` anywhere, in any case; `%`, `_` and `!` in it are matched as themselves. */
export function containsText(column: Expression<unknown>, text: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`LOWER(${column}) LIKE LOWER(${`%${escapeLike(text.toLowerCase())}%`}) ESCAPE '!'`;
}

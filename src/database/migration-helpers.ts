import type { CreateTableBuilder, Kysely } from 'kysely';

// Migrations are written against an untyped database: they describe the schema
// rather than rely on it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type MigrationDb = any;

export type Dialect = 'sqlite' | 'postgres';

/** An auto-incrementing integer primary key named id, on either database. */
export function idColumn<T extends string>(dialect: Dialect, table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

export type AnyKysely = Kysely<MigrationDb>;

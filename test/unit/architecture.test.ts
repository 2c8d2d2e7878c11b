// The architecture rules (docs/architecture.md), checked on every `npm test`:
// dependency-cruiser's rules (no import cycles, the HTTP layer imports no
// feature, only repositories and src/database import the database libraries),
// and a scan for query building outside repositories, which an import rule
// cannot see (a service handed a Db could still build SQL on it).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** Query building: Kysely's entry points, the sql`` template (with or without a type argument), transactions. */
const SQL_PATTERNS: Array<[string, RegExp]> = [
  ['.selectFrom(', /\.selectFrom\(/],
  ['.insertInto(', /\.insertInto\(/],
  ['.updateTable(', /\.updateTable\(/],
  ['.deleteFrom(', /\.deleteFrom\(/],
  ['sql`', /\bsql(<[^`;]*>)?`/],
  ['.transaction()', /\.transaction\(\)/],
];

/** Where SQL may be: files named *repository.ts and the store (connection, migrations, compile-once queries). */
export function mayHoldSql(path: string): boolean {
  const rel = path.split(sep).join('/');
  return /(^|\/)([a-z-]+-)?repository\.ts$/.test(rel) || rel.startsWith('src/database/');
}

/** `file:line: pattern` for every query-building construct outside the allowed files. */
export function sqlOutsideRepositories(files: ReadonlyArray<{ path: string; text: string }>): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    if (mayHoldSql(path)) continue;
    text.split('\n').forEach((line, i) => {
      for (const [name, re] of SQL_PATTERNS) if (re.test(line)) found.push(`${path}:${i + 1}: ${name}`);
    });
  }
  return found;
}

function sourceFiles(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push({ path: relative(ROOT, full), text: readFileSync(full, 'utf8') });
  }
  return out;
}

describe('architecture', () => {
  it('keeps the dependency rules of .dependency-cruiser.cjs', () => {
    // A child process: dependency-cruiser reads TypeScript with TypeScript 5, mapped for it alone by the loader.
    const run = spawnSync(
      process.execPath,
      ['--import', './scripts/typescript-5-for-tools.mjs', 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs', 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
      { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 120_000 },
    );
    expect(run.error).toBeUndefined();
    const result = JSON.parse(run.stdout) as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }>; totalCruised: number } };
    const violations = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(violations).toEqual([]);
    // The whole source tree was read, not an empty selection.
    expect(result.summary.totalCruised).toBeGreaterThan(100);
    expect(run.status).toBe(0);
  }, 120_000);

  it('builds SQL only in repositories and src/database', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    expect(sqlOutsideRepositories(files)).toEqual([]);
  });

  it('the scan sees each construct, and allows it where it belongs', () => {
    const planted = [
      'await db.selectFrom("medias").selectAll().execute();',
      'await tx.insertInto("medias").values(row).execute();',
      'await tx.updateTable("medias").set(row).execute();',
      'await tx.deleteFrom("medias").execute();',
      'await sql`SELECT 1`.execute(db);',
      'await sql<{ n: number }>`SELECT 1 AS n`.execute(db);',
      'await db.transaction().execute(fn);',
    ].join('\n');
    expect(sqlOutsideRepositories([{ path: 'src/galleries/service.ts', text: planted }])).toHaveLength(7);
    expect(sqlOutsideRepositories([{ path: 'src/galleries/repository.ts', text: planted }])).toEqual([]);
    expect(sqlOutsideRepositories([{ path: 'src/galleries/membership-repository.ts', text: planted }])).toEqual([]);
    expect(sqlOutsideRepositories([{ path: 'src/database/db.ts', text: planted }])).toEqual([]);
    expect(sqlOutsideRepositories([{ path: 'src/galleries/not-a-repository-really.ts', text: planted }])).toHaveLength(7);
  });
});

// The architecture rules (docs/architecture.md, "Dependency rules"), checked on every `npm test`:
// dependency-cruiser's import rules, then scans an import rule cannot see: query building outside
// repositories, a second UUID pattern, a function over 150 lines, API parameter strings in the
// studio and the command line. Each scan has a test that plants a violation.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript-5';
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

/**
 * Tables whose rows a declared field spec checks, each written from one repository only: a second
 * writer would skip the spec (OrdersService.setShopSettings stored manual-payment instructions of
 * any length, past MAX_INSTRUCTIONS of src/shop-settings/fields.ts).
 */
const ONE_WRITER: Record<string, string> = { shop_settings: 'src/shop-settings/repository.ts' };

/** `file:line: table` for every write of a ONE_WRITER table outside its repository. */
export function secondWriters(files: ReadonlyArray<{ path: string; text: string }>): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    text.split('\n').forEach((line, i) => {
      for (const [table, writer] of Object.entries(ONE_WRITER)) {
        if (path !== writer && new RegExp(`\\.(insertInto|updateTable|deleteFrom)\\(\\s*['"\`]${table}['"\`]`).test(line)) found.push(`${path}:${i + 1}: ${table}`);
      }
    });
  }
  return found;
}

function sourceFiles(dir: string, names = /\.tsx?$/): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full, names));
    else if (names.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push({ path: relative(ROOT, full).split(sep).join('/'), text: readFileSync(full, 'utf8') });
  }
  return out;
}

/** The room a module stands in: its folder right under src/ (src/studio/routes/x.ts → src/studio), or itself (src/app.ts). */
function folderOf(path: string): string | undefined {
  const m = /^src\/([^/]+)(\/)?/.exec(path);
  return m ? `src/${m[1]}` : undefined;
}

/**
 * Folders that import each other, directly or round a loop (a folder importing one that imports
 * it back is an arrow running back up): each loop as `a → b → a` with one import that makes each
 * step. Modules outside src/ (node_modules) are not rooms.
 */
export function folderCycles(edges: ReadonlyArray<readonly [string, string]>): string[] {
  const step = new Map<string, Map<string, string>>();
  for (const [from, to] of edges) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (!a || !b || a === b) continue;
    if (!step.has(a)) step.set(a, new Map());
    if (!step.get(a)!.has(b)) step.get(a)!.set(b, `${from} → ${to}`);
  }
  // Tarjan's strongly connected components: a component of more than one folder holds a loop.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const loops: string[] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of step.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        component.push(w);
        if (w === v) break;
      }
      if (component.length > 1) {
        const members = new Set(component);
        const ties = component.flatMap((f) => [...(step.get(f) ?? [])].filter(([to]) => members.has(to)).map(([, via]) => via));
        loops.push(`${component.sort().join(' ⇄ ')}: ${ties.sort().join('; ')}`);
      }
    }
  };
  for (const v of step.keys()) if (!index.has(v)) visit(v);
  return loops;
}

/** Where the one UUID pattern lives (isUuid). */
const UUID_HOME = 'src/core/uuid.ts';
/** A UUID's shape spelled out: 8, 4 … 12 hex digits, or 36 characters. */
const UUID_SHAPE = /\{8\}[^\n]{0,60}\{4\}[^\n]{0,80}\{12\}|\{36\}/;

/**
 * Files of src/site and src/studio that spell a UUID's shape today, while others rework them (issue 32,
 * "Rooms that say what they hold"): the integrator empties this list once their work is merged, but
 * for the one that is no server code. An entry that no longer holds one fails too.
 */
const UUID_PATTERNS_ALLOWED = new Map([
  // The visitors' browser script this file serves reads a photo's UUID from the address: not a check of the server's.
  ['src/site/look/assets.ts', 1],
]);

/** `file:line` of every UUID pattern outside src/core/uuid.ts (the server checks UUIDs with isUuid only). */
export function uuidPatternsOutsideCore(files: ReadonlyArray<{ path: string; text: string }>): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    if (path === UUID_HOME) continue;
    text.split('\n').forEach((line, i) => {
      if (UUID_SHAPE.test(line)) found.push(`${path}:${i + 1}`);
    });
  }
  return found;
}

/** Each file parsed once for the scans that walk its syntax tree. */
const parsed = new Map<string, ts.SourceFile>();

function parse(path: string, text: string): ts.SourceFile {
  const known = parsed.get(path);
  if (known?.text === text) return known;
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : /\.m?js$/.test(path) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  parsed.set(path, sf);
  return sf;
}

/** The name a function goes by: its own, or that of the variable, property or export it is assigned to. */
function functionName(node: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  if (node.name) return node.name.getText(sf);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(sf);
  if (ts.isExportAssignment(parent)) return 'default';
  return `(anonymous at line ${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1})`;
}

/** At most this many lines a function, from its first line to its last (docs/conventions.md). */
export const MAX_FUNCTION_LINES = 150;

/** `file:name (n lines)` of every function-like node (declarations, methods, arrows, expressions, accessors) over the bound. */
export function longFunctions(files: ReadonlyArray<{ path: string; text: string }>, max = MAX_FUNCTION_LINES): Array<{ key: string; lines: number }> {
  const found: Array<{ key: string; lines: number }> = [];
  for (const { path, text } of files) {
    const sf = parse(path, text);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const last = sf.getLineAndCharacterOfPosition(node.end).line;
        if (last - first + 1 > max) found.push({ key: `${path}:${functionName(node, sf)}`, lines: last - first + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}

/**
 * Functions over 150 lines allowed, each with its reason: none since issue 32 split the studio's
 * and the website's. Nothing outside src/studio and src/site may be listed; an entry that no
 * longer offends fails too.
 */
const LONG_FUNCTIONS_ALLOWED = new Set<string>([]);

/** The adapters that must call services with typed inputs, not with the XML API's parameter strings. */
const ADAPTERS = /^src\/(studio|cli)\//;
/** The XML API's parameter prefixes (`gallery[name]`, `media[title]`, …). */
const API_PREFIX = /(^|[^\w-])(galler(y|ies)|medias?|websites?|page|watermark|artist|user|app|(smart_)?medias_(group|collection)|collection|lightbox|pricing_profile|display_style|invitation)\[/;

/** `file:line: what` of every `new Params(` and API parameter string (`'gallery[name]'`, `` `${PREFIX}[rules]` ``) in the adapters; comments are not read. */
export function apiParamsInAdapters(files: ReadonlyArray<{ path: string; text: string }>): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    if (!ADAPTERS.test(path)) continue;
    const sf = parse(path, text);
    const at = (node: ts.Node, what: string) => found.push(`${path}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}: ${what}`);
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Params') at(node, 'new Params(');
      else if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && API_PREFIX.test(node.text)) at(node, node.text);
      else if (ts.isTemplateExpression(node)) {
        const prefixed = API_PREFIX.test(node.head.text) || node.templateSpans.some((span, i) => API_PREFIX.test(span.literal.text) || (span.literal.text.startsWith('[') && ts.isIdentifier(span.expression) && /^[A-Z_]+$/.test(span.expression.text) && i >= 0));
        if (prefixed) at(node, node.getText(sf));
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}

/**
 * Adapter files the scan flags that build no API parameter string, each with its reason (issue 32,
 * "The adapters speak it": the studio and the command line call services with typed inputs). An
 * entry that no longer offends fails too.
 */
const API_PARAMS_ALLOWED = new Set([
  // Not an API parameter: the access list's entries are named after the words the studio gave the
  // list ("access list"), then reworded "entry 2 (email)" for people.
  'src/studio/routes/gallery-settings.ts',
]);

describe('architecture', () => {
  it('keeps the dependency rules of .dependency-cruiser.cjs', () => {
    // A child process: dependency-cruiser reads TypeScript with TypeScript 5, mapped for it alone by the loader.
    const run = spawnSync(
      process.execPath,
      ['--import', './scripts/typescript-5-for-tools.mjs', 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs', 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
      { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 120_000 },
    );
    expect(run.error).toBeUndefined();
    const result = JSON.parse(run.stdout) as {
      summary: { violations: Array<{ rule: { name: string }; from: string; to: string }>; totalCruised: number };
      modules: Array<{ source: string; dependencies: Array<{ resolved: string }> }>;
    };
    const violations = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(violations).toEqual([]);
    // Between folders too, the arrows run one way: no folder imports one that imports it back.
    const edges = result.modules.flatMap((m) => m.dependencies.map((d) => [m.source, d.resolved] as const));
    expect(folderCycles(edges)).toEqual([]);
    // The whole source tree was read, not an empty selection.
    expect(result.summary.totalCruised).toBeGreaterThan(100);
    expect(run.status).toBe(0);
  }, 120_000);

  it('builds SQL only in repositories and src/database', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    expect(sqlOutsideRepositories(files)).toEqual([]);
  });

  it('writes each table a field spec checks from its one repository', () => {
    expect(secondWriters(sourceFiles(SRC))).toEqual([]);
  });

  it('the writer scan finds a planted second writer, and lets the one repository write', () => {
    const planted = "await db.insertInto('shop_settings').values(row).execute();\nawait db.updateTable(\"shop_settings\").set(row).execute();\nawait db.selectFrom('shop_settings').execute();";
    expect(secondWriters([{ path: 'src/orders/repository.ts', text: planted }])).toEqual(['src/orders/repository.ts:1: shop_settings', 'src/orders/repository.ts:2: shop_settings']);
    expect(secondWriters([{ path: 'src/shop-settings/repository.ts', text: planted }])).toEqual([]);
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

  it('the folder scan finds a planted loop of folders, and lets a folder import itself', () => {
    expect(
      folderCycles([
        ['src/media/repository.ts', 'src/galleries/membership-repository.ts'],
        ['src/galleries/service.ts', 'src/media/file-life.ts'],
        ['src/galleries/service.ts', 'src/galleries/repository.ts'],
        ['src/media/service.ts', 'node_modules/kysely/dist/index.js'],
        ['src/app.ts', 'src/media/service.ts'],
      ]),
    ).toEqual(['src/galleries ⇄ src/media: src/galleries/service.ts → src/media/file-life.ts; src/media/repository.ts → src/galleries/membership-repository.ts']);
    expect(folderCycles([['src/a/x.ts', 'src/b/y.ts'], ['src/b/y.ts', 'src/c/z.ts'], ['src/c/z.ts', 'src/a/w.ts']])).toHaveLength(1);
    expect(folderCycles([['src/a/x.ts', 'src/b/y.ts'], ['src/b/y.ts', 'src/c/z.ts']])).toEqual([]);
  });

  it('holds one UUID pattern on the server, in src/core/uuid.ts', () => {
    const found = uuidPatternsOutsideCore(sourceFiles(SRC, /\.(tsx?|m?js)$/));
    expect(found.filter((f) => !UUID_PATTERNS_ALLOWED.has(f.split(':')[0]))).toEqual([]);
    const counts = new Map([...UUID_PATTERNS_ALLOWED.keys()].map((path) => [path, found.filter((f) => f.startsWith(`${path}:`)).length]));
    expect(counts).toEqual(UUID_PATTERNS_ALLOWED);
  });

  it('the UUID scan finds a planted copy, and leaves other patterns alone', () => {
    const copy = 'const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;';
    expect(uuidPatternsOutsideCore([{ path: 'src/studio/routes/galleries.ts', text: `const a = 1;\n${copy}` }])).toEqual(['src/studio/routes/galleries.ts:2']);
    expect(uuidPatternsOutsideCore([{ path: 'src/site/x.ts', text: "const ID = new RegExp('^[0-9a-f-]{36}$');" }])).toHaveLength(1);
    expect(uuidPatternsOutsideCore([{ path: UUID_HOME, text: copy }])).toEqual([]);
    expect(uuidPatternsOutsideCore([{ path: 'src/http/xml.ts', text: 'const STORED_UTC = /^\\d{4}-\\d\\d-\\d\\dT/;' }])).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines in src/ (but the listed ones of src/studio and src/site)`, () => {
    const files = sourceFiles(SRC, /\.(tsx?|m?js)$/);
    expect(files.length).toBeGreaterThan(100);
    const long = longFunctions(files);
    expect(long.filter((f) => !LONG_FUNCTIONS_ALLOWED.has(f.key))).toEqual([]);
    // The list only shrinks: nothing else is ever added, and an entry split since goes.
    expect([...LONG_FUNCTIONS_ALLOWED].filter((key) => !/^src\/(studio|site)\//.test(key))).toEqual([]);
    expect([...LONG_FUNCTIONS_ALLOWED].filter((key) => !long.some((f) => f.key === key))).toEqual([]);
  });

  it('the function scan finds a planted long function of each kind, and counts from its first line to its last', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const planted = [
      `export function declared() {\n${body(149)}\n}`,
      `const arrow = () => {\n${body(149)}\n};`,
      `class C {\n  method() {\n${body(149)}\n  }\n}`,
      `register({ handler: function () {\n${body(149)}\n} });`,
      `export function justFits() {\n${body(148)}\n}`,
      `function outer() {\n  const inner = () => {\n${body(149)}\n  };\n}`,
    ].join('\n');
    const found = longFunctions([{ path: 'src/galleries/service.ts', text: planted }]).map((f) => `${f.key} ${f.lines}`);
    expect(found).toEqual([
      'src/galleries/service.ts:declared 151',
      'src/galleries/service.ts:arrow 151',
      'src/galleries/service.ts:method 151',
      'src/galleries/service.ts:handler 151',
      'src/galleries/service.ts:outer 153',
      'src/galleries/service.ts:inner 151',
    ]);
    expect(longFunctions([{ path: 'src/studio/browser/x.js', text: `function grid() {\n${body(149)}\n}` }]).map((f) => f.key)).toEqual(['src/studio/browser/x.js:grid']);
  });

  it('builds no API parameter strings in the studio or the command line (but the listed files, for now)', () => {
    const found = apiParamsInAdapters(sourceFiles(SRC, /\.(tsx?|m?js)$/));
    const files = new Set(found.map((f) => f.split(':')[0]));
    expect(found.filter((f) => !API_PARAMS_ALLOWED.has(f.split(':')[0]))).toEqual([]);
    expect([...API_PARAMS_ALLOWED].filter((path) => !files.has(path))).toEqual([]);
  });

  it('the parameter-string scan finds planted ones in an adapter, and nowhere else, nor in comments', () => {
    const planted = [
      "import { Params } from '../../http/params.js';",
      'const p = new Params();',
      "p.add('gallery[name]', name);",
      'p.add(`media[${field}]`, value);',
      'p.add(`${SMART}[rules][${n}][field]`, f);',
      "if (err.message.includes('user[email]')) return;",
      '// gallery[name] is read by the service',
      "const cell = document.querySelector('tr[data-job]');",
      'const name = `rules[${i}][field]`;',
    ].join('\n');
    expect(apiParamsInAdapters([{ path: 'src/studio/routes/galleries.ts', text: planted }]).map((f) => f.split(': ')[0])).toEqual([
      'src/studio/routes/galleries.ts:2',
      'src/studio/routes/galleries.ts:3',
      'src/studio/routes/galleries.ts:4',
      'src/studio/routes/galleries.ts:5',
      'src/studio/routes/galleries.ts:6',
    ]);
    expect(apiParamsInAdapters([{ path: 'src/cli/admin.ts', text: planted }])).toHaveLength(5);
    expect(apiParamsInAdapters([{ path: 'src/galleries/routes.ts', text: planted }])).toEqual([]);
  });
});

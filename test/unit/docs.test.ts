// The README and docs/ are read in a clone, where nothing outside the
// repository exists: every link must name a file of the repository. And the
// API reference (docs/api.md) must name every route the service declares, so
// that a client developer needs nothing else.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

async function markdownFiles(): Promise<string[]> {
  const docs = (await readdir(join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => join(ROOT, 'docs', f));
  return [join(ROOT, 'README.md'), ...docs];
}

/** Link and image targets of a Markdown text: `[text](target)`, `![alt](target)`, `<img src="target">`. */
function targets(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push(m[1]);
  for (const m of markdown.matchAll(/<img\s[^>]*src="([^"]+)"/g)) out.push(m[1]);
  return out;
}

describe('README and docs', () => {
  it('link only to files in the repository, and every one exists', async () => {
    const broken: string[] = [];
    for (const file of await markdownFiles()) {
      const text = await readFile(file, 'utf8');
      for (const target of targets(text)) {
        if (/^(https?:|mailto:)/.test(target) || target.startsWith('#')) continue;
        const path = target.split('#')[0];
        const resolved = join(dirname(file), path);
        if (path.startsWith('/') || relative(ROOT, resolved).startsWith('..') || !existsSync(resolved)) broken.push(`${relative(ROOT, file)}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('name no path outside the repository (a clone has no ../shared)', async () => {
    const outside: string[] = [];
    for (const file of await markdownFiles()) {
      const text = await readFile(file, 'utf8');
      for (const m of text.matchAll(/(?:\.\.\/shared|\/work\/)[^\s`)]*/g)) outside.push(`${relative(ROOT, file)}: ${m[0]}`);
    }
    expect(outside).toEqual([]);
  });

  it('docs/api.md names every route the service declares', async () => {
    const routes: string[] = [];
    const constants: Record<string, string> = {};
    for (const m of (await readFile(join(ROOT, 'src', 'uploads', 'locations.ts'), 'utf8')).matchAll(/export const (\w+_PATH) = '([^']+)'/g)) constants[m[1]] = m[2];
    for (const dir of await readdir(join(ROOT, 'src'), { withFileTypes: true })) {
      const file = join(ROOT, 'src', dir.name, 'routes.ts');
      if (!dir.isDirectory() || !existsSync(file)) continue;
      const source = await readFile(file, 'utf8');
      for (const m of source.matchAll(/method: '(GET|POST|PUT|DELETE)',\s*path: (?:'([^']+)'|(\w+_PATH))/g)) {
        const path = m[2] ?? constants[m[3]];
        expect(path, `${m[3]} in src/uploads/locations.ts`).toBeDefined();
        routes.push(`${m[1]} ${path.replace(/:(\w+)/g, '<$1>')}`);
      }
    }
    // The API's routes as of this test: a route table written another way must not go unseen.
    expect(routes.length).toBeGreaterThanOrEqual(28);
    const reference = await readFile(join(ROOT, 'docs', 'api.md'), 'utf8');
    expect(routes.filter((r) => !reference.includes(`\`${r}\``))).toEqual([]);
  });

  it('README: the Commands table names every admin command (src/cli/admin.ts)', async () => {
    const source = await readFile(join(ROOT, 'src', 'cli', 'admin.ts'), 'utf8');
    const commands = [...source.matchAll(/^  '([a-z-]+ [a-z-]+)': \{$/gm)].map((m) => m[1]);
    expect(commands.length).toBeGreaterThanOrEqual(20);
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    expect(commands.filter((c) => !readme.includes(`| \`${c}`))).toEqual([]);
  });

  it('.gitignore keeps out the quickstart’s data folder and .env (database, originals and upload secret are never untracked files)', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const ignored = (await readFile(join(ROOT, '.gitignore'), 'utf8')).split('\n').map((l) => l.trim().replace(/^\//, '').replace(/\/$/, ''));
    const folders = [...readme.matchAll(/DATA_DIR='\.\/([\w.-]+)'/g)].map((m) => m[1]);
    expect(folders.length).toBeGreaterThan(0);
    expect([...folders, 'data', '.env'].filter((f) => !ignored.includes(f))).toEqual([]);
  });

  it('README does not present the two-factor sign-in as required: it is off until a user turns it on', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    expect(readme).not.toMatch(/password, then their two-factor code/);
    expect(readme).toMatch(/two-factor code[^.]*off by default/);
  });
});

// The fast tier (`npm run test:fast`) stays fast only if none of its files
// starts the service: its tests call rules and the services of buildCore
// directly. And the full tier (`npm test`) must still run every file of it.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import full from '../../vitest.config.js';
import fast from '../../vitest.fast.config.js';
import matrix from '../../vitest.matrix.config.js';

const ROOT = join(import.meta.dirname, '..', '..');
// What starts the service (or a world on it) in the HTTP-level suites.
const STARTS_SERVICE = /\bTestService\.start\b|\bbuildApp\(|\bstartWorld\b|\bworldOn\b|\bstartMediaWorld\b|\bstartSite\w*\(/;

async function filesOf(dir: string): Promise<string[]> {
  return (await readdir(join(ROOT, dir))).filter((f) => f.endsWith('.ts')).map((f) => `${dir}/${f}`);
}

describe('test tiers', () => {
  it('runs only test/unit and test/service in the fast tier, and every test in the full tier', () => {
    expect(fast.test?.include).toEqual(['test/unit/**/*.test.ts', 'test/service/**/*.test.ts']);
    expect(full.test?.include).toEqual(['test/**/*.test.ts']);
    // The same setup (the announcement of skipped databases, CI's refusal to skip them) in both.
    expect(fast.test?.globalSetup).toEqual(full.test?.globalSetup);
    // The full tier runs the fast tier's files isolated too, whatever the fast tier does.
    expect(full.test?.isolate).toBeUndefined();
  });

  it('runs the fast tier and the faces\' smoke on the other Node versions, and the full tier once', async () => {
    expect(matrix.test?.include).toEqual([...(fast.test?.include ?? []), 'test/smoke/**/*.test.ts']);
    expect(matrix.test?.globalSetup).toEqual(full.test?.globalSetup);
    const ci = await readFile(join(ROOT, '.ci/run'), 'utf8');
    const commands = ci.split('\n').filter((l) => !l.trim().startsWith('#'));
    expect(commands.filter((l) => /\bnpm test\b/.test(l))).toHaveLength(1);
    expect(ci).toMatch(/test-on-node\.sh "\$version" --matrix/);
    expect(ci).toMatch(/for version in 24\.\d+\.\d+ 26\.\d+\.\d+/);
  });

  it('starts no service in any file of the fast tier', async () => {
    const files = [...(await filesOf('test/unit')), ...(await filesOf('test/service'))];
    expect(files.length).toBeGreaterThan(20);
    const starting = [];
    for (const file of files) if (STARTS_SERVICE.test(await readFile(join(ROOT, file), 'utf8'))) starting.push(file);
    expect(starting).toEqual([]);
    // The patterns do find the suites that start one.
    for (const suite of ['test/api/smoke.test.ts', 'test/api/galleries-limits.test.ts', 'test/api/groups-smart.test.ts']) {
      expect(STARTS_SERVICE.test(await readFile(join(ROOT, suite), 'utf8')), suite).toBe(true);
    }
  });
});

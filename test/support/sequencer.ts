// Runs the longest files first, so the two workers end together: the order comes from the
// seconds each file took in a full run (file-seconds.json, made by scripts/file-seconds.mjs
// from vitest's JSON report). A clean clone has no vitest cache to order by; files not in the
// list (new ones) start first, largest first.
import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = join(import.meta.dirname, '..', '..');
const SECONDS: Record<string, number> = JSON.parse(readFileSync(join(import.meta.dirname, 'file-seconds.json'), 'utf8'));

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const known = (f: TestSpecification) => SECONDS[relative(ROOT, f.moduleId)];
    const size = (f: TestSpecification) => statSync(f.moduleId).size;
    return [...files].sort((a, b) => {
      const [sa, sb] = [known(a), known(b)];
      if (sa === undefined && sb === undefined) return size(b) - size(a);
      if (sa === undefined) return -1;
      if (sb === undefined) return 1;
      return sb - sa;
    });
  }
}

// Writes test/support/file-seconds.json, the order the test sequencer runs files in
// (test/support/sequencer.ts), from a vitest JSON report of a full run:
//   TEST_REPORT_JSON=report.json npm test   (or CI=true TEST_REPORT_JSON=... bash .ci/run)
//   node scripts/file-seconds.mjs report.json
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const rows = report.testResults
  // From the checkout the report was made in (a clean clone, say): the path from its test/ folder on.
  .map((t) => [relative(root, t.name).replace(/^(\.\.\/)+[^/]+\/(?=test\/)/, ''), Math.round((t.endTime - t.startTime) / 100) / 10])
  .sort((a, b) => b[1] - a[1]);
writeFileSync(join(root, 'test/support/file-seconds.json'), JSON.stringify(Object.fromEntries(rows), null, 1) + '\n');
console.log(`${rows.length} files, ${Math.round(rows.reduce((s, r) => s + r[1], 0))} s in all`);

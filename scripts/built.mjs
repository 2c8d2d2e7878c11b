// Runs an entry point of the build (dist/), building it first when it is
// missing or older than the sources, so that a stale build never runs:
//   node scripts/built.mjs main.js            (npm start, npm run worker)
//   node scripts/built.mjs cli/admin.js …     (npm run admin)
//   node scripts/built.mjs --build            (npm run build, npm ci's `prepare`)
//   node scripts/built.mjs --if-stale         (builds only when needed, runs nothing)
// The freshness check is a walk of src/ comparing modification times with
// the stamp the last build left (a few milliseconds); tsc runs only when
// something changed, incrementally (tsconfig.json). The entry then runs in
// this same process: one Node start per command.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
/** Touched by each successful build, dated when that build started. */
const STAMP = join(DIST, '.build-stamp');
/** Held by the one process that builds; the others wait for it. */
const LOCK = join(DIST, '.build-lock');
/** typescript's own bin (its package exports no subpath to resolve it by). */
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** What the build reads besides src/. */
const INPUTS = ['tsconfig.json', 'package.json'];

function mtimeMs(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Why the build is stale (no build, or which file is newer than it), or undefined when it is current. */
function staleBecause() {
  const built = mtimeMs(STAMP);
  if (built === undefined) return 'no build yet';
  for (const input of INPUTS) if ((mtimeMs(join(ROOT, input)) ?? 0) > built) return `${input} is newer than the last build`;
  for (const entry of readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    if (mtimeMs(path) > built) return `${path.slice(ROOT.length + 1)} is newer than the last build`;
  }
  return undefined;
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Takes the build lock (a directory: its creation is atomic), waiting while another process builds. */
function lock() {
  mkdirSync(DIST, { recursive: true });
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    // A lock older than any build is a crashed builder's.
    if (Date.now() - (mtimeMs(LOCK) ?? Date.now()) > 5 * 60_000) {
      rmSync(LOCK, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`another build holds ${LOCK}; remove it if no build runs`);
    sleep(200);
  }
}

/** Builds when needed; false when tsc failed (its messages are on stderr). */
export function ensureBuilt({ always = false } = {}) {
  if (!always && staleBecause() === undefined) return true;
  lock();
  try {
    // Another process may have built while this one waited.
    const reason = always ? undefined : staleBecause();
    if (!always && reason === undefined) return true;
    if (reason) process.stderr.write(`building dist/ (${reason})…\n`);
    const started = new Date();
    // tsc's messages go to stderr: a command's stdout stays its own.
    const run = spawnSync(process.execPath, [TSC, '-p', join(ROOT, 'tsconfig.json')], { cwd: ROOT, stdio: ['ignore', 2, 2] });
    if (run.status !== 0) {
      process.stderr.write(`build failed (tsc exited ${run.status ?? run.signal}); dist/ is out of date\n`);
      return false;
    }
    // Dated when the build started: a source saved during the build is newer, and built next time.
    writeFileSync(STAMP, '');
    utimesSync(STAMP, started, started);
    return true;
  } finally {
    rmdirSync(LOCK);
  }
}

const [entry, ...rest] = process.argv.slice(2);
if (entry === '--build' || entry === '--if-stale') {
  process.exitCode = ensureBuilt({ always: entry === '--build' }) ? 0 : 1;
} else if (!entry) {
  process.stderr.write('usage: node scripts/built.mjs <entry under dist/> [arguments…] | --build | --if-stale\n');
  process.exitCode = 2;
} else if (ensureBuilt()) {
  const file = join(DIST, entry);
  // The entry sees itself as the program, as if run as `node dist/<entry> …`.
  process.argv.splice(1, process.argv.length - 1, file, ...rest);
  await import(pathToFileURL(file).href);
} else {
  process.exitCode = 1;
}

// The admin command's start, as `npm run --silent admin -- …` runs it after
// npm's own start: `node scripts/built.mjs cli/admin.js …` from the build, on
// a SQLite DATA_DIR of its own. Rounds alternate a bare `node -e 0` (the floor
// every command pays, on this machine at this moment), `admin --help` and a
// real command (`user create`: the store, its migrations check, argon2), and
// each figure is the median of the rounds with its spread (min–max).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchLine, median } from './lib.js';

const BUILT = join('scripts', 'built.mjs');

/** Wall time of one process to its exit, in ms; fails on a non-zero exit. */
function timed(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`))));
  });
}

function figure(name: string, values: number[], target?: { text: string; ok: (ms: number) => boolean }): BenchLine {
  const m = median(values);
  const spread = `${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))}`;
  return { name: `${name} (median of ${values.length}, ms ${spread})`, value: Math.round(m), unit: 'ms', ...(target ? { target: target.text, ok: target.ok(m) } : {}) };
}

export async function benchCli(): Promise<BenchLine[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mps-bench-cli-'));
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' };
  const rounds = Number(process.env.BENCH_CLI_ROUNDS ?? 7);
  const floor: number[] = [];
  const help: number[] = [];
  const create: number[] = [];
  try {
    // Once, untimed: the database and its migrations, as a running installation has them.
    await timed([BUILT, 'cli/admin.js', 'user', 'create', '--email', 'warm-up@example.com', '--password', 'bench password'], env);
    for (let i = 0; i < rounds; i++) {
      floor.push(await timed(['-e', '0'], env));
      help.push(await timed([BUILT, 'cli/admin.js', '--help'], env));
      create.push(await timed([BUILT, 'cli/admin.js', 'user', 'create', '--email', `bench-${i}@example.com`, '--password', 'bench password', '--json'], env));
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  return [
    figure('node -e 0 (a bare Node start, the floor)', floor),
    figure('admin --help', help, { text: '< 300', ok: (ms) => ms < 300 }),
    figure('admin user create (SQLite)', create),
  ];
}

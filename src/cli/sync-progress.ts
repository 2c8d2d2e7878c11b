// What `mps sync` shows while it works: bars per file and overall (cli-progress) on a terminal;
// otherwise, and with --json, plain lines (none with --json: the summary alone goes to stdout).
import type { Writable } from 'node:stream';

export interface Progress {
  start(rel: string, size: number): void;
  bytes(rel: string, sent: number): void;
  /** A line about a file or a gallery (`uploaded a/b.jpg`). */
  line(text: string): void;
  finish(rel: string, size: number): void;
  stop(): void;
}

/** Plain lines on `out` (nothing when `quiet`). */
export function plainProgress(out: Writable, quiet: boolean): Progress {
  return {
    start() {},
    bytes() {},
    line(text) {
      if (!quiet) out.write(text + '\n');
    },
    finish() {},
    stop() {},
  };
}

/** Bars on a terminal: one per file being sent, and the overall bytes. */
export async function barProgress(out: Writable, totalBytes: number): Promise<Progress> {
  const { default: cliProgress } = await import('cli-progress');
  const multi = new cliProgress.MultiBar(
    { stream: out, hideCursor: true, clearOnComplete: false, format: '{bar} {percentage}% | {name}', autopadding: true },
    cliProgress.Presets.shades_classic,
  );
  const overall = multi.create(Math.max(totalBytes, 1), 0, { name: 'overall' });
  const bars = new Map<string, ReturnType<typeof multi.create>>();
  const sentOf = new Map<string, number>();
  let done = 0;
  return {
    start(rel, size) {
      bars.set(rel, multi.create(Math.max(size, 1), 0, { name: rel }));
    },
    bytes(rel, sent) {
      bars.get(rel)?.update(sent);
      sentOf.set(rel, sent);
      overall.update(done + [...sentOf.values()].reduce((a, b) => a + b, 0));
    },
    line(text) {
      multi.log(text + '\n');
    },
    finish(rel, size) {
      const bar = bars.get(rel);
      if (bar) multi.remove(bar);
      bars.delete(rel);
      sentOf.delete(rel);
      done += size;
      overall.update(done);
    },
    stop() {
      multi.stop();
    },
  };
}

// Scavenges while a large body streams in: the socket's dead read buffers otherwise pile up between
// rare scavenges and V8 answers with full mark-compacts, a third of an upload's time. `npm start` runs
// node with --expose-gc; otherwise `gc` is exposed at run time (the v8/vm idiom), and where that fails
// nothing is done (docs/uploads.md, "Stores"; figures: docs/benchmarks.md).
import v8 from 'node:v8';
import vm from 'node:vm';

type GcFunction = (options?: { type?: 'minor' | 'major' }) => void;

/** Bytes received between two scavenges. */
export const SCAVENGE_EVERY_BYTES = 4 * 1024 * 1024;

let minorGc: GcFunction | null | undefined;

function gcFunction(): GcFunction | null {
  if (minorGc !== undefined) return minorGc;
  try {
    const existing = (globalThis as { gc?: GcFunction }).gc;
    if (existing) return (minorGc = existing);
    v8.setFlagsFromString('--expose-gc');
    const exposed = vm.runInNewContext('gc') as unknown;
    minorGc = typeof exposed === 'function' ? (exposed as GcFunction) : null;
  } catch {
    minorGc = null;
  }
  return minorGc;
}

/** Counts received bytes and asks for a scavenge every SCAVENGE_EVERY_BYTES. */
export class ScavengePacer {
  private sinceLast = 0;

  received(bytes: number): void {
    this.sinceLast += bytes;
    if (this.sinceLast < SCAVENGE_EVERY_BYTES) return;
    this.sinceLast = 0;
    gcFunction()?.({ type: 'minor' });
  }
}

// The queue's lanes (docs/batch-updates.md, "Lanes and turns"). Interactive
// work is what a user waits for (a batch update); background work is what
// follows on its own (renditions). Each lane has its own runners in a worker,
// so interactive work never waits behind background work.

export type Lane = 'interactive' | 'background';

export const LANES: readonly Lane[] = ['interactive', 'background'];

/** The lane's number in the `jobs.lane` column (claim order: lower first). */
export const LANE_NUMBER: Readonly<Record<Lane, number>> = { interactive: 0, background: 1 };

export function laneName(n: number): Lane {
  return n === 0 ? 'interactive' : 'background';
}

// What a process does (ROLE): `all` serves requests and runs the background
// work (one process, the default); `api` nodes serve requests and enqueue;
// `worker` processes run jobs and the sweeps and answer only health and
// metrics. Scaled out, nothing may live in one process or on one machine.
import type { Config, Role } from '../config.js';

export interface RoleDuties {
  /** Serves the API (and enqueues jobs). */
  serve: boolean;
  /** Runs the job worker, the cleanup sweep and the session purge. */
  work: boolean;
}

export function dutiesOf(role: Role): RoleDuties {
  return { serve: role !== 'worker', work: role !== 'api' };
}

/** A configuration that cannot run as several processes; the message says what to set. */
export class ScaleOutError extends Error {}

/**
 * Refuses a ROLE=api or ROLE=worker process whose state would be node-local:
 * a SQLite file and local media live on one machine, counters and the sweep
 * lock need Redis, and the upload secret must be the same on every node. (One
 * ROLE=all process needs none of that; several ROLE=all processes are not
 * supported.)
 */
export function checkScaleOut(config: Pick<Config, 'ops' | 'databaseUrl' | 'storageUrl' | 'redisUrl' | 'uploadSecret'>): void {
  const role = config.ops.role;
  if (role === 'all') return;
  const missing: string[] = [];
  if (!config.databaseUrl) missing.push('DATABASE_URL (PostgreSQL: SQLite is one machine\'s file)');
  if (!config.storageUrl || config.storageUrl === 'local') missing.push('STORAGE_URL (S3-compatible storage: local media are one machine\'s files)');
  if (!config.redisUrl) missing.push('REDIS_URL (rate limits, login throttling, the sweep lock and the studio uploads\' lock shared by every node)');
  if (!config.uploadSecret) missing.push('UPLOAD_SECRET (the same on every node, so upload addresses signed by one are valid on all)');
  if (missing.length) throw new ScaleOutError(`ROLE=${role} runs as one of several processes and needs: ${missing.join('; ')}. Run ROLE=all (the default) for a single process.`);
}

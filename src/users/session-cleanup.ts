// Expired sessions: a session whose cookie never comes back is never read
// again, so a timer deletes expired rows every SESSION_PURGE_SECONDS. Safe to
// run in several processes at once: deleting a deleted row does nothing.
import type { Feature } from '../features.js';
import type { Services } from '../http/context.js';
import type { Db } from '../store/db.js';

// Small deletes, so that a large backlog never holds the table (SQLite's single writer) for long.
const BATCH = 1000;

/** Deletes every session expired at `now`; how many. */
export async function purgeExpiredSessions(db: Db, now = new Date()): Promise<number> {
  let purged = 0;
  for (;;) {
    const res = await db
      .deleteFrom('sessions')
      .where('token_hash', 'in', (eb) => eb.selectFrom('sessions').select('token_hash').where('expires_at', '<=', now.toISOString()).limit(BATCH))
      .executeTakeFirst();
    const n = Number(res.numDeletedRows);
    purged += n;
    if (n < BATCH) return purged;
  }
}

interface PurgeTimer {
  timer: NodeJS.Timeout;
  running?: Promise<void>;
}

const TIMER_KEY = 'session-cleanup';

// State lives in services.features: several services may share this process (tests).
export const sessionCleanupFeature: Feature = {
  name: 'session-cleanup',
  start(services: Services) {
    const state: PurgeTimer = {
      timer: setInterval(() => {
        if (state.running) return;
        state.running = purgeExpiredSessions(services.db)
          .then((n) => {
            if (n) services.log.info({ sessions: n }, 'expired sessions purged');
          })
          .catch((err: unknown) => services.log.error({ err }, 'session purge failed'))
          .finally(() => {
            state.running = undefined;
          });
      }, services.config.sessionPurgeSeconds * 1000),
    };
    state.timer.unref();
    services.features.set(TIMER_KEY, state);
  },
  async stop(services: Services) {
    const state = services.features.get(TIMER_KEY) as PurgeTimer | undefined;
    if (state) {
      clearInterval(state.timer);
      await state.running;
      services.features.delete(TIMER_KEY);
    }
  },
};

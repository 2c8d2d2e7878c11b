// Says loudly which backing services the suite runs against, and refuses to
// run in CI without PostgreSQL, so a skipped database never passes silently.
export default function setup(): void {
  const pg = process.env.TEST_DATABASE_URL;
  const redis = process.env.TEST_REDIS_URL;
  const lines = [
    `databases: SQLite${pg ? ' + PostgreSQL (' + pg.replace(/\/\/[^@]*@/, '//') + ')' : ''}`,
    pg ? '' : 'PostgreSQL suites SKIPPED: set TEST_DATABASE_URL=postgres://… to run them (.ci/run does)',
    redis ? `shared rate limits: Redis (${redis})` : 'Redis suites SKIPPED: set TEST_REDIS_URL=redis://… to run them (.ci/run does)',
    'object storage: local files + S3 (s3rver started by the tests)',
    process.env.ARCHIVE_BIG === '1' ? 'the 5 GB ZIP64 archive from S3: on' : 'the 5 GB ZIP64 archive from S3 SKIPPED (one test per database, about 9 minutes each): set ARCHIVE_BIG=1 to run it',
  ].filter(Boolean);
  process.stderr.write(lines.map((l) => `[test setup] ${l}`).join('\n') + '\n');
  if (process.env.CI && (!pg || !redis)) {
    throw new Error('CI must run the PostgreSQL and Redis suites: set TEST_DATABASE_URL and TEST_REDIS_URL');
  }
}

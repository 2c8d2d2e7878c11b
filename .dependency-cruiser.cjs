// The architecture rules `npm test` checks (docs/architecture.md):
// no import cycles, SQL only in repositories and migrations, and the HTTP
// layer knows no feature.
const FEATURES = '^src/(users|apps|websites|artists|galleries|media|uploads|groups|jobs|site|access)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules import each other in a circle: one of them must give way (an interface, or code moved below both).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'http-imports-no-feature',
      severity: 'error',
      comment: 'src/http is the layer every feature builds on: it takes what it needs from features through interfaces the composition root (src/app.ts) fills.',
      from: { path: '^src/http/' },
      to: { path: [FEATURES, '^src/app\\.ts$'] },
    },
    {
      name: 'sql-only-in-repositories',
      severity: 'error',
      comment: 'SQL (Kysely, the database drivers) lives in repository modules and in src/store (connection, migrations, schema) only.',
      from: { path: '^src/', pathNot: ['(^|/)(repository|[a-z-]+-repository)\\.ts$', '^src/store/'] },
      to: { path: ['(^|/)node_modules/(kysely|pg|better-sqlite3)/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^dist/' },
  },
};

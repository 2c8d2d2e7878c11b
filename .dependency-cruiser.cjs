// The architecture rules `npm test` checks (docs/architecture.md):
// no import cycles, SQL only in repositories and migrations, the HTTP layer knows no
// feature, services, repositories and file storage know no HTTP, repositories call no service.
const FEATURES = '^src/(users|apps|websites|artists|galleries|media|uploads|resumable-uploads|groups|jobs|site|access|renditions|lightboxes|pricing-profiles)/';
// A feature's operations: its service.ts, and the owner of a media file's life.
const SERVICES = ['(^|/)(service|[a-z-]+-service)\\.ts$', '^src/media/file-life\\.ts$'];
const REPOSITORIES = '(^|/)(repository|[a-z-]+-repository)\\.ts$';

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
      name: 'website-imports-no-api-route',
      severity: 'error',
      comment:
        'The public website (src/site, one Fastify plugin) stands beside the API: it uses no API route module, nor the router, ' +
        'the signature check or the XML writer. It may use the lingering close and the limiter store (the error catalogue is src/core).',
      from: { path: '^src/site/' },
      to: {
        path: ['^src/[a-z-]+/routes\\.ts$', '^src/http/', '^src/app\\.ts$'],
        pathNot: ['^src/site/', '^src/http/(lingering-close|limiter-store)\\.ts$'],
      },
    },
    {
      name: 'studio-imports-no-api-route',
      severity: 'error',
      comment:
        'The studio (src/studio, one Fastify plugin) is a second face on the same services: it uses no API route module, nor the router, ' +
        'the signature check, the XML writer or the parameter reader (it reads its forms through the field specs of src/core). ' +
        'It may use the lingering close, the limiter store and the rate limit.',
      from: { path: '^src/studio/' },
      to: {
        path: ['^src/[a-z-]+/routes\\.ts$', '^src/http/', '^src/app\\.ts$'],
        pathNot: ['^src/studio/', '^src/http/(lingering-close|limiter-store|rate-limit)\\.ts$'],
      },
    },
    {
      name: 'api-imports-no-studio',
      severity: 'error',
      comment: 'Nothing but the composition root names the studio.',
      from: { path: '^src/', pathNot: ['^src/studio/', '^src/app\\.ts$', '^src/main\\.ts$'] },
      to: { path: '^src/studio/' },
    },
    {
      name: 'api-imports-no-website',
      severity: 'error',
      comment:
        'The arrows run one way: the website (src/site) uses the features; no feature, nor the API transport, imports the website. ' +
        'Only the composition root (app.ts) and the command line, which build everything, name it.',
      from: { path: '^src/', pathNot: ['^src/site/', '^src/app\\.ts$', '^src/main\\.ts$', '^src/cli/'] },
      to: { path: '^src/site/' },
    },
    {
      name: 'sql-only-in-repositories',
      severity: 'error',
      comment: 'SQL (Kysely, the database drivers) lives in repository modules and in src/database (connection, migrations, schema) only.',
      from: { path: '^src/', pathNot: ['(^|/)(repository|[a-z-]+-repository)\\.ts$', '^src/database/'] },
      to: { path: ['(^|/)node_modules/(kysely|pg|better-sqlite3)/'] },
    },
    {
      name: 'domain-imports-no-http',
      severity: 'error',
      comment:
        'A service works on a user and a typed input, whoever calls it (a route, the worker, the admin command): it knows no request, reply or router; ' +
        'nor do the repositories and the file storage below it. They refuse with the one error catalogue (src/core/errors.ts), below every feature.',
      from: { path: [...SERVICES, REPOSITORIES, '^src/file-storage/'] },
      to: { path: '^src/http/' },
    },
    {
      name: 'repositories-import-no-service',
      severity: 'error',
      comment:
        'A repository runs statements in the transaction it is given; what must follow them (queueing work, removing files) is the caller\'s, ' +
        'through the unit of work (src/database/unit-of-work.ts), never a service called from inside a transaction.',
      from: { path: REPOSITORIES },
      to: { path: SERVICES },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^dist/' },
  },
};

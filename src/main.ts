// Entry point: `npm start` (ROLE=all, api or worker; `npm run worker`). Serves
// until SIGTERM/SIGINT, then drains (src/ops/shutdown.ts).
import { loadConfig } from './config.js';
import { buildApp, createLogger } from './app.js';
import { ScaleOutError } from './ops/roles.js';
import { stopOnSignals } from './ops/shutdown.js';

const config = loadConfig();
const log = createLogger(config);
let service;
try {
  service = await buildApp(config, log);
} catch (err) {
  if (!(err instanceof ScaleOutError)) throw err;
  process.stderr.write(`media portfolio service: ${err.message}\n`);
  process.exit(2);
}
await service.fastify.listen({ port: config.port, host: config.host });
const address = service.fastify.server.address();
const port = typeof address === 'object' && address ? address.port : config.port;
const metricsAddress = service.ops.metricsServer?.address();
service.fastify.log.info(
  {
    role: config.ops.role,
    port,
    host: config.host,
    database: service.core.store.dialect,
    publicUrl: config.publicUrl,
    ...(metricsAddress && typeof metricsAddress === 'object' ? { metricsPort: metricsAddress.port } : {}),
  },
  'media portfolio service ready',
);
stopOnSignals({ readiness: service.ops.readiness, server: service.fastify.server, close: service.close }, log, config.ops.shutdownTimeoutMs);

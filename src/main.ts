// Entry point: `npm start`. Serves the API until SIGTERM/SIGINT, then drains.
import { loadConfig } from './config.js';
import { buildApp } from './app.js';

const config = loadConfig();
const service = await buildApp(config);
await service.fastify.listen({ port: config.port, host: config.host });
const address = service.fastify.server.address();
const port = typeof address === 'object' && address ? address.port : config.port;
service.fastify.log.info({ port, host: config.host, database: service.store.dialect, publicUrl: config.publicUrl }, 'media portfolio service ready');

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    service.fastify.log.info({ signal }, 'stopping: finishing requests in flight');
    service
      .close()
      .then(() => process.exit(0))
      .catch((err) => {
        service.fastify.log.error({ err }, 'error while stopping');
        process.exit(1);
      });
  });
}

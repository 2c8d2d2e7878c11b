// The framework's own floor: a bare Fastify server (default options, no hooks, no logger) answering
// the bytes given in base64 at GET /whoami.xml with the service's headers. Prints its port.
import Fastify from 'fastify';

const body = Buffer.from(process.argv[2] ?? '', 'base64');
const fastify = Fastify({ keepAliveTimeout: 65_000 });
fastify.get('/whoami.xml', (_req, reply) => {
  reply.header('content-type', 'application/xml; charset=utf-8').header('x-request-id', 'bench').send(body);
});
await fastify.listen({ port: 0, host: '127.0.0.1' });
const addr = fastify.server.address();
process.stdout.write(`${typeof addr === 'object' && addr ? addr.port : 0}\n`);
process.on('SIGTERM', () => void fastify.close().then(() => process.exit(0)));

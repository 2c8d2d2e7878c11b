// The baseline: a bare node:http server answering a fixed XML body of the
// same size as the service's reply, streaming a request body to disk, or
// streaming a file (`file <path> <content-type>`), or streaming every file of a folder one after
// another in name order (`files <dir>`: the archive bench's baseline, the same reads without a ZIP).
import { createReadStream, createWriteStream, readdirSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const mode = process.argv[2];
const arg = process.argv[3];
let n = 0;
const server =
  mode === 'sink'
    ? createServer((req, res) => {
        pipeline(req, createWriteStream(join(arg, `upload-${process.pid}-${n++}`)))
          .then(() => res.writeHead(200, { 'content-type': 'application/xml' }).end('<?xml version="1.0" encoding="UTF-8"?>\n<reply><message>ok</message></reply>\n'))
          .catch(() => res.writeHead(500).end());
      })
    : mode === 'file'
      ? createServer((_req, res) => {
          res.writeHead(200, { 'content-type': process.argv[4] ?? 'application/octet-stream', 'content-length': statSync(arg).size });
          pipeline(createReadStream(arg), res).catch(() => res.destroy());
        })
      : mode === 'files'
        ? createServer((_req, res) => {
            res.writeHead(200, { 'content-type': 'application/octet-stream' });
            void (async () => {
              for (const name of readdirSync(arg).sort()) {
                for await (const chunk of createReadStream(join(arg, name))) if (!res.write(chunk)) await once(res, 'drain');
              }
              res.end();
            })().catch(() => res.destroy());
          })
      : createServer((_req, res) => {
          res.writeHead(200, { 'content-type': 'application/xml; charset=utf-8', 'x-request-id': 'bench' });
          res.end(body);
        });
const body = mode === 'body' ? Buffer.from(arg, 'base64') : '';
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

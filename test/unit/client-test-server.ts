// A tiny node:http server standing in for the remote service in client tests:
// it records every request and lets each test script the replies.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface TestServer {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

export type Handler = (req: Recorded, res: ServerResponse, index: number) => void;

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(rec);
      handler(rec, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends `<?xml ...?><reply>inner</reply>` with the given status and headers. */
export function reply(res: ServerResponse, status: number, inner: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/xml; charset=utf-8', 'X-Request-Id': 'req-test', ...headers });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<reply>${inner}</reply>\n`);
}

/** The user:password of a Basic Authorization header, if any. */
export function basicCredentials(headers: IncomingHttpHeaders): string | undefined {
  const h = headers.authorization;
  return h?.startsWith('Basic ') ? Buffer.from(h.slice(6), 'base64').toString('utf8') : undefined;
}

export const KEYS = { apiKey: 'key-1', apiSecret: 's3cr3t' };

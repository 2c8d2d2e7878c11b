// Shared by the hostile-input tests: multipart bodies built byte by byte (so
// they can be malformed on purpose) and requests over a bare socket, which
// keep reading the reply even when the service stops reading the body.
import { connect } from 'node:net';
import { computeSignature, rfc2822 } from '../../src/http/signing.js';
import type { TestApp } from '../support/service.js';

export const BOUNDARY = 'hostile-boundary-7d1f';

export interface Part {
  /** undefined: no name parameter at all. */
  name?: string;
  value: string | Buffer;
  filename?: string;
  contentType?: string;
  /** The whole Content-Disposition value, instead of one built from name and filename. */
  disposition?: string | Buffer;
}

function partHead(p: Part): Buffer {
  const disposition =
    p.disposition ?? `form-data${p.name === undefined ? '' : `; name="${p.name}"`}${p.filename === undefined ? '' : `; filename="${p.filename}"`}`;
  const lines = [Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: `), Buffer.from(disposition), Buffer.from('\r\n')];
  if (p.contentType) lines.push(Buffer.from(`Content-Type: ${p.contentType}\r\n`));
  lines.push(Buffer.from('\r\n'));
  return Buffer.concat(lines);
}

/** One part: boundary line, headers, value and the line break before the next boundary. */
export function partBytes(p: Part): Buffer {
  return Buffer.concat([partHead(p), Buffer.from(p.value), Buffer.from('\r\n')]);
}

/** A multipart body; `end: false` leaves out the closing boundary (a body that stops mid-part). */
export function multipart(parts: Part[], opts: { end?: boolean } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) chunks.push(partHead(p), Buffer.from(p.value), Buffer.from('\r\n'));
  if (opts.end === false) {
    // The last part's value stays open: drop its trailing CRLF.
    chunks.pop();
  } else {
    chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  }
  return Buffer.concat(chunks);
}

export const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

export interface RawReply {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  /** Body bytes the client managed to write before the reply came (or the socket closed). */
  bytesSent: number;
  /** Resolves once the service has closed the connection. */
  closed: Promise<void>;
}

/** The signing headers of spec 5.1 for one request. */
export function signatureHeaders(app: TestApp, method: string, pathAndQuery: string): Record<string, string> {
  const q = pathAndQuery.indexOf('?');
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = q < 0 ? '' : pathAndQuery.slice(q + 1);
  const timestamp = rfc2822();
  return {
    'X-Service-Authorization': `${app.key}:${computeSignature(method, path, query, app.secret, timestamp, 'sha1')}`,
    'X-Service-Timestamp': timestamp,
  };
}

/**
 * Sends a request head, then the body chunk by chunk, and stops writing as
 * soon as a whole reply has arrived or the socket is gone. Resolves with the
 * first reply; rejects when the connection ends without one.
 */
export function exchange(
  port: number,
  head: { method: string; path: string; headers: Record<string, string> },
  body: Iterable<Buffer> = [],
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let bytesSent = 0;
    let done = false;
    let resolveClosed: () => void;
    const closed = new Promise<void>((r) => (resolveClosed = r));
    socket.on('close', () => {
      resolveClosed();
      if (!done) {
        done = true;
        reject(new Error(`connection closed without a reply (${received.length} bytes received): ${received.toString('latin1').slice(0, 200)}`));
      }
    });
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      const end = received.indexOf('\r\n\r\n');
      if (done || end < 0) return;
      const lines = received.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(lines[0].split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const c = l.indexOf(':');
        headers[l.slice(0, c).trim().toLowerCase()] = l.slice(c + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (received.length - end - 4 < length) return;
      done = true;
      resolve({ status, headers, body: received.subarray(end + 4, end + 4 + length).toString('utf8'), bytesSent, closed });
    });
    const headLines = [`${head.method} ${head.path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(head.headers).map(([k, v]) => `${k}: ${v}`)];
    socket.write(`${headLines.join('\r\n')}\r\n\r\n`);
    void (async () => {
      for (const chunk of body) {
        if (done || socket.destroyed) return;
        bytesSent += chunk.length;
        if (!socket.write(chunk)) {
          await new Promise<void>((r) => {
            const go = () => {
              socket.off('drain', go);
              socket.off('close', go);
              clearInterval(poll);
              r();
            };
            // A reply may come while the service no longer reads: stop waiting for a drain then.
            const poll = setInterval(() => done && go(), 20);
            socket.on('drain', go);
            socket.on('close', go);
          });
        }
      }
    })();
  });
}

/** Request headers for a multipart body of `length` bytes. */
export function multipartHeaders(length: number, extra: Record<string, string> = {}): Record<string, string> {
  return { 'Content-Type': MULTIPART_TYPE, 'Content-Length': String(length), ...extra };
}

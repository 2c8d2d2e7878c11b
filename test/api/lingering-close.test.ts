// A body the service refuses before reading it all: a client that writes its
// whole body before reading (as most simple HTTP clients do) still receives the
// 4xx that explains the refusal, because the service reads and discards the
// rest before closing (a lingering close, as nginx does), within bounds in
// bytes and time: a client that keeps sending past them is cut.
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { LINGER_IDLE_MS, LINGER_MAX_BYTES } from '../../src/http/lingering-close.js';
import { eachDatabase, TestService } from '../support/service.js';
import { worldOn, type World } from '../support/world.js';
import { parseReply } from '../support/xml.js';

const MiB = 1024 * 1024;

interface Outcome {
  /** Everything received until the connection ended. */
  received: string;
  /** The socket's error, if the service cut the connection under the client (EPIPE, ECONNRESET). */
  error?: string;
  /** Body bytes handed to the connection before it ended. */
  written: number;
}

/** A client that goes on sending after the service's FIN (Node's sockets end their side at once by default). */
const connectHalfOpen = (port: number) => connect({ port, host: '127.0.0.1', allowHalfOpen: true });

const head = (path: string, headers: Record<string, string>) =>
  [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');

/**
 * Writes the request head and the body chunk by chunk (each once the previous
 * one is taken), and only then reads what came back, until the connection ends.
 * `chunks` may be endless: the writing stops when the connection does.
 */
function writeAllThenRead(port: number, requestHead: string, chunks: Iterable<Buffer>, pauseMs = 0): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connectHalfOpen(port);
    // Not flowing: what the service sends waits in the socket until the whole body is written.
    socket.pause();
    let error: string | undefined;
    let written = 0;
    const received: Buffer[] = [];
    socket.on('error', (err: NodeJS.ErrnoException) => (error ??= err.code ?? err.message));
    socket.on('close', () => resolve({ received: Buffer.concat(received).toString('latin1'), error, written }));
    socket.write(requestHead);
    void (async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        const taken = await new Promise<boolean>((r) => socket.write(chunk, (err) => r(!err)));
        if (!taken) return;
        written += chunk.length;
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
      // Nothing more to send: the client's FIN, so that the connection ends once the service's comes.
      socket.end();
      socket.on('data', (d: Buffer) => received.push(d));
      socket.resume();
    })();
  });
}

function expectXmlRefusal(o: Outcome, status: number, code: string, bodyLength: number): void {
  expect(o.error, `${o.error} after ${o.written} of ${bodyLength} bytes; received ${JSON.stringify(o.received.slice(0, 200))}`).toBeUndefined();
  expect(o.written).toBe(bodyLength);
  expect(o.received).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  const bodyAt = o.received.indexOf('\r\n\r\n');
  const headers = o.received.slice(0, bodyAt);
  expect(headers).toMatch(/\r\ncontent-type: application\/xml; charset=utf-8\r\n/i);
  expect(headers).toMatch(/\r\nconnection: close\r\n/i);
  expect(text(parseReply(o.received.slice(bodyAt + 4)), 'error-code')).toBe(code);
}

/** `size` bytes in 64 KiB chunks. */
function* bytes(size: number, fill = 'x'): Generator<Buffer> {
  const chunk = Buffer.alloc(64 * 1024, fill);
  for (let left = size; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
}

/** A JSON document of about `size` bytes, in chunks. */
function* json(size: number): Generator<Buffer> {
  yield Buffer.from('{"data":"');
  yield* bytes(size - 11, 'y');
  yield Buffer.from('"}');
}

function* forever(chunk: Buffer): Generator<Buffer> {
  for (;;) yield chunk;
}

eachDatabase((kind) => {
  let svc: TestService;
  let w: World;
  beforeAll(async () => {
    svc = await TestService.start(kind);
    w = await worldOn(svc);
  });
  afterAll(() => svc?.close());
  const port = () => Number(new URL(svc.url).port);

  // The sizes of the report, and a larger one: whether the smaller ones are cut depends on how much
  // of the body the kernel has taken in before the close, and on loopback that is often all of it.
  for (const size of [1_260_000, 8 * MiB]) {
    it(`a ${size}-byte multipart body without a boundary, written whole before reading: the client reads the 400`, async () => {
      const o = await writeAllThenRead(port(), head('/uploads/local.xml', { 'Content-Type': 'multipart/form-data', 'Content-Length': String(size) }), bytes(size));
      expectXmlRefusal(o, 400, 'bad_request', size);
    });
  }

  for (const size of [1_000_000, 8 * MiB]) {
    it(`a ${size}-byte JSON body, written whole before reading: the client reads the refusal, from the API and from the website's forms`, async () => {
      const refusals: Array<[string, number]> = [
        ['/uploads/local.xml', 415],
        [`/sites/${w.urlname}/_signin`, 415],
        [`/sites/${w.urlname}/_password`, 400],
      ];
      for (const [path, status] of refusals) {
        const o = await writeAllThenRead(port(), head(path, { 'Content-Type': 'application/json', 'Content-Length': String(size) }), json(size));
        if (path.startsWith('/uploads')) {
          expectXmlRefusal(o, status, 'unsupported_media_type', size);
          continue;
        }
        // The website answers in HTML.
        expect(o.error, `${path}: ${o.error} after ${o.written} of ${size} bytes`).toBeUndefined();
        expect(o.written).toBe(size);
        expect(o.received, path).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
        expect(o.received).toMatch(/\r\ncontent-type: text\/html; charset=utf-8\r\n/i);
        expect(o.received).toMatch(/\r\nconnection: close\r\n/i);
      }
    });
  }

  it("a form larger than the website's forms take, written whole before reading: the client reads the 413", async () => {
    const size = 8 * MiB;
    for (const path of [`/sites/${w.urlname}/_password`, `/sites/${w.urlname}/_signin`]) {
      const o = await writeAllThenRead(port(), head(path, { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(size) }), bytes(size, 'f'));
      expect(o.error, `${path}: ${o.error} after ${o.written} of ${size} bytes`).toBeUndefined();
      expect(o.written).toBe(size);
      expect(o.received, path).toMatch(/^HTTP\/1\.1 413 /);
      expect(o.received).toMatch(/\r\nconnection: close\r\n/i);
    }
  });

  it('a client that keeps sending a refused body past the byte bound is cut', async () => {
    const announced = 1024 ** 3;
    const o = await writeAllThenRead(port(), head('/uploads/local.xml', { 'Content-Type': 'multipart/form-data', 'Content-Length': String(announced) }), forever(Buffer.alloc(MiB, 'z')));
    expect(o.error ?? 'closed').toMatch(/^(EPIPE|ECONNRESET|closed)$/);
    // What it managed to write: the bound, and at most what the two sockets' buffers hold beyond it.
    // (Counted by the client when each 1 MiB chunk is taken: the one in flight when the cut came is not.)
    expect(o.written).toBeGreaterThanOrEqual(LINGER_MAX_BYTES - MiB);
    expect(o.written).toBeLessThan(LINGER_MAX_BYTES + 64 * MiB);
    const alive = await fetch(`${svc.url}/healthz`);
    expect(alive.status).toBe(200);
    await alive.text();
  });

  it('a client that keeps sending a refused body slowly is cut at the time bound, having read the reply meanwhile', async () => {
    const socket = connectHalfOpen(port());
    let received = '';
    let error: string | undefined;
    socket.setEncoding('latin1').on('data', (d: string) => (received += d));
    socket.on('error', (err: NodeJS.ErrnoException) => (error ??= err.code));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.write(head('/uploads/local.xml', { 'Content-Type': 'multipart/form-data', 'Content-Length': String(1024 ** 3) }));
    // 1 KiB every 200 ms: never idle long enough to be closed for that, never near the byte bound.
    let sent = 0;
    const trickle = setInterval(() => {
      if (socket.destroyed) return;
      socket.write(Buffer.alloc(1024, 't'));
      sent += 1024;
    }, 200);
    try {
      await closed;
    } finally {
      clearInterval(trickle);
    }
    expect(received).toMatch(/^HTTP\/1\.1 400 /);
    expect(received).toMatch(/\r\nconnection: close\r\n/i);
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(LINGER_MAX_BYTES);
    expect(error ?? 'closed').toMatch(/^(EPIPE|ECONNRESET|closed)$/);
  }, 30_000);

  it('a client that stops sending after the refusal, without closing, is closed', async () => {
    const socket = connectHalfOpen(port());
    let received = '';
    let error: string | undefined;
    socket.setEncoding('latin1').on('data', (d: string) => (received += d));
    socket.on('error', (err: NodeJS.ErrnoException) => (error ??= err.code));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.write(head('/uploads/local.xml', { 'Content-Type': 'multipart/form-data', 'Content-Length': String(MiB) }));
    socket.write(Buffer.alloc(1000, 'x'));
    // Silent for longer than the idle bound between writes: the first write after it finds the connection gone.
    const probe = setInterval(() => socket.destroyed || socket.write('x'), LINGER_IDLE_MS + 500);
    try {
      await closed;
    } finally {
      clearInterval(probe);
    }
    expect(received).toMatch(/^HTTP\/1\.1 400 /);
    expect(error).toMatch(/^(EPIPE|ECONNRESET)$/);
  }, 30_000);
});

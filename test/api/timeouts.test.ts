// Slow or stalled clients cannot hold connections forever, and a flood of
// connections cannot take the service down (HEADERS_TIMEOUT_SECONDS,
// REQUEST_TIMEOUT_SECONDS, IDLE_TIMEOUT_SECONDS, MAX_CONNECTIONS). Tiny values
// here; the tests wait for the server to close, never measure how long it took.
import { connect, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { computeSignature, rfc2822 } from '../../src/http/signing.js';
import { eachDatabase, TestService, type TestApp } from '../support/service.js';

const WAIT = 45_000;

function open(svc: TestService): Promise<Socket> {
  const { hostname, port } = new URL(svc.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sent until it closed the connection (resets count as closed). */
function closed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('error', () => {});
    if (socket.destroyed) return resolve(received);
    socket.once('close', () => resolve(received));
  });
}

function signedPing(app: TestApp): string {
  const ts = rfc2822();
  const sig = computeSignature('GET', '/ping.xml', '', app.secret, ts, 'sha1');
  return `GET /ping.xml HTTP/1.1\r\nHost: test\r\nX-Service-Authorization: ${app.key}:${sig}\r\nX-Service-Timestamp: ${ts}\r\n\r\n`;
}

/** Sends one request on an open keep-alive connection and reads its reply. */
function exchange(socket: Socket, request: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
      if (buf.length < end + 4 + length) return;
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve({ status: Number(buf.slice(9, 12)), body: buf.slice(end + 4, end + 4 + length) });
    };
    const onClose = () => reject(new Error(`connection closed before a full reply: ${JSON.stringify(buf)}`));
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(request);
  });
}

eachDatabase((kind) => {
  let svc: TestService | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await svc?.close();
    svc = undefined;
  });

  async function stillServes(app: TestApp): Promise<void> {
    const res = await svc!.raw(app, 'GET', '/ping.xml');
    expect(res.status).toBe(200);
    await res.text();
  }

  it(
    'a client that sends its headers and half its body, then stalls, is disconnected',
    async () => {
      svc = await TestService.start(kind, { IDLE_TIMEOUT_SECONDS: '1', REQUEST_TIMEOUT_SECONDS: '2', HEADERS_TIMEOUT_SECONDS: '1' });
      const app = await svc.app();
      for (const path of ['/galleries.xml', '/medias.xml']) {
        const socket = await open(svc);
        sockets.push(socket);
        const done = closed(socket);
        socket.write(`POST ${path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n${'a'.repeat(500)}`);
        const received = await done;
        // Nothing, the refusal of the unsigned request, and/or a 408: never a success.
        if (received) expect(received).toMatch(/^HTTP\/1\.1 4\d\d /);
        expect(socket.destroyed).toBe(true);
      }
      await stillServes(app);
    },
    WAIT,
  );

  it(
    'a signed request whose body stops coming is disconnected by the idle timeout',
    async () => {
      // The request timeout is far away: only the idle one can end this.
      svc = await TestService.start(kind, { IDLE_TIMEOUT_SECONDS: '1' });
      const app = await svc.app();
      const ts = rfc2822();
      const sig = computeSignature('POST', '/ping.xml', '', app.secret, ts, 'sha1');
      const socket = await open(svc);
      sockets.push(socket);
      const done = closed(socket);
      socket.write(
        `POST /ping.xml HTTP/1.1\r\nHost: test\r\nX-Service-Authorization: ${app.key}:${sig}\r\nX-Service-Timestamp: ${ts}\r\n` +
          `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ntext=${'a'.repeat(300)}`,
      );
      await done;
      await stillServes(app);
    },
    WAIT,
  );

  it(
    'a client that trickles its headers is disconnected by the headers timeout',
    async () => {
      svc = await TestService.start(kind, { HEADERS_TIMEOUT_SECONDS: '1', REQUEST_TIMEOUT_SECONDS: '2' });
      const app = await svc.app();
      const socket = await open(svc);
      sockets.push(socket);
      const done = closed(socket);
      socket.write('GET /ping.xml HTTP/1.1\r\nHost: test\r\n');
      // One byte every 100 ms: never idle, never complete.
      const trickle = setInterval(() => {
        if (!socket.destroyed && socket.writable) socket.write('X');
      }, 100);
      try {
        const received = await done;
        // Told why, when anything was sent at all.
        if (received) expect(received).toMatch(/^HTTP\/1\.1 408 /);
      } finally {
        clearInterval(trickle);
      }
      await stillServes(app);
    },
    WAIT,
  );

  it(
    'beyond MAX_CONNECTIONS new connections are closed, the open ones keep being served',
    async () => {
      svc = await TestService.start(kind, { MAX_CONNECTIONS: '2' });
      const app = await svc.app();
      const kept = [await open(svc), await open(svc)];
      sockets.push(...kept);
      for (const s of kept) expect((await exchange(s, signedPing(app))).status).toBe(200);
      const extra = await open(svc).catch(() => undefined);
      if (extra) {
        sockets.push(extra);
        const done = closed(extra);
        extra.write(signedPing(app));
        expect(await done).toBe('');
      }
      for (const s of kept) {
        const r = await exchange(s, signedPing(app));
        expect(r.status).toBe(200);
        expect(r.body).toContain('OK');
      }
      // Once a slot is free, new connections are served again.
      kept[0].destroy();
      await new Promise((r) => kept[0].once('close', r));
      await expect
        .poll(async () => {
          try {
            const s = await open(svc!);
            sockets.push(s);
            return (await exchange(s, signedPing(app))).status;
          } catch {
            return 0;
          }
        }, { timeout: 20_000, interval: 100 })
        .toBe(200);
    },
    WAIT,
  );
});

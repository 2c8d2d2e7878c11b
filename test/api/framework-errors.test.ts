// Replies Fastify and Node.js make on their own (a URL they cannot decode, a
// path parameter too long, a body they refuse, a request while the service
// closes) are XML error replies with an X-Request-Id like every other reply.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { connectionRefused } from '../support/processes.js';
import { eachDatabase, serviceWithApp, type TestApp, TestService } from '../support/service.js';
import { parseReply } from '../support/xml.js';
import { exchange, signatureHeaders, type RawReply } from './hostile-support.js';

function expectXmlError(r: RawReply, status: number, code: string): void {
  expect(r.status, r.body).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/xml; charset=utf-8$/);
  expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(text(parseReply(r.body), 'error-code'), r.body).toBe(code);
}

/** Everything a raw connection receives, until a pattern shows up. */
function rawConnection(port: number): Promise<{ socket: Socket; waitFor(re: RegExp): Promise<string>; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.setEncoding('utf8').on('data', (d: string) => (data += d));
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.on('error', () => undefined);
      resolve({
        socket,
        closed,
        async waitFor(re) {
          while (!re.test(data)) {
            if (socket.destroyed) throw new Error(`connection closed before ${re}; got ${JSON.stringify(data)}`);
            await new Promise((r) => setTimeout(r, 10));
          }
          return data;
        },
      });
    });
  });
}

function head(method: string, path: string, headers: Record<string, string>): string {
  return [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
}

eachDatabase((kind) => {
  let svc: TestService;
  let app: TestApp;
  beforeAll(async () => void ({ svc, app } = await serviceWithApp(kind)));
  afterAll(() => svc?.close());

  const port = () => Number(new URL(svc.url).port);
  const get = (path: string, headers: Record<string, string> = {}) => exchange(port(), { method: 'GET', path, headers });

  it('answers a path that is not valid percent-encoded UTF-8 with a 400 bad_encoding', async () => {
    for (const path of ['/medias/%C3%28.xml', '/medias/%FF.xml', '/%', '/websites/%E0%A4/galleries.xml']) {
      expectXmlError(await get(path, signatureHeaders(app, 'GET', path)), 400, 'bad_encoding');
    }
  });

  it('answers a path segment longer than the router takes with a 414', async () => {
    for (const path of [`/medias/${'a'.repeat(301)}.xml`, `/websites/${'w'.repeat(1000)}/galleries.xml`]) {
      expectXmlError(await get(path, signatureHeaders(app, 'GET', path)), 414, 'uri_too_long');
    }
  });

  it('answers refusals of the body parsers in XML', async () => {
    const post = (headers: Record<string, string>, body: string) => exchange(port(), { method: 'POST', path: '/uploads/local.xml', headers }, [Buffer.from(body)]);
    expectXmlError(await post({ 'Content-Type': ';;;', 'Content-Length': '3' }, 'abc'), 415, 'unsupported_media_type');
    expectXmlError(await post({ 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(5 * 1024 * 1024) }, 'a=b'), 413, 'payload_too_large');
    expectXmlError(await post({ 'Content-Type': 'multipart/form-data', 'Content-Length': '3' }, 'a=b'), 400, 'bad_request');
  });

  it('answers what Node.js refuses before Fastify sees it in XML', async () => {
    expectXmlError(await get('/ping.xml', { 'X-Big': 'a'.repeat(20_000) }), 431, 'headers_too_large');
    expectXmlError(await exchange(port(), { method: 'POST', path: '/ping.xml', headers: { 'Content-Length': 'abc' } }), 400, 'bad_request');
  });

  it('answers a request without a Host header with a 400 XML', async () => {
    const conn = await rawConnection(port());
    conn.socket.write('GET /ping.xml HTTP/1.1\r\nConnection: close\r\n\r\n');
    await conn.closed;
    const raw = await conn.waitFor(/^HTTP/).catch(() => '');
    const [headPart, body] = raw.split('\r\n\r\n');
    expect(headPart).toMatch(/^HTTP\/1\.1 400 /);
    expect(headPart).toMatch(/\r\nx-request-id: [0-9a-f-]{36}/i);
    expect(text(parseReply(body), 'error-code')).toBe('bad_request');
  });

  it('answers an Expect header it cannot meet with a 417 XML', async () => {
    const r = await exchange(port(), { method: 'POST', path: '/ping.xml', headers: { Expect: 'nonsense', 'Content-Length': '0' } });
    expectXmlError(r, 417, 'expectation_failed');
  });

  it('answers a request that arrives while the service closes with a 503 XML, and closes the connection', async () => {
    const closing = await TestService.start(kind);
    const closingApp = await closing.app();
    const cport = Number(new URL(closing.url).port);
    const conn = await rawConnection(cport);
    // A request in flight: taken by the server (100 Continue), its body not sent yet.
    const body = `text=${randomBytes(4).toString('hex')}`;
    conn.socket.write(
      head('POST', '/uploads/local.xml', {
        'Content-Type': 'application/x-www-form-urlencoded',
        'Content-Length': String(body.length),
        Expect: '100-continue',
      }),
    );
    await conn.waitFor(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
    const closed = closing.service.close();
    // Its body, then a second request on the same connection, both once the close has begun.
    while (!(await connectionRefused(cport))) await new Promise((r) => setTimeout(r, 10));
    conn.socket.write(body + head('GET', '/ping.xml', signatureHeaders(closingApp, 'GET', '/ping.xml')));
    await conn.closed;
    const replies = (await conn.waitFor(/$/)).split(/(?=HTTP\/1\.1 )/).slice(1);
    expect(replies.length, replies.join('\n')).toBe(2);
    const second = replies[1];
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/\r\ncontent-type: application\/xml; charset=utf-8\r\n/i);
    expect(second).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
    expect(second).toMatch(/\r\nconnection: close\r\n/i);
    expect(text(parseReply(second.slice(second.indexOf('\r\n\r\n') + 4)), 'error-code')).toBe('service_unavailable');
    await closed;
    await closing.close();
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { MediaPortfolioClient } from '../../src/client/client.js';
import { ApiRequestError, classify, isApiRequestError } from '../../src/client/errors.js';
import { KEYS, reply, startServer, type TestServer } from './client-test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('client errors', () => {
  it('classifies by error code first, then status', () => {
    expect(classify(401, 'signature_invalid')).toBe('signature');
    expect(classify(403, 'timestamp_out_of_window')).toBe('signature');
    expect(classify(401, 'unknown_api_key')).toBe('signature');
    expect(classify(401, undefined, 'basic')).toBe('authentication');
    expect(classify(401, 'invalid_credentials', 'basic:password+otp')).toBe('otp_required');
    expect(classify(404)).toBe('not_found');
    expect(classify(409)).toBe('conflict');
    expect(classify(422, 'missing_parameter')).toBe('invalid');
    expect(classify(429)).toBe('rate_limited');
    expect(classify(503)).toBe('server');
    expect(classify(418)).toBe('http');
  });

  it('carries status, error text, error code, request id and the raw body', async () => {
    const body = '<error>gallery &lt;x&gt; not found</error><error-code>not_found</error-code><stop-with-error>true</stop-with-error>';
    server = await startServer((_req, res) => reply(res, 404, body, { 'X-Request-Id': 'rid-42' }));
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS });
    const err = await client.gallery('my-site', 'x', 'details').catch((e: unknown) => e);
    expect(isApiRequestError(err, 'not_found')).toBe(true);
    const e = err as ApiRequestError;
    expect(e.status).toBe(404);
    expect(e.message).toBe('gallery <x> not found');
    expect(e.errorCode).toBe('not_found');
    expect(e.requestId).toBe('rid-42');
    expect(e.stopWithError).toBe(true);
    expect(e.body).toContain(body);
    expect(server.requests[0].url).toBe('/websites/my-site/galleries/x.xml?view=details');
  });

  it('a non-XML error body still gives a typed error', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end('<html>bad gateway</html');
    });
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS });
    await expect(client.ping()).rejects.toMatchObject({ kind: 'server', status: 502, message: 'HTTP 502 Bad Gateway', body: '<html>bad gateway</html' });
  });

  it('a success reply that is not XML is a protocol error', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('OK');
    });
    const client = new MediaPortfolioClient({ baseUrl: server.url, ...KEYS });
    await expect(client.ping()).rejects.toMatchObject({ kind: 'protocol', status: 200, body: 'OK' });
  });

  it('refuses multipart or method override on GET', async () => {
    const client = new MediaPortfolioClient({ baseUrl: 'http://127.0.0.1:1', ...KEYS });
    await expect(client.request('GET', '/x.xml', {}, { multipart: true })).rejects.toThrow(TypeError);
    await expect(client.request('POST', '/x.xml', {}, { methodOverride: true })).rejects.toThrow(TypeError);
  });
});

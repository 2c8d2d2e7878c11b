// Where `npm run api` looks for the server: where `npm start` listens
// (HOST and PORT, src/config.ts), unless MPS_URL says otherwise.
import { describe, expect, it } from 'vitest';
import { serverUrl, sessionFilePath } from '../../src/cli/api.js';

describe('api command: the server address', () => {
  it('is http://HOST:PORT with the server defaults, a wildcard HOST reached on loopback', () => {
    expect(serverUrl({})).toBe('http://127.0.0.1:8080');
    expect(serverUrl({ PORT: '8081' })).toBe('http://127.0.0.1:8081');
    expect(serverUrl({ HOST: '0.0.0.0', PORT: '9000' })).toBe('http://127.0.0.1:9000');
    expect(serverUrl({ HOST: '::' })).toBe('http://[::1]:8080');
    expect(serverUrl({ HOST: '::1', PORT: '8082' })).toBe('http://[::1]:8082');
    expect(serverUrl({ HOST: '10.0.0.5' })).toBe('http://10.0.0.5:8080');
    expect(serverUrl({ HOST: 'photos.internal', PORT: '80' })).toBe('http://photos.internal:80');
  });

  it('is MPS_URL when set (without a trailing slash), whatever HOST and PORT say', () => {
    expect(serverUrl({ MPS_URL: 'https://photos.example.com/', HOST: '0.0.0.0', PORT: '1' })).toBe('https://photos.example.com');
  });

  it('keeps the session in DATA_DIR as the server resolves it, unless MPS_SESSION_FILE says otherwise', () => {
    expect(sessionFilePath('/srv/mps', {})).toBe('/srv/mps/data/.api-session');
    expect(sessionFilePath('/srv/mps', { DATA_DIR: './photos' })).toBe('/srv/mps/photos/.api-session');
    expect(sessionFilePath('/srv/mps', { DATA_DIR: './photos', MPS_SESSION_FILE: '/tmp/s' })).toBe('/tmp/s');
  });
});

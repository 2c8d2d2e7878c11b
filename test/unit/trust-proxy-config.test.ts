// How TRUST_PROXY is read at start (docs/deploy.md): moved here from
// test/api/trust-proxy.test.ts, which keeps what the setting does to
// requests behind a proxy.
import { describe, expect, it } from 'vitest';
import { loadConfig, parseTrustProxy } from '../../src/config.js';

describe('TRUST_PROXY settings', () => {
  it('takes 1 and true as one proxy, a hop count, and a list of addresses and CIDRs', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    for (const off of ['', '0', 'false']) expect(parseTrustProxy(off)).toBe(false);
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('true')).toBe(1);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.5, 10.1.0.0/16,::1,fd00::/8,loopback')).toEqual(['10.0.0.5', '10.1.0.0/16', '::1', 'fd00::/8', 'loopback']);
  });

  it('refuses anything else at start, saying what it takes', () => {
    for (const bad of ['yes', 'on', '-1', '1.5', '21', '10.0.0.0/33', '::1/129', '10.0.0.5,', 'nginx.internal', '10.0.0.256', '*']) {
      expect(() => loadConfig({ DATA_DIR: '/tmp/x', TRUST_PROXY: bad }), bad).toThrow(/^TRUST_PROXY (must be 1 \(one proxy in front\), a hop count, or a comma-separated list|as a hop count must be from 1 to 20)/);
    }
  });
});

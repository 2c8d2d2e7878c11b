// docs/deploy.md's nginx configuration is the one the multi-node test runs:
// test/support/nginx.ts reads it from the page and changes only addresses,
// TLS and the port-80 redirect. This checks that every other line of the
// page's block reaches nginx, and that the page overwrites X-Forwarded-For.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adaptedNginxConfig, DEPLOY_DOC, documentedNginxConfig, nginxConfig } from '../support/nginx.js';

/** Lines the test changes on purpose: the nodes' addresses, nginx's own, TLS, the redirect server. */
const CHANGED = [/^server \d+\.\d+\.\d+\.\d+:\d+ /, /^listen 443/, /^ssl_certificate/, /^server \{ listen 80;/];

const directives = (conf: string) =>
  conf
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

describe('the nginx configuration of docs/deploy.md', () => {
  const documented = documentedNginxConfig();
  const run = nginxConfig({ dir: '/tmp/nginx-test', port: 18080, upstreamPorts: [18081, 18082] });

  it('reaches the multi-node test whole, but for addresses and TLS', () => {
    const kept = directives(documented).filter((l) => !CHANGED.some((re) => re.test(l)));
    expect(kept.length).toBeGreaterThan(15);
    const ran = new Set(directives(run));
    expect(kept.filter((l) => !ran.has(l))).toEqual([]);
    // The changes themselves: the test's nodes, loopback, no TLS, no port 80.
    expect(run).toContain('server 127.0.0.1:18081 max_fails=1 fail_timeout=5s;');
    expect(run).toContain('server 127.0.0.1:18082 max_fails=1 fail_timeout=5s;');
    expect(run).toMatch(/^\s*listen 127\.0\.0\.1:18080;$/m);
    expect(run).not.toMatch(/ssl|listen 80|10\.0\.0\.1[12]/);
  });

  it('has nginx overwrite the forwarding headers a client could write, never append to them', () => {
    const headers = directives(documented).filter((l) => l.startsWith('proxy_set_header'));
    expect(headers).toContain('proxy_set_header X-Forwarded-For $remote_addr;');
    expect(headers).toContain('proxy_set_header X-Forwarded-Host $http_host;');
    expect(headers).toContain('proxy_set_header X-Forwarded-Proto $scheme;');
    expect(documented).not.toContain('$proxy_add_x_forwarded_for');
    // ... and the environment next to it trusts exactly that one hop.
    expect(readFileSync(DEPLOY_DOC, 'utf8')).toMatch(/^TRUST_PROXY=1 /m);
  });

  it('fails loudly when the page no longer has what the test changes', () => {
    expect(() => adaptedNginxConfig(documented.replace(/listen 443[^;]*;/, 'listen 8443;'), { port: 1, upstreamPorts: [2] })).toThrow(/no TLS listen line/);
    expect(() => adaptedNginxConfig(documented.replace(/server 10\.0\.0\.\d+:8080[^;]*;/g, 'server backend;'), { port: 1, upstreamPorts: [2] })).toThrow(/no upstream server line/);
    expect(() => documentedNginxConfig('# no block here\n')).toThrow(/exactly one nginx block, found 0/);
  });
});

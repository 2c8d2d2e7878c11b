// whoami's <user> is rendered once per user row (src/users/xml.ts) and the signature is compared as
// hex in constant time (src/http/signing.ts): the bytes and the verdicts are those of before.
import { describe, expect, it } from 'vitest';
import type { UserRow } from '../../src/database/schema.js';
import { computeSignature, signatureMatches } from '../../src/http/signing.js';
import { renderReply } from '../../src/http/xml.js';
import { whoamiXml } from '../../src/users/xml.js';

const row = (over: Partial<UserRow> = {}): UserRow =>
  ({ id: 1, uuid: '0b7f3c3e-8a5e-4c1e-9d2a-1f0e6b7a9c11', email: 'zoe@example.com', first_name: 'Zoé <&>', last_name: "O'Brien", otp_secret: null, ...over }) as UserRow;

describe('whoami reply', () => {
  it('renders the same bytes as the plain XML of the row, escaped, once or many times', () => {
    const user = row();
    const plain = renderReply({
      user: { uuid: user.uuid, login: user.email, email: user.email, firstname: user.first_name, lastname: user.last_name, 'two-factor': false },
      message: 'session valid',
    });
    expect(renderReply(whoamiXml(user))).toBe(plain);
    expect(renderReply(whoamiXml(user))).toBe(plain);
    expect(plain).toContain('<firstname>Zoé &lt;&amp;&gt;</firstname>');
  });

  it('a row read again (a new object) shows its own fields, whatever the same user showed before', () => {
    expect(renderReply(whoamiXml(row()))).toContain('<two-factor>false</two-factor>');
    const again = row({ first_name: 'Zoë', otp_secret: 'SECRET' });
    const xml = renderReply(whoamiXml(again));
    expect(xml).toContain('<firstname>Zoë</firstname>');
    expect(xml).toContain('<two-factor>true</two-factor>');
  });
});

describe('signature comparison', () => {
  const args = ['GET', '/whoami.xml', 'a=1', 'secret', 'Sun, 29 Nov 2026 00:00:00 +0000'] as const;
  it('accepts the digest in either case and refuses any one digit off, or a length of the other algorithm', () => {
    for (const algorithm of ['sha1', 'md5'] as const) {
      const sig = computeSignature(...args, algorithm);
      expect(signatureMatches(sig, ...args)).toBe(true);
      expect(signatureMatches(sig.toUpperCase(), ...args)).toBe(true);
      for (let i = 0; i < sig.length; i++) {
        const off = sig.slice(0, i) + (sig[i] === '0' ? '1' : '0') + sig.slice(i + 1);
        expect(signatureMatches(off, ...args)).toBe(false);
      }
      expect(signatureMatches(sig.slice(0, -1), ...args)).toBe(false);
      expect(signatureMatches(sig + '0', ...args)).toBe(false);
    }
    expect(signatureMatches('', ...args)).toBe(false);
    expect(signatureMatches('z'.repeat(40), ...args)).toBe(false);
  });
});

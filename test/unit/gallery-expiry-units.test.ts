// The expiry rule (docs/website.md "Expiry") without a service: a chain is closed from the moment
// any gallery on it expires, before any password or access list, and the field's reading.
import { describe, expect, it } from 'vitest';
import { readGallery } from '../../src/galleries/fields.js';
import { closedBy, decide, isPublic, type GateGallery } from '../../src/site/access.js';

const at = Date.parse('2026-12-01T12:00:00Z');
const g = (uuid: string, more: Partial<GateGallery> = {}): GateGallery => ({ uuid, passwordProtected: false, acl: [], ...more });

describe('a gallery past its expiry', () => {
  it('closes itself and everything below it from the instant it passes, to every visitor', () => {
    const chain = [g('root'), g('wedding', { expiresAt: '2026-12-01T12:00:00.000Z' }), g('reception')];
    expect(decide(chain, undefined, at - 1)).toMatchObject({ ok: true });
    expect(decide(chain, undefined, at)).toEqual({ ok: false, need: 'closed', gallery: 'wedding' });
    expect(decide(chain.slice(0, 2), undefined, at + 1)).toEqual({ ok: false, need: 'closed', gallery: 'wedding' });
    expect(closedBy(chain, at)?.uuid).toBe('wedding');
    expect(closedBy([g('a'), g('b', { expiresAt: null })], at)).toBeUndefined();
  });

  it('is closed before a password or an access list is asked for, and is never public', () => {
    const protectedChain = [g('root'), g('proofs', { passwordProtected: true, passwordHash: 'h', expiresAt: '2026-01-01T00:00:00.000Z' })];
    expect(decide(protectedChain, undefined, at)).toMatchObject({ need: 'closed' });
    const listed = [g('root', { acl: [{ email: 'DEFAULT', read: false, compDownload: false, hiresDownload: false }] }), g('x', { expiresAt: '2026-01-01T00:00:00.000Z' })];
    expect(decide(listed, undefined, at)).toMatchObject({ need: 'closed' });
    expect(isPublic([g('root', { expiresAt: new Date(Date.now() - 1).toISOString() })])).toBe(false);
    expect(isPublic([g('root', { expiresAt: new Date(Date.now() + 60_000).toISOString() })])).toBe(true);
  });
});

describe('gallery[expires_at]', () => {
  const read = (v: string) => readGallery((k) => (k === 'expiresAt' ? v : undefined), 'update').expiresAt;
  it('reads ISO 8601 date and time as UTC, no offset meaning UTC, blank clearing', () => {
    expect(read('2026-12-01T18:00:00+01:00')).toBe('2026-12-01T17:00:00.000Z');
    expect(read('2026-12-01T18:00')).toBe('2026-12-01T18:00:00.000Z');
    expect(read('2026-12-01T18:00:00.5Z')).toBe('2026-12-01T18:00:00.500Z');
    expect(read(' ')).toBeNull();
  });
  it.each(['2026-12-01', '01/12/2026 18:00', '2026-02-29T00:00:00Z', '2026-12-01T18:60:00Z', '2026-12-01T18:00:00+14:60', 'x'.repeat(41), ' '.repeat(41)])('refuses %j, naming the field', (v) => {
    expect(() => read(v)).toThrow(/gallery\[expires_at\] must be an ISO 8601 date and time/);
  });
});

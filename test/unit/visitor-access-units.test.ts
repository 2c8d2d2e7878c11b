import { describe, expect, it } from 'vitest';
import { FileUrls } from '../../src/file-storage/file-urls.js';
import { accessState, decide, isPublic, type GateGallery } from '../../src/site/access.js';
import { PassCodec } from '../../src/site/signin/pass.js';

const secret = Buffer.from('s'.repeat(64));
const open = (uuid: string): GateGallery => ({ uuid, passwordProtected: false, acl: [] });
const acl = (read: boolean, comp = false, hires = false, email = 'DEFAULT') => ({ email, read, compDownload: comp, hiresDownload: hires });

describe('signed file addresses', () => {
  const urls = new FileUrls(secret, 'http://x');
  const q = (u: string) => Object.fromEntries(new URL(u).searchParams);

  it('accepts its own signature until it expires, and nothing altered', () => {
    const now = Date.now();
    const g = '0b7c6e1e-1111-4222-8333-944455556666';
    const u = urls.signed('r/a/b.webp', new Date(now + 60_000), 'v1', g);
    expect(urls.check('r/a/b.webp', q(u), now)).toMatchObject({ kind: 'signed', visitor: 'v1', gallery: g, download: false });
    // Signed for one gallery, it is no proof for another.
    expect(urls.check('r/a/b.webp', { ...q(u), g: '0b7c6e1e-1111-4222-8333-944455556667' }, now).kind).toBe('invalid');
    const { g: _g, ...withoutGallery } = q(u);
    expect(urls.check('r/a/b.webp', withoutGallery, now).kind).toBe('invalid');
    expect(urls.check('r/a/b.webp', q(u), now + 61_000).kind).toBe('expired');
    expect(urls.check('r/a/c.webp', q(u), now).kind).toBe('invalid');
    expect(urls.check('r/a/b.webp', { ...q(u), v: 'v2' }, now).kind).toBe('invalid');
    expect(urls.check('r/a/b.webp', { ...q(u), d: '1' }, now).kind).toBe('invalid');
    expect(urls.check('r/a/b.webp', { ...q(u), e: String(Number(q(u).e) + 1) }, now).kind).toBe('invalid');
    expect(new FileUrls(Buffer.from('other'), 'http://x').check('r/a/b.webp', q(u), now).kind).toBe('invalid');
    expect(urls.check('r/a/b.webp', {}, now).kind).toBe('unsigned');
  });

  it("seals a download's client address so that only this secret opens it (docs/delivery.md)", () => {
    const now = Date.now();
    const g = '0b7c6e1e-1111-4222-8333-944455556666';
    const email = `${'a'.repeat(64)}@${'b'.repeat(180)}.example`;
    const sealed = urls.sealClient(email);
    expect(sealed).not.toContain('a'.repeat(8));
    // The same visitor, the same address (a download address stays stable within its expiry).
    expect(urls.sealClient(email)).toBe(sealed);
    expect(urls.openClient(sealed)).toBe(email);
    // A long address still makes an address the check accepts, whose visitor opens again.
    const u = urls.signed('o/a/b.jpg', new Date(now + 60_000), sealed, g, true);
    const checked = urls.check('o/a/b.jpg', q(u), now);
    expect(checked).toMatchObject({ kind: 'signed', download: true });
    expect(urls.openClient((checked as { visitor: string }).visitor)).toBe(email);
    // Anything else opens nothing: a pass id, a changed byte, another secret, junk.
    expect(urls.openClient('3f2a9c')).toBeUndefined();
    const flipped = sealed.slice(0, 10) + (sealed[10] === 'A' ? 'B' : 'A') + sealed.slice(11);
    expect(urls.openClient(flipped)).toBeUndefined();
    expect(new FileUrls(Buffer.from('other'), 'http://x').openClient(sealed)).toBeUndefined();
    expect(urls.openClient(`c.${'A'.repeat(60)}`)).toBeUndefined();
    expect(urls.openClient(`c.${'A'.repeat(391)}`)).toBeUndefined();
  });
});

describe('visitor pass', () => {
  const codec = new PassCodec(secret);
  it('round-trips, refuses tampering, other websites and expiry', () => {
    const now = Date.now();
    const pass = codec.withEmail(codec.withGallery(codec.fresh('w1', now), 'g1', '$argon2id$h1', now), 'A@B.C', now);
    const value = codec.encode(pass);
    expect(codec.decode(value, 'w1', now)).toEqual({ ...pass, email: 'a@b.c' });
    expect(codec.decode(value, 'w2', now)).toBeUndefined();
    expect(codec.decode(value, 'w1', now + 31 * 24 * 3600 * 1000)).toBeUndefined();
    const [body, mac] = value.split('.');
    const forged = Buffer.from(JSON.stringify({ ...pass, galleries: ['g1', 'g2'] })).toString('base64url');
    expect(codec.decode(`${forged}.${mac}`, 'w1', now)).toBeUndefined();
    // Another first character (an 'x' over an 'x' changed nothing: 1 run in 64 passed a real mac).
    expect(codec.decode(`${body}.${mac[0] === 'x' ? 'y' : 'x'}${mac.slice(1)}`, 'w1', now)).toBeUndefined();
    expect(codec.decode('garbage', 'w1', now)).toBeUndefined();
  });
});

describe('access stamp', () => {
  const urls = new FileUrls(secret, 'http://x');
  const accessStamp = (chain: GateGallery[]) => urls.accessStamp(accessState(chain));
  it('changes with anything that decides access along the chain, and only then; keyed by the secret', () => {
    const chain = [open('r'), { ...open('p'), passwordProtected: true, passwordHash: '$argon2id$h1', acl: [acl(true, false, true)] }];
    const stamp = accessStamp(chain);
    expect(accessStamp([open('r'), { ...open('p'), passwordProtected: true, passwordHash: '$argon2id$h1', acl: [acl(true, false, true)] }])).toBe(stamp);
    expect(accessStamp([open('r'), { ...chain[1], passwordHash: '$argon2id$h2' }])).not.toBe(stamp);
    expect(accessStamp([open('r'), { ...chain[1], acl: [acl(true, false, false)] }])).not.toBe(stamp);
    expect(accessStamp([open('r'), { ...chain[1], acl: [acl(true, false, true), acl(true, true, true, 'client@x.org')] }])).not.toBe(stamp);
    expect(accessStamp([open('r'), open('q'), chain[1]])).not.toBe(stamp);
    // Not a plain hash of the lists: without the secret, a guess of who is listed cannot be tested.
    expect(new FileUrls(Buffer.from('other'), 'http://x').accessStamp(accessState(chain))).not.toBe(stamp);
    expect(stamp).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });
});

describe('access decision', () => {
  const codec = new PassCodec(secret);
  const pass = codec.fresh('w');

  it('opens unprotected galleries to everyone, with no downloads', () => {
    expect(decide([open('r'), open('g')], undefined)).toEqual({ ok: true, compDownload: false, hiresDownload: false, restricted: false });
    expect(isPublic([open('r'), open('g')])).toBe(true);
  });

  it('asks for the password of the first protected gallery on the way, and a protection covers sub-galleries', () => {
    const chain = [open('r'), { ...open('p'), passwordProtected: true, passwordHash: '$argon2id$h1' }, open('child')];
    expect(decide(chain, undefined)).toEqual({ ok: false, need: 'password', gallery: 'p' });
    expect(decide(chain, codec.withGallery(pass, 'child', '$argon2id$h1'))).toEqual({ ok: false, need: 'password', gallery: 'p' });
    expect(decide(chain, codec.withGallery(pass, 'p', '$argon2id$h1'))).toMatchObject({ ok: true, restricted: true });
    expect(isPublic(chain)).toBe(false);
    // The pass holds the password it was given with: once the gallery's hash is another one (a
    // change, or the same password set again with a new salt), it opens nothing.
    const changed = [open('r'), { ...open('p'), passwordProtected: true, passwordHash: '$argon2id$h2' }, open('child')];
    expect(decide(changed, codec.withGallery(pass, 'p', '$argon2id$h1'))).toEqual({ ok: false, need: 'password', gallery: 'p' });
    expect(decide(changed, codec.withGallery(codec.withGallery(pass, 'p', '$argon2id$h1'), 'p', '$argon2id$h2'))).toMatchObject({ ok: true });
    // A pass from before versions (a bare UUID) and a protected gallery without its hash open nothing.
    expect(decide(chain, { ...pass, galleries: ['p'] })).toEqual({ ok: false, need: 'password', gallery: 'p' });
    expect(decide([open('r'), { ...open('p'), passwordProtected: true }], codec.withGallery(pass, 'p', '$argon2id$h1'))).toEqual({ ok: false, need: 'password', gallery: 'p' });
  });

  it('applies the default entry to everyone and a client entry to its proved address', () => {
    const closed = { ...open('c'), acl: [acl(false), acl(true, true, true, 'client@x.org')] };
    expect(decide([open('r'), closed, open('sub')], undefined)).toEqual({ ok: false, need: 'signin' });
    expect(decide([open('r'), closed, open('sub')], codec.withEmail(pass, 'other@x.org'))).toEqual({ ok: false, need: 'signin' });
    expect(decide([open('r'), closed, open('sub')], codec.withEmail(pass, 'Client@X.org'))).toEqual({ ok: true, compDownload: true, hiresDownload: true, restricted: true });
    const readable = { ...open('d'), acl: [acl(true, true, false)] };
    expect(decide([open('r'), readable], undefined)).toEqual({ ok: true, compDownload: true, hiresDownload: false, restricted: false });
    // Rights narrow down the tree: a sub-gallery cannot grant what its parent refused.
    const sub = { ...open('s'), acl: [acl(true, true, true)] };
    expect(decide([open('r'), readable, sub], undefined)).toMatchObject({ ok: true, compDownload: true, hiresDownload: false });
    // A client entry replaces the default for that address, refusals included.
    const refused = { ...open('e'), acl: [acl(true), acl(false, false, false, 'ex@x.org')] };
    expect(decide([refused], codec.withEmail(pass, 'ex@x.org'))).toEqual({ ok: false, need: 'signin' });
  });
});

describe('share links in the access decision and the pass', () => {
  const codec = new PassCodec(secret);
  const top = '0b7c6e1e-1111-4222-8333-944455550001';
  const shared = '0b7c6e1e-1111-4222-8333-944455550002';
  const below = '0b7c6e1e-1111-4222-8333-944455550003';
  const link = '0b7c6e1e-1111-4222-8333-944455550009';
  const closed = (uuid: string): GateGallery => ({ uuid, passwordProtected: false, acl: [acl(false)] });
  const holder = (download: 'none' | 'comps' | 'originals') => ({ ...codec.fresh('w'), share: { link, gallery: shared, lightbox: null, download, recipient: 'Ann' } });

  it('opens the shared gallery and those below it at the link level, nothing beside or above it', () => {
    expect(decide([open(top), closed(shared)], undefined)).toMatchObject({ ok: false, need: 'signin' });
    expect(decide([open(top), closed(shared)], holder('comps'))).toEqual({ ok: true, compDownload: true, hiresDownload: false, restricted: true });
    expect(decide([open(top), closed(shared), closed(below)], holder('originals'))).toEqual({ ok: true, compDownload: true, hiresDownload: true, restricted: true });
    expect(decide([open(top), closed(shared)], holder('none'))).toMatchObject({ ok: true, compDownload: false, hiresDownload: false });
    expect(decide([closed(top)], holder('originals'))).toMatchObject({ ok: false });
    // A lightbox's link opens no gallery.
    expect(decide([open(top), closed(shared)], { ...holder('originals'), share: { link, gallery: null, lightbox: shared, download: 'originals', recipient: 'Ann' } })).toMatchObject({ ok: false, need: 'signin' });
    // A gallery past its expiry is closed to a link too.
    expect(decide([open(top), { ...closed(shared), expiresAt: '2000-01-01T00:00:00Z' }], holder('originals'))).toMatchObject({ ok: false, need: 'closed' });
  });

  it('never writes a share into the pass cookie, and its own cookie cannot be made up', () => {
    const back = codec.decode(codec.encode(holder('originals')), 'w');
    expect(back?.share).toBeUndefined();
    const sealed = codec.sealShare(link);
    expect(codec.openShare(sealed)).toBe(link);
    expect(codec.openShare(`${'0b7c6e1e-1111-4222-8333-944455550008'}${sealed.slice(36)}`)).toBeUndefined();
    expect(codec.openShare(`${link}.x`)).toBeUndefined();
    expect(codec.openShare(undefined)).toBeUndefined();
    expect(new PassCodec(Buffer.from('other')).openShare(sealed)).toBeUndefined();
  });
});

// TRUST_PROXY: the client's address behind a proxy is the right-most hop of
// X-Forwarded-For that no trusted proxy wrote, never a hop the client wrote
// itself. Observed through what is keyed on it: the gallery password throttle
// (5 wrong passwords per gallery and address), which a client rotating the
// left-most hop must not escape. How the setting is read (hop counts,
// addresses, what is refused at start) is checked in the fast tier:
// test/unit/trust-proxy-config.test.ts.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_LIMITS } from '../../src/site/limits/throttle.js';
import { eachDatabase, TestService } from '../support/service.js';
import { worldOn, type World } from '../support/world.js';

/** A protected gallery of the world's website: its uuid and the password form's address. */
async function protectedGallery(w: World): Promise<{ uuid: string; form: string }> {
  const created = await w.client.request('POST', `/websites/${w.urlname}/galleries.xml`, {
    'gallery[name]': `Locked ${randomBytes(3).toString('hex')}`,
    'gallery[parent]': w.rootUuid,
    'gallery[password]': 'open sesame',
  });
  return { uuid: /<gallery-uuid>([^<]+)<\/gallery-uuid>/.exec(created.body)![1]!, form: `${w.svc.url}/sites/${w.urlname}/_password` };
}

/** One wrong password with this X-Forwarded-For; the status. */
async function wrongPassword(form: string, gallery: string, forwardedFor: string): Promise<number> {
  const res = await fetch(form, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor },
    body: new URLSearchParams({ gallery, password: `guess ${randomBytes(4).toString('hex')}`, back: '/' }).toString(),
  });
  await res.text();
  return res.status;
}

/** Statuses of wrong passwords sent with a different left-most hop each time. */
async function rotating(form: string, gallery: string, forwardedFor: (i: number) => string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i <= PASSWORD_LIMITS.perGallery.points; i++) statuses.push(await wrongPassword(form, gallery, forwardedFor(i)));
  return statuses;
}

const refusedAfterLimit = () => [...Array<number>(PASSWORD_LIMITS.perGallery.points).fill(403), 429];
const realAddress = () => `192.0.2.${randomBytes(1)[0]}`;

eachDatabase((kind) => {
  describe('TRUST_PROXY=1: the client address is the hop the proxy wrote', () => {
    let w: World;
    beforeAll(async () => {
      w = await worldOn(await TestService.start(kind, { TRUST_PROXY: '1' }));
    });
    afterAll(() => w?.svc.close());

    it('a client rotating a spoofed left-most hop is still throttled on its real address', async () => {
      const g = await protectedGallery(w);
      const real = realAddress();
      expect(await rotating(g.form, g.uuid, (i) => `10.1.${i}.7, ${real}`)).toEqual(refusedAfterLimit());
    });

    it('the address the proxy wrote is the client: another one is not throttled', async () => {
      const g = await protectedGallery(w);
      const address = `198.51.100.${randomBytes(1)[0]}`;
      expect(await rotating(g.form, g.uuid, () => address)).toEqual(refusedAfterLimit());
      // The same gallery from another address (the proxy's hop differs): counted apart.
      expect(await wrongPassword(g.form, g.uuid, `203.0.113.${randomBytes(1)[0]}`)).toBe(403);
    });
  });

  describe('TRUST_PROXY as a hop count and as addresses', () => {
    it('2: the client is two hops from the right, whatever it wrote further left', async () => {
      const w = await worldOn(await TestService.start(kind, { TRUST_PROXY: '2' }));
      try {
        const g = await protectedGallery(w);
        const real = realAddress();
        expect(await rotating(g.form, g.uuid, (i) => `10.1.${i}.7, ${real}, 10.0.0.2`)).toEqual(refusedAfterLimit());
      } finally {
        await w.svc.close();
      }
    });

    it('a list: the client is the right-most hop that is not a listed proxy', async () => {
      const w = await worldOn(await TestService.start(kind, { TRUST_PROXY: '127.0.0.1,10.0.0.0/8' }));
      try {
        const g = await protectedGallery(w);
        const real = realAddress();
        expect(await rotating(g.form, g.uuid, (i) => `172.16.${i}.7, ${real}, 10.0.0.2, 10.9.8.7`)).toEqual(refusedAfterLimit());
      } finally {
        await w.svc.close();
      }
    });
  });

  describe('no TRUST_PROXY: X-Forwarded-For is not read at all', () => {
    it('every request is the connection address', async () => {
      const w = await worldOn(await TestService.start(kind));
      try {
        const g = await protectedGallery(w);
        expect(await rotating(g.form, g.uuid, (i) => `10.1.${i}.7`)).toEqual(refusedAfterLimit());
      } finally {
        await w.svc.close();
      }
    });
  });
});

// The pure parts of host names (src/websites/hostnames.ts, RESERVED_HOSTNAMES in src/config.ts):
// which names are the service's own, and what a TXT lookup's answers and failures mean.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { checkTxtProof, isOwnHost, ownHosts } from '../../src/websites/hostnames.js';

describe("the service's own host names", () => {
  it("are PUBLIC_URL's, the object store endpoint's and RESERVED_HOSTNAMES', compared without port and case", () => {
    const own = ownHosts({
      publicUrl: 'https://Studio.Example.com:8443',
      storageUrl: 's3://media?endpoint=https%3A%2F%2Fobjects.example.com%3A9000&region=eu',
      reservedHostnames: ['www.example.com:80', 'status.example.com'],
    });
    expect([...own].sort()).toEqual(['objects.example.com', 'status.example.com', 'studio.example.com', 'www.example.com']);
    for (const name of ['studio.example.com', 'STUDIO.example.com:1', 'objects.example.com', 'www.example.com:8080', 'status.example.com']) expect([name, isOwnHost(name, own)]).toEqual([name, true]);
    for (const name of ['photos.example.com', 'example.com', 'studio.example.com.evil.test']) expect([name, isOwnHost(name, own)]).toEqual([name, false]);
    // Local files: no object store host.
    expect([...ownHosts({ publicUrl: 'http://localhost:8080' })]).toEqual(['localhost']);
  });

  it('RESERVED_HOSTNAMES takes host names separated by commas; anything else stops the start', () => {
    expect(loadConfig({ RESERVED_HOSTNAMES: ' A.example.com , b.example.com:8443,' }).reservedHostnames).toEqual(['a.example.com', 'b.example.com:8443']);
    expect(loadConfig({}).reservedHostnames).toEqual([]);
    for (const bad of ['http://a.example.com', 'a b', 'a..b', '-a.example.com', 'a.example.com/x']) expect(() => loadConfig({ RESERVED_HOSTNAMES: bad })).toThrow(/RESERVED_HOSTNAMES/);
  });
});

describe('the TXT proof', () => {
  const resolverOf = (answer: string[][] | { code: string }) => ({
    resolveTxt: async () => (Array.isArray(answer) ? answer : Promise.reject(Object.assign(new Error(answer.code), answer))),
  });

  it('is found when one record, its strings joined, is the token', async () => {
    expect(await checkTxtProof(resolverOf([['other'], ['mps-ab', 'cd']]), 'Photos.example.com:8443', 'mps-abcd')).toEqual({ ok: true });
    expect(await checkTxtProof(resolverOf([['mps-abcd-and-more']]), 'photos.example.com', 'mps-abcd')).toEqual({ ok: false, reason: '_mps-challenge.photos.example.com has TXT records, but none of them is the token.' });
  });

  it('says why it was not found, naming the record and nothing the DNS answered', async () => {
    expect(await checkTxtProof(resolverOf({ code: 'ENOTFOUND' }), 'photos.example.com', 't')).toEqual({ ok: false, reason: 'No TXT record was found at _mps-challenge.photos.example.com yet.' });
    expect(await checkTxtProof(resolverOf({ code: 'ENODATA' }), 'photos.example.com', 't')).toMatchObject({ ok: false });
    expect(await checkTxtProof(resolverOf({ code: 'ETIMEOUT' }), 'photos.example.com', 't')).toEqual({ ok: false, reason: 'The DNS lookup of _mps-challenge.photos.example.com did not succeed (ETIMEOUT); try again later.' });
  });
});

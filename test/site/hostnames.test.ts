// A website's own host name (issue 29, items 1 and 14; docs/website.md "Host names"), on SQLite
// and PostgreSQL: the service's own names refused (API, studio, operator), a photographer's name
// waiting for its DNS proof before any Host reaches the website, the proof looked for through
// an injected resolver (never the network), the operator's names in effect at once, the TLS
// `ask` of the Caddy front, and the lookups of unknown names remembered and budgeted.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { find, text } from '../../src/client/xml.js';
import type { TxtResolver } from '../../src/websites/hostnames.js';
import { eachDatabase, TestService, type TestUser } from '../support/service.js';
import { failure, worldOn, type World } from '../support/world.js';
import { fieldError, StudioBrowser } from '../studio/studio-support.js';
import { visit } from './site-support.js';
import { startS3, type LocalS3 } from '../api/uploads-support.js';

/** The DNS the service asks, as a test sets it: TXT records by name; an unknown name is NXDOMAIN. */
class FakeDns implements TxtResolver {
  readonly records = new Map<string, string[][]>();
  readonly asked: string[] = [];
  async resolveTxt(name: string): Promise<string[][]> {
    this.asked.push(name);
    const found = this.records.get(name);
    if (!found) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found;
  }
}

const fresh = (label: string) => `${label}-${randomBytes(4).toString('hex')}.example.test`;

eachDatabase((kind) => {
  let svc: TestService;
  let w: World;
  let s3: LocalS3;
  /** The object store's endpoint, named apart from PUBLIC_URL's 127.0.0.1 (localhost: /etc/hosts, no network). */
  let storageHost: string;
  const dns = new FakeDns();
  beforeAll(async () => {
    s3 = await startS3();
    storageHost = `localhost:${new URL(s3.endpoint).port}`;
    const env = {
      ...s3.env,
      STORAGE_URL: s3.env.STORAGE_URL.replace(encodeURIComponent('127.0.0.1'), 'localhost'),
      SITE_CACHE_SECONDS: '0',
      VISITOR_RATE_LIMIT: 'off',
      RESERVED_HOSTNAMES: 'Reserved.example.test, www.studio.example.test:8443',
    };
    svc = await TestService.start(kind, env, undefined, { resolver: dns });
    w = await worldOn(svc);
  });
  afterAll(async () => {
    await svc?.close();
    await s3?.close();
  });

  const own = () => new URL(svc.url).host;
  const putHostname = (client: World['client'], urlname: string, hostname: string) => client.request('PUT', `/websites/${urlname}.xml`, { 'website[hostname]': hostname });
  const details = async (client: World['client'], urlname: string) => find((await client.request('GET', `/websites/${urlname}.xml`)).doc, 'website')!;
  const verify = (client: World['client'], urlname: string) => client.request('POST', `/websites/${urlname}/hostname_verification.xml`);
  /** Whether the website's pages answer at `host` (its root gallery: the website's title in the page). */
  const servedAt = async (host: string, title: string) => {
    const page = await visit(svc, '/', { host });
    return page.status === 200 && page.body.includes(title);
  };

  describe("the service's own host names", () => {
    it("refuses PUBLIC_URL's host, the object store's and the reserved ones, any case, with or without a port (422 naming the field)", async () => {
      const [host, port] = own().split(':');
      const names = [own(), host, `${host}:1234`, storageHost.toUpperCase(), 'localhost', 'localhost:9000', 'reserved.example.test:80', 'RESERVED.example.test', 'www.studio.example.test'];
      for (const name of names) {
        const refused = await failure(putHostname(w.client, w.urlname, name));
        expect([name, refused.status]).toEqual([name, 422]);
        expect(refused.message).toContain('website[hostname]');
        expect(refused.message).toContain('this service itself');
      }
      expect(port).toBeTruthy();
      const d = await details(w.client, w.urlname);
      expect([text(d, 'hostname') ?? '', text(d, 'hostname-pending') ?? '']).toEqual(['', '']);
      // The service's root, robots.txt and sign-in stay the service's, not a website's.
      const root = await visit(svc, '/');
      expect(root.status).toBe(404);
      expect(root.headers['content-type']).toContain('xml');
      expect((await visit(svc, '/robots.txt')).headers['content-type']).toContain('xml');
      expect((await visit(svc, '/_signin')).status).toBe(404);
    });

    it('refuses them to the operator too, and never serves a website at one whatever its row says', async () => {
      await expect(svc.core.websites.create(w.user, { urlname: `own-${randomBytes(3).toString('hex')}`, hostname: 'reserved.example.test' })).rejects.toThrow(/this service itself/);
      // A name taken before the rule existed: the website is not served there.
      const site = await svc.website(w.user);
      await svc.db.updateTable('websites').set({ hostname: own() }).where('urlname', '=', site.urlname).execute();
      expect(await servedAt(own(), `Site ${site.urlname}`)).toBe(false);
      expect((await visit(svc, '/_tls/ask?domain=' + own().split(':')[0])).status).toBe(404);
      await svc.db.updateTable('websites').set({ hostname: null }).where('urlname', '=', site.urlname).execute();
    });

    it('shows the refusal next to the host name field in the studio', async () => {
      const b = await new StudioBrowser(svc).signIn(w.user);
      const path = `/studio/websites/${w.urlname}`;
      const res = await b.submit(path, path, { title: 'Mine', hostname: own() });
      expect(res.status).toBe(422);
      expect(fieldError(res.body, 'hostname')).toContain('this service itself');
    });
  });

  describe('proof of control', () => {
    it("a photographer's host name waits for its TXT record; found, it takes effect (API)", async () => {
      const host = fresh('photos');
      const put = await putHostname(w.client, w.urlname, host.toUpperCase());
      const asked = find(put.doc, 'website')!;
      expect(text(asked, 'hostname') ?? '').toBe('');
      expect(text(asked, 'home-url')).toBe(`${svc.url}/sites/${w.urlname}`);
      expect(text(asked, 'hostname-pending')).toBe(host);
      expect(text(asked, 'hostname-record')).toBe(`_mps-challenge.${host}`);
      const token = text(asked, 'hostname-token')!;
      expect(token).toMatch(/^mps-[0-9a-f]{32}$/);
      // Pending: no Host reaches the website, nor its robots.txt, sign-in, pages or TLS.
      expect(await servedAt(host, `Site ${w.urlname}`)).toBe(false);
      for (const path of ['/robots.txt', '/sitemap.xml', '/_signin', '/p/about']) expect((await visit(svc, path, { host })).status).toBe(404);
      expect((await visit(svc, `/_tls/ask?domain=${host}`)).status).toBe(404);
      // Asking again for the same name keeps its token.
      expect(text(find((await putHostname(w.client, w.urlname, host)).doc, 'website')!, 'hostname-token')).toBe(token);

      // No record yet: not verified, the reason kept and told.
      const missing = await verify(w.client, w.urlname);
      expect(text(missing.doc, 'verified')).toBe('false');
      expect(text(missing.doc, 'message')).toContain(`No TXT record was found at _mps-challenge.${host}`);
      expect(text(find(missing.doc, 'website')!, 'hostname-check')).toContain('No TXT record');
      expect(text(find(missing.doc, 'website')!, 'hostname-checked-at')).toBeTruthy();
      expect(dns.asked).toContain(`_mps-challenge.${host}`);
      // A record with something else: still not.
      dns.records.set(`_mps-challenge.${host}`, [['v=spf1 -all'], ['mps-0000']]);
      expect(text((await verify(w.client, w.urlname)).doc, 'message')).toContain('none of them is the token');
      expect(await servedAt(host, `Site ${w.urlname}`)).toBe(false);

      // The token (split in strings, as long TXT records are): in effect at once.
      dns.records.set(`_mps-challenge.${host}`, [['v=spf1 -all'], [token.slice(0, 10), token.slice(10)]]);
      const done = await verify(w.client, w.urlname);
      expect(text(done.doc, 'verified')).toBe('true');
      const d = find(done.doc, 'website')!;
      expect([text(d, 'hostname'), text(d, 'home-url'), text(d, 'hostname-pending') ?? '', text(d, 'hostname-token') ?? '']).toEqual([host, `https://${host}`, '', '']);
      expect(await servedAt(host, `Site ${w.urlname}`)).toBe(true);
      expect((await visit(svc, `/_tls/ask?domain=${host}`)).status).toBe(200);
      // Nothing pending any more: verifying again is a 422.
      expect((await failure(verify(w.client, w.urlname))).status).toBe(422);

      // A new name waits while the one in effect keeps serving; blank gives both up at once.
      const next = fresh('next');
      expect(text(find((await putHostname(w.client, w.urlname, next)).doc, 'website')!, 'hostname')).toBe(host);
      expect(await servedAt(host, `Site ${w.urlname}`)).toBe(true);
      expect(await servedAt(next, `Site ${w.urlname}`)).toBe(false);
      const cleared = find((await putHostname(w.client, w.urlname, '')).doc, 'website')!;
      expect([text(cleared, 'hostname') ?? '', text(cleared, 'hostname-pending') ?? '']).toEqual(['', '']);
      expect(await servedAt(host, `Site ${w.urlname}`)).toBe(false);
    });

    it('a name pending on two websites goes to the first that proves it; the other is told', async () => {
      const host = fresh('contested');
      const rival = await worldOn(svc);
      const mine = await worldOn(svc);
      await putHostname(rival.client, rival.urlname, host);
      await putHostname(mine.client, mine.urlname, host);
      const token = text(await details(mine.client, mine.urlname), 'hostname-token')!;
      dns.records.set(`_mps-challenge.${host}`, [[token]]);
      expect(text((await verify(rival.client, rival.urlname)).doc, 'verified')).toBe('false');
      expect(text((await verify(mine.client, mine.urlname)).doc, 'verified')).toBe('true');
      // Now in effect for one: asking for it elsewhere is refused at once.
      const third = await worldOn(svc);
      expect((await failure(putHostname(third.client, third.urlname, host))).message).toContain('another website');
      expect(await servedAt(host, `Site ${mine.urlname}`)).toBe(true);
    });

    it("another user's website: verifying it is a 404", async () => {
      const other = await worldOn(svc);
      await putHostname(other.client, other.urlname, fresh('theirs'));
      expect((await failure(verify(w.client, other.urlname))).status).toBe(404);
    });

    it('the studio shows the pending name with its record and token, and "Verify now" checks it', async () => {
      const mine = await worldOn(svc);
      const b = await new StudioBrowser(svc).signIn(mine.user);
      const path = `/studio/websites/${mine.urlname}`;
      const host = fresh('studio');
      expect((await b.submit(path, path, { title: 'Studio host', hostname: host })).status).toBe(303);
      const page = await b.get(path);
      const token = text(await details(mine.client, mine.urlname), 'hostname-token')!;
      expect(page.body).toContain(`_mps-challenge.${host}`);
      expect(page.body).toContain(token);
      expect(page.body).toContain('Waiting for proof');
      // The field keeps the name asked for: saving other settings keeps it pending, token unchanged.
      expect(page.body).toContain(`value="${host}"`);
      expect((await b.submit(path, path, { title: 'Studio host 2', hostname: host })).status).toBe(303);
      expect(text(await details(mine.client, mine.urlname), 'hostname-token')).toBe(token);

      const notYet = await b.submit(path, `${path}/hostname/verify`, {});
      expect(notYet.status).toBe(303);
      expect((await b.get(notYet.headers.get('location')!)).body).toContain('No TXT record was found');
      dns.records.set(`_mps-challenge.${host}`, [[token]]);
      const done = await b.submit(path, `${path}/hostname/verify`, {});
      expect(done.status).toBe(303);
      const after = await b.get(done.headers.get('location')!);
      expect(after.body).toContain(`${host} is in effect`);
      expect(after.body).not.toContain('Waiting for proof');
      expect(await servedAt(host, 'Studio host 2')).toBe(true);
      // Without the page's token the action is refused and checks nothing.
      expect((await b.post(`${path}/hostname/verify`, { csrf: 'wrong' })).status).toBe(403);
    });

    it('the operator sets a name in effect at once (admin website set --hostname, website create --hostname)', async () => {
      const host = fresh('operator');
      const site = await svc.website(w.user);
      const d = await svc.core.websites.setBrand({ operator: true }, site.urlname, { hostname: host });
      expect([d.website.hostname, d.website.hostname_pending]).toEqual([host, null]);
      expect(await servedAt(host, `Site ${site.urlname}`)).toBe(true);
    });
  });

  describe("Caddy's on-demand TLS ask", () => {
    it('answers 200 only for the verified name of a website whose owner may sign in; 404 for anything else', async () => {
      const owner: TestUser = await svc.user();
      const host = fresh('tls');
      await svc.core.websites.create(owner, { urlname: `tls-${randomBytes(3).toString('hex')}`, hostname: host });
      const ask = async (query: string) => {
        const r = await visit(svc, `/_tls/ask${query}`);
        return [r.status, r.body];
      };
      expect(await ask(`?domain=${host}`)).toEqual([200, 'ok\n']);
      expect(await ask(`?domain=${host.toUpperCase()}`)).toEqual([200, 'ok\n']);
      for (const q of ['', '?domain=', `?domain=${host}:443`, '?domain=unknown.example.test', `?domain=${'a'.repeat(300)}`, '?domain=%00', `?domain=${host}&domain=x`]) {
        expect([q, ...(await ask(q))]).toEqual([q, 404, 'not found\n']);
      }
      await svc.core.users.setDisabled(owner.uuid, true);
      expect(await ask(`?domain=${host}`)).toEqual([404, 'not found\n']);
    });
  });
});

// Item 14: a Host that names no website costs a request of the visitor's budget, and is
// remembered briefly (HOST_MISS_MS); a name taking effect is served at once on this node.
eachDatabase((kind) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await TestService.start(kind, { SITE_CACHE_SECONDS: '0', VISITOR_RATE_LIMIT: '5/60s' }, undefined, { resolver: new FakeDns() });
  });
  afterAll(() => svc?.close());

  it('unknown Host names take from the visitor budget: past it, a 429 with Retry-After', async () => {
    // Every request from the test's one address, each with a name no website has.
    const answers: number[] = [];
    for (let i = 0; i < 7; i++) answers.push((await visit(svc, '/', { host: fresh(`nobody${i}`) })).status);
    expect(answers.slice(0, 5)).toEqual([404, 404, 404, 404, 404]);
    const over = await visit(svc, '/robots.txt', { host: fresh('nobody') });
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
  });
});

eachDatabase((kind) => {
  let svc: TestService;
  let w: World;
  const dns = new FakeDns();
  beforeAll(async () => {
    svc = await TestService.start(kind, { SITE_CACHE_SECONDS: '0', VISITOR_RATE_LIMIT: 'off' }, undefined, { resolver: dns });
    w = await worldOn(svc);
  });
  afterAll(() => svc?.close());

  it('a miss is remembered (a row written behind the service is not seen yet); a verification is seen at once', async () => {
    const host = fresh('remembered');
    expect((await visit(svc, '/', { host })).status).toBe(404);
    expect((await visit(svc, `/_tls/ask?domain=${host}`)).status).toBe(404);
    // Written straight into the database, as another node would: this node still remembers the miss.
    await svc.db.updateTable('websites').set({ hostname: host }).where('urlname', '=', w.urlname).execute();
    expect((await visit(svc, '/', { host })).status).toBe(404);
    expect((await visit(svc, `/_tls/ask?domain=${host}`)).status).toBe(404);
    await svc.db.updateTable('websites').set({ hostname: null }).where('urlname', '=', w.urlname).execute();

    // Proved through the service: this node forgets its miss of the name (any port) at once.
    await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[hostname]': host });
    expect((await visit(svc, '/', { host: `${host}:8080` })).status).toBe(404);
    const token = text(find((await w.client.request('GET', `/websites/${w.urlname}.xml`)).doc, 'website')!, 'hostname-token')!;
    dns.records.set(`_mps-challenge.${host}`, [[token]]);
    expect(text((await w.client.request('POST', `/websites/${w.urlname}/hostname_verification.xml`)).doc, 'verified')).toBe('true');
    expect((await visit(svc, '/', { host })).status).toBe(200);
    expect((await visit(svc, '/', { host: `${host}:8080` })).status).toBe(200);
    expect((await visit(svc, `/_tls/ask?domain=${host}`)).status).toBe(200);
  });
});

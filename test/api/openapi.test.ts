// The OpenAPI description (docs/api.md "OpenAPI"): served unsigned at GET /openapi.json with an
// ETag, equal to the committed docs/openapi.json (drift fails here), valid OpenAPI 3.1, naming
// every registered route; and every SDK method calls an operation it describes with declared names.
import { readFile } from 'node:fs/promises';
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaPortfolioClient, MemorySessionStore, parseXml, type GalleryAttributes } from '../../src/client/index.js';
import { namePattern, openApiDocument, templateOf, templatePattern } from '../../src/http/openapi.js';
import { TestService } from '../support/service.js';

type Json = Record<string, any>;
const COPY = new URL('../../docs/openapi.json', import.meta.url);

describe('GET /openapi.json', () => {
  let svc: TestService;
  beforeAll(async () => {
    // The route tables do not depend on the database: one store is enough.
    svc = await TestService.start('sqlite');
  });
  afterAll(() => svc?.close());

  it('is served unsigned, cacheable, and revalidated by its ETag', async () => {
    const res = await fetch(`${svc.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toContain('public');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await fetch(`${svc.url}/openapi.json`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('equals the committed docs/openapi.json (run npm run openapi after changing a route)', async () => {
    const served = await (await fetch(`${svc.url}/openapi.json`)).text();
    expect(served).toBe(await readFile(COPY, 'utf8'));
    expect(JSON.parse(served)).toEqual(openApiDocument(svc.service.routes));
  });

  it('names every registered route with its method, and no other', async () => {
    const doc = JSON.parse(await readFile(COPY, 'utf8')) as Json;
    const described = Object.entries(doc.paths as Json).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const registered = svc.service.routes.map((r) => `${r.method} ${templateOf(r.path)}`);
    expect(described.sort()).toEqual([...registered].sort());
    expect(registered.length).toBeGreaterThan(60);
  });

  it('marks the routes that read their parameters by hand, and only those', () => {
    const doc = openApiDocument(svc.service.routes) as Json;
    for (const r of svc.service.routes) {
      const op = doc.paths[templateOf(r.path)][r.method.toLowerCase()];
      expect(op['x-parameters'], `${r.method} ${r.path}`).toBe(r.input && r.input.names.length > 0 && !r.input.docs ? 'undeclared' : undefined);
    }
  });
});

describe('docs/openapi.json', () => {
  let doc: Json;
  beforeAll(async () => {
    doc = JSON.parse(await readFile(COPY, 'utf8'));
  });

  it('validates as OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as Parameters<typeof validate>[0]);
    expect(result.valid, JSON.stringify((result as { errors?: unknown }).errors ?? [])).toBe(true);
  });

  it('describes the signature as a security scheme, XML replies, the error document, bounds and choices', () => {
    expect(doc.components.securitySchemes.signature).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Service-Authorization' });
    expect(doc.components.securitySchemes.signature.description).toContain('X-Service-Timestamp');
    expect(doc.components.schemas.Error.xml.name).toBe('reply');
    expect(doc.components.schemas.Error.properties['error-code'].enum).toEqual(expect.arrayContaining(['invalid_parameter', 'signature_invalid', 'not_found']));
    const list = doc.paths['/websites/{urlname}/galleries.xml'].get;
    expect(list.responses['200'].content['application/xml'].schema.$ref).toBe('#/components/schemas/Reply');
    expect(list.parameters).toEqual(expect.arrayContaining([{ name: 'per_page', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500 } }]));
    expect(list.parameters.find((p: Json) => p.name === 'view').schema).toEqual({ type: 'string', enum: ['list', 'details'], default: 'list' });
    const create = doc.paths['/websites/{urlname}/galleries.xml'].post.requestBody.content['application/x-www-form-urlencoded'].schema;
    expect(create.required).toEqual(expect.arrayContaining(['gallery[name]']));
    expect(create.properties['gallery[name]'].maxLength).toBe(255);
    expect(doc.paths['/ping.xml'].get.security).toEqual([{ signature: [] }]);
  });

  it("describes the lab's, the whole sale's and the price lists' fields from their declared specs, items and print options included", () => {
    const body = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/x-www-form-urlencoded'].schema;
    for (const [path, method] of [['/lab.xml', 'put'], ['/galleries/{uuid}/sale.xml', 'put'], ['/pricing_profiles.xml', 'post'], ['/pricing_profiles/{uuid}.xml', 'put']]) {
      expect(doc.paths[path][method]['x-parameters'], `${method} ${path}`).toBeUndefined();
    }
    expect(body('/lab.xml', 'put').properties).toMatchObject({ 'lab[email]': { type: 'string', maxLength: 254 }, 'lab[auto]': { enum: ['0', '1', 'true', 'false'] } });
    expect(body('/galleries/{uuid}/sale.xml', 'put').properties).toMatchObject({
      'sale[price]': { type: 'integer', minimum: 0, maximum: 1_000_000_000 },
      'sale[pricing_profile]': { type: 'string', format: 'uuid' },
      'sale[item]': { type: 'string', maxLength: 200 },
    });
    const create = body('/pricing_profiles.xml', 'post');
    expect(create.required).toEqual(expect.arrayContaining(['pricing_profile[name]', 'pricing_profile[kind]', 'pricing_profile[currency]']));
    expect(create.properties['pricing_profile[kind]'].enum).toEqual(['download', 'print']);
    // Numbered names (`*`: one bracket segment) are pattern properties.
    const numbered = (name: string) => create.patternProperties[namePattern(name).source];
    expect(numbered('pricing_profile[items][*][long_edge]')).toEqual({ type: 'integer', minimum: 1, maximum: 65_535 });
    expect(numbered('pricing_profile[items][*][options][*][ratio]')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(numbered('pricing_profile[items][*][options][*][label]')).toEqual({ type: 'string', maxLength: 200 });
  });
});

/** The typed keys of an SDK input (its index signature left out). */
type Known<T> = keyof { [K in keyof T as string extends K ? never : K]: T[K] };

describe('the SDK against the description', () => {
  const GENERIC = new Set(['constructor', 'rateLimit', 'sessionCookie', 'setCookie', 'hasCredentials', 'request', 'finish', 'prepare', 'send', 'paginate']);
  // Every typed gallery attribute (tsc fails here when one is added to GalleryAttributes without a value).
  const every: { [K in Known<GalleryAttributes>]-?: NonNullable<GalleryAttributes[K]> } = {
    name: 'n', parent: 'p', url_path: 'u', description: 'd', display_style: 's', cover_media: 'c', public_cover_media: 'c', hidden: 1, indexing: 1, password: 'x',
    content_order: 'shot_at', content_order_direction: 'asc', order_subgalleries: 1, medias_order: ['a', 'b'], acl: [{ email: 'a@b.c', read: true, comp_download: false, hires_download: 1 }],
  };
  const calls: Record<string, (c: MediaPortfolioClient) => Promise<unknown>> = {
    ping: (c) => c.ping('x'),
    pingAuth: (c) => c.pingAuth('x'),
    whoami: (c) => c.whoami(),
    logout: (c) => c.logout(),
    websites: (c) => c.websites('details', { page: 1, per_page: 10 }),
    artists: (c) => c.artists('details'),
    galleries: (c) => c.galleries('site', { view: 'details', page: 2 }),
    gallery: (c) => c.gallery('site', 'g-uuid', 'details_with_medias'),
    createGallery: (c) => c.createGallery('site', every as GalleryAttributes & { name: string; parent: string }),
    updateGallery: (c) => c.updateGallery('site', 'g-uuid', every),
    deleteGallery: (c) => c.deleteGallery('site', 'g-uuid', { delete_medias: 1, medias_count: 3 }),
    changes: (c) => c.changes('0', 50),
    followChanges: (c) => c.followChanges('0', () => undefined, { perPage: 10 }),
    completeUpload: (c) => c.completeUpload(parseXml('<media><uuid>m-uuid</uuid><upload-location>L</upload-location><file-name>a.jpg</file-name><mime-type>image/jpeg</mime-type></media>'), 5),
  };

  it('has a call here for every public SDK method', () => {
    const methods = Object.getOwnPropertyNames(MediaPortfolioClient.prototype).filter((n) => !GENERIC.has(n));
    expect(Object.keys(calls).sort()).toEqual(methods.sort());
  });

  it('calls only described operations, with declared parameter names', async () => {
    const doc = JSON.parse(await readFile(COPY, 'utf8')) as Json;
    const seen: Array<{ method: string; path: string; names: string[] }> = [];
    const recording: typeof fetch = async (url, init) => {
      const u = new URL(String(url));
      const body = init?.body;
      const form = typeof body === 'string' ? [...new URLSearchParams(body).keys()] : body instanceof FormData ? [...body.keys()] : [];
      const names = [...u.searchParams.keys(), ...form];
      const override = form.includes('_method') ? (body as FormData | string) : undefined;
      const method = override ? (typeof override === 'string' ? new URLSearchParams(override).get('_method')! : String(override.get('_method'))) : init!.method!;
      seen.push({ method, path: u.pathname, names: names.filter((n) => n !== '_method') });
      return new Response('<reply><next-cursor>c1</next-cursor><has-more>false</has-more></reply>', { status: 200, headers: { 'content-type': 'application/xml' } });
    };
    for (const [name, call] of Object.entries(calls)) {
      const client = new MediaPortfolioClient({ baseUrl: 'https://api.example', apiKey: 'k', apiSecret: 's', login: 'l', password: 'p', fetch: recording, throttle: false, session: new MemorySessionStore('cookie') });
      const before = seen.length;
      await call(client);
      expect(seen.length, `${name} sent no request`).toBeGreaterThan(before);
    }
    for (const req of seen) {
      const template = Object.keys(doc.paths).find((t) => templatePattern(t).test(req.path) && doc.paths[t][req.method.toLowerCase()]);
      expect(template, `${req.method} ${req.path} is not described`).toBeDefined();
      const op = doc.paths[template!][req.method.toLowerCase()];
      const schema = op.requestBody?.content['multipart/form-data'].schema;
      const declared = [...(op.parameters ?? []).filter((p: Json) => p.in === 'query').map((p: Json) => p.name), ...Object.keys(schema?.properties ?? {}), ...Object.keys(op['x-query-patterns'] ?? {}), ...Object.keys(schema?.patternProperties ?? {})];
      for (const n of req.names) {
        expect(declared.some((d) => (d.startsWith('^') ? new RegExp(d) : namePattern(d)).test(n)), `${req.method} ${template} sends ${n}, not declared`).toBe(true);
      }
    }
  });
});

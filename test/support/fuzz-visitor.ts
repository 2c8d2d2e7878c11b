// The machinery of the visitor fuzz test (test/site/fuzz-visitor.test.ts):
// fast-check generators of the requests a hostile visitor sends to every
// unsigned path (website pages by prefix and by hostname, /files, the password
// and sign-in forms, sign-in links, robots, sitemap, /healthz, /readyz,
// /metrics), their exact bytes, and the checks every reply must pass. Requests
// name the seeded world symbolically (`{ ref }`), so a seed and a run index
// replay the same request on a fresh world. The raw client is the API fuzz's
// (test/support/fuzz.ts).
import fc from 'fast-check';
import { BAD_UTF8_BYTES, BAD_UTF8_WIRE, bytesWire, CONTROL, PROTO, sometimes, w, XMLISH, type Reply, type Wire } from './fuzz.js';

// ---- values ------------------------------------------------------------------

/** Things of the seeded world a request may name; resolved when the request is sent. */
export const VISITOR_REFS = [
  /** The website visited: by prefix and at its hostname. */
  'urlname',
  'hostname',
  /** Another photographer's website, for redirects that would land there. */
  'foreignUrlname',
  /** The service's own Host (127.0.0.1:port). */
  'serviceHost',
  /** Full url paths of galleries: listed, sub, hidden (indexing 2), password, access list, hidden and protected. */
  'publicPath',
  'subPath',
  'hiddenPath',
  'passwordPath',
  'aclPath',
  'hiddenPasswordPath',
  /** A listed gallery whose access list lets everyone download (comps and originals): its archive is served. */
  'downloadPath',
  /** UUIDs. */
  'publicMedia',
  'passwordMedia',
  'aclMedia',
  'passwordGallery',
  'aclGallery',
  'hiddenPasswordGallery',
  /** The gallery open to all (favourites name a gallery by UUID). */
  'publicGallery',
  'galleryPassword',
  /** Storage keys: a public rendition, a rendition of a protected gallery, an original. */
  'publicKey',
  'protectedKey',
  'originalKey',
  'publicEtag',
  /** Query strings of signed file addresses: valid, valid download, expired, for another key. */
  'signedQuery',
  'downloadQuery',
  /** A download address whose visitor is a sealed e-mail address (FileUrls.sealClient: the download is recorded as theirs). */
  'sealedDownloadQuery',
  'expiredQuery',
  'otherKeyQuery',
  /** A pass that opens the password gallery (mps_visitor=…). */
  'passCookie',
  /** A fresh sign-in token (each use takes the next), one already used, one of another website. */
  'token',
  'usedToken',
  'foreignToken',
  /** Share links (docs/integrations.md "Share links"): live, live behind a password, revoked. */
  'shareToken',
  'sharePasswordToken',
  'shareRevokedToken',
  /** A live share link to a lightbox, and that lightbox's UUID (its page, `_lightbox/<uuid>`). */
  'shareLightboxToken',
  'sharedLightbox',
  'metricsToken',
  'asset',
] as const;
export type VRef = (typeof VISITOR_REFS)[number];

/**
 * One piece of text. A string goes on the wire as is in a path or header (it
 * is ASCII) and percent-encoded in a query or form; `text` is percent-encoded
 * everywhere but headers; `wire` and `bytes` are sent exactly.
 */
export type VPiece = string | { ref: VRef; mut?: 'upper' | 'suffix' | 'truncate' } | { text: string } | { wire: string } | { bytes: number[] } | { repeat: string; count: number };
export type VValue = VPiece[];
export type VField = [name: VValue, value?: VValue];

export type Target = 'site' | 'files' | 'ops' | 'other';

export interface VisitorRequest {
  /** What is being visited, for the checks and the report. */
  target: Target;
  /** How a website is addressed: `/sites/<urlname>/…`, or at the Host; none for other paths. */
  scheme: 'prefix' | 'host' | 'none';
  method: string;
  /** The path, from its first slash, without the query. */
  path: VValue;
  query: VField[];
  /** undefined: no Host header. */
  host?: VValue;
  headers: Array<[string, VValue]>;
  body?: { type?: VValue; data: VValue | VField[] };
}

const ref = (r: VRef, mut?: 'upper' | 'suffix' | 'truncate'): VPiece => (mut ? { ref: r, mut } : { ref: r });
const constants = (...values: string[]) => fc.constantFrom(...values).map((s): VValue => [s]);

/** A value that goes wrong in one of the ways visitors (and attackers) go wrong. */
const junk: fc.Arbitrary<VValue> = fc.oneof(
  w(3, fc.string({ maxLength: 16 }).map((s): VValue => [{ text: s }])),
  w(2, fc.string({ unit: 'grapheme', maxLength: 10 }).map((s): VValue => [{ text: s }])),
  w(2, constants('', '0', '-1', '1e3', 'NaN', '99999999999999999999', '[]', 'null', '..', '.', '/', '%', '%%', '%00')),
  w(2, fc.constantFrom(...PROTO).map((s): VValue => [s])),
  w(2, fc.constantFrom(...CONTROL).map((c): VValue => [{ text: `a${c}b` }])),
  w(2, fc.constantFrom(...BAD_UTF8_WIRE).map((s): VValue => ['x', { wire: s }])),
  w(1, fc.constantFrom(...BAD_UTF8_BYTES).map((b): VValue => ['x', { bytes: b }])),
  w(1, fc.constantFrom(...XMLISH).map((s): VValue => [{ text: s }])),
  w(1, fc.tuple(fc.constantFrom('x', 'é', '%2e', '/'), fc.constantFrom(300, 3000, 9000)).map(([s, count]): VValue => [{ repeat: s, count }])),
  w(1, fc.uuid().map((u): VValue => [u])),
);

/** Return addresses a hostile page plants in `back`: off-site, up and out of the home, or another website. */
const hostileBack = (scheme: 'prefix' | 'host'): fc.Arbitrary<VValue> => {
  const home: VPiece[] = scheme === 'prefix' ? ['/sites/', ref('urlname')] : [];
  return fc.oneof(
    w(4, fc.constantFrom<VValue>([...home, '/'], [...home, '/-/', ref('publicPath')], [...home, '/-/', ref('passwordPath')], [...home, '/-/', ref('aclPath'), '?page=2'], [...home, '/_/', ref('publicMedia')])),
    w(
      6,
      fc.constantFrom<VValue>(
        ['//evil.example/x'],
        ['///evil.example/x'],
        ['/\\evil.example/x'],
        ['\\\\evil.example'],
        ['https://evil.example/'],
        ['http:evil.example'],
        ['javascript:alert(1)'],
        ['data:text/html,x'],
        ['/%2F%2Fevil.example'],
        ['/%5C%5Cevil.example'],
        ['\t//evil.example'],
        [' //evil.example'],
        ['/sites/a/../b/'],
        ['/sites/', ref('urlname'), '/../', ref('foreignUrlname'), '/'],
        ['/sites/', ref('urlname'), '/%2e%2e/', ref('foreignUrlname'), '/'],
        ['/sites/', ref('urlname'), '/%2E%2E/%2E%2E/files/x'],
        ['/sites/', ref('urlname'), '/./../', ref('foreignUrlname'), '/-/x'],
        ['/sites/', ref('foreignUrlname'), '/'],
        ['/sites/', ref('urlname'), 'x/'],
        [...home, '/..//evil.example'],
        [...home, '/-/../../', ref('foreignUrlname')],
        [...home, '//evil.example'],
        [...home, '/\\evil.example'],
        [...home, '/#//evil.example'],
        [...home, '/?x=//evil.example'],
        ['/-/x'],
        ['/'],
        [''],
        ['.'],
        ['..'],
      ),
    ),
    w(2, junk),
  );
};

const PAGES = ['1', '2', '3', '0', '-1', '01', '1.5', '999999', '1000000', '1e2', '', ' 1', 'a'];

/** A query parameter of a site page: `page`, or names the page does not know. */
const pageQuery: fc.Arbitrary<VField[]> = fc.oneof(
  w(10, fc.constant<VField[]>([])),
  w(3, fc.constantFrom(...PAGES).map((p): VField[] => [[['page'], [p]]])),
  w(1, fc.tuple(fc.constantFrom(...PAGES), fc.constantFrom(...PAGES)).map(([a, b]): VField[] => [[['page'], [a]], [['page'], [b]]])),
  w(2, fc.tuple(fc.constantFrom('x', 'utm_source', 'fbclid', 'page[]', 'Page', 'back', '__proto__', 'e', 's'), junk).map(([n, v]): VField[] => [[[n], v]])),
  w(1, junk.map((n): VField[] => [[n, ['1']]])),
  w(1, junk.map((n): VField[] => [[n]])),
);

/** An archive's query: none, its one parameter, doubled, or anything. */
const archiveQuery: fc.Arbitrary<VField[]> = fc.oneof(
  w(6, fc.constant<VField[]>([])),
  w(4, fc.constant<VField[]>([[['folders'], ['1']]])),
  w(1, constants('0', '', '2', 'true', '1 ').map((v): VField[] => [[['folders'], v]])),
  w(1, fc.constant<VField[]>([[['folders'], ['1']], [['folders'], ['1']]])),
  w(1, pageQuery),
);

const GALLERY_PATHS: VRef[] = ['publicPath', 'subPath', 'hiddenPath', 'passwordPath', 'aclPath', 'hiddenPasswordPath'];
const MEDIAS: VRef[] = ['publicMedia', 'passwordMedia', 'aclMedia'];

/** A gallery's full url path: a real one, someone else's shape, or junk. */
const galleryPath: fc.Arbitrary<VValue> = fc.oneof(
  w(12, fc.constantFrom(...GALLERY_PATHS).map((r): VValue => [ref(r)])),
  w(1, fc.constantFrom(...GALLERY_PATHS).map((r): VValue => [ref(r, 'upper')])),
  w(1, fc.constantFrom(...GALLERY_PATHS).map((r): VValue => [ref(r), '/'])),
  w(2, constants('nothing', 'a/b/c', '..', '%2e%2e', 'x/../y', 'x//y', 'a'.repeat(1001), Array.from({ length: 40 }, () => 'd').join('/'), 'UPPER', 'é')),
  w(1, junk),
);
const mediaRef: fc.Arbitrary<VValue> = fc.oneof(
  w(8, fc.constantFrom(...MEDIAS).map((r): VValue => [ref(r)])),
  w(1, fc.constantFrom(...MEDIAS).map((r): VValue => [ref(r, 'upper')])),
  w(1, fc.constantFrom(...MEDIAS).map((r): VValue => [ref(r, 'truncate')])),
  w(1, junk),
);

/** The path below a website's home (without its leading slash), with the query and body that path takes. */
function sitePart(scheme: 'prefix' | 'host'): fc.Arbitrary<Pick<VisitorRequest, 'method' | 'path' | 'query' | 'body' | 'headers'>> {
  const get = (path: fc.Arbitrary<VValue>, query: fc.Arbitrary<VField[]> = pageQuery) =>
    fc.record({ method: fc.oneof(w(12, fc.constant('GET')), w(2, fc.constant('HEAD')), w(1, fc.constantFrom('POST', 'PUT', 'OPTIONS', 'DELETE', 'get'))), path, query, body: fc.constant(undefined), headers: fc.constant<Array<[string, VValue]>>([]) });
  const origin = fc.oneof(
    w(4, fc.constant<Array<[string, VValue]>>([])),
    w(2, fc.constantFrom<VValue>(['https://evil.example'], ['null'], ['http://', ref('serviceHost')], ['https://', ref('hostname')], [''], ['https://', ref('hostname'), '.evil.example']).map((o): Array<[string, VValue]> => [['Origin', o]])),
  );
  const formType = fc.oneof(
    w(10, fc.constant<VValue | undefined>(undefined)),
    w(2, constants('text/plain', 'multipart/form-data; boundary=x', 'application/json', 'application/x-www-form-urlencoded; charset=latin1', 'APPLICATION/X-WWW-FORM-URLENCODED', '')),
  );
  const passwordForm = fc
    .record({
      gallery: fc.oneof(w(6, fc.constantFrom<VValue>([ref('passwordGallery')], [ref('hiddenPasswordGallery')], [ref('aclGallery')], [ref('passwordGallery', 'upper')])), w(1, junk)),
      password: fc.oneof(w(5, fc.constant<VValue>([ref('galleryPassword')])), w(3, constants('wrong', '', 'p'.repeat(201))), w(1, junk)),
      back: fc.oneof(w(9, hostileBack(scheme)), w(1, fc.constant<VValue | undefined>(undefined))),
      extra: sometimes(15, fc.tuple(junk, junk).map(([n, v]): VField => [n, v])),
      dup: fc.boolean(),
    })
    .map((f): VField[] => {
      const fields: VField[] = [[['gallery'], f.gallery], [['password'], f.password]];
      if (f.back) fields.push([['back'], f.back]);
      if (f.dup && f.back) fields.push([['back'], ['//evil.example/dup']]);
      if (f.extra) fields.push(f.extra);
      return fields;
    });
  // Favourites (docs/delivery.md): a gallery by UUID, any of them or junk.
  const favGallery = fc.oneof(
    w(6, fc.constantFrom<VValue>([ref('publicGallery')], [ref('passwordGallery')], [ref('aclGallery')], [ref('hiddenPasswordGallery')], [ref('publicGallery', 'upper')])),
    w(1, junk),
  );
  const pickForm = fc
    .record({
      gallery: sometimes(95, favGallery),
      op: fc.constantFrom('pick', 'unpick', 'pick'),
      media: sometimes(95, mediaRef),
      note: sometimes(40, fc.oneof(w(4, constants('Crop tighter', '', ' ')), w(1, fc.constant<VValue>([{ repeat: 'é', count: 501 }])), w(2, junk))),
      back: fc.oneof(w(9, hostileBack(scheme)), w(1, fc.constant<VValue | undefined>(undefined))),
      extra: sometimes(15, fc.tuple(junk, junk).map(([n, v]): VField => [n, v])),
    })
    .map((f): VField[] => {
      const fields: VField[] = [];
      if (f.gallery) fields.push([['gallery'], f.gallery]);
      if (f.media) fields.push([[f.op], f.media]);
      if (f.note) fields.push([['note'], f.note]);
      if (f.back) fields.push([['back'], f.back]);
      if (f.extra) fields.push(f.extra);
      return fields;
    });
  const identifyForm = fc
    .record({
      name: fc.oneof(w(5, constants('Anna', '', ' ', 'Zoé <b>"x"</b>', 'n'.repeat(101))), w(2, junk)),
      email: fc.oneof(w(5, constants('client@example.com', 'guest@example.com', 'not-an-email', '', `${'x'.repeat(300)}@example.com`)), w(1, junk)),
      back: fc.oneof(w(9, hostileBack(scheme)), w(1, fc.constant<VValue | undefined>(undefined))),
      pending: sometimes(30, fc.tuple(favGallery, mediaRef)),
    })
    .map((f): VField[] => {
      const fields: VField[] = [[['name'], f.name], [['email'], f.email]];
      if (f.back) fields.push([['back'], f.back]);
      if (f.pending) fields.push([['gallery'], f.pending[0]], [['pick'], f.pending[1]]);
      return fields;
    });
  // The download PIN form and the download route (docs/delivery.md "Download controls").
  const pinForm = fc
    .record({
      gallery: favGallery,
      pin: fc.oneof(w(5, constants('1234', '0000', '', '12345678', '123456789', 'abcd', ' 1234', '١٢٣٤')), w(1, junk)),
      back: fc.oneof(w(9, hostileBack(scheme)), w(1, fc.constant<VValue | undefined>(undefined))),
    })
    .map((f): VField[] => (f.back ? [[['gallery'], f.gallery], [['pin'], f.pin], [['back'], f.back]] : [[['gallery'], f.gallery], [['pin'], f.pin]]));
  const downloadQuery = fc.oneof(w(6, constants('comp', 'full', 'x', '', 'FULL').map((a): VField[] => [[['as'], a]])), w(1, fc.constant<VField[]>([])), w(1, junk.map((j): VField[] => [[['as'], j]])));
  // Named lists (docs/delivery.md "Named lists"): one the gallery offers, a hostile one it offers, one it does not, junk.
  const listForm = fc
    .record({
      gallery: sometimes(95, favGallery),
      media: sometimes(95, mediaRef),
      list: sometimes(95, fc.oneof(w(5, constants('Album', '<b>Prints</b> "&"', 'Nope', '', 'x'.repeat(41))), w(2, junk))),
      on: sometimes(95, fc.oneof(w(5, constants('1', '0', '2', '')), w(1, junk))),
      back: fc.oneof(w(9, hostileBack(scheme)), w(1, fc.constant<VValue | undefined>(undefined))),
    })
    .map((f): VField[] => {
      const fields: VField[] = [];
      if (f.gallery) fields.push([['gallery'], f.gallery]);
      if (f.media) fields.push([['media'], f.media]);
      if (f.list) fields.push([['list'], f.list]);
      if (f.on) fields.push([['on'], f.on]);
      if (f.back) fields.push([['back'], f.back]);
      return fields;
    });
  const sendForm = fc
    .record({ gallery: favGallery, confirm: sometimes(60, fc.oneof(w(5, constants('yes')), w(1, junk))) })
    .map((f): VField[] => (f.confirm ? [[['gallery'], f.gallery], [['confirm'], f.confirm]] : [[['gallery'], f.gallery]]));
  const signinForm = fc
    .record({
      email: fc.oneof(w(5, constants('client@example.com', 'guest@example.com', 'not-an-email', '', 'a@b', `${'x'.repeat(300)}@example.com`)), w(1, junk)),
      back: fc.oneof(w(9, hostileBack(scheme)), w(1, fc.constant<VValue | undefined>(undefined))),
    })
    .map((f): VField[] => (f.back ? [[['email'], f.email], [['back'], f.back]] : [[['email'], f.email]]));
  // The shop (docs/shop.md "On the website"): a media and a `<price list>:<item>` choice, quantities, a coupon, the checkout.
  const shopForm = fc
    .record({
      media: sometimes(90, mediaRef),
      choice: sometimes(85, fc.oneof(w(3, constants('00000000-0000-4000-8000-000000000000:Web', 'not-a-uuid:Web', ':', '', `00000000-0000-4000-8000-000000000000:${'x'.repeat(300)}`, '00000000-0000-4000-8000-000000000000:Paper\tA3', '00000000-0000-4000-8000-000000000000:Paper\tA3\tA4')), w(1, junk))),
      // Prints and whole galleries (docs/shop.md "Prints", "Whole galleries").
      gallery: sometimes(15, fc.oneof(w(3, constants('00000000-0000-4000-8000-000000000000', 'x', '')), w(1, junk))),
      ship_city: sometimes(20, fc.oneof(w(3, constants('London', '', 'x'.repeat(300), 'Lon\u0000don')), w(1, junk))),
      ship_postcode: sometimes(20, fc.oneof(w(3, constants('SW1A 1AA', '<b>', '')), w(1, junk))),
      quantity: sometimes(50, fc.oneof(w(4, constants('1', '0', '-1', '101', '1e3', '99999999999999999999', ' 2', '')), w(1, junk))),
      remove: sometimes(10, constants('1', 'yes')),
      coupon: sometimes(30, fc.oneof(w(3, constants('SPRING', 'NOPE', '', 'x'.repeat(100))), w(1, junk))),
      email: sometimes(30, fc.oneof(w(3, constants('buyer@example.com', 'not-an-email', '', `${'x'.repeat(300)}@example.com`)), w(1, junk))),
      method: sometimes(30, fc.oneof(w(3, constants('manual', 'card', 'cash')), w(1, junk))),
      price: sometimes(10, constants('0', '-100')),
      accept_terms: sometimes(20, fc.oneof(w(3, constants('1', '0', 'yes', '')), w(1, junk))),
    })
    .map((f): VField[] => Object.entries(f).flatMap(([name, value]): VField[] => (value === undefined ? [] : [[[name], value]])));
  const post = (rest: string, fields: fc.Arbitrary<VField[]>) =>
    fc.record({
      method: fc.oneof(w(10, fc.constant('POST')), w(1, fc.constant('GET'))),
      path: fc.constant<VValue>([rest]),
      query: fc.oneof(w(6, fc.constant<VField[]>([])), w(1, pageQuery)),
      body: fc.oneof(w(12, fc.tuple(fields, formType).map(([data, type]) => ({ data, ...(type ? { type } : {}) }))), w(1, junk.map((data) => ({ data, type: ['application/x-www-form-urlencoded'] as VValue })))),
      headers: origin,
    });
  return fc.oneof(
    w(3, get(fc.constant<VValue>(['']))),
    w(8, get(galleryPath.map((p): VValue => ['-/', ...p]))),
    w(5, get(fc.tuple(galleryPath, mediaRef).map(([p, m]): VValue => ['-/', ...p, '/_/', ...m]))),
    w(2, get(mediaRef.map((m): VValue => ['_/', ...m]))),
    w(2, get(constants('robots.txt', 'sitemap.xml', 'ROBOTS.TXT', 'sitemap.xml/', 'robots.txt/x'))),
    // Archives: of every kind of gallery, the one that allows downloads more often, the root's, and near misses.
    w(
      4,
      get(
        fc.oneof(
          w(4, galleryPath.map((p): VValue => ['-/', ...p, '/_archive.zip'])),
          w(3, fc.constant<VValue>(['-/', ref('downloadPath'), '/_archive.zip'])),
          w(2, fc.constant<VValue>(['_archive.zip'])),
          w(1, constants('_archive.zip/', '-/_archive.zip', '_archive.ZIP', '-/x/_archive.zip/y', '_/_archive.zip', '_archive.zip%00')),
        ),
        archiveQuery,
      ),
    ),
    w(6, post('_password', passwordForm)),
    w(3, get(fc.constant<VValue>(['_signin']), fc.oneof(w(5, hostileBack(scheme).map((b): VField[] => [[['back'], b]])), w(1, fc.constant<VField[]>([])), w(1, pageQuery)))),
    w(3, post('_signin', signinForm)),
    w(5, post('_favourites/pick', pickForm).chain((r) => fc.boolean().map((json) => (json ? { ...r, headers: [...r.headers, ['Accept', ['application/json']] as [string, VValue]] } : r)))),
    w(3, post('_favourites/list', listForm).chain((r) => fc.boolean().map((json) => (json ? { ...r, headers: [...r.headers, ['Accept', ['application/json']] as [string, VValue]] } : r)))),
    w(2, post('_favourites/identify', identifyForm)),
    w(3, post('_download/pin', pinForm)),
    w(3, get(fc.tuple(favGallery, mediaRef).map(([g, m]): VValue => ['_download/', ...g, '/', ...m]), downloadQuery)),
    w(1, get(constants('_download', '_download/', '_download/pin', '_download/x/y/z', '_Download/x/y'))),
    w(2, post('_favourites/send', sendForm)),
    w(2, get(fc.constant<VValue>(['_favourites']))),
    w(4, fc.tuple(fc.constantFrom('_cart/add', '_cart/update', '_cart/gallery', '_cart/coupon', '_cart/checkout', '_cart/x', '_cart/order/00000000-0000-4000-8000-000000000000'), fc.nat()).chain(([rest]) => post(rest, shopForm))),
    w(2, get(fc.oneof(constants('_cart', '_cart/', '_cart/terms', '_cart/terms/', '_cart/Terms', '_cart/order/00000000-0000-4000-8000-000000000000', '_cart/order/x', '_Cart'), junk.map((j): VValue => ['_cart/order/', ...j])))),
    w(3, get(favGallery.map((g): VValue => ['_favourites/', ...g]))),
    w(1, get(constants('_favourites/', '_favourites/pick', '_favourites/x/y', '_Favourites'))),
    w(
      4,
      get(
        fc.oneof(
          w(4, fc.constantFrom<VValue>([ref('token')], [ref('usedToken')], [ref('foreignToken')])),
          w(1, fc.constantFrom<VValue>([ref('token', 'truncate')], [ref('token', 'suffix')])),
          w(1, junk),
        ).map((t): VValue => ['_signin/', ...t]),
      ),
    ),
    w(2, get(fc.oneof(constants('_', '-', '-/', '_/', '..', '%2e%2e/', '_site/x', 'x', '_password/x', '_signin/a/b', '/', '//', '.well-known/x'), junk))),
    // Share links: live, behind a password, revoked, mangled, made up.
    w(
      4,
      get(
        fc.oneof(
          w(3, fc.constantFrom<VValue>([ref('shareToken')], [ref('sharePasswordToken')], [ref('shareRevokedToken')], [ref('shareLightboxToken')])),
          w(2, fc.constantFrom<VValue>([ref('shareToken', 'truncate')], [ref('shareToken', 'suffix')], [ref('shareToken', 'upper')], [ref('token')])),
          w(1, junk),
        ).map((t): VValue => ['_share/', ...t]),
      ),
    ),
    w(2, get(constants('_share', '_share/', '_share/a/b', '_Share'))),
    // A lightbox's page (a share link's): without its link's cookie, mangled, made up; with a page number or not.
    w(
      2,
      get(
        fc.oneof(
          w(3, fc.constantFrom<VValue>([ref('sharedLightbox')], [ref('sharedLightbox', 'upper')], [ref('sharedLightbox', 'suffix')], [ref('sharedLightbox', 'truncate')])),
          w(1, junk),
        ).map((t): VValue => ['_lightbox/', ...t]),
        fc.oneof(w(3, fc.constant<VField[]>([])), w(1, pageQuery)),
      ),
    ),
    w(2, post('_share', passwordForm)),
  );
}

/** The Host of a request for a website at its hostname: its name in every spelling, or somebody else's. */
const siteHost: fc.Arbitrary<VValue | undefined> = fc.oneof(
  w(14, fc.constant<VValue>([ref('hostname')])),
  w(2, fc.constantFrom<VValue>([ref('hostname', 'upper')], [ref('hostname'), ':8080'], [ref('hostname'), ':443'])),
  w(
    3,
    fc.constantFrom<VValue | undefined>(
      undefined,
      [ref('hostname'), '.'],
      [ref('hostname'), ':99999'],
      [ref('hostname'), ':'],
      [ref('hostname'), '@evil.example'],
      ['evil.example@', ref('hostname')],
      [ref('hostname'), '/x'],
      [ref('hostname'), ' evil.example'],
      ['evil.example'],
      ['[::1]:80'],
      ['localhost'],
      [''],
      ['a'.repeat(300)],
      [ref('hostname'), '\u0000'],
      [ref('hostname'), { bytes: [0xff] }],
      [ref('foreignUrlname'), '.example.test'],
    ),
  ),
);

/** A Host for a request whose address does not depend on it: the service's, mostly. */
const anyHost: fc.Arbitrary<VValue | undefined> = fc.oneof(
  w(12, fc.constant<VValue>([ref('serviceHost')])),
  w(2, fc.constantFrom<VValue>([ref('hostname')])),
  w(2, fc.constantFrom<VValue | undefined>(undefined, ['evil.example'], [''], ['a'.repeat(300)], ['x', { bytes: [0xc3, 0x28] }], ['127.0.0.1:1'], ['[::1'])),
);

const FILE_KEYS: VRef[] = ['publicKey', 'protectedKey', 'originalKey'];

/** `/files/<key>`: the seeded keys, signed or not, with ranges and conditions. */
const filesPart: fc.Arbitrary<Pick<VisitorRequest, 'method' | 'path' | 'query' | 'headers'>> = fc.record({
  method: fc.oneof(w(12, fc.constant('GET')), w(4, fc.constant('HEAD')), w(1, fc.constantFrom('POST', 'PUT', 'OPTIONS', 'DELETE'))),
  path: fc
    .oneof(
      w(12, fc.constantFrom(...FILE_KEYS).map((r): VValue => [ref(r)])),
      w(2, fc.tuple(fc.constantFrom(...FILE_KEYS), fc.constantFrom<'upper' | 'suffix' | 'truncate'>('upper', 'suffix', 'truncate')).map(([r, m]): VValue => [ref(r, m)])),
      w(
        3,
        fc.constantFrom<VValue>(
          [ref('publicKey'), '/'],
          ['x/../', ref('publicKey')],
          ['./', ref('publicKey')],
          ['%2e%2e/%2e%2e/etc/passwd'],
          ['../../etc/passwd'],
          ['..%2f..%2fetc%2fpasswd'],
          ['a//b'],
          [''],
          ['/'],
          ['x.svg'],
          ['x.html'],
          ['renditions/00/0000000000000000-640.webp'],
          ['media/x'],
          [{ repeat: 'a', count: 300 }],
          [{ repeat: 'a/', count: 200 }],
        ),
      ),
      w(1, junk),
    )
    .map((k): VValue => ['/files/', ...k]),
  query: fc.oneof(
    w(5, fc.constant<VField[]>([])),
    w(5, fc.constantFrom<VRef>('signedQuery', 'downloadQuery', 'sealedDownloadQuery', 'expiredQuery', 'otherKeyQuery').map((r): VField[] => [[[{ ref: r }]]])),
    w(
      2,
      fc.constantFrom<VField[]>(
        [[['e'], ['1']]],
        [[['e'], ['99999999999']], [['v'], ['x']], [['s'], ['x']]],
        [[['e'], ['9'.repeat(13)]], [['v'], ['x']], [['d'], ['1']], [['s'], ['AAAA']]],
        [[['s'], ['']]],
        [[['v'], [{ repeat: 'v', count: 101 }]], [['e'], ['99999999999']], [['s'], ['x']]],
        [[['v'], [{ repeat: 'v', count: 401 }]], [['e'], ['99999999999']], [['s'], ['x']]],
        [[['v'], ['c.', { repeat: 'A', count: 60 }]], [['e'], ['99999999999']], [['d'], ['1']], [['s'], ['x']]],
        [[[ref('signedQuery')]], [['e'], ['1']]],
        [[[ref('signedQuery')]], [['s'], ['x']]],
        [[[ref('signedQuery')]], [['d'], ['2']]],
        [[['e[]'], ['1']]],
        [[['__proto__'], ['1']]],
      ),
    ),
    w(1, fc.tuple(junk, junk).map(([n, v]): VField[] => [[n, v]])),
  ),
  headers: fc.array(
    fc.oneof(
      w(
        4,
        fc.tuple(
          fc.constant('Range'),
          constants('bytes=0-0', 'bytes=0-99', 'bytes=-1', 'bytes=-0', 'bytes=5-1', 'bytes=0-', 'bytes=99999999-', 'bytes=0-99999999999999999999', 'bytes=1-2,3-4', 'bytes=-', 'items=0-1', 'bytes=a-b', 'bytes= 0-1', 'bytes=-99999999999999999999', ''),
        ),
      ),
      w(3, fc.tuple(fc.constant('If-None-Match'), fc.constantFrom<VValue>([ref('publicEtag')], ['W/', ref('publicEtag')], ['*'], ['"x", ', ref('publicEtag')], ['garbage'], [''], [{ repeat: '"a",', count: 2000 }]))),
      w(2, fc.tuple(fc.constant('If-Range'), fc.constantFrom<VValue>([ref('publicEtag')], ['"other"'], ['Wed, 21 Oct 2015 07:28:00 GMT'], ['']))),
      w(1, fc.tuple(fc.constantFrom('If-Modified-Since', 'If-Match', 'If-Unmodified-Since'), constants('Wed, 21 Oct 2015 07:28:00 GMT', 'garbage', '*'))),
      w(1, fc.tuple(fc.constant('Accept'), constants('text/html', 'image/svg+xml', '*/*'))),
    ),
    { maxLength: 3 },
  ),
});

const METRICS_AUTH: fc.Arbitrary<Array<[string, VValue]>> = fc.oneof(
  w(3, fc.constant<Array<[string, VValue]>>([])),
  w(3, fc.constant<Array<[string, VValue]>>([['Authorization', ['Bearer ', ref('metricsToken')]]])),
  w(
    3,
    fc
      .constantFrom<VValue>(['Bearer ', ref('metricsToken', 'truncate')], ['Bearer ', ref('metricsToken', 'suffix')], ['Bearer'], ['Bearer '], ['bearer ', ref('metricsToken')], ['Basic eDp5'], [''], ['Bearer ', { repeat: 'x', count: 9000 }], ['Bearer ', { bytes: [0xff, 0xfe] }])
      .map((a): Array<[string, VValue]> => [['Authorization', a]]),
  ),
);

/** /healthz, /readyz, /metrics, the site's assets and paths no website has. */
const opsPart: fc.Arbitrary<Pick<VisitorRequest, 'target' | 'method' | 'path' | 'query' | 'headers'>> = fc.oneof(
  w(
    4,
    fc.record({
      target: fc.constant<Target>('ops'),
      method: fc.oneof(w(8, fc.constant('GET')), w(2, fc.constant('HEAD')), w(1, fc.constantFrom('POST', 'OPTIONS', 'TRACE'))),
      path: constants('/healthz', '/readyz', '/metrics', '/healthz/', '/metrics/x', '/HEALTHZ'),
      query: fc.oneof(w(4, fc.constant<VField[]>([])), w(1, junk.map((v): VField[] => [[['x'], v]]))),
      headers: METRICS_AUTH,
    }),
  ),
  w(
    2,
    fc.record({
      target: fc.constant<Target>('other'),
      method: fc.oneof(w(8, fc.constant('GET')), w(1, fc.constantFrom('HEAD', 'POST'))),
      path: fc.oneof(
        w(3, fc.constantFrom<VValue>(['/_site/', ref('asset')], ['/_site/x.css'], ['/_site/', ref('asset'), '/x'], ['/_site/..%2f..%2fpackage.json'], ['/_site/'])),
        w(2, fc.constantFrom<VValue>(['/sites/'], ['/sites'], ['/sites/', ref('urlname', 'suffix'), '/'], ['/sites/%00/'], ['/sites/..%2f/'], ['/sites/', { repeat: 'u', count: 200 }, '/'])),
        w(1, junk.map((v): VValue => ['/sites/', ...v])),
      ),
      query: fc.constant<VField[]>([]),
      headers: fc.constant<Array<[string, VValue]>>([]),
    }),
  ),
);

/** Headers any visitor may add: cookies (a real pass, forged ones), forwarding claims, odd encodings. */
const visitorHeaders: fc.Arbitrary<Array<[string, VValue]>> = fc.array(
  fc.oneof(
    w(4, fc.tuple(fc.constant('Cookie'), fc.constantFrom<VValue>([ref('passCookie')], ['mps_visitor=garbage'], ['mps_visitor='], ['mps_visitor=', { repeat: 'A', count: 4000 }], ['a=b; ', ref('passCookie'), '; mps_visitor=x'], ['=;;;']))),
    w(2, fc.tuple(fc.constantFrom('X-Forwarded-Host', 'Forwarded', 'X-Forwarded-Proto', 'X-Original-URL', 'X-Rewrite-URL'), constants('evil.example', 'host=evil.example;proto=https', 'https', '/sites/x/', '//evil.example'))),
    w(1, fc.tuple(fc.constant('X-Forwarded-For'), constants('1.2.3.4', 'garbage', '::1, 10.0.0.1', '', '1.2.3.4, 5.6.7.8'))),
    w(1, fc.tuple(fc.constantFrom('Accept-Encoding', 'Accept-Language', 'User-Agent', 'Referer'), junk)),
  ),
  { maxLength: 2 },
);

/** One request to any unsigned path. */
export const visitorRequestArb: fc.Arbitrary<VisitorRequest> = fc.oneof(
  w(
    10,
    fc.record({ part: sitePart('prefix'), headers: visitorHeaders, host: anyHost, urlname: fc.oneof(w(20, fc.constant<VValue>([ref('urlname')])), w(1, fc.constantFrom<VValue>([ref('urlname', 'upper')], [ref('foreignUrlname')]))) }).map(
      ({ part, headers, host, urlname }): VisitorRequest => ({
        target: 'site',
        scheme: 'prefix',
        ...part,
        path: ['/sites/', ...urlname, '/', ...part.path],
        headers: [...part.headers, ...headers],
        ...(host ? { host } : {}),
      }),
    ),
  ),
  w(
    8,
    fc.record({ part: sitePart('host'), headers: visitorHeaders, host: siteHost }).map(
      ({ part, headers, host }): VisitorRequest => ({ target: 'site', scheme: 'host', ...part, path: ['/', ...part.path], headers: [...part.headers, ...headers], ...(host ? { host } : {}) }),
    ),
  ),
  w(6, fc.record({ part: filesPart, headers: visitorHeaders, host: anyHost }).map(({ part, headers, host }): VisitorRequest => ({ target: 'files', scheme: 'none', ...part, headers: [...part.headers, ...headers], ...(host ? { host } : {}) }))),
  w(2, fc.record({ part: opsPart, host: anyHost }).map(({ part, host }): VisitorRequest => ({ scheme: 'none', ...part, ...(host ? { host } : {}) }))),
);

// ---- bytes -----------------------------------------------------------------------

export interface VisitorResolver {
  ref(name: VRef): string;
  port: number;
}

type Ctx = 'path' | 'query' | 'header';

const QUERY_KEEP = /[A-Za-z0-9\-._~]/;
const PATH_KEEP = /[A-Za-z0-9\-._~/!$&'()*+,;=:@]/;

function percent(s: string, keep: RegExp): string {
  let out = '';
  for (const ch of s) {
    if (ch.length === 1 && keep.test(ch)) out += ch;
    else for (const b of Buffer.from(ch, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function mutate(v: string, mut: 'upper' | 'suffix' | 'truncate' | undefined): string {
  return mut === 'upper' ? v.toUpperCase() : mut === 'suffix' ? `${v}x` : mut === 'truncate' ? v.slice(0, -1) : v;
}

function pieceBytes(p: VPiece, ctx: Ctx, r: VisitorResolver): Buffer {
  if (typeof p === 'string') return Buffer.from(ctx === 'query' ? percent(p, QUERY_KEEP) : p, 'utf8');
  if ('ref' in p) {
    const v = mutate(r.ref(p.ref), p.mut);
    // Signed query strings are whole `a=b&c=d` pieces: sent as they are.
    return Buffer.from(ctx === 'query' && !/Query$/.test(p.ref) ? percent(v, QUERY_KEEP) : v, 'utf8');
  }
  if ('text' in p) return Buffer.from(ctx === 'header' ? p.text : percent(p.text, ctx === 'query' ? QUERY_KEEP : PATH_KEEP), 'utf8');
  if ('wire' in p) return Buffer.from(p.wire, 'latin1');
  if ('bytes' in p) return Buffer.from(p.bytes);
  return Buffer.from((ctx === 'header' ? p.repeat : percent(p.repeat, ctx === 'query' ? QUERY_KEEP : PATH_KEEP)).repeat(p.count), 'utf8');
}

function valueBytes(v: VValue, ctx: Ctx, r: VisitorResolver): Buffer {
  return Buffer.concat(v.map((p) => pieceBytes(p, ctx, r)));
}

function fieldsBytes(fields: VField[], r: VisitorResolver): Buffer {
  const out: Buffer[] = [];
  fields.forEach(([name, value], i) => {
    if (i > 0) out.push(Buffer.from('&'));
    out.push(valueBytes(name, 'query', r));
    if (value !== undefined) out.push(Buffer.from('='), valueBytes(value, 'query', r));
  });
  return Buffer.concat(out);
}

/** Heads are cut here: the service refuses heads above 16 KiB anyway. */
const HEAD_LIMIT = 64 * 1024;

/** The exact bytes of a request, and what the checks need to know of it. */
export function visitorWire(req: VisitorRequest, r: VisitorResolver): Wire & { path: string; query: string; host?: string; sentHeaders: Array<[string, string]> } {
  const path = valueBytes(req.path, 'path', r).toString('latin1');
  const query = fieldsBytes(req.query, r).toString('latin1');
  const target = query ? `${path}?${query}` : path;
  const headers: Array<[string, string]> = [];
  const host = req.host ? valueBytes(req.host, 'header', r).toString('latin1') : undefined;
  if (host !== undefined) headers.push(['Host', host]);
  for (const [name, v] of req.headers) headers.push([name, valueBytes(v, 'header', r).toString('latin1')]);
  let body: Buffer = Buffer.alloc(0);
  if (req.body) {
    body = Array.isArray(req.body.data[0]) ? fieldsBytes(req.body.data as VField[], r) : valueBytes(req.body.data as VValue, 'query', r);
    const type = req.body.type ? valueBytes(req.body.type, 'header', r).toString('latin1') : 'application/x-www-form-urlencoded';
    if (type !== '') headers.push(['Content-Type', type]);
  }
  if (req.body || req.method === 'POST' || req.method === 'PUT') headers.push(['Content-Length', String(body.length)]);
  headers.push(['Connection', 'close']);
  const head = Buffer.from(`${req.method} ${target} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`, 'latin1').subarray(0, HEAD_LIMIT);
  const clip = (s: string) => (s.length > 300 ? `${s.slice(0, 240)}…(${s.length} chars)` : s);
  const summary = [
    `${req.method} ${clip(target)}${host === undefined ? '   (no Host header)' : ''}`,
    ...headers.map(([k, v]) => `  ${k}: ${clip(JSON.stringify(v).slice(1, -1))}`),
    body.length ? `  body (${body.length} bytes): ${clip(JSON.stringify(body.toString('latin1')).slice(1, -1))}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return { ...bytesWire(req.method, head, body, summary), path, query, sentHeaders: headers, ...(host !== undefined ? { host } : {}) };
}

// ---- the checks ----------------------------------------------------------------------

/** What the checks know of the world. */
export interface VisitorFacts {
  urlname: string;
  hostname: string;
  /** Full url paths that must never be listed in a sitemap (hidden or protected chains). */
  unlisted: string[];
  /** Medias of protected galleries: `pass` opens the first (a password gallery), nothing the fuzz sends opens the others. */
  protectedMedias: { withPass: string; never: string[] };
  /** The `name=value` of that pass. */
  passCookie: string;
  /** Stored files that need a signature, each with the signed query string that opens it. */
  signedOnly: Array<{ key: string; query: string }>;
  metricsToken: string;
  /** The one gallery whose archive (`_archive.zip`) anyone may have; the root's, with `folders=1`, holds it. */
  archivePath: string;
}

const ACTIVE = /html|svg|xml|javascript|ecmascript|x-shockwave|pdf/i;

function header(reply: Reply, name: string): string | undefined {
  return reply.headers.get(name)?.[0];
}

/** The home of the website a request visits (no trailing slash), or undefined when it visits none. */
function homeOf(req: VisitorRequest, path: string): string | undefined {
  if (req.target !== 'site' && !path.startsWith('/sites/')) return undefined;
  if (req.scheme === 'host') return '';
  const m = /^\/sites\/([^/?]*)/.exec(path);
  return m ? `/sites/${m[1].toLowerCase()}` : undefined;
}

/**
 * Where a redirect or a return address leads, as a browser resolves it
 * against the page: somewhere on this website (its home or below), or the
 * reason it does not stay there.
 */
export function offSite(address: string, home: string | undefined, facts: VisitorFacts): string | undefined {
  const base = 'http://visited.invalid';
  let url: URL;
  try {
    url = new URL(address, `${base}${home ?? ''}/`);
  } catch {
    return `${JSON.stringify(address)} is not an address`;
  }
  if (url.origin !== base) return `${JSON.stringify(address)} leaves the site (to ${url.protocol}//${url.host})`;
  if (home === undefined) return undefined;
  if (home === '') {
    // At a hostname every path is the website's, but /sites/<other> is another website's.
    const other = /^\/sites\/([^/]+)/i.exec(url.pathname);
    if (other && other[1].toLowerCase() !== facts.urlname) return `${JSON.stringify(address)} leads to another website (${url.pathname})`;
    return undefined;
  }
  if (url.pathname.toLowerCase() !== home && !url.pathname.toLowerCase().startsWith(`${home}/`)) return `${JSON.stringify(address)} leaves the website's home ${home} (to ${url.pathname})`;
  return undefined;
}

const KNOWN_PAGE_PARAMS = new Set(['page']);

/** What is wrong with one reply. Each problem names the property it breaks. */
export function visitorProblems(req: VisitorRequest, sent: { path: string; query: string; sentHeaders: Array<[string, string]> }, reply: Reply, facts: VisitorFacts): string[] {
  const problems: string[] = [];
  const sentHeader = (name: string) => sent.sentHeaders.filter(([k]) => k.toLowerCase() === name).map(([, v]) => v);
  const type = (header(reply, 'content-type') ?? '').toLowerCase();
  const home = homeOf(req, sent.path);
  if (reply.status >= 500) problems.push(`status ${reply.status}`);
  // A share link's address: the visit (303) or a refusal (404 unknown, 410 ended), never anything
  // else; a path that is not valid percent-encoded UTF-8 gets the router's 400, as on every path.
  const badlyEncoded = (() => {
    try {
      decodeURIComponent(sent.path);
      return false;
    } catch {
      return true;
    }
  })();
  if (/\/_share\/[^/]*$/.test(sent.path) && req.method === 'GET' && ![303, 404, 410, 429].includes(reply.status) && !(badlyEncoded && reply.status === 400)) problems.push(`share link answered ${reply.status}`);

  // No redirect off the site.
  const location = header(reply, 'location');
  if (location !== undefined) {
    const why = offSite(location, home, facts);
    if (why) problems.push(`redirect off the site: Location ${why}`);
  }

  // Every HTML page with the CSP, never sniffed.
  if (type.startsWith('text/html')) {
    const csp = header(reply, 'content-security-policy') ?? '';
    if (!/default-src 'none'/.test(csp) || !/frame-ancestors 'none'/.test(csp)) problems.push(`an HTML page without the CSP (${JSON.stringify(csp)})`);
    if (header(reply, 'x-content-type-options') !== 'nosniff') problems.push('an HTML page without X-Content-Type-Options: nosniff');
    const html = reply.body.toString('utf8');
    // The return address a form carries must stay on the site too (a wrong password echoes it).
    for (const m of html.matchAll(/name="back" value="([^"]*)"/g)) {
      const back = m[1].replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
      const why = offSite(back, home, facts);
      if (why) problems.push(`a form's return address off the site: ${why}`);
    }
    for (const m of html.matchAll(/<form[^>]* action="([^"]*)"/g)) {
      const why = offSite(m[1].replace(/&amp;/g, '&'), home, facts);
      if (why) problems.push(`a form posts off the site: ${why}`);
    }
  }

  // Nothing from /files runs as a page.
  if (req.target === 'files') {
    if (ACTIVE.test(type) && reply.status < 400) problems.push(`/files served active content (${type})`);
    if (/html|svg|javascript|ecmascript/i.test(type)) problems.push(`/files answered with ${type}`);
    if (reply.status < 400 && header(reply, 'x-content-type-options') !== 'nosniff') problems.push('/files answered without X-Content-Type-Options: nosniff');
    if ((reply.status === 200 || reply.status === 206) && /^(image|video)\//.test(type) === false && !/^attachment/.test(header(reply, 'content-disposition') ?? '')) {
      problems.push(`/files served ${type} inline`);
    }
  }

  // Nothing protected without what opens it: a protected media on no page without its pass, …
  if (req.target === 'site' && reply.status === 200 && type.startsWith('text/html') && !/\/_signin/.test(sent.path)) {
    const html = reply.body.toString('utf8');
    const passed = sentHeader('cookie').some((c) => c.includes(facts.passCookie));
    for (const uuid of [...facts.protectedMedias.never, ...(passed ? [] : [facts.protectedMedias.withPass])]) {
      if (html.includes(uuid)) problems.push(`a page shows the protected media ${uuid} to a visitor without the pass or sign-in it needs`);
    }
  }
  // … no file that needs a signature without its own, …
  if (req.target === 'files' && reply.status < 400) {
    // A key may have several signed addresses (for different visitors): any of them opens it.
    const own = facts.signedOnly.filter((f) => sent.path === `/files/${f.key}`);
    if (own.length > 0 && !own.some((f) => sent.query === f.query)) problems.push(`/files served a file that needs a signature (${reply.status}) with the query ${JSON.stringify(sent.query.slice(0, 80))}`);
  }
  // … no archive but of a gallery that allows downloads (or the root's, holding it as a folder), …
  if (req.target === 'site' && reply.status === 200 && type === 'application/zip') {
    const rest = home === undefined ? '' : sent.path.slice(home.length + 1);
    const ok = rest.toLowerCase() === `-/${facts.archivePath}/_archive.zip` || (rest === '_archive.zip' && sent.query === 'folders=1');
    if (!ok) problems.push(`an archive served at ${JSON.stringify(sent.path)}?${sent.query.slice(0, 40)}, where no download is allowed`);
    if (req.method === 'GET' && reply.body.subarray(0, 4).toString('latin1') !== 'PK\u0003\u0004') problems.push('an archive that does not start as a ZIP');
  }
  // … and no metrics without the token.
  // The scheme is case-insensitive (RFC 9110, 11.1: `bearer <token>` is the token too), the token is
  // not; of several Authorization headers Node keeps the first.
  if (reply.status < 400 && /^\/metrics/i.test(sent.path) && reply.body.includes('mps_') && /^bearer (.+)$/i.exec(sentHeader('authorization')[0] ?? '')?.[1] !== facts.metricsToken) {
    problems.push('/metrics answered without its token');
  }

  // The sitemap never lists a hidden or protected gallery, whatever its indexing (issue 18, defect 8).
  if (req.target === 'site' && reply.status === 200 && /\/sitemap\.xml$/.test(sent.path) && req.method !== 'HEAD') {
    const body = reply.body.toString('utf8');
    for (const p of facts.unlisted) if (body.includes(`/-/${p}<`)) problems.push(`the sitemap lists the hidden or protected gallery ${p} (defect 8)`);
  }

  // A page address with a parameter the page does not know is not rendered as a page of its own (defect 7).
  if (req.target === 'site' && req.method === 'GET' && reply.status === 200 && type.startsWith('text/html') && sent.query !== '') {
    const rest = home === undefined ? '' : sent.path.slice(home.length + 1);
    if (!rest.startsWith('_signin')) {
      const names = sent.query.split('&').map((kv) => kv.split('=')[0]);
      const unknown = names.filter((n) => !KNOWN_PAGE_PARAMS.has(n));
      if (unknown.length) problems.push(`a page rendered for an unknown query parameter ${JSON.stringify(unknown[0].slice(0, 40))} (defect 7)`);
    }
  }
  return problems;
}

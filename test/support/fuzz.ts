// The machinery of the fuzz test (test/api/fuzz.test.ts): the live route
// table, fast-check generators of whole HTTP requests over a world of real and
// foreign things, their encoding into exact bytes (huge parts generated
// lazily, never held whole), a raw HTTP/1.1 client, and the checks every reply
// must pass. Generated requests name world things symbolically (`{ ref }`), so
// a seed and a run index reproduce the same request on any fresh world.
import fc from 'fast-check';
import { connect, type Socket } from 'node:net';
import { parseXml } from '../../src/client/xml.js';
import type { RouteSpec } from '../../src/http/router.js';
import { computeSignature } from '../../src/http/signing.js';

// ---- values ------------------------------------------------------------------

/** Things of the world a request may name; resolved when the request is sent. */
const REFS = [
  'urlname',
  'rootGallery',
  'gallery',
  'subGallery',
  'media',
  'pendingMedia',
  'collection',
  'smartCollection',
  'job',
  'artist',
  'displayStyle',
  'foreignUrlname',
  'foreignGallery',
  'foreignMedia',
  'foreignCollection',
  'foreignArtist',
  'pricingProfile',
  'foreignPricingProfile',
  'uploadKey',
  'uploadPolicy',
  'uploadSignature',
  'rawPolicy',
  'rawSignature',
  'pendingFileName',
  'pendingFileSize',
  'pendingMime',
  'email',
  'victimEmail',
  'sessionCookie',
  'basicAuth',
  'victimWrongBasic',
] as const;
export type Ref = (typeof REFS)[number];
type RefMut = 'upper' | 'braces' | 'suffix' | 'truncate';

export const FILES = ['jpeg', 'png', 'text', 'empty', 'random', 'big'] as const;
export type FileName = (typeof FILES)[number];

/**
 * One piece of text. A string is encoded for where it goes (percent-encoded
 * in a query or form, raw UTF-8 in multipart); `wire` goes on the wire as is
 * (stray `%`, percent-encoded invalid UTF-8); `bytes` are raw bytes; `repeat`
 * and `uuids` are huge and generated lazily.
 */
export type Piece =
  | string
  | { ref: Ref; mut?: RefMut }
  | { wire: string }
  | { bytes: number[] }
  | { repeat: string; count: number }
  | { uuids: number; sep: string; from: number };
export type Value = Piece[];

export interface Param {
  name: Value;
  /** undefined: the name alone, without `=`. */
  value?: Value;
}

/** The huge-array case: one name repeated `count` times, each with its own UUID (or the same value). */
export interface ManyParam {
  many: { name: string; count: number; item: 'uuid' | Value; from: number };
}

export type Field = Param | ManyParam;

export interface Part {
  /** undefined: no name in Content-Disposition. */
  name?: Value;
  filename?: Value;
  type?: string;
  data: Value | { file: FileName };
  disposition?: 'missing' | 'garbage';
}

export type Body =
  | { kind: 'none' }
  | { kind: 'form'; fields: Field[] }
  | {
      kind: 'multipart';
      boundary: string;
      /** The boundary named in Content-Type when it lies about the one used. */
      declared?: string;
      fields: Field[];
      parts: Part[];
      /** How the body ends: closing boundary, nothing (unterminated), garbage. */
      ending: 'close' | 'none' | 'garbage';
    }
  | { kind: 'raw'; data: Value | { file: FileName } };

export type SignMode =
  | 'sha1'
  | 'md5'
  | 'iso'
  | 'posix'
  | 'upper'
  | 'none'
  | 'no-timestamp'
  | 'no-authorization'
  | 'bad-key'
  | 'bad-signature'
  | 'other-request'
  | 'stale'
  | 'future'
  | 'garbage-timestamp'
  | 'garbage-authorization';

export type LengthMode =
  | { mode: 'exact' }
  | { mode: 'omit' }
  | { mode: 'delta'; delta: number }
  | { mode: 'value'; value: string }
  | { mode: 'chunked'; terminated: boolean };

export interface FuzzRequest {
  /** Index in the route table the request was generated for. */
  route: number;
  method: string;
  path: Value;
  query: Field[];
  body: Body;
  /** undefined: what the body is; null: no Content-Type; otherwise a lie. */
  contentType?: Value | null;
  length: LengthMode;
  sign: SignMode;
  signJunk?: Value;
  cookie?: Value;
  authorization?: Value;
  headers: Array<[string, Value]>;
  omitHost?: boolean;
}

// ---- generators ----------------------------------------------------------------

export const PROTO = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'prototype', 'valueOf', 'isPrototypeOf', '__defineGetter__'];
export const CONTROL = ['\u0000', '\u0001', '\u0008', '\t', '\n', '\r\n', '\u000b', '\u001f', '\u007f', '\u0085', '\u2028', '\ufeff', '\uffff'];
export const BAD_UTF8_WIRE = ['%FF', '%C3%28', '%ED%A0%80', '%F4%90%80%80', '%C0%AF', '%E9', '%', '%zz', '%E9%', '%%', '%00', '%C3'];
export const BAD_UTF8_BYTES = [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe9], [0xfe, 0xff], [0x80], [0xf4, 0x90, 0x80, 0x80]];
const WRONG_TYPES = ['abc', '-1', '0', '1.5', '1e3', '1e309', 'NaN', 'Infinity', 'null', 'undefined', 'true', '[]', '{}', '0x10', '٣', ' 1 ', '+1', '007', '99999999999999999999', '-0', '2147483648', '9007199254740993'];
export const XMLISH = ['<', '>', '&', ']]>', '<![CDATA[x]]>', '&amp;', `"'`, '<reply/>', '\ud83d\ude00', 'a\u0301'];
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

const lit = (s: string): Value => [s];
const refValue = (r: Ref, mut?: RefMut): Value => [mut ? { ref: r, mut } : { ref: r }];
const constants = (...values: string[]) => fc.constantFrom(...values).map(lit);

export type Weighted<T> = { arbitrary: fc.Arbitrary<T>; weight: number };
export const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>): Weighted<T> => ({ weight, arbitrary });
/** `arb` in `percent` % of the cases, undefined otherwise. */
export const sometimes = <T>(percent: number, arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.oneof(w(100 - percent, fc.constant(undefined)), w(percent, arb));

/** A value that goes wrong in one of the ways clients (and attackers) go wrong. */
const mutatedValue: fc.Arbitrary<Value> = fc.oneof(
  w(3, fc.string({ maxLength: 20 }).map(lit)),
  w(2, fc.string({ unit: 'binary', maxLength: 12 }).map(lit)),
  w(2, fc.string({ unit: 'grapheme', maxLength: 12 }).map(lit)),
  w(2, constants('')),
  w(3, fc.constantFrom(...WRONG_TYPES).map(lit)),
  w(3, fc.constantFrom(...PROTO).map(lit)),
  w(3, fc.tuple(fc.constantFrom(...CONTROL), fc.boolean()).map(([c, alone]): Value => [alone ? c : `a${c}b`])),
  w(2, fc.constantFrom(...BAD_UTF8_WIRE).map((s): Value => ['x', { wire: s }])),
  w(1, fc.constantFrom(...BAD_UTF8_BYTES).map((b): Value => ['x', { bytes: b }])),
  w(1, fc.constantFrom(...XMLISH).map(lit)),
  w(1, fc.tuple(fc.constantFrom('x', 'é', '%', ','), fc.constantFrom(256, 1001, 5000, 20_000)).map(([s, count]): Value => [{ repeat: s, count }])),
  w(2, fc.tuple(fc.constantFrom(...REFS), fc.constantFrom<RefMut | undefined>(undefined, 'upper', 'braces', 'suffix', 'truncate')).map(([r, m]) => refValue(r, m))),
  w(1, fc.uuid().map(lit)),
  w(1, constants(NIL_UUID)),
);

/** Rarely: a value above every form limit (4 MiB), streamed. */
const hugeValue: fc.Arbitrary<Value> = fc.constantFrom(4 * 1024 * 1024 + 1, 5 * 1024 * 1024).map((count): Value => [{ repeat: 'a', count }]);

/** A comma-separated list of 1 to 3 of the given things. */
function refList(refs: readonly Ref[]): fc.Arbitrary<Value> {
  return fc.array(fc.constantFrom(...refs), { minLength: 1, maxLength: 3 }).map((rs) => rs.flatMap((r, i): Value => (i === 0 ? [{ ref: r }] : [',', { ref: r }])));
}

const GALLERIES: Ref[] = ['gallery', 'subGallery', 'rootGallery', 'foreignGallery', 'media'];
const MEDIAS: Ref[] = ['media', 'pendingMedia', 'foreignMedia', 'gallery'];
const GROUPS: Ref[] = ['collection', 'smartCollection', 'foreignCollection', 'media'];
const ARTISTS: Ref[] = ['artist', 'foreignArtist', 'media'];
const RULE_FIELDS = ['keyword', 'rating', 'shot_at', 'file_type', 'mime_type', 'gallery', 'file_name', 'title', ...PROTO];
const OPERATORS = ['is', 'is_not', 'contains', 'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'before', 'on_or_after', 'on', 'is_set', 'is_not_set', 'starts_with', 'ends_with', 'in', 'not_in', ...PROTO];
const FILE_NAMES = ['IMG_0001.JPG', 'photo.jpeg', 'x.constructor', 'x.__proto__', '__proto__', 'constructor', 'a.toString', '../../etc/passwd', 'C:\\x\\y.jpg', 'a"b.jpg', '.jpg', 'x.', 'noext', 'é.jpg'];
const MIMES = ['image/jpeg', 'image/jpg', 'image/png', 'text/plain', 'application/octet-stream', 'video/mp4', 'audio/mpeg', 'application/zip', 'image/', '/', 'constructor'];

/** A plausible value for a parameter of this name, so that requests get past validation into the handlers. */
function validValue(name: string): fc.Arbitrary<Value> {
  const last = /\[([^\]]*)\]$/.exec(name)?.[1] ?? name;
  if (last === 'page' || last === 'per_page') return constants('1', '2', '3', '10', '100', '500', '501', '1000000');
  if (last === 'medias_count') return constants('0', '1', '2', '3');
  if (last === 'view') return constants('list', 'details', 'base', 'public_details', 'details_with_medias', 'details_with_contents');
  if (last === 'gallery_id' || last === 'parent' || /galleries$/.test(last)) return refList(GALLERIES);
  if (name === 'select' || name === 'medias[medias]' || last === 'medias_order' || last === 'cover_media') {
    return fc.oneof(refList(MEDIAS), constants('all', 'ALL', ''));
  }
  if (last === 'medias_group_id' || /collections$/.test(last)) return refList(GROUPS);
  if (last === 'artist_id') return refList(ARTISTS);
  if (last === 'display_style') return fc.oneof(fc.constant(refValue('displayStyle')), constants(''));
  if (last === 'lightbox_id' || last === 'watermark_uuid') return fc.oneof(fc.uuid().map(lit), constants(''));
  if (/pricing_profiles$/.test(last)) return fc.oneof(refList(['pricingProfile', 'foreignPricingProfile', 'media']), fc.uuid().map(lit), constants(''));
  if (last === 'kind') return constants('download', 'print', 'licence', '');
  if (last === 'currency') return constants('EUR', 'JPY', 'USD', 'eur', 'XXX', '');
  if (last === 'price' || last === 'minimum_price') return constants('0', '900', '4900', '1000000000', '1000000001', '-1', '49.00', '');
  if (last === 'long_edge') return constants('', '1', '1200', '65535', '65536', '0');
  if (last === 'ratio') return constants('200', '300', '1', '20000', '20001', '0', '1.5', '');
  if (last === 'label') return constants('Web', 'A4', 'Original file', ' ', 'x'.repeat(201));
  if (last === 'items') return constants('', 'x');
  if (last === 'name') return fc.oneof(constants('Holidays', 'Été 2024', 'a', 'x'.repeat(255), 'x'.repeat(256)), fc.string({ minLength: 1, maxLength: 12 }).map(lit));
  if (last === 'url_path') return constants('x', 'a-b', '', 'UPPER', 'with space', '../x', 'a/b', 'é');
  if (['model_release', 'property_release', 'hidden', 'read', 'comp_download', 'hires_download', 'order_subgalleries', 'delete_medias', 'delete_artist_rating', 'replace', 'delete'].includes(last)) {
    return constants('0', '1', 'true', 'false');
  }
  if (last === 'indexing') return constants('0', '1', '2', '3');
  // The download controls and the favourites limit (docs/delivery.md "Download controls"): valid values and their edges.
  if (last === 'download_pin') return constants('1234', '00000000', '0427', '', ' 1234 ', '123', '123456789', '12a4', '١٢٣٤', '1234\n', '-123');
  if (last === 'download_limit') return constants('1', '25', '100000', '', '0', '-1', '100001', '2.5', '1e3', '99999999999999999999');
  if (last === 'download_size') return constants('web', 'original', '', 'WEB', 'Original', 'full');
  if (last === 'pick_limit') return constants('1', '30', '5000', '', '0', '5001', '-1');
  if (last === 'password') return constants('secret', '', 'p'.repeat(201));
  if (last === 'content_order') return constants('manual-first', 'manual-last', 'file_name', 'file_name_nat', 'published_at', 'shot_at', 'created_at', 'updated_at', 'artist_rating');
  if (last === 'content_order_direction') return constants('asc', 'desc');
  if (last === 'email') return fc.oneof(constants('client@example.com', 'DEFAULT', 'not-an-email'), fc.constant(refValue('email')));
  if (last === 'field') return fc.constantFrom(...RULE_FIELDS).map(lit);
  if (last === 'operator') return fc.constantFrom(...OPERATORS).map(lit);
  if (last === 'match') return constants('all', 'any');
  if (last === 'value') return fc.oneof(constants('sky', '3', '2021-06-15', 'image', 'image/jpeg', 'IMG'), refList(['gallery', 'rootGallery', 'foreignGallery']));
  if (last === 'upload_location') return constants('REQUEST', 'local', 'local-raw', 's3');
  if (last === 'file_name') return fc.oneof(fc.constant(refValue('pendingFileName')), fc.constantFrom(...FILE_NAMES).map(lit));
  if (last === 'file_size') return fc.oneof(fc.constant(refValue('pendingFileSize')), constants('1', '0', '1000', '4294967296', '5000000000'));
  if (last === 'mime_type' || name.toLowerCase() === 'content-type') return fc.oneof(fc.constant(refValue('pendingMime')), fc.constantFrom(...MIMES).map(lit));
  if (last === 'capabilities') return constants('raw', '', 'raw,multipart', 'RAW');
  if (last === 'failed_locations') return constants('local', 's3', 'local,s3', 'local-raw', 's3,local,local-raw');
  if (last === 'upload_duration') return constants('1', '10', '0');
  if (name === 'key') return fc.constant(refValue('uploadKey'));
  if (name === 'policy') return fc.constantFrom(refValue('uploadPolicy'), refValue('rawPolicy'));
  if (name === 'signature') return fc.constantFrom(refValue('uploadSignature'), refValue('rawSignature'));
  if (/keywords$/.test(last)) return constants('sky,sea', 'Sky', '', ',,', 'a'.repeat(256));
  if (last === 'artist_rating') return constants('0', '3', '5', '6', '');
  if (last === 'date_created') return constants('2021-06-15T10:20:30Z', '2021-06-15', '', '2021-02-30', '10000-01-01');
  if (last === 'on') return constants('medias', 'all');
  return fc.string({ maxLength: 16 }).map(lit);
}

/** Parameters read as lists of UUIDs (comma-separated or repeated), looked up in SQL: where huge arrays go. */
const LIST_PARAM =
  /^(select|medias\[medias\])$|\[((add_to_|remove_from_)?medias_collections|(publish_to_|unpublish_from_)?galleries|(add|remove)_pricing_profiles|medias_order|value)\]$/;
/** A wrong value for this parameter: a generic mutation, an edge of its own type, or a prototype name. */
function hostileValue(name: string): fc.Arbitrary<Value> {
  return fc.oneof(w(4, mutatedValue), w(2, validValue(name)), w(1, fc.constantFrom(...PROTO).map(lit)));
}

/** Fills the `*` of a whitelist pattern: an index, or something that is not one. */
const starFill = fc.constantFrom('0', '1', '2', '10', '-1', '', 'x', ...PROTO, '999999999999999999', '1e3', ' ');

function nameOf(pattern: string, fill: string): string {
  return pattern.replace(/\*/g, fill);
}

const DEEP_BASES = ['a', 'gallery', 'medias_smart_collection[rules]', 'media', 'gallery[acl]'];

/** A parameter name that is not on the route's whitelist. */
const strangeName: fc.Arbitrary<Value> = fc.oneof(
  w(4, constants('foo', 'gallery[colour]', 'media[content][x]', 'page[]', 'view[x]', 'select[]', 'Gallery[Name]', 'text ')),
  w(6, constants(...PROTO, 'gallery[__proto__]', '__proto__[x]', 'constructor[prototype][x]', 'medias_smart_collection[rules][__proto__][field]', 'gallery[acl][__proto__][email]', 'media[constructor]')),
  w(3, fc.tuple(fc.constantFrom(...DEEP_BASES), fc.integer({ min: 3, max: 300 })).map(([base, depth]): Value => [base + '[a]'.repeat(depth)])),
  w(1, constants('', '[', ']', '[]', 'a[', 'a]]', 'a[b', '[[[]]]', '_method[]')),
  w(1, fc.constantFrom(...CONTROL).map((c): Value => [`a${c}`])),
  w(1, fc.constantFrom(...BAD_UTF8_WIRE).map((s): Value => ['n', { wire: s }])),
  w(1, fc.constantFrom(...BAD_UTF8_BYTES).map((b): Value => ['n', { bytes: b }])),
  w(1, fc.constantFrom(201, 1000).map((count): Value => [{ repeat: 'n', count }])),
);

const METHOD_OVERRIDES = ['PUT', 'DELETE', 'put', 'delete', 'POST', 'GET', 'PATCH', 'garbage', '', 'constructor', 'PUT\u0000', ' PUT'];

type Recipe = Array<[name: string, value?: Value]>;
const SMART_RULE: Recipe = [['medias_smart_collection[rules][0][field]'], ['medias_smart_collection[rules][0][operator]'], ['medias_smart_collection[rules][0][value]']];
const UPLOAD_STEP: Recipe = [['media[content][file_name]'], ['media[content][file_size]'], ['media[content][mime_type]']];

/**
 * Parameter sets that get a route past its required parameters (spec 4), so
 * that the mutations reach the handlers' depths. Values left out come from
 * validValue; routes without a recipe get random subsets of their whitelist.
 */
const RECIPES: Record<string, Recipe[]> = {
  'POST /medias.xml': [
    [['media[content][upload_location]', lit('REQUEST')], ...UPLOAD_STEP],
    [['media[content][upload_location]', lit('REQUEST')], ['media[content][file_name]'], ['media[content][file_size]'], ['media[content][capabilities]'], ['media[content][failed_locations]']],
    [['media[title]'], ['media[galleries]'], ['media[keywords]'], ['media[medias_collections]']],
  ],
  'PUT /medias/:uuid.xml': [
    [['media[content][upload_location]', lit('local')], ['media[content][file_name]', refValue('pendingFileName')], ['media[content][file_size]', refValue('pendingFileSize')], ['media[content][mime_type]']],
    [['media[content][upload_location]', lit('REQUEST')], ...UPLOAD_STEP],
    [['media[title]'], ['media[keywords]'], ['media[galleries]'], ['media[medias_collections]'], ['media[artist_rating]']],
  ],
  'POST /websites/:urlname/galleries.xml': [[['gallery[name]'], ['gallery[parent]']]],
  'PUT /websites/:urlname/galleries/:uuid.xml': [[['gallery[name]']], [['gallery[parent]']], [['gallery[medias_order]']], [['gallery[cover_media]']]],
  'POST /medias_groups.xml': [[['medias_smart_collection[name]'], ...SMART_RULE], [['medias_collection[name]']]],
  'PUT /medias_groups/:uuid.xml': [SMART_RULE, [['medias_collection[name]']]],
  'PUT /medias/batch_update.xml': [
    [['select'], ['medias[title]']],
    [['select', lit('all')], ['gallery_id'], ['medias[add_keywords]']],
    [['medias[on]', lit('medias')], ['medias[medias]'], ['medias[galleries]']],
  ],
  'POST /pricing_profiles.xml': [
    [['pricing_profile[name]'], ['pricing_profile[kind]', lit('download')], ['pricing_profile[currency]'], ['pricing_profile[items][0][label]'], ['pricing_profile[items][0][long_edge]'], ['pricing_profile[items][0][price]']],
    [
      ['pricing_profile[name]'],
      ['pricing_profile[kind]', lit('print')],
      ['pricing_profile[currency]'],
      ['pricing_profile[minimum_price]'],
      ['pricing_profile[items][0][label]'],
      ['pricing_profile[items][0][price]'],
      ['pricing_profile[items][0][options][0][label]'],
      ['pricing_profile[items][0][options][0][ratio]'],
    ],
  ],
  'PUT /pricing_profiles/:uuid.xml': [[['pricing_profile[name]']], [['pricing_profile[items][1][label]'], ['pricing_profile[items][1][price]']], [['pricing_profile[kind]'], ['pricing_profile[items]', lit('')]]],
  'POST /uploads/local.xml': [[['key'], ['policy', refValue('uploadPolicy')], ['signature', refValue('uploadSignature')], ['Content-Type']]],
  'PUT /uploads/raw.xml': [[['policy', refValue('rawPolicy')], ['signature', refValue('rawSignature')]]],
};

function recipeArb(recipe: Recipe): fc.Arbitrary<Field[]> {
  return fc.tuple(...recipe.map(([name, value]) => (value ? fc.constant(value) : validValue(name)))).map((values) => recipe.map(([name], i): Field => ({ name: [name], value: values[i] })));
}

/**
 * The parameters of one request for this route: a coherent set, then
 * mutations. Huge ones go in bodies: in a query string they only ever meet the
 * header size limit.
 */
function fieldsArb(route: RouteSpec, inBody: boolean): fc.Arbitrary<Field[]> {
  const patterns = route.input?.names ?? [];
  const subset = patterns.length
    ? fc.subarray([...patterns]).chain((names) =>
        names.length === 0
          ? fc.constant<Field[]>([])
          : fc.tuple(...names.map((p) => fc.tuple(starFill, validValue(p)).map(([fill, value]): Field => ({ name: [nameOf(p, fill)], value })))),
      )
    : fc.constant<Field[]>([]);
  const recipes = RECIPES[`${route.method} ${route.path}`] ?? [];
  const baseline = recipes.length ? fc.oneof(w(2, subset), w(3, fc.constantFrom(...recipes).chain(recipeArb))) : subset;
  const anyName = patterns.length ? fc.oneof(w(4, fc.constantFrom(...patterns).chain((p) => starFill.map((f) => lit(nameOf(p, f))))), w(1, strangeName)) : strangeName;
  const lists = patterns.filter((p) => LIST_PARAM.test(p));
  // Preferably one of the lists the request already sends, so the handler gets to read it.
  const hugeArray = (sent: string[]) =>
    fc
      .tuple(
        fc.constantFrom(...(sent.length ? sent : lists.length ? lists : patterns.length ? patterns : ['x'])),
        // Beyond SQLite's 32 766 and PostgreSQL's 65 535 bound parameters.
        fc.oneof(w(2, fc.integer({ min: 1000, max: 5000 })), w(1, fc.integer({ min: 32_767, max: 33_500 })), w(1, fc.integer({ min: 65_536, max: 70_000 }))),
        // Mostly one comma-separated value: repeated names soon meet the form and field-count limits.
        fc.oneof(w(3, fc.constant(true)), w(1, fc.constant(false))),
        fc.nat(0xffff),
        fc.oneof(w(4, fc.constant<'uuid'>('uuid')), w(1, fc.constantFrom(...REFS).map((r): Value => [{ ref: r }]))),
      )
      .map(([p, count, csv, from, item]): Field =>
        csv && item === 'uuid' ? { name: [nameOf(p, '0')], value: [{ uuids: count, sep: ',', from }] } : { many: { name: nameOf(p, '0'), count, item, from } },
      );
  const extra = (base: Field[]): fc.Arbitrary<Field> => {
    const named = base.flatMap((f) => ('many' in f || typeof f.name[0] !== 'string' ? [] : [f.name[0]]));
    return fc.oneof(
      // One of the request's own parameters, now wrong: the mutation lands where the handler reads.
      w(named.length ? 6 : 0, fc.constantFrom(...(named.length ? named : ['x'])).chain((name) => hostileValue(name).map((value): Field => ({ name: [name], value })))),
      // Any whitelisted name with a wrong value: the most common client mistake.
      w(3, fc.tuple(anyName, mutatedValue).map(([name, value]): Field => ({ name, value }))),
      w(2, fc.tuple(strangeName, fc.oneof(mutatedValue, fc.constant(lit('1')))).map(([name, value]): Field => ({ name, value }))),
      w(1, anyName.map((name): Field => ({ name }))),
      w(inBody ? 1 : 0, fc.tuple(anyName, hugeValue).map(([name, value]): Field => ({ name, value }))),
      // Huge arrays: thousands of values, now and then more than a database binds in one statement.
      w(inBody ? 1 : 0, hugeArray(named.filter((n) => LIST_PARAM.test(n)))),
      w(1, fc.constantFrom(...METHOD_OVERRIDES).map((m): Field => ({ name: ['_method'], value: [m] }))),
    );
  };
  const mutated = baseline.chain((base) =>
    fc.tuple(fc.oneof(w(4, fc.constant<Field[]>([])), w(6, fc.array(extra(base), { minLength: 1, maxLength: 3 }))), sometimes(20, fc.nat())).map(([more, drop]) => {
      const fields = [...base, ...more];
      // Sometimes one of the coherent values goes missing: a required parameter left out.
      if (drop !== undefined && base.length > 0) fields.splice(drop % base.length, 1);
      return fields;
    }),
  );
  if (!inBody || lists.length === 0) return mutated;
  // A coherent request whose one fault is a huge array in a list it reads.
  const huge = baseline.chain((base) => {
    const sent = base.flatMap((f) => ('many' in f || typeof f.name[0] !== 'string' || !LIST_PARAM.test(f.name[0]) ? [] : [f.name[0]]));
    return hugeArray(sent).map((f) => [...base, f]);
  });
  return fc.oneof(w(6, mutated), w(2, huge));
}

/** What goes in a path segment: the right thing, the wrong kind, someone else's, or junk. */
function segmentArb(param: string, before: string): fc.Arbitrary<Value> {
  const own: Ref[] =
    param === 'urlname'
      ? ['urlname', 'foreignUrlname']
      : before === 'galleries'
        ? ['gallery', 'subGallery', 'rootGallery', 'foreignGallery', 'media']
        : before === 'medias'
          ? ['media', 'pendingMedia', 'foreignMedia', 'gallery']
          : before === 'medias_groups'
            ? ['collection', 'smartCollection', 'foreignCollection', 'media']
            : before === 'jobs'
              ? ['job', 'media']
              : before === 'artists'
                ? ['artist', 'foreignArtist', 'media']
                : before === 'pricing_profiles'
                  ? ['pricingProfile', 'foreignPricingProfile', 'media']
                  : [...REFS];
  return fc.oneof(
    w(36, fc.constantFrom(...own).map((r) => refValue(r))),
    w(2, fc.tuple(fc.constantFrom(...own), fc.constantFrom<RefMut>('upper', 'braces', 'suffix', 'truncate')).map(([r, m]) => refValue(r, m))),
    w(1, fc.uuid().map(lit)),
    w(2, fc.integer({ min: 101, max: 400 }).map((n): Value => [{ repeat: 'a', count: n }])),
    w(1, fc.constantFrom(...BAD_UTF8_WIRE).map((s): Value => [{ wire: s }])),
    w(1, fc.constantFrom(...BAD_UTF8_BYTES).map((b): Value => [{ bytes: b }])),
    w(1, constants(...PROTO, '', '..', '.', 'a/b', 'x y', 'a\u0000', NIL_UUID)),
    w(1, fc.string({ unit: 'grapheme', maxLength: 10 }).map(lit)),
  );
}

function pathArb(route: RouteSpec): fc.Arbitrary<Value> {
  const parts = route.path.split(/(:[A-Za-z_]+)/);
  const arbs = parts.map((part, i): fc.Arbitrary<Value> => {
    if (!part.startsWith(':')) return fc.constant<Value>(part === '' ? [] : [{ wire: part }]);
    const before = /([^/]+)\/$/.exec(parts[i - 1] ?? '')?.[1] ?? '';
    return segmentArb(part.slice(1), before);
  });
  return fc.tuple(...arbs).map((vs) => vs.flat());
}

const fileArb: fc.Arbitrary<{ file: FileName }> = fc.constantFrom(...FILES).map((file) => ({ file }));

function fileNameArb(): fc.Arbitrary<Value> {
  return fc.oneof(
    w(5, fc.constantFrom(...FILE_NAMES).map(lit)),
    w(2, fc.constant(refValue('pendingFileName'))),
    w(2, mutatedValue),
    w(1, fc.constantFrom(...BAD_UTF8_BYTES).map((b): Value => ['photo', { bytes: b }, '.jpg'])),
  );
}

/** A file part for a route that takes files; for any other route, a file it does not expect. */
function filePartArb(route: RouteSpec): fc.Arbitrary<Part> {
  const fields = Array.isArray(route.files) ? route.files : route.files === true ? ['file'] : ['file', 'media[content]'];
  return fc.record({
    name: fc.oneof(w(8, fc.constantFrom(...fields).map(lit)), w(1, constants('file', 'media[content]', 'other', '__proto__'))),
    filename: fileNameArb(),
    type: fc.constantFrom(...MIMES),
    data: fc.oneof(w(4, fileArb), w(1, mutatedValue)),
  });
}

/** Multipart parts that are wrong in themselves. */
const brokenPartArb: fc.Arbitrary<Part> = fc.oneof(
  // No name at all: a part busboy hands over with an undefined name.
  w(3, fc.tuple(mutatedValue, fc.boolean()).map(([data, file]): Part => (file ? { filename: lit('a.jpg'), type: 'image/jpeg', data: { file: 'jpeg' } } : { data }))),
  w(1, mutatedValue.map((data): Part => ({ name: lit('x'), data, disposition: 'missing' }))),
  w(1, mutatedValue.map((data): Part => ({ name: lit('x'), data, disposition: 'garbage' }))),
  w(1, fc.constantFrom(...BAD_UTF8_BYTES).map((b): Part => ({ name: ['n', { bytes: b }], data: lit('v') }))),
  w(1, fc.constantFrom(...BAD_UTF8_BYTES).map((b): Part => ({ name: lit('x'), filename: ['f', { bytes: b }, '.jpg'], data: { file: 'jpeg' } }))),
  w(1, hugeValue.map((data): Part => ({ name: lit('x'), data }))),
);

function boundaryArb(): fc.Arbitrary<{ boundary: string; declared?: string }> {
  return fc.oneof(
    w(12, fc.nat(0xffffff).map((n) => ({ boundary: `----fuzz${n.toString(16)}` }))),
    w(1, fc.constant({ boundary: 'abc', declared: 'xyz' })),
    w(1, fc.constant({ boundary: 'x', declared: '' })),
    w(1, fc.constant({ boundary: 'b'.repeat(71) })),
    w(1, fc.constant({ boundary: 'a b', declared: '"a b"' })),
    w(1, fc.constant({ boundary: 'q', declared: '"q' })),
  );
}

type Placement = 'query' | 'form' | 'multipart' | 'raw' | 'both';

/** Where the parameters go: the query string (GET), a form or multipart body, or the query string beside a raw body. */
function placementArb(route: RouteSpec, method: string): fc.Arbitrary<Placement> {
  const p = (weight: number, kind: Placement) => w(weight, fc.constant(kind));
  if (method === 'GET' || method === 'HEAD') return fc.oneof(p(12, 'query'), p(1, 'raw'), p(1, 'both'));
  if (route.rawBody) return fc.oneof(p(6, 'raw'), p(1, 'form'), p(1, 'multipart'), p(1, 'query'));
  if (route.files !== undefined && route.files !== false) return fc.oneof(p(3, 'form'), p(6, 'multipart'), p(1, 'query'), p(1, 'raw'));
  return fc.oneof(p(8, 'form'), p(4, 'multipart'), p(2, 'query'), p(1, 'raw'));
}

function bodyArb(route: RouteSpec, placement: Placement, fields: Field[]): fc.Arbitrary<{ body: Body; query: Field[] }> {
  switch (placement) {
    case 'query':
      return fc.constant({ body: { kind: 'none' }, query: fields });
    case 'form':
      return fc.constant({ body: { kind: 'form', fields }, query: [] });
    case 'both':
      return fc.constant({ body: { kind: 'form', fields }, query: fields });
    case 'raw':
      return fc.oneof(w(3, fileArb), w(1, mutatedValue)).map((data) => ({ body: { kind: 'raw', data }, query: fields }));
    case 'multipart': {
      const takesFiles = route.files !== undefined && route.files !== false;
      return fc
        .tuple(
          boundaryArb(),
          sometimes(takesFiles ? 80 : 10, filePartArb(route)),
          fc.oneof(w(3, fc.constant<Part[]>([])), w(1, fc.array(brokenPartArb, { minLength: 1, maxLength: 2 }))),
          fc.oneof(w(10, fc.constant<'close'>('close')), w(3, fc.constant<'none'>('none')), w(1, fc.constant<'garbage'>('garbage'))),
          sometimes(4, fc.integer({ min: 2001, max: 2200 })),
          fc.boolean(),
        )
        .map(([b, file, broken, ending, manyFields, brokenFirst]): { body: Body; query: Field[] } => {
          const parts: Part[] = file ? (brokenFirst ? [...broken, file] : [file, ...broken]) : broken;
          const all: Field[] = manyFields ? [...fields, { many: { name: 'x', count: manyFields, item: lit('1'), from: 0 } }] : fields;
          return { body: { kind: 'multipart', boundary: b.boundary, declared: b.declared, fields: all, parts, ending }, query: [] };
        });
    }
  }
}

const contentTypeLie: fc.Arbitrary<Value | null> = fc.oneof(
  w(1, fc.constant(null)),
  w(
    4,
    constants(
      'application/json',
      'text/plain',
      'multipart/form-data',
      'multipart/form-data; boundary=',
      'multipart/form-data; boundary=nope',
      'multipart/mixed; boundary=x',
      'application/x-www-form-urlencoded; charset=latin1',
      'application/x-www-form-urlencoded',
      'APPLICATION/X-WWW-FORM-URLENCODED',
      'application/octet-stream',
      '*/*',
      'multipart/form-data; boundary="unterminated',
      ';;;',
    ),
  ),
  w(1, mutatedValue),
);

const lengthArb: fc.Arbitrary<LengthMode> = fc.oneof(
  w(70, fc.constant<LengthMode>({ mode: 'exact' })),
  w(1, fc.constant<LengthMode>({ mode: 'omit' })),
  w(2, fc.integer({ min: -50, max: 49 }).map((d): LengthMode => ({ mode: 'delta', delta: d >= 0 ? d + 1 : d }))),
  w(1, fc.constantFrom('99999999999999999999', 'abc', '-1', '1, 2', '+5', '0x10', ' 5', '').map((value): LengthMode => ({ mode: 'value', value }))),
  // Declared beyond every limit: the service must refuse from the header alone.
  w(2, fc.constantFrom('5000000000', '99999999999').map((value): LengthMode => ({ mode: 'value', value }))),
  w(2, fc.boolean().map((terminated): LengthMode => ({ mode: 'chunked', terminated }))),
);

const signArb: fc.Arbitrary<SignMode> = fc.oneof(
  w(60, fc.constant<SignMode>('sha1')),
  w(3, fc.constantFrom<SignMode>('md5', 'iso', 'posix', 'upper')),
  w(
    4,
    fc.constantFrom<SignMode>('none', 'no-timestamp', 'no-authorization', 'bad-key', 'bad-signature', 'other-request', 'stale', 'future', 'garbage-timestamp', 'garbage-authorization'),
  ),
);

const basicOf = (s: string): Value => [`Basic ${Buffer.from(s, 'utf8').toString('base64')}`];

const userAuthArb: fc.Arbitrary<{ cookie?: Value; authorization?: Value }> = fc.oneof(
  w(45, fc.constant({ cookie: refValue('sessionCookie') })),
  w(2, fc.constant({ authorization: refValue('basicAuth') })),
  w(2, fc.constant({})),
  w(1, fc.constant({ authorization: refValue('victimWrongBasic') })),
  w(
    2,
    fc
      .oneof(
        constants('Basic', 'Basic !!!', 'Basic ====', 'Bearer abc', 'basic', 'Basic ' + 'A'.repeat(10_000)),
        constants('nocolon', ':', 'nobody@example.com:pw', 'a:b:c').map((v) => basicOf(v[0] as string)),
        fc.constantFrom(...BAD_UTF8_BYTES).map((b): Value => [`Basic ${Buffer.concat([Buffer.from('x@example.com:'), Buffer.from(b)]).toString('base64')}`]),
        mutatedValue,
      )
      .map((authorization) => ({ authorization })),
  ),
  w(
    2,
    fc
      .oneof(
        constants('_ficelle_session=garbage', `_ficelle_session=${'A'.repeat(43)}`, '_ficelle_session=', 'a=b; _ficelle_session', '=;;;', `_ficelle_session=${'x'.repeat(5000)}`),
        fc.constant<Value>(['a=b; ', { ref: 'sessionCookie' }, '; _ficelle_session=other']),
        mutatedValue.map((v): Value => ['_ficelle_session=', ...v]),
      )
      .map((cookie) => ({ cookie })),
  ),
  w(1, fc.constant({ cookie: refValue('sessionCookie'), authorization: refValue('victimWrongBasic') })),
);

const tokenName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/);

const headerArb: fc.Arbitrary<[string, Value]> = fc.oneof(
  w(2, fc.tuple(fc.constantFrom('Accept', 'Accept-Encoding', 'Accept-Charset'), constants('application/json', '*/*', 'gzip, br', 'text/html;q=0.1', ''))),
  w(1, fc.tuple(fc.constant('X-Forwarded-For'), constants('1.2.3.4', 'garbage', '::1, 10.0.0.1', ''))),
  w(1, fc.tuple(fc.constant('Expect'), constants('100-continue', 'nonsense'))),
  w(1, fc.tuple(fc.constant('Transfer-Encoding'), constants('gzip', 'identity', 'chunked, gzip'))),
  w(1, fc.tuple(fc.constant('Content-Encoding'), constants('gzip', 'br', 'identity'))),
  w(1, fc.tuple(fc.constant('X-HTTP-Method-Override'), constants('DELETE', 'PUT'))),
  w(1, fc.tuple(fc.constantFrom('Range', 'If-None-Match', 'Origin', 'Connection', 'Upgrade'), constants('bytes=0-1', '*', 'null', 'keep-alive', 'websocket'))),
  w(1, fc.tuple(fc.constant('X-Big'), fc.constantFrom(9000, 20_000).map((count): Value => [{ repeat: 'a', count }]))),
  w(2, fc.tuple(tokenName, mutatedValue)),
);

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'FOO', 'get'];

/** One whole request for one route. */
function routeRequestArb(route: RouteSpec, index: number): fc.Arbitrary<FuzzRequest> {
  const overridable = route.method === 'PUT' || route.method === 'DELETE';
  type Choice = { method: string; override?: { where: 'query' | 'body'; value: string } };
  const choices: Array<Weighted<Choice>> = [w(20, fc.constant<Choice>({ method: route.method })), w(2, fc.constantFrom(...METHODS).map((method): Choice => ({ method })))];
  if (overridable) choices.push(w(8, fc.constantFrom<'query' | 'body'>('query', 'body', 'body').map((where): Choice => ({ method: 'POST', override: { where, value: route.method } }))));
  const methodArb = fc.oneof(...choices);
  return fc
    .record({
      m: methodArb,
      path: pathArb(route),
      sign: signArb,
      signJunk: mutatedValue,
      user: userAuthArb,
      headers: fc.oneof(w(8, fc.constant<Array<[string, Value]>>([])), w(2, fc.array(headerArb, { minLength: 1, maxLength: 3 }))),
      contentType: sometimes(8, contentTypeLie),
      length: lengthArb,
      omitHost: fc.oneof(w(60, fc.constant(false)), w(1, fc.constant(true))),
      extraQuery: sometimes(10, fc.array(fc.tuple(strangeName, mutatedValue).map(([name, value]): Field => ({ name, value })), { minLength: 1, maxLength: 2 })),
    })
    .chain((r) =>
      placementArb(route, r.m.method).chain((placement) =>
        fieldsArb(route, placement === 'form' || placement === 'multipart').map((fields) => ({ r, placement, fields })),
      ),
    )
    .chain(({ r, placement, fields: generated }) => {
      const fields = r.m.override?.where === 'body' ? [{ name: lit('_method'), value: lit(r.m.override.value) }, ...generated] : generated;
      return bodyArb(route, placement, fields).map(({ body, query }): FuzzRequest => {
        const q = r.m.override?.where === 'query' ? [{ name: lit('_method'), value: lit(r.m.override.value) }, ...query] : query;
        return {
          route: index,
          method: r.m.method,
          path: r.path,
          query: r.extraQuery ? [...q, ...r.extraQuery] : q,
          body,
          ...(r.contentType !== undefined ? { contentType: r.contentType } : {}),
          length: r.length,
          sign: r.sign,
          ...(r.sign.startsWith('garbage') ? { signJunk: r.signJunk } : {}),
          ...r.user,
          headers: r.headers,
          ...(r.omitHost ? { omitHost: true } : {}),
        };
      });
    });
}

/** A request for any route of the table; routes with more parameters (more surface) get more requests. */
export function requestArb(routes: readonly RouteSpec[]): fc.Arbitrary<FuzzRequest> {
  // At least 3: with 1, a route without parameters got ~4 of 500 requests, so the check that every
  // route got some failed for about one route table or seed in four (47 routes); with 3, ~9, and
  // about one in 200.
  const surface = (r: RouteSpec) => Math.max(3, 1 + Math.round(Math.sqrt((r.input?.names.length ?? 0) + (r.files ? 4 : 0))));
  return fc.oneof(...routes.map((r, i) => w(surface(r), routeRequestArb(r, i))));
}

/**
 * Why a success would be wrong for this request, whatever the route: text
 * that is not UTF-8 (a form body gets a 400 for it), or a declared body
 * beyond every limit.
 */
export function mustBeRefused(req: FuzzRequest): string[] {
  const reasons: string[] = [];
  const badText = (v: Value | undefined) => v !== undefined && v.some((p) => typeof p === 'object' && 'bytes' in p);
  const badField = (f: Field) => !('many' in f) && (badText(f.name) || badText(f.value));
  if (req.query.some(badField)) reasons.push('invalid UTF-8 in the query string');
  if (req.body.kind === 'form' && req.body.fields.some(badField)) reasons.push('invalid UTF-8 in the form body');
  if (req.body.kind === 'multipart') {
    if (req.body.fields.some(badField)) reasons.push('invalid UTF-8 in a multipart field');
    if (req.body.parts.some((p) => badText(p.name) || badText(p.filename) || (!('file' in p.data) && badText(p.data)))) reasons.push('invalid UTF-8 in a multipart part name, file name or value');
  }
  // A GET or HEAD body is never read: answering one is no harm.
  const bodied = req.method !== 'GET' && req.method !== 'HEAD';
  if (bodied && req.length.mode === 'value' && Number(req.length.value) >= BEYOND_EVERY_LIMIT) reasons.push(`a declared Content-Length of ${req.length.value} bytes`);
  return reasons;
}

// ---- bytes -----------------------------------------------------------------------

/** What a request needs from the world when it is encoded. */
export interface Resolver {
  ref(name: Ref): string;
  file(name: FileName): Buffer;
  app: { key: string; secret: string };
  port: number;
}

interface Lazy {
  length: number;
  chunks(): Generator<Buffer>;
}
type Chunk = Buffer | Lazy;
type Ctx = 'form' | 'path' | 'multipart' | 'header';

const CHUNK_BYTES = 64 * 1024;
/** Request lines and headers are cut here: the service refuses heads above 16 KiB anyway. */
const HEAD_LIMIT = 256 * 1024;

/** `count` units of equal length (the declared length depends on it), produced in 64 KiB chunks. */
function units(count: number, unitAt: (i: number) => Buffer): Lazy {
  const unitLength = count > 0 ? unitAt(0).length : 0;
  return {
    length: count * unitLength,
    *chunks() {
      let batch: Buffer[] = [];
      let size = 0;
      for (let i = 0; i < count; i++) {
        const u = unitAt(i);
        if (u.length !== unitLength) throw new Error(`harness bug: unit ${i} is ${u.length} bytes, not ${unitLength}`);
        batch.push(u);
        size += u.length;
        if (size >= CHUNK_BYTES) {
          yield Buffer.concat(batch);
          batch = [];
          size = 0;
        }
      }
      if (batch.length) yield Buffer.concat(batch);
    },
  };
}

/** The i-th of a family of distinct, well-formed UUIDs. */
function syntheticUuid(from: number, i: number): string {
  return `${(from >>> 0).toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
}

class Bytes {
  readonly chunks: Chunk[] = [];
  length = 0;

  push(c: Chunk | string): this {
    const chunk = typeof c === 'string' ? Buffer.from(c, 'latin1') : c;
    if (chunk.length === 0) return this;
    this.chunks.push(chunk);
    this.length += chunk.length;
    return this;
  }

  append(other: Bytes): this {
    for (const c of other.chunks) this.push(c);
    return this;
  }

  *iterate(): Generator<Buffer> {
    for (const c of this.chunks) {
      if (Buffer.isBuffer(c)) yield c;
      else yield* c.chunks();
    }
  }

  /** Whole, for the request head: cut at `limit` bytes (far beyond what any server reads of a head). */
  toBuffer(limit = HEAD_LIMIT): Buffer {
    const out: Buffer[] = [];
    let size = 0;
    for (const b of this.iterate()) {
      out.push(b.subarray(0, limit - size));
      size += out[out.length - 1].length;
      if (size >= limit) break;
    }
    return Buffer.concat(out);
  }
}

const isUnreserved = (b: number) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x2e || b === 0x5f || b === 0x7e;
// Brackets and commas go unencoded, as most clients send them.
const keepInForm = (b: number) => isUnreserved(b) || b === 0x5b || b === 0x5d || b === 0x2c;

function encode(s: string, ctx: Ctx): Buffer {
  const raw = Buffer.from(s, 'utf8');
  if (ctx === 'multipart' || ctx === 'header') return raw;
  const keep = ctx === 'form' ? keepInForm : isUnreserved;
  let out = '';
  for (const b of raw) out += keep(b) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return Buffer.from(out, 'latin1');
}

function mutateRef(v: string, mut: RefMut | undefined): string {
  switch (mut) {
    case 'upper':
      return v.toUpperCase();
    case 'braces':
      return `{${v}}`;
    case 'suffix':
      return `${v}x`;
    case 'truncate':
      return v.slice(0, -1);
    default:
      return v;
  }
}

function pieceChunk(p: Piece, ctx: Ctx, r: Resolver): Chunk {
  if (typeof p === 'string') return encode(p, ctx);
  if ('ref' in p) return encode(mutateRef(r.ref(p.ref), p.mut), ctx);
  if ('wire' in p) return Buffer.from(p.wire, 'latin1');
  if ('bytes' in p) return Buffer.from(p.bytes);
  if ('repeat' in p) {
    const unit = encode(p.repeat, ctx);
    return units(p.count, () => unit);
  }
  const sep = encode(p.sep, ctx);
  return units(p.uuids, (i) => Buffer.concat([Buffer.from(syntheticUuid(p.from, i), 'latin1'), sep]));
}

function valueBytes(v: Value, ctx: Ctx, r: Resolver): Bytes {
  const out = new Bytes();
  for (const p of v) out.push(pieceChunk(p, ctx, r));
  return out;
}

/** A short readable rendering of a value for reports. */
function describeValue(v: Value | undefined): string {
  if (v === undefined) return '';
  return v
    .map((p) => {
      if (typeof p === 'string') return p.length > 80 ? `${JSON.stringify(p.slice(0, 60)).slice(1, -1)}…(${p.length} chars)` : JSON.stringify(p).slice(1, -1);
      if ('ref' in p) return `<${p.ref}${p.mut ? `:${p.mut}` : ''}>`;
      if ('wire' in p) return p.wire;
      if ('bytes' in p) return p.bytes.map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
      if ('repeat' in p) return `<${JSON.stringify(p.repeat)} x ${p.count}>`;
      return `<${p.uuids} distinct UUIDs sep ${JSON.stringify(p.sep)}>`;
    })
    .join('');
}

function describeField(f: Field): string {
  if ('many' in f) return `${f.many.name}=${f.many.item === 'uuid' ? '<distinct UUID>' : describeValue(f.many.item)} x ${f.many.count}`;
  return f.value === undefined ? describeValue(f.name) : `${describeValue(f.name)}=${describeValue(f.value)}`;
}

function formFields(fields: Field[], r: Resolver): Bytes {
  const out = new Bytes();
  fields.forEach((f, i) => {
    if (i > 0) out.push('&');
    if ('many' in f) {
      const name = encode(f.many.name, 'form');
      const item = f.many.item === 'uuid' ? undefined : valueBytes(f.many.item, 'form', r).toBuffer();
      const from = f.many.from;
      out.push(
        units(f.many.count, (k) =>
          Buffer.concat([name, Buffer.from('='), item ?? Buffer.from(syntheticUuid(from, k), 'latin1'), Buffer.from('&')]),
        ),
      );
      return;
    }
    out.append(valueBytes(f.name, 'form', r));
    if (f.value !== undefined) out.push('=').append(valueBytes(f.value, 'form', r));
  });
  return out;
}

function disposition(name: Bytes | undefined, filename: Bytes | undefined): Bytes {
  const out = new Bytes().push('Content-Disposition: form-data');
  if (name) out.push('; name="').append(name).push('"');
  if (filename) out.push('; filename="').append(filename).push('"');
  return out.push('\r\n');
}

function multipartBody(body: Extract<Body, { kind: 'multipart' }>, r: Resolver): Bytes {
  const out = new Bytes();
  const open = `--${body.boundary}\r\n`;
  for (const f of body.fields) {
    if ('many' in f) {
      const item = f.many.item === 'uuid' ? undefined : valueBytes(f.many.item, 'multipart', r).toBuffer();
      const from = f.many.from;
      const head = Buffer.from(`${open}Content-Disposition: form-data; name="${f.many.name}"\r\n\r\n`, 'utf8');
      out.push(units(f.many.count, (k) => Buffer.concat([head, item ?? Buffer.from(syntheticUuid(from, k), 'latin1'), Buffer.from('\r\n')])));
      continue;
    }
    out.push(open).append(disposition(valueBytes(f.name, 'multipart', r), undefined)).push('\r\n');
    if (f.value) out.append(valueBytes(f.value, 'multipart', r));
    out.push('\r\n');
  }
  body.parts.forEach((p, i) => {
    out.push(open);
    if (p.disposition === 'garbage') out.push('Content-Disposition: attachment; name\r\n');
    else if (p.disposition !== 'missing') out.append(disposition(p.name && valueBytes(p.name, 'multipart', r), p.filename && valueBytes(p.filename, 'multipart', r)));
    if (p.type) out.push(`Content-Type: ${p.type}\r\n`);
    out.push('\r\n');
    if ('file' in p.data) out.push(r.file(p.data.file));
    else out.append(valueBytes(p.data, 'multipart', r));
    // An unterminated body stops right after the last part's data.
    if (i < body.parts.length - 1 || body.ending !== 'none') out.push('\r\n');
  });
  if (body.ending === 'close') out.push(`--${body.boundary}--\r\n`);
  else if (body.ending === 'garbage') out.push(`--${body.boundary}-x\r\nxx`);
  return out;
}

export interface Wire {
  method: string;
  head: Buffer;
  body: Bytes;
  chunked?: { terminated: boolean };
  /** Close our sending side once the body is out: the server then knows no more is coming. */
  halfClose: boolean;
  /** Human-readable request, for reports. */
  summary: string;
}

/** Bodies declared larger than this exceed every limit the service has: it must answer without waiting for them. */
const BEYOND_EVERY_LIMIT = 4 * 1024 * 1024 * 1024 + 64 * 1024;

function signatureHeaders(req: FuzzRequest, wireMethod: string, path: string, query: string, r: Resolver): Array<[string, string]> {
  const now = Date.now();
  const rfc = new Date(now).toUTCString().replace('GMT', '+0000');
  let ts = rfc;
  if (req.sign === 'iso') ts = new Date(now).toISOString();
  else if (req.sign === 'posix') ts = String(Math.floor(now / 1000));
  else if (req.sign === 'stale') ts = new Date(now - 2 * 3600_000).toUTCString().replace('GMT', '+0000');
  else if (req.sign === 'future') ts = new Date(now + 2 * 3600_000).toUTCString().replace('GMT', '+0000');
  else if (req.sign === 'garbage-timestamp') ts = valueBytes(req.signJunk ?? lit(''), 'header', r).toBuffer().toString('latin1');
  const algorithm = req.sign === 'md5' ? 'md5' : 'sha1';
  let sig = req.sign === 'other-request' ? computeSignature('GET', '/ping.xml', '', r.app.secret, ts) : computeSignature(wireMethod, path, query, r.app.secret, ts, algorithm);
  if (req.sign === 'upper') sig = sig.toUpperCase();
  if (req.sign === 'bad-signature') sig = sig.replace(/^./, (c) => (c === '0' ? '1' : '0'));
  const key = req.sign === 'bad-key' ? 'f'.repeat(32) : r.app.key;
  let authorization = `${key}:${sig}`;
  if (req.sign === 'garbage-authorization') authorization = valueBytes(req.signJunk ?? lit(''), 'header', r).toBuffer().toString('latin1');
  const out: Array<[string, string]> = [];
  if (req.sign !== 'none' && req.sign !== 'no-authorization') out.push(['X-Service-Authorization', authorization]);
  if (req.sign !== 'none' && req.sign !== 'no-timestamp') out.push(['X-Service-Timestamp', ts]);
  return out;
}

/** The exact bytes of a request, its body as lazily produced chunks. */
export function toWire(req: FuzzRequest, r: Resolver): Wire {
  const path = valueBytes(req.path, 'path', r).toBuffer().toString('latin1');
  const query = formFields(req.query, r).toBuffer().toString('latin1');
  const target = query ? `${path}?${query}` : path;

  let body = new Bytes();
  let natural: string | undefined;
  switch (req.body.kind) {
    case 'form':
      body = formFields(req.body.fields, r);
      natural = 'application/x-www-form-urlencoded';
      break;
    case 'multipart': {
      body = multipartBody(req.body, r);
      const declared = req.body.declared ?? req.body.boundary;
      natural = `multipart/form-data; boundary=${declared}`;
      break;
    }
    case 'raw':
      if ('file' in req.body.data) body.push(r.file(req.body.data.file));
      else body.append(valueBytes(req.body.data, 'multipart', r));
      natural = req.body.data && 'file' in req.body.data ? 'image/jpeg' : 'application/octet-stream';
      break;
    case 'none':
      break;
  }

  const headers: Array<[string, string]> = [];
  if (!req.omitHost) headers.push(['Host', `127.0.0.1:${r.port}`]);
  headers.push(...signatureHeaders(req, req.method, path, query, r));
  const headerValue = (v: Value) => valueBytes(v, 'header', r).toBuffer().toString('latin1');
  if (req.cookie) headers.push(['Cookie', headerValue(req.cookie)]);
  if (req.authorization) headers.push(['Authorization', headerValue(req.authorization)]);
  const contentType = req.contentType === undefined ? natural : req.contentType === null ? undefined : headerValue(req.contentType);
  if (contentType !== undefined) headers.push(['Content-Type', contentType]);

  let halfClose = false;
  let chunked: Wire['chunked'];
  let lengthNote = '';
  const hasBody = req.body.kind !== 'none';
  switch (req.length.mode) {
    case 'exact':
      if (hasBody || req.method === 'POST' || req.method === 'PUT') headers.push(['Content-Length', String(body.length)]);
      break;
    case 'omit':
      lengthNote = ' (no Content-Length)';
      break;
    case 'delta': {
      const declared = Math.max(0, body.length + req.length.delta);
      headers.push(['Content-Length', String(declared)]);
      halfClose = declared > body.length;
      lengthNote = ` (declared ${declared}, sent ${body.length})`;
      break;
    }
    case 'value': {
      headers.push(['Content-Length', req.length.value]);
      const n = Number(req.length.value);
      // A declared size beyond every limit must be refused up front: no half-close to help the service.
      halfClose = !(Number.isFinite(n) && n >= BEYOND_EVERY_LIMIT) && !(n <= body.length);
      lengthNote = ` (declared ${JSON.stringify(req.length.value)}, sent ${body.length})`;
      break;
    }
    case 'chunked':
      headers.push(['Transfer-Encoding', 'chunked']);
      chunked = { terminated: req.length.terminated };
      halfClose = !req.length.terminated;
      lengthNote = req.length.terminated ? ' (chunked)' : ' (chunked, no last chunk)';
      break;
  }
  for (const [name, v] of req.headers) headers.push([name, headerValue(v)]);
  headers.push(['Connection', 'close']);

  const headText = `${req.method} ${target} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  const clip = (s: string) => (s.length > 300 ? `${s.slice(0, 240)}…(${s.length} chars)` : s);
  const bodyText =
    req.body.kind === 'none'
      ? 'none'
      : req.body.kind === 'form'
        ? `form: ${req.body.fields.map(describeField).join(' & ')}`
        : req.body.kind === 'raw'
          ? `raw: ${'file' in req.body.data ? `<file ${req.body.data.file}>` : describeValue(req.body.data)}`
          : `multipart (boundary ${JSON.stringify(req.body.boundary)}${req.body.declared !== undefined ? `, declared ${JSON.stringify(req.body.declared)}` : ''}, ending ${req.body.ending}): ` +
            [
              ...req.body.fields.map(describeField),
              ...req.body.parts.map(
                (p) =>
                  `[part${p.disposition ? ` disposition ${p.disposition}` : ''} name=${p.name ? JSON.stringify(describeValue(p.name)) : '(none)'}${p.filename ? ` filename=${JSON.stringify(describeValue(p.filename))}` : ''}${p.type ? ` type=${p.type}` : ''}: ${'file' in p.data ? `<file ${p.data.file}>` : describeValue(p.data)}]`,
              ),
            ].join(' ; ');
  const summary = [
    `${req.method} ${clip(target)}${req.omitHost ? '   (no Host header)' : ''}`,
    ...headers.map(([k, v]) => `  ${k}: ${clip(JSON.stringify(v).slice(1, -1))}`),
    `  body (${body.length} bytes${lengthNote}): ${clip(bodyText)}`,
    req.query.length ? `  query fields: ${clip(req.query.map(describeField).join(' & '))}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return { method: req.method, head: Buffer.from(headText, 'latin1'), body, chunked, halfClose, summary };
}

/** A request whose head is given whole and which has no body. */
export function plainWire(method: string, head: string): Wire {
  return { method, head: Buffer.from(head, 'latin1'), body: new Bytes(), halfClose: false, summary: head.split('\r\n')[0] };
}

/** A request given as its exact head and body bytes (the visitor fuzz builds its own). */
export function bytesWire(method: string, head: Buffer, body: Buffer, summary: string): Wire {
  return { method, head, body: new Bytes().push(body), halfClose: false, summary };
}

function* wireBody(wire: Wire): Generator<Buffer> {
  if (!wire.chunked) {
    yield* wire.body.iterate();
    return;
  }
  for (const c of wire.body.iterate()) yield Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]);
  if (wire.chunked.terminated) yield Buffer.from('0\r\n\r\n');
}

// ---- the raw client --------------------------------------------------------------------

export interface Reply {
  status: number;
  headers: Map<string, string[]>;
  body: Buffer;
}

export type Outcome = { reply: Reply } | { failure: string; received: string };

/** A complete reply at the start of `buf`, or undefined while more is to come. */
function parseReplyBytes(buf: Buffer, method: string, eof: boolean): Reply | undefined {
  let start = 0;
  for (;;) {
    const end = buf.indexOf('\r\n\r\n', start);
    if (end < 0) return undefined;
    const lines = buf.subarray(start, end).toString('latin1').split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]);
    if (!m) return undefined;
    const status = Number(m[1]);
    const headers = new Map<string, string[]>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const k = line.slice(0, colon).trim().toLowerCase();
      headers.set(k, [...(headers.get(k) ?? []), line.slice(colon + 1).trim()]);
    }
    const bodyStart = end + 4;
    // 100 Continue and other interim replies come before the real one.
    if (status >= 100 && status < 200 && status !== 101) {
      start = bodyStart;
      continue;
    }
    if (method === 'HEAD' || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
    const te = headers.get('transfer-encoding')?.join(',').toLowerCase();
    if (te?.includes('chunked')) {
      const parts: Buffer[] = [];
      let at = bodyStart;
      for (;;) {
        const lineEnd = buf.indexOf('\r\n', at);
        if (lineEnd < 0) return undefined;
        const size = parseInt(buf.subarray(at, lineEnd).toString('latin1'), 16);
        if (Number.isNaN(size)) return { status, headers, body: Buffer.concat(parts) };
        if (size === 0) return { status, headers, body: Buffer.concat(parts) };
        if (buf.length < lineEnd + 2 + size + 2) return undefined;
        parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
    }
    const cl = headers.get('content-length')?.[0];
    if (cl !== undefined) {
      const n = Number(cl);
      if (buf.length - bodyStart < n) return undefined;
      return { status, headers, body: buf.subarray(bodyStart, bodyStart + n) };
    }
    return eof ? { status, headers, body: buf.subarray(bodyStart) } : undefined;
  }
}

function drained(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

/**
 * Sends the request over a fresh connection and reads one reply. Any way of
 * not getting a complete reply (timeout, reset, close) is a failure; a reply
 * followed by the service closing the connection while we still send is not.
 */
export function exchange(port: number, wire: Wire, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let error: NodeJS.ErrnoException | undefined;
    let settled = false;
    const finish = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const preview = () => received.subarray(0, 400).toString('latin1');
    const timer = setTimeout(() => finish({ failure: `no complete reply within ${timeoutMs} ms`, received: preview() }), timeoutMs);
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      const reply = parseReplyBytes(received, wire.method, false);
      if (reply) finish({ reply });
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error = err;
    });
    socket.on('close', () => {
      const reply = parseReplyBytes(received, wire.method, true);
      finish(reply ? { reply } : { failure: `connection ${error ? `reset (${error.code ?? error.message})` : 'closed'} without a complete reply`, received: preview() });
    });
    socket.on('connect', () => {
      void (async () => {
        socket.write(wire.head);
        for (const chunk of wireBody(wire)) {
          if (settled || socket.destroyed || !socket.writable) return;
          if (!socket.write(chunk)) await drained(socket);
        }
        if (wire.halfClose && !settled && socket.writable) socket.end();
      })();
    });
  });
}

// ---- the checks ----------------------------------------------------------------------

// XML 1.0 Char: no C0 controls but tab, LF, CR; no U+FFFE/U+FFFF; no lone surrogates.
const NOT_XML_CHAR = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What is wrong with a reply: every reply is a well-formed XML <reply> below 500, with a request id. */
export function replyProblems(method: string, reply: Reply): string[] {
  const problems: string[] = [];
  if (reply.status >= 500) problems.push(`status ${reply.status}`);
  if (!reply.headers.get('x-request-id')?.[0]) problems.push('no X-Request-Id header');
  if (method === 'HEAD') return problems;
  let text: string;
  try {
    text = utf8.decode(reply.body);
  } catch {
    return [...problems, 'body is not UTF-8'];
  }
  if (!text.startsWith('<?xml')) {
    const code = /"code":"([A-Z_]+)"/.exec(text)?.[1];
    return [...problems, `body is not XML (${text === '' ? 'empty' : code ? `Fastify JSON ${code}` : JSON.stringify(text.slice(0, 40))})`];
  }
  if (NOT_XML_CHAR.test(text)) problems.push('body holds characters XML 1.0 does not allow');
  try {
    const root = parseXml(text);
    if (root.name !== 'reply') problems.push(`root element is <${root.name}>, not <reply>`);
  } catch (err) {
    problems.push(`body does not parse as XML: ${(err as Error).message}`);
  }
  const type = reply.headers.get('content-type')?.[0] ?? '';
  if (!/^application\/xml\b/i.test(type)) problems.push(`Content-Type is ${JSON.stringify(type)}`);
  return problems;
}

/** The error message of an XML error reply, if any (for grouping failures). */
export function errorText(reply: Reply): string {
  const m = /<error>([^<]*)<\/error>/.exec(reply.body.toString('utf8'));
  return m ? m[1] : reply.body.subarray(0, 120).toString('utf8');
}

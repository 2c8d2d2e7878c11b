// A gallery create or update declared once (spec 2.3; docs/architecture.md "One contract"):
// GALLERY_FIELDS gives the typed input, the checks and the 422s to every face; the API
// reads it as gallery[...] (GALLERY_API, input.ts), its whitelist generated from it.
import { bracketNames, custom, keyOf, flag, instant, int, line, oneOf, readFields, text, uuid, uuidList, type InputOf, type Mode, type Source } from '../core/fields.js';
import { aclField } from './acl.js';
import { MAX_PICK_LIMIT } from '../lightboxes/service.js';
import { FAVOURITES_SETTINGS, readListNames } from '../lightboxes/lists.js';

export const CONTENT_ORDERS = [
  'manual-first',
  'manual-last',
  'file_name',
  'file_name_nat',
  'published_at',
  'shot_at',
  'created_at',
  'updated_at',
  'artist_rating',
] as const;
export type ContentOrder = (typeof CONTENT_ORDERS)[number];
export const DIRECTIONS = ['asc', 'desc'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** What a download gives where the visitor may have the original (docs/delivery.md "Download controls"). */
export const DOWNLOAD_SIZES = ['web', 'original'] as const;
export type DownloadSize = (typeof DOWNLOAD_SIZES)[number];
/** Photos one client may download from a gallery, at most (a wedding's worth, many times over). */
export const MAX_DOWNLOAD_LIMIT = 100_000;
const PIN = /^[0-9]{4,8}$/;

export const MAX_NAME_LENGTH = 255;
export const MAX_DESCRIPTION_LENGTH = 65_535;
export const MAX_PASSWORD_LENGTH = 200;
/** Media UUIDs one reorder may list: a whole gallery, written in chunks (repository.ts setPositions). */
export const MAX_MEDIAS_ORDER = 100_000;
/** gallery[position]: a place among at most 1000 siblings (service.ts MAX_SUBGALLERIES). */
export const MAX_POSITION = 1000;

const createOnly = (message: (name: string) => string) => ({ only: { mode: 'create' as const, message } });
const updateOnly = (message: (name: string) => string) => ({ only: { mode: 'update' as const, message } });

/**
 * A gallery's attributes, in the order they are checked. undefined in the typed input: not
 * sent, left as it is; for the nullable references null means "clear" (sent blank).
 */
export const GALLERY_FIELDS = {
  name: text({ max: MAX_NAME_LENGTH, trim: true, blank: 'refuse', required: 'create', forbid: { pattern: /[\x00-\x08\x0B\x0C\x0E-\x1F]/, message: (n) => `${n} must not contain control characters` } }),
  /** Parent gallery UUID (required on create; blank on update changes nothing). */
  parent: uuid({ blank: 'absent', required: 'create' }),
  /** Raw url_path as sent; '' asks for one derived from the name. */
  urlPath: text({ max: 1000 }),
  description: text({ max: MAX_DESCRIPTION_LENGTH, blank: 'null' }),
  /** Display style UUID; null: the website's default style. */
  displayStyle: uuid(),
  /** Cover media UUID; null: no cover. */
  coverMedia: uuid(),
  /** Extension (docs/galleries.md): the media a protected gallery shows to visitors who may not open it; null: none. */
  publicCoverMedia: uuid(),
  hidden: flag(),
  /** Extension (docs/delivery.md): favourites a client may choose here; blank (null): no limit. */
  pickLimit: int({ min: 1, max: MAX_PICK_LIMIT, blank: 'null' }),
  /** Extension (docs/delivery.md): 4–8 digits asked before a download; null (blank): none. */
  downloadPin: line({ max: 8, check: { test: (v) => PIN.test(v), message: (n) => `${n} must be 4 to 8 digits` } }),
  /** Extension (docs/delivery.md): distinct photos each client may download here; null (blank): no limit. */
  downloadLimit: int({ min: 1, max: MAX_DOWNLOAD_LIMIT, blank: 'null' }),
  /** Extension (docs/delivery.md): 'web' (the 2048 rendition) or 'original' where the visitor may have the original. */
  downloadSize: oneOf(DOWNLOAD_SIZES),
  /** Extension (docs/delivery.md): favourites on, off, or default (null: on in client galleries, off in public ones). */
  favourites: oneOf(FAVOURITES_SETTINGS, { as: (w) => (w === 'default' ? null : w) }),
  /** Extension (docs/delivery.md): the named lists clients may sort picks into, one a line; blank (null): none. */
  favouriteLists: custom<string[] | null>((v, at) => readListNames(v, at)),
  /** Extension (docs/galleries.md): when the gallery closes to visitors, it and all below it; null (blank): never. */
  expiresAt: instant(),
  indexing: oneOf(['0', '1', '2'], { as: (w) => Number(w) as 0 | 1 | 2 }),
  /** '' (null): remove the password. */
  password: text({ max: MAX_PASSWORD_LENGTH, blank: 'null', blankIsEmpty: true }),
  contentOrder: oneOf(CONTENT_ORDERS),
  contentOrderDirection: oneOf(DIRECTIONS),
  orderSubgalleries: flag(createOnly((n) => `${n} can only be set when the gallery is created`)),
  /** Media UUIDs in their new order (update only). */
  mediasOrder: uuidList({ max: MAX_MEDIAS_ORDER, what: 'media', ...updateOnly((n) => `${n} is accepted on update only: publish medias first, then reorder them`) }),
  /** Extension (docs/galleries.md): the place among its siblings (under the new parent on a move), 1 = first; update only. */
  position: int({ min: 1, max: MAX_POSITION, wording: 'whole', ...updateOnly((n) => `${n} is accepted on update only`) }),
  /** Access list (create only). */
  acl: aclField(createOnly((n) => `${n} can only be given when the gallery is created`)),
};

/** What a create or an update asks for (undefined: not sent). */
export type GalleryInput = InputOf<typeof GALLERY_FIELDS>;

/** The XML API's names: gallery[name], gallery[url_path], gallery[acl][n][email]… */
export const GALLERY_API = bracketNames('gallery', GALLERY_FIELDS);

/** The spec key of an API name the domain's own refusals use (`gallery[url_path]` → `urlPath`). */
export const galleryKey = (apiName: string): string | undefined => keyOf(GALLERY_FIELDS, GALLERY_API, apiName);

/** Reads a create or an update from any face's values; refusals are worded with `naming` (default: the API's names). */
export function readGallery(source: Source | ((key: string) => string | undefined), mode: Mode, naming = GALLERY_API): GalleryInput {
  return readFields(GALLERY_FIELDS, source, naming, mode);
}


/** The access list set on its own (the studio's access page; the API sends it with a create only). */
export const GALLERY_ACL_FIELDS = { acl: aclField() };

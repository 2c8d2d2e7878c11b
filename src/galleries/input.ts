// Reads and validates the gallery[...] attributes of a create or an update
// (spec 2.3). Everything is checked before anything is written, and every
// refusal is a 422 that names the attribute.
import { isUuid } from '../core/uuid.js';
import { invalid, missing } from '../core/errors.js';
import { input, type Input } from '../http/input.js';
import type { Params } from '../http/params.js';
import { readAcl, type AclEntryInput } from './acl.js';
import { MAX_PICK_LIMIT } from '../lightboxes/service.js';

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

export const MAX_NAME_LENGTH = 255;
export const MAX_DESCRIPTION_LENGTH = 65_535;
export const MAX_PASSWORD_LENGTH = 200;
/** Media UUIDs one reorder may list: a whole gallery, written in chunks (repository.ts setPositions). */
export const MAX_MEDIAS_ORDER = 100_000;
/** gallery[position]: a place among at most 1000 siblings (service.ts MAX_SUBGALLERIES). */
const MAX_POSITION = 1000;

/** Every parameter name a gallery create or update route accepts. */
const GALLERY_PARAMS = [
  'gallery[name]',
  'gallery[parent]',
  'gallery[url_path]',
  'gallery[description]',
  'gallery[display_style]',
  'gallery[cover_media]',
  // Extension (docs/galleries.md): the media a protected gallery shows to visitors who may not open it.
  'gallery[public_cover_media]',
  'gallery[hidden]',
  'gallery[indexing]',
  // Extension (docs/delivery.md): how many photos a client may choose as favourites; blank: no limit.
  'gallery[pick_limit]',
  'gallery[password]',
  'gallery[content_order]',
  'gallery[content_order_direction]',
  'gallery[order_subgalleries]',
  'gallery[medias_order]',
  // Extension (docs/galleries.md): the gallery's place among its siblings, 1 = first (update only).
  'gallery[position]',
  'gallery[acl][*][email]',
  'gallery[acl][*][read]',
  'gallery[acl][*][comp_download]',
  'gallery[acl][*][hires_download]',
] as const;

/**
 * What the request asks for. undefined: not sent, left as it is. For the
 * nullable references, null means "clear" (sent blank).
 */
export interface GalleryInput {
  name?: string;
  /** Parent gallery UUID. */
  parent?: string;
  /** Raw url_path as sent; '' asks for one derived from the name. */
  urlPath?: string;
  description?: string | null;
  /** Display style UUID; null: the website's default style. */
  displayStyle?: string | null;
  /** Cover media UUID; null: no cover. */
  coverMedia?: string | null;
  /** Extension: the public cover's media UUID; null: none. */
  publicCoverMedia?: string | null;
  hidden?: boolean;
  indexing?: 0 | 1 | 2;
  /** Extension: favourites a client may choose here; null: no limit. */
  pickLimit?: number | null;
  /** null: remove the password. */
  password?: string | null;
  contentOrder?: ContentOrder;
  contentOrderDirection?: Direction;
  orderSubgalleries?: boolean;
  /** Media UUIDs in their new order (update only). */
  mediasOrder?: string[];
  /** Extension: the place among its siblings (under the new parent on a move), 1 = first; update only. */
  position?: number;
  /** Access list (create only). */
  acl?: AclEntryInput[];
}

function uuidRef(p: Params, name: string): string | null | undefined {
  const v = p.str(name);
  if (v === undefined) return undefined;
  const t = v.trim();
  if (t === '') return null;
  if (!isUuid(t)) throw invalid(`${name} must be a UUID, got ${JSON.stringify(v)}`);
  return t.toLowerCase();
}

/** One of the allowed words; blank is refused like any other value not in the list. */
function choice<T extends string>(p: Params, name: string, allowed: readonly T[]): T | undefined {
  const v = p.str(name);
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v.trim())) throw invalid(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
  return v.trim() as T;
}

function text(p: Params, name: string, max: number): string | undefined {
  const v = p.str(name);
  if (v !== undefined && v.length > max) throw invalid(`${name} must be at most ${max} characters long`);
  return v;
}

/** The gallery[...] attributes of a create or an update, as a route's input. */
export function galleryInput(mode: 'create' | 'update'): Input<GalleryInput> {
  return input(GALLERY_PARAMS, (p) => readGalleryInput(p, mode));
}

function readGalleryInput(p: Params, mode: 'create' | 'update'): GalleryInput {
  const input: GalleryInput = {};

  const name = text(p, 'gallery[name]', MAX_NAME_LENGTH)?.trim();
  if (name === undefined || name === '') {
    if (mode === 'create') throw missing('gallery[name]');
    if (name === '') throw invalid('gallery[name] cannot be blank');
  } else {
    if (/[\x00-\x08\x0B\x0C\x0E-\x1F]/.test(name)) throw invalid('gallery[name] must not contain control characters');
    input.name = name;
  }

  const parent = uuidRef(p, 'gallery[parent]');
  if (parent === null || parent === undefined) {
    if (mode === 'create') throw missing('gallery[parent]');
  } else {
    input.parent = parent;
  }

  input.urlPath = text(p, 'gallery[url_path]', 1000);
  const description = text(p, 'gallery[description]', MAX_DESCRIPTION_LENGTH);
  if (description !== undefined) input.description = description.trim() === '' ? null : description;
  input.displayStyle = uuidRef(p, 'gallery[display_style]');
  input.coverMedia = uuidRef(p, 'gallery[cover_media]');
  input.publicCoverMedia = uuidRef(p, 'gallery[public_cover_media]');
  input.hidden = p.flag('gallery[hidden]');
  if (p.has('gallery[pick_limit]')) input.pickLimit = (p.str('gallery[pick_limit]') ?? '').trim() === '' ? null : p.int('gallery[pick_limit]', { min: 1, max: MAX_PICK_LIMIT });
  const indexing = choice(p, 'gallery[indexing]', ['0', '1', '2'] as const);
  if (indexing !== undefined) input.indexing = Number(indexing) as 0 | 1 | 2;
  const password = text(p, 'gallery[password]', MAX_PASSWORD_LENGTH);
  if (password !== undefined) input.password = password === '' ? null : password;
  input.contentOrder = choice(p, 'gallery[content_order]', CONTENT_ORDERS);
  input.contentOrderDirection = choice(p, 'gallery[content_order_direction]', DIRECTIONS);

  if (p.has('gallery[order_subgalleries]')) {
    if (mode === 'update') throw invalid('gallery[order_subgalleries] can only be set when the gallery is created');
    input.orderSubgalleries = p.flag('gallery[order_subgalleries]');
  }
  if (p.has('gallery[medias_order]')) {
    if (mode === 'create') throw invalid('gallery[medias_order] is accepted on update only: publish medias first, then reorder them');
    input.mediasOrder = readMediasOrder(p);
  }
  if (p.has('gallery[position]')) {
    if (mode === 'create') throw invalid('gallery[position] is accepted on update only');
    const v = (p.str('gallery[position]') ?? '').trim();
    if (!/^\d{1,4}$/.test(v) || Number(v) < 1 || Number(v) > MAX_POSITION) throw invalid(`gallery[position] must be a whole number from 1 to ${MAX_POSITION}, got ${JSON.stringify(v)}`);
    input.position = Number(v);
  }
  const acl = readAcl(p);
  if (acl) {
    if (mode === 'update') throw invalid('gallery[acl] can only be given when the gallery is created');
    input.acl = acl;
  }
  return input;
}

function readMediasOrder(p: Params): string[] {
  const uuids = p.csvList('gallery[medias_order]', MAX_MEDIAS_ORDER) ?? [];
  const seen = new Set<string>();
  for (const u of uuids) {
    if (!isUuid(u)) throw invalid(`gallery[medias_order] must list media UUIDs, got ${JSON.stringify(u)}`);
    const key = u.toLowerCase();
    if (seen.has(key)) throw invalid(`gallery[medias_order] lists media ${u} twice`);
    seen.add(key);
  }
  return [...seen];
}

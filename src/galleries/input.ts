// The API's reading of a gallery create or update (spec 2.3): the route input generated from
// GALLERY_FIELDS (fields.ts) under the API's names, whitelist included.
import type { Mode } from '../core/fields.js';
import { specInput, type Input } from '../http/input.js';
import { GALLERY_API, GALLERY_FIELDS, type GalleryInput } from './fields.js';

export { CONTENT_ORDERS, DIRECTIONS, MAX_DESCRIPTION_LENGTH, MAX_MEDIAS_ORDER, MAX_NAME_LENGTH, MAX_PASSWORD_LENGTH, type ContentOrder, type Direction, type GalleryInput } from './fields.js';

/** The gallery[...] attributes of a create or an update, as an API route's input (its whitelist: every name of the spec). */
export function galleryInput(mode: Mode): Input<GalleryInput> {
  return specInput(GALLERY_FIELDS, GALLERY_API, mode);
}

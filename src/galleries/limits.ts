// The documented limits of a gallery tree (docs/galleries.md). Replies that
// list a gallery's ancestors, and every full url path rewrite, cost the depth
// times the path length: both stay bounded so that no tree can make a reply,
// a statement or the process's memory grow without limit.
import { invalid } from '../core/errors.js';
import { galleryKey } from './fields.js';

/** Levels below the root: its children are on level 1. */
export const MAX_GALLERY_DEPTH = 32;
export const MAX_FULL_URL_PATH_LENGTH = 1000;
/** Galleries of one website, the root included. */
export const MAX_GALLERIES_PER_WEBSITE = 20_000;

/** Level of a gallery: url paths never contain '/', so it is the number of segments of its full url path. */
export function levelOf(fullUrlPath: string): number {
  return fullUrlPath === '' ? 0 : fullUrlPath.split('/').length;
}

/**
 * Refuses a gallery whose deepest sub-gallery would land beyond the depth
 * limit, deeper than it was (`wasLevel`): a tree made before the limits can
 * still be brought back within them step by step.
 */
export function checkDepth(deepestLevel: number, parentUuid: string, wasLevel = 0): void {
  if (deepestLevel > MAX_GALLERY_DEPTH && deepestLevel > wasLevel) {
    throw invalid(
      `gallery[parent]: under gallery ${parentUuid} a gallery would be ${deepestLevel} levels below the root; galleries may be at most ${MAX_GALLERY_DEPTH} levels deep`,
      'parent',
    );
  }
}

/** Refuses a full url path (the gallery's, or the longest one below it) beyond the length limit and longer than it was; `attr` is what made it so. */
export function checkFullUrlPathLength(length: number, attr: string, wasLength = 0): void {
  if (length > MAX_FULL_URL_PATH_LENGTH && length > wasLength) {
    throw invalid(`${attr}: a full-url-path would be ${length} characters long; it may be at most ${MAX_FULL_URL_PATH_LENGTH} characters long`, galleryKey(attr));
  }
}

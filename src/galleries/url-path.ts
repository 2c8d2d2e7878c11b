// Gallery url paths: lower-case ASCII slugs, unique among siblings.
// They end up in public addresses (<home-url>/-/<full-url-path>) and in
// client code between quotes, so only [a-z0-9-] ever gets through.

export const MAX_URL_PATH_LENGTH = 100;
/** What a name made only of symbols becomes. */
export const FALLBACK_URL_PATH = 'gallery';

// Letters that NFD does not decompose into a base letter plus marks.
const LIGATURES: Record<string, string> = { ß: 'ss', æ: 'ae', ø: 'o', œ: 'oe', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };

/** Lower-case, accents transliterated, every other run of characters a single '-'. May be ''. */
export function slugify(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[ßæøœłđðþı]/g, (c) => LIGATURES[c])
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return trimTo(slug, MAX_URL_PATH_LENGTH);
}

function trimTo(slug: string, max: number): string {
  return slug.length <= max ? slug : slug.slice(0, max).replace(/-+$/, '');
}

/** The url path a gallery gets: the given one when it has any usable character, else one from the name. */
export function baseUrlPath(given: string | undefined, name: string): string {
  return (given !== undefined ? slugify(given) : '') || slugify(name) || FALLBACK_URL_PATH;
}

/** `base`, or `base-2`, `base-3`… — the first one no sibling uses. */
export function uniqueUrlPath(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = trimTo(base, MAX_URL_PATH_LENGTH - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Full url path of a child: the root's is '', so its children's is their own url path. */
export function childFullUrlPath(parentFullUrlPath: string, urlPath: string): string {
  return parentFullUrlPath === '' ? urlPath : `${parentFullUrlPath}/${urlPath}`;
}

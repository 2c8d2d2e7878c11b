// The rules of a watermark, written once: the admin command, the studio and the renditions
// (which draw it) read them here. Without sharp: the admin command line starts without it.

/** The longest text watermark (characters): longer is refused, and never drawn. */
export const WATERMARK_TEXT_MAX = 200;
/** The largest image watermark a photographer may upload. */
export const WATERMARK_IMAGE_MAX_BYTES = 10 * 1024 * 1024;
/**
 * An image watermark beyond this many pixels is refused at upload, and not drawn by the renditions
 * (a ladder with it fails). It is drawn at most a third of the largest rung (1280 px of 3840);
 * 8 Mpx (32 MiB decoded with its alpha) leaves room for a logo made for print.
 */
export const WATERMARK_IMAGE_MAX_PIXELS = 8_000_000;
/** The same in words, for the 422. */
export const WATERMARK_IMAGE_MAX_MEGAPIXELS = WATERMARK_IMAGE_MAX_PIXELS / 1_000_000;
/** What an image watermark may be, as sharp's loader names it, and the extension it is kept under. */
export const WATERMARK_IMAGE_FORMATS: Readonly<Record<string, string>> = { png: '.png', jpeg: '.jpg', webp: '.webp', gif: '.gif' };

/** The reason a text is no watermark, or undefined when it is one. */
export function watermarkTextProblem(text: string): string | undefined {
  if (text.trim() === '') return 'the text is empty';
  if ([...text].length > WATERMARK_TEXT_MAX) return `the text is longer than ${WATERMARK_TEXT_MAX} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) return 'the text holds control characters';
  return undefined;
}

/**
 * Where a watermark may be placed, as `position` (the watermarks table, the API's `position`): the
 * renditions' overlay (src/renditions/ladder.ts) has a gravity for each, and for nothing else.
 */
export const WATERMARK_POSITIONS = ['top-left', 'top', 'top-right', 'left', 'center', 'right', 'bottom-left', 'bottom', 'bottom-right'] as const;
export type WatermarkPosition = (typeof WATERMARK_POSITIONS)[number];
/** Opacity in percent: `strength` is 0–100 (the table's default 50). */
export const WATERMARK_STRENGTH_MIN = 0;
export const WATERMARK_STRENGTH_MAX = 100;

/** How a watermark looks: what is not given is unchanged (on creation: the table's default). */
export interface WatermarkLook {
  strength?: number;
  position?: WatermarkPosition;
  tile?: boolean;
}

// What a display style chooses (docs/display-styles.md): its name and layout, and the
// extension's crop, spacing and captions. Declared once (src/core/fields.ts), read by the
// admin command (`display-style set`, as --crop…) and the studio alike: the same 422s.
import { bracketNames, line, oneOf, yesNo, type InputOf } from '../core/fields.js';
import { specInput, type Input } from '../http/input.js';

/** The layouts the website knows how to draw (src/site/service.ts LAYOUTS). */
export const STYLE_LAYOUTS = ['grid', 'masonry', 'slideshow', 'filmstrip'] as const;
export type StyleLayout = (typeof STYLE_LAYOUTS)[number];
export const SPACINGS = ['none', 'tight', 'normal', 'wide'] as const;
export type Spacing = (typeof SPACINGS)[number];
export const MAX_STYLE_NAME = 100;

const word = <T extends string>(allowed: readonly T[]) => oneOf(allowed, { lower: true, blank: 'absent', got: false });

export const DISPLAY_STYLE_FIELDS = {
  name: line({ max: MAX_STYLE_NAME, blank: 'refuse' }),
  layout: word(STYLE_LAYOUTS),
  crop: yesNo(),
  spacing: word(SPACINGS),
  captions: yesNo(),
};
export type DisplayStyleInput = InputOf<typeof DISPLAY_STYLE_FIELDS>;
/** The names the studio's forms have used: display_style[name]… */
export const DISPLAY_STYLE_PARAMS = bracketNames('display_style', DISPLAY_STYLE_FIELDS);
export const displayStyleInput: Input<DisplayStyleInput> = specInput(DISPLAY_STYLE_FIELDS, DISPLAY_STYLE_PARAMS);

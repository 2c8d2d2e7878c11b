// How a watermark looks (docs/watermarks.md): its strength (opacity), position and tile.
// Declared once (src/core/fields.ts), read by the admin command (`watermark create`, as
// --strength…) and the studio alike: the same 422s. An absent value is no change (on
// creation: the table's default).
import { bracketNames, int, oneOf, yesNo, type InputOf } from '../core/fields.js';
import { specInput, type Input } from '../http/input.js';
import { WATERMARK_POSITIONS, WATERMARK_STRENGTH_MAX, WATERMARK_STRENGTH_MIN, type WatermarkLook } from './watermark-rules.js';

export type { WatermarkLook };

export const WATERMARK_LOOK_FIELDS = {
  /** Whole percents only: "50", not "50.5" nor "0x32". */
  strength: int({ min: WATERMARK_STRENGTH_MIN, max: WATERMARK_STRENGTH_MAX, wording: 'whole-bare' }),
  position: oneOf(WATERMARK_POSITIONS, { lower: true, blank: 'absent', got: false }),
  tile: yesNo(),
};
// The rules' own type and the spec's agree (a compile-time check).
const _sameLook: Required<InputOf<typeof WATERMARK_LOOK_FIELDS>> extends Required<WatermarkLook> ? true : never = true;
void _sameLook;

export const WATERMARK_LOOK_PARAMS = bracketNames('watermark', WATERMARK_LOOK_FIELDS);
export const LOOK_PARAM = (name: 'strength' | 'position' | 'tile') => WATERMARK_LOOK_PARAMS(name);
export const watermarkLookInput: Input<WatermarkLook> = specInput(WATERMARK_LOOK_FIELDS, WATERMARK_LOOK_PARAMS);

// How a watermark looks (docs/watermarks.md): its strength (opacity), position and tile.
// Declared once, read by the admin command (`watermark create`) and the studio (creating one,
// and changing one) alike: the same parameter names, the same 422s. An absent value is no change
// (on creation: the table's default).
import { invalid } from '../core/errors.js';
import { input, type Input } from '../http/input.js';
import { WATERMARK_POSITIONS, WATERMARK_STRENGTH_MAX, WATERMARK_STRENGTH_MIN, type WatermarkLook, type WatermarkPosition } from './watermark-rules.js';

export type { WatermarkLook };

export const LOOK_PARAM = (name: 'strength' | 'position' | 'tile') => `watermark[${name}]`;

export const watermarkLookInput: Input<WatermarkLook> = input([LOOK_PARAM('strength'), LOOK_PARAM('position'), LOOK_PARAM('tile')], (p) => {
  const out: WatermarkLook = {};
  const strength = p.str(LOOK_PARAM('strength'))?.trim();
  if (strength !== undefined && strength !== '') {
    // Whole percents only: "50", not "50.5" nor "0x32".
    if (!/^\d{1,3}$/.test(strength) || Number(strength) < WATERMARK_STRENGTH_MIN || Number(strength) > WATERMARK_STRENGTH_MAX) {
      throw invalid(`${LOOK_PARAM('strength')} must be a whole number from ${WATERMARK_STRENGTH_MIN} to ${WATERMARK_STRENGTH_MAX}`);
    }
    out.strength = Number(strength);
  }
  const position = p.str(LOOK_PARAM('position'))?.trim().toLowerCase();
  if (position !== undefined && position !== '') {
    if (!(WATERMARK_POSITIONS as readonly string[]).includes(position)) throw invalid(`${LOOK_PARAM('position')} must be one of ${WATERMARK_POSITIONS.join(', ')}`);
    out.position = position as WatermarkPosition;
  }
  const tile = p.yesNo(LOOK_PARAM('tile'));
  if (tile !== undefined) out.tile = tile;
  return out;
});

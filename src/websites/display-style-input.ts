// What a display style chooses (docs/display-styles.md): its name and layout, and the
// extension's crop, spacing and captions. Declared once, read by the admin command
// (`display-style set`) and the studio alike: the same whitelist, the same 422s.
import { invalid } from '../core/errors.js';
import { input, type Input } from '../http/input.js';
import type { Params } from '../http/params.js';

/** The layouts the website knows how to draw (src/site/service.ts LAYOUTS). */
export const STYLE_LAYOUTS = ['grid', 'masonry', 'slideshow', 'filmstrip'] as const;
export type StyleLayout = (typeof STYLE_LAYOUTS)[number];
export const SPACINGS = ['none', 'tight', 'normal', 'wide'] as const;
export type Spacing = (typeof SPACINGS)[number];
export const MAX_STYLE_NAME = 100;

export interface DisplayStyleInput {
  name?: string;
  layout?: StyleLayout;
  crop?: boolean;
  spacing?: Spacing;
  captions?: boolean;
}

const P = (name: string) => `display_style[${name}]`;

function oneOf<T extends string>(p: Params, name: string, allowed: readonly T[]): T | undefined {
  const v = p.str(name)?.trim().toLowerCase();
  if (v === undefined || v === '') return undefined;
  if (!(allowed as readonly string[]).includes(v)) throw invalid(`${name} must be one of ${allowed.join(', ')}`);
  return v as T;
}

export const displayStyleInput: Input<DisplayStyleInput> = input(['name', 'layout', 'crop', 'spacing', 'captions'].map(P), (p) => {
  const out: DisplayStyleInput = {};
  const name = p.str(P('name'));
  if (name !== undefined) {
    const t = name.trim();
    if (t === '') throw invalid(`${P('name')} may not be blank`);
    if (/[\x00-\x1f\x7f]/.test(t)) throw invalid(`${P('name')} must be one line of text`);
    if ([...t].length > MAX_STYLE_NAME) throw invalid(`${P('name')} must be at most ${MAX_STYLE_NAME} characters`);
    out.name = t;
  }
  const layout = oneOf(p, P('layout'), STYLE_LAYOUTS);
  if (layout !== undefined) out.layout = layout;
  const crop = p.yesNo(P('crop'));
  if (crop !== undefined) out.crop = crop;
  const spacing = oneOf(p, P('spacing'), SPACINGS);
  if (spacing !== undefined) out.spacing = spacing;
  const captions = p.yesNo(P('captions'));
  if (captions !== undefined) out.captions = captions;
  return out;
});

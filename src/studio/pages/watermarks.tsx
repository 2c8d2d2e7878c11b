// Watermarks (docs/watermarks.md): the user's media libraries, each one's watermarks shown on a
// photo as the renditions draw them, a new text or image one, how each looks (strength, position,
// tile), the default, deleting one.
import type { VNode } from 'preact';
import { WATERMARK_IMAGE_MAX_BYTES, WATERMARK_POSITIONS, WATERMARK_STRENGTH_MAX, WATERMARK_STRENGTH_MIN, WATERMARK_TEXT_MAX, type WatermarkPosition } from '../../artists/watermark-rules.js';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';

export interface WatermarkItem {
  uuid: string;
  text: string | null;
  fileName: string | null;
  width: number | null;
  height: number | null;
  isDefault: boolean;
  look: Look;
}

/** How a watermark looks, as its form shows it. */
export interface Look {
  strength: number;
  position: string;
  tile: boolean;
}

/** The table's defaults: what a new watermark's forms offer. */
const NEW_LOOK: Look = { strength: 50, position: 'center', tile: false };

const POSITION_LABELS: Record<WatermarkPosition, string> = {
  'top-left': 'Top left',
  top: 'Top',
  'top-right': 'Top right',
  left: 'Left',
  center: 'Centre',
  right: 'Right',
  'bottom-left': 'Bottom left',
  bottom: 'Bottom',
  'bottom-right': 'Bottom right',
};

export interface LibraryItem {
  uuid: string;
  name: string;
  watermarks: WatermarkItem[];
  /** More than the screen lists (the API pages them). */
  more: number;
}

/** A refusal: the id of the field it is shown next to ('form': above everything), and its message. */
export interface FormError {
  field: string;
  message: string;
}

/** What a refused form held, shown again: which form (the id its fields are suffixed with), its text and look. */
export interface Draft {
  form: string;
  text?: string;
  look: Look;
}

function label(w: WatermarkItem): string {
  return w.text !== null ? `“${w.text}”` : `${w.fileName ?? 'image'}${w.width && w.height ? ` (${w.width} × ${w.height})` : ''}`;
}

/** Strength, position and tile: the fields of a new watermark's forms and of each one's own form. `suffix` makes their ids unique on the page. */
function LookFields(p: { suffix: string; look: Look; error?: FormError }): VNode {
  const id = (n: string) => `${n}-${p.suffix}`;
  return (
    <div class="wm-look">
      <Field id={id('strength')} label="Strength" hint={`Opacity in percent, ${WATERMARK_STRENGTH_MIN} to ${WATERMARK_STRENGTH_MAX}`} error={p.error}>
        {(describedBy, bad) => (
          <input id={id('strength')} type="number" name="strength" min={WATERMARK_STRENGTH_MIN} max={WATERMARK_STRENGTH_MAX} step={1} inputMode="numeric" required value={String(p.look.strength)} aria-describedby={describedBy} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />
        )}
      </Field>
      <Field id={id('position')} label="Position" error={p.error}>
        {(describedBy, bad) => (
          <select id={id('position')} name="position" aria-describedby={describedBy} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined}>
            {WATERMARK_POSITIONS.map((pos) => (
              <option value={pos} selected={p.look.position === pos}>
                {POSITION_LABELS[pos]}
              </option>
            ))}
          </select>
        )}
      </Field>
      {/* A checkbox is its own label: the whole line is what a tap or a screen reader takes. */}
      <div class="field">
        <label class="check">
          <input id={id('tile')} type="checkbox" name="tile" value="yes" checked={p.look.tile} /> Tile: repeat it over the whole photo (the position is then not used)
        </label>
      </div>
    </div>
  );
}

/** The preview's address changes with the look: the browser keeps a preview for a minute, and must not show the old one. */
function previewUrl(w: WatermarkItem): string {
  return `/studio/watermarks/${w.uuid}/preview.jpg?look=${w.look.strength}-${w.look.position}-${w.look.tile ? 1 : 0}`;
}

function Mark(p: { viewer: Viewer; w: WatermarkItem; error?: FormError; draft?: Draft }): VNode {
  const w = p.w;
  const draft = p.draft?.form === w.uuid ? p.draft : undefined;
  return (
    <li class="wm-item">
      <img class="wm-preview" src={previewUrl(w)} alt={`Preview of the watermark ${label(w)} on a photo, strength ${w.look.strength}, ${w.look.tile ? 'tiled' : POSITION_LABELS[w.look.position as WatermarkPosition]?.toLowerCase() ?? w.look.position}`} loading="lazy" />
      <div class="wm-about">
        <p>
          <strong>{w.text !== null ? 'Text' : 'Image'}</strong> {label(w)}
          {w.isDefault ? <span class="muted"> (default)</span> : null}
        </p>
        <form method="post" action={`/studio/watermarks/${w.uuid}/look`} novalidate class="wm-edit">
          <Csrf viewer={p.viewer} />
          <LookFields suffix={w.uuid} look={draft?.look ?? w.look} error={p.error} />
          <button type="submit">
            Save the look<span class="sr"> of {label(w)}</span>
          </button>
        </form>
        {w.isDefault ? null : (
          <form method="post" action={`/studio/watermarks/${w.uuid}/default`}>
            <Csrf viewer={p.viewer} />
            <button type="submit" class="quiet">
              Make default<span class="sr"> {label(w)}</span>
            </button>
          </form>
        )}
        <form method="post" action={`/studio/watermarks/${w.uuid}/delete`} class="danger-row">
          <Csrf viewer={p.viewer} />
          <label class="check">
            <input type="checkbox" name="confirm" value="yes" required /> Yes, delete<span class="sr"> the watermark {label(w)}</span>
          </label>
          <button type="submit" class="danger">
            Delete<span class="sr"> {label(w)}</span>
          </button>
        </form>
      </div>
    </li>
  );
}

export function watermarksPage(p: { viewer: Viewer; libraries: LibraryItem[]; notice?: string; error?: FormError; draft?: Draft }): string {
  return html(
    <Layout title="Watermarks" viewer={p.viewer}>
      <h1>Watermarks</h1>
      <p class="muted">
        A watermark is drawn on the larger public sizes of the photos that use it. Changing or deleting one leaves the renditions already made as they are: the new look, or no watermark, shows
        on the photos rendered from then on (a new upload, a replaced file).
      </p>
      <Notice notice={p.notice} error={p.error && p.error.field === 'form' ? p.error.message : undefined} />
      {p.libraries.map((lib) => {
        const err = p.error;
        const id = (n: string) => `${n}-${lib.uuid}`;
        const draftOf = (form: string) => (p.draft?.form === form ? p.draft : undefined);
        return (
          <section class="card" aria-labelledby={`h-${lib.uuid}`}>
            <h2 id={`h-${lib.uuid}`}>{p.libraries.length > 1 ? lib.name : 'Your watermarks'}</h2>
            {lib.watermarks.length === 0 ? <p class="muted">No watermark yet.</p> : <ul class="wm-list">{lib.watermarks.map((w) => <Mark viewer={p.viewer} w={w} error={p.error} draft={p.draft} />)}</ul>}
            {lib.more > 0 ? <p class="muted">And {lib.more} more, not shown.</p> : null}
            <div class="wm-new">
              <form method="post" action={`/studio/watermarks/libraries/${lib.uuid}/text`} novalidate>
                <h3>New text watermark</h3>
                <Csrf viewer={p.viewer} />
                <Field id={id('text')} label="Text" hint={`At most ${WATERMARK_TEXT_MAX} characters, e.g. © Your Name`} error={err}>
                  {(describedBy, bad) => <input id={id('text')} type="text" name="text" maxLength={WATERMARK_TEXT_MAX} required value={draftOf(id('text'))?.text ?? ''} aria-describedby={describedBy} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
                </Field>
                <LookFields suffix={id('text')} look={draftOf(id('text'))?.look ?? NEW_LOOK} error={err} />
                <label class="check">
                  <input type="checkbox" name="default" value="yes" /> Make it the default
                </label>
                <p>
                  <button type="submit">Add the text watermark</button>
                </p>
              </form>
              <form method="post" action={`/studio/watermarks/libraries/${lib.uuid}/image`} enctype="multipart/form-data">
                <h3>New image watermark</h3>
                <Csrf viewer={p.viewer} />
                <label class="check">
                  <input type="checkbox" name="default" value="yes" /> Make it the default
                </label>
                <LookFields suffix={id('file')} look={draftOf(id('file'))?.look ?? NEW_LOOK} error={err} />
                <Field id={id('file')} label="Image" hint={`A PNG with transparency works best; JPEG, WebP or GIF, at most ${WATERMARK_IMAGE_MAX_BYTES / 1024 / 1024} MiB`} error={err}>
                  {(describedBy, bad) => <input id={id('file')} type="file" name="file" accept="image/png,image/jpeg,image/webp,image/gif" required aria-describedby={describedBy} aria-invalid={bad ? 'true' : undefined} />}
                </Field>
                <p>
                  <button type="submit">Upload the image watermark</button>
                </p>
              </form>
            </div>
          </section>
        );
      })}
    </Layout>,
  );
}

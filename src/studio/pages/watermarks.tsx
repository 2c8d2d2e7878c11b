// Watermarks (docs/watermarks.md): the user's media libraries, each one's watermarks shown on a
// photo as the renditions draw them, a new text or image one, the default, deleting one.
import type { VNode } from 'preact';
import { WATERMARK_IMAGE_MAX_BYTES, WATERMARK_TEXT_MAX } from '../../artists/watermark-rules.js';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';

export interface WatermarkItem {
  uuid: string;
  text: string | null;
  fileName: string | null;
  width: number | null;
  height: number | null;
  isDefault: boolean;
}

export interface LibraryItem {
  uuid: string;
  name: string;
  watermarks: WatermarkItem[];
  /** More than the screen lists (the API pages them). */
  more: number;
}

/** A refusal of one form: which library's form and which field. */
export interface FormError {
  artist: string;
  field: string;
  message: string;
}

function label(w: WatermarkItem): string {
  return w.text !== null ? `“${w.text}”` : `${w.fileName ?? 'image'}${w.width && w.height ? ` (${w.width} × ${w.height})` : ''}`;
}

function Mark(p: { viewer: Viewer; w: WatermarkItem }): VNode {
  const w = p.w;
  return (
    <li class="wm-item">
      <img class="wm-preview" src={`/studio/watermarks/${w.uuid}/preview.jpg`} alt={`Preview of the watermark ${label(w)} on a photo`} loading="lazy" />
      <div class="wm-about">
        <p>
          <strong>{w.text !== null ? 'Text' : 'Image'}</strong> {label(w)}
          {w.isDefault ? <span class="muted"> (default)</span> : null}
        </p>
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

export function watermarksPage(p: { viewer: Viewer; libraries: LibraryItem[]; notice?: string; error?: FormError; draftText?: string }): string {
  return html(
    <Layout title="Watermarks" viewer={p.viewer}>
      <h1>Watermarks</h1>
      <p class="muted">
        A watermark is drawn on the larger public sizes of the photos that use it. Deleting one leaves the renditions already made as they are; the photos that used it get none from their next
        rendering on.
      </p>
      <Notice notice={p.notice} error={p.error && p.error.field === 'form' ? p.error.message : undefined} />
      {p.libraries.map((lib) => {
        const err = p.error && p.error.artist === lib.uuid ? p.error : undefined;
        const id = (n: string) => `${n}-${lib.uuid}`;
        return (
          <section class="card" aria-labelledby={`h-${lib.uuid}`}>
            <h2 id={`h-${lib.uuid}`}>{p.libraries.length > 1 ? lib.name : 'Your watermarks'}</h2>
            {lib.watermarks.length === 0 ? <p class="muted">No watermark yet.</p> : <ul class="wm-list">{lib.watermarks.map((w) => <Mark viewer={p.viewer} w={w} />)}</ul>}
            {lib.more > 0 ? <p class="muted">And {lib.more} more, not shown.</p> : null}
            <div class="wm-new">
              <form method="post" action={`/studio/watermarks/libraries/${lib.uuid}/text`} novalidate>
                <h3>New text watermark</h3>
                <Csrf viewer={p.viewer} />
                <Field id={id('text')} label="Text" hint={`At most ${WATERMARK_TEXT_MAX} characters, e.g. © Your Name`} error={err ? { field: err.field === 'text' ? id('text') : '', message: err.message } : undefined}>
                  {(describedBy, bad) => <input id={id('text')} type="text" name="text" maxLength={WATERMARK_TEXT_MAX} required value={err?.field === 'text' ? (p.draftText ?? '') : ''} aria-describedby={describedBy} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
                </Field>
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
                <Field id={id('file')} label="Image" hint={`A PNG with transparency works best; JPEG, WebP or GIF, at most ${WATERMARK_IMAGE_MAX_BYTES / 1024 / 1024} MiB`} error={err ? { field: err.field === 'file' ? id('file') : '', message: err.message } : undefined}>
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

// A website's display styles: each one's name, layout and what it chooses besides (crop,
// spacing, captions; docs/display-styles.md), and a new one.
import type { VNode } from 'preact';
import { SPACINGS, STYLE_LAYOUTS } from '../../websites/display-style-input.js';
import { Csrf, html, Layout, Notice, type Viewer } from './layout.js';

export interface StyleItem {
  uuid: string;
  name: string;
  layout: string;
  isDefault: boolean;
  crop: boolean;
  spacing: string;
  captions: boolean;
}

/** One style's fields; `key` keeps the ids of the page's forms apart. */
function StyleFields(p: { k: string; s: Omit<StyleItem, 'uuid' | 'isDefault'>; error?: { key: string; message: string } }): VNode {
  const id = (n: string) => `${n}-${p.k}`;
  const bad = p.error?.key === p.k;
  return (
    <div class="style-fields">
      <div class="field">
        <label for={id('name')}>Name</label>
        <input id={id('name')} type="text" name="name" value={p.s.name} maxLength={100} required aria-invalid={bad ? 'true' : undefined} aria-describedby={bad ? id('name') + '-error' : undefined} class={bad ? 'invalid' : undefined} />
      </div>
      <div class="field">
        <label for={id('layout')}>Layout</label>
        <select id={id('layout')} name="layout">
          {STYLE_LAYOUTS.map((l) => (
            <option value={l} selected={p.s.layout === l}>
              {l}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={id('spacing')}>Spacing</label>
        <select id={id('spacing')} name="spacing">
          {SPACINGS.map((l) => (
            <option value={l} selected={p.s.spacing === l}>
              {l}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={id('crop')}>Photos in a grid</label>
        <select id={id('crop')} name="crop">
          <option value="no" selected={!p.s.crop}>
            whole, in justified rows
          </option>
          <option value="yes" selected={p.s.crop}>
            cropped to square cells
          </option>
        </select>
      </div>
      <div class="field">
        <label for={id('captions')}>Captions</label>
        <select id={id('captions')} name="captions">
          <option value="no" selected={!p.s.captions}>
            none
          </option>
          <option value="yes" selected={p.s.captions}>
            the title under each photo
          </option>
        </select>
      </div>
      {bad ? (
        <span class="error" id={id('name') + '-error'} role="alert">
          {p.error!.message}
        </span>
      ) : null}
    </div>
  );
}

export function stylesPage(p: { viewer: Viewer; urlname: string; siteTitle: string; styles: StyleItem[]; notice?: string; error?: { key: string; message: string }; draft?: Omit<StyleItem, 'uuid' | 'isDefault'> }): string {
  const fresh = p.draft ?? { name: '', layout: 'grid', crop: false, spacing: 'normal', captions: false };
  return html(
    <Layout title={`Display styles of ${p.siteTitle}`} viewer={p.viewer}>
      <h1>Display styles of {p.siteTitle}</h1>
      <p>
        <a href={`/studio/websites/${p.urlname}`}>Back to the settings</a>
      </p>
      <p class="muted">A gallery is shown in one of these styles; new galleries get the default one.</p>
      <Notice notice={p.notice} />
      {p.styles.map((s) => (
        <section class="card" aria-labelledby={`h-${s.uuid}`}>
          <h2 id={`h-${s.uuid}`}>
            {s.name}
            {s.isDefault ? <span class="muted"> (default)</span> : null}
          </h2>
          <form method="post" action={`/studio/websites/${p.urlname}/styles/${s.uuid}`} novalidate>
            <Csrf viewer={p.viewer} />
            <StyleFields k={s.uuid} s={s} error={p.error} />
            <button type="submit">
              Save<span class="sr"> {s.name}</span>
            </button>
          </form>
        </section>
      ))}
      <section class="card" aria-labelledby="h-new">
        <h2 id="h-new">New display style</h2>
        <form method="post" action={`/studio/websites/${p.urlname}/styles`} novalidate>
          <Csrf viewer={p.viewer} />
          <StyleFields k="new" s={fresh} error={p.error} />
          <button type="submit">Create the style</button>
        </form>
      </section>
    </Layout>,
  );
}

// The media library's screens: the grid (a page of checkboxes and the batch edit form, which
// browser/media.js turns into a virtualised grid over the whole scope), a job's progress, one
// media (edit its title, caption, alt text and keywords; its facts and galleries; replace its file, delete it).
import type { VNode } from 'preact';
import { studioScript } from '../assets.js';
import { Csrf, html, Layout, Notice, type Viewer } from './layout.js';

const MEDIA_SCRIPT = studioScript('media');

export interface GridItem {
  uuid: string;
  title: string;
  name: string;
  thumb: boolean;
  keywords: string[];
  /** In a client's selection: the client's note on it (null: none). */
  note?: string | null;
}

/** A collection or a client's selection the grid is limited to. */
export interface ScopeView {
  kind: 'lightbox' | 'collection' | 'smart';
  uuid: string;
  name: string;
  client?: { name?: string; email?: string; verified: boolean };
  gallery?: { uuid: string; name: string };
  /** A client's selection: still open to changes, or sent. */
  state?: 'open' | 'sent';
  sentAt?: string;
}

/** "20 Nov 2026, 10:00 UTC" */
function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })}, ${d.toISOString().slice(11, 16)} UTC`;
}

function ScopeLine(p: { scope: ScopeView }): VNode {
  const sc = p.scope;
  const parts: Array<VNode | string> = [];
  if (sc.client) {
    const who = [sc.client.name, sc.client.email ? `<${sc.client.email}>` : undefined].filter(Boolean).join(' ');
    parts.push(`Client: ${who}${sc.client.verified ? '' : ' (address not proved)'}`);
  }
  if (sc.gallery) parts.push(<>{'In '}<a href={`/studio/media?gallery=${sc.gallery.uuid}`}>{sc.gallery.name || '(home)'}</a></>);
  if (sc.state) parts.push(sc.state === 'sent' ? `Sent${sc.sentAt ? ` ${when(sc.sentAt)}` : ''}` : 'Open: the client may still change it');
  return (
    <p class="muted scope-line">
      {parts.map((x, i) => (
        <>
          {i ? ' · ' : null}
          {x}
        </>
      ))}
    </p>
  );
}

export interface GalleryChoice {
  uuid: string;
  label: string;
}

export interface JobView {
  uuid: string;
  state: string;
  total: number;
  processed: number;
  failed: number;
  placeInLine?: number;
}

/**
 * The form list's thumbnail, for browsers without script only: with script, the virtualised grid
 * replaces the list and asks for its own thumbnails a few at a time, and an image the parser had
 * already started would keep loading after its list is gone (60 requests at once, measured).
 */
function Thumb(p: { item: GridItem }): VNode {
  return p.item.thumb ? (
    <noscript>
      <img src={`/studio/thumbs/${p.item.uuid}`} alt="" loading="lazy" decoding="async" />
    </noscript>
  ) : (
    <span class="nothumb" aria-hidden="true"></span>
  );
}

function JobStatus(p: { job: JobView }): VNode {
  const j = p.job;
  const finished = j.state === 'done' || j.state === 'failed';
  const label = j.state === 'done' ? 'Done' : j.state === 'failed' ? 'Failed' : j.state === 'queued' ? `Waiting${j.placeInLine ? ` (number ${j.placeInLine} in line)` : ''}` : 'Working';
  return (
    <section class="card job" id="job" data-job={j.uuid} data-state={j.state} aria-labelledby="job-title">
      <h2 id="job-title">Batch edit</h2>
      <p>
        <progress id="job-progress" max={Math.max(1, j.total)} value={j.processed} aria-labelledby="job-title job-text"></progress>{' '}
        <span id="job-text" role="status">
          {`${label}: ${j.processed} of ${j.total} medias${j.failed ? `, ${j.failed} no longer there` : ''}.`}
        </span>
      </p>
      {finished ? null : (
        <p>
          <a href={`/studio/media/jobs/${j.uuid}`}>Refresh the progress</a>
        </p>
      )}
    </section>
  );
}

/** The batch edit's fields: what a selection's medias get (the API's batch update). */
/** One of the batch form's pickers: a gallery or a price list, or none (—). */
function BatchPick(p: { id: string; name: string; label: string; choices: GalleryChoice[] }) {
  return (
    <div class="field">
      <label for={p.id}>{p.label}</label>
      <select id={p.id} name={p.name}>
        <option value="">—</option>
        {p.choices.map((c) => (
          <option value={c.uuid}>{c.label}</option>
        ))}
      </select>
    </div>
  );
}

function BatchFields(p: { choices: GalleryChoice[]; priceLists: GalleryChoice[] }) {
  return (
    <details class="batch-fields">
      <summary>Edit title, description, keywords, location, galleries, price lists</summary>
      <div class="batch-grid">
        <div class="field">
          <label for="b-title">Title</label>
          <input type="text" id="b-title" name="title" maxLength={1000} />
        </div>
        <div class="field">
          <label for="b-location">Location</label>
          <input type="text" id="b-location" name="location" maxLength={1000} />
        </div>
        <div class="field wide">
          <label for="b-description">Description</label>
          <textarea id="b-description" name="description" rows={2}></textarea>
        </div>
        <div class="field">
          <label for="b-keywords">Keywords</label>
          <span class="hint" id="b-keywords-hint">
            Separated by commas.
          </span>
          <input type="text" id="b-keywords" name="keywords" aria-describedby="b-keywords-hint" />
        </div>
        <fieldset class="field">
          <legend>Keywords are</legend>
          <label class="inline">
            <input type="radio" name="keywords_mode" value="add" checked /> added
          </label>
          <label class="inline">
            <input type="radio" name="keywords_mode" value="remove" /> removed
          </label>
          <label class="inline">
            <input type="radio" name="keywords_mode" value="replace" /> the only ones
          </label>
        </fieldset>
        <BatchPick id="b-publish" name="publish" label="Publish to gallery" choices={p.choices} />
        <BatchPick id="b-unpublish" name="unpublish" label="Remove from gallery" choices={p.choices} />
        <BatchPick id="b-add-price" name="add_price_list" label="Sell with price list" choices={p.priceLists} />
        <BatchPick id="b-remove-price" name="remove_price_list" label="Take off price list" choices={p.priceLists} />
      </div>
      <div class="row">
        <button type="submit" id="apply">
          Apply to the selection
        </button>
      </div>
    </details>
  );
}

/** One media of the grid without script: its checkbox, its thumbnail, and in a manual order its moves earlier and later. */
function GridCell(p: { viewer: Viewer; item: GridItem; gallery?: string; page: number; prev?: GridItem; after?: GridItem; last: boolean }) {
  const label = p.item.title || p.item.name;
  return (
    <li class="cell">
      <label>
        <input type="checkbox" name="media" value={p.item.uuid} form="batch" /> <span class="sr">{`Select ${label}`}</span>
        <Thumb item={p.item} />
      </label>
      <a href={`/studio/media/${p.item.uuid}`} class="cap">
        {label}
      </a>
      {p.item.note ? <span class="note">{`Note: ${p.item.note}`}</span> : null}
      {p.gallery ? (
        <span class="moves">
          {p.prev ? (
            <form method="post" action="/studio/media/move">
              <Csrf viewer={p.viewer} />
              <input type="hidden" name="gallery" value={p.gallery} />
              <input type="hidden" name="media" value={p.item.uuid} />
              <input type="hidden" name="before" value={p.prev.uuid} />
              <input type="hidden" name="page" value={String(p.page)} />
              <button type="submit" class="quiet small" aria-label={`Move ${label} earlier`}>
                ←
              </button>
            </form>
          ) : null}
          {!p.last ? (
            <form method="post" action="/studio/media/move">
              <Csrf viewer={p.viewer} />
              <input type="hidden" name="gallery" value={p.gallery} />
              <input type="hidden" name="media" value={p.item.uuid} />
              <input type="hidden" name="before" value={p.after?.uuid ?? ''} />
              <input type="hidden" name="page" value={String(p.page)} />
              <button type="submit" class="quiet small" aria-label={`Move ${label} later`}>
                →
              </button>
            </form>
          ) : null}
        </span>
      ) : null}
    </li>
  );
}

export function mediaPage(p: {
  viewer: Viewer;
  gallery?: { uuid: string; name: string; manual: boolean; contentOrder: string };
  /** A collection or a client's selection the grid is limited to. */
  scope?: ScopeView;
  total: number;
  page: number;
  pageSize: number;
  offset: number;
  items: GridItem[];
  previous?: GridItem;
  following?: GridItem;
  choices: GalleryChoice[];
  /** The user's price lists, for the batch edit (uuid and label). */
  priceLists: GalleryChoice[];
  job?: JobView;
  notice?: string;
}): string {
  const pages = Math.max(1, Math.ceil(p.total / p.pageSize));
  const scopeParam: Record<string, string> = p.gallery ? { gallery: p.gallery.uuid } : p.scope ? { [p.scope.kind === 'lightbox' ? 'lightbox' : 'group']: p.scope.uuid } : {};
  const scopeQuery = (page: number) => `/studio/media?${new URLSearchParams({ ...scopeParam, page: String(page) }).toString()}`;
  const title = p.gallery
    ? `Gallery: ${p.gallery.name || '(home)'}`
    : p.scope
      ? `${p.scope.kind === 'lightbox' ? 'Selection' : p.scope.kind === 'smart' ? 'Smart collection' : 'Collection'}: ${p.scope.name}`
      : 'Library';
  const manual = p.gallery?.manual === true;
  return html(
    <Layout title={title} viewer={p.viewer} scripts={[MEDIA_SCRIPT]} wide>
      <div class="media-head">
        <div class="head-row">
          <h1>{title}</h1>
          {p.scope ? null : (
            <a class="button" href={p.gallery ? `/studio/upload?gallery=${p.gallery.uuid}` : '/studio/upload'}>
              Add photos
            </a>
          )}
        </div>
        <p class="muted">
          {p.gallery ? (
            <>
              <a href="/studio/media">Library</a> · <a href={`/studio/galleries/${p.gallery.uuid}`}>Gallery settings</a> ·{' '}
            </>
          ) : p.scope ? (
            <>
              <a href="/studio/media">Library</a> · <a href="/studio/collections">Collections and selections</a> ·{' '}
              {p.scope.kind === 'lightbox' ? (
                <>
                  <a href={`/studio/lightboxes/${p.scope.uuid}/share-links`}>Share links</a> ·{' '}
                </>
              ) : null}
            </>
          ) : null}
          <span id="total">{`${p.total} ${p.total === 1 ? 'media' : 'medias'}`}</span>
          {p.gallery && !manual ? ' · sorted automatically (choose a manual order in the gallery settings to arrange by hand)' : null}
        </p>
        {p.scope ? <ScopeLine scope={p.scope} /> : null}
      </div>
      <Notice notice={p.notice} />
      {p.job ? <JobStatus job={p.job} /> : null}
      <form id="batch" class="card batch" method="post" action="/studio/media/batch" aria-labelledby="batch-title">
        <Csrf viewer={p.viewer} />
        {Object.entries(scopeParam).map(([k, v]) => (
          <input type="hidden" name={k} value={v} />
        ))}
        <input type="hidden" name="count" value={String(p.total)} />
        <div class="batch-bar">
          <h2 id="batch-title" class="sr">
            Edit the selection
          </h2>
          <output id="selected-count" for="grid" aria-live="polite">
            0 selected
          </output>
          <label class="inline">
            <input type="checkbox" name="all" value="1" id="select-all" /> {`Select all ${p.total}`}
          </label>
          <button type="button" class="quiet js-only" id="select-none">
            Clear selection
          </button>
          {manual ? (
            <span class="js-only move-buttons">
              <button type="button" class="quiet" id="move-earlier">
                Move earlier
              </button>
              <button type="button" class="quiet" id="move-later">
                Move later
              </button>
            </span>
          ) : null}
        </div>
        <BatchFields choices={p.choices} priceLists={p.priceLists} />
        <div class="row danger-row">
          <label class="inline">
            <input type="checkbox" name="confirm_delete" value="yes" id="confirm-delete" /> Yes, delete the selected medias
          </label>
          <button type="submit" class="danger quiet" name="delete" value="1" id="delete-selected">
            Delete selected
          </button>
        </div>
        <p id="batch-message" class="batch-message" role="status"></p>
      </form>
      <div
        id="grid-wrap"
        data-total={String(p.total)}
        data-gallery={p.gallery?.uuid ?? ''}
        data-group={p.scope && p.scope.kind !== 'lightbox' ? p.scope.uuid : ''}
        data-lightbox={p.scope?.kind === 'lightbox' ? p.scope.uuid : ''}
        data-manual={manual ? '1' : ''}
      >
        <ul class="mgrid" id="grid-static" aria-label="Medias">
          {p.items.map((it, i) => (
            <GridCell viewer={p.viewer} item={it} gallery={manual ? p.gallery!.uuid : undefined} page={p.page} prev={i === 0 ? p.previous : p.items[i - 1]} after={i + 2 < p.items.length ? p.items[i + 2] : i + 2 === p.items.length ? p.following : undefined} last={i + 1 >= p.items.length && !p.following} />
          ))}
        </ul>
        {p.total === 0 ? <p class="muted">No medias here yet.</p> : null}
        <nav class="pager" aria-label="Pages">
          {p.page > 1 ? <a href={scopeQuery(p.page - 1)}>Previous page</a> : null}
          <span>{`Page ${p.page} of ${pages}`}</span>
          {p.page < pages ? <a href={scopeQuery(p.page + 1)}>Next page</a> : null}
        </nav>
      </div>
    </Layout>,
  );
}

export function jobPage(p: { viewer: Viewer; job: JobView }): string {
  return html(
    <Layout title="Batch edit" viewer={p.viewer} scripts={[MEDIA_SCRIPT]}>
      <h1>Batch edit</h1>
      <JobStatus job={p.job} />
      <p>
        <a href="/studio/media">Back to the library</a>
      </p>
    </Layout>,
  );
}

/** One media as its screen shows it: what the photographer edits, what the file said, where it is published. */
export interface MediaDetail {
  uuid: string;
  title: string;
  name: string;
  description: string;
  altText: string;
  keywords: string[];
  thumb: boolean;
  status: string;
  size: number | null;
  /** The facts the file gave (or the API set): label and value, only those present. */
  facts: Array<[string, string]>;
  galleries: Array<{ uuid: string; name: string }>;
}

/** The edit form's values after a refusal: what was sent, shown again. */
export interface MediaEditValues {
  title: string;
  description: string;
  alt_text: string;
  keywords: string;
}

function EditForm(p: { viewer: Viewer; m: MediaDetail; values?: MediaEditValues; error?: { field: string; message: string } }) {
  const v = p.values ?? { title: p.m.title, description: p.m.description, alt_text: p.m.altText, keywords: p.m.keywords.join(', ') };
  const err = (field: string) => (p.error && p.error.field === field ? p.error.message : undefined);
  const described = (field: string, hint?: string) => [hint, err(field) ? `${field}-error` : undefined].filter(Boolean).join(' ') || undefined;
  const Err = (q: { field: string }) => (err(q.field) ? <span class="error" id={`${q.field}-error`}>{err(q.field)}</span> : null);
  return (
    <form class="card media-edit" method="post" action={`/studio/media/${p.m.uuid}/edit`} aria-labelledby="edit-title">
      <h2 id="edit-title">Title, caption, alt text and keywords</h2>
      <Csrf viewer={p.viewer} />
      {p.error && p.error.field === '' ? <p class="error" role="alert">{p.error.message}</p> : null}
      <div class="field">
        <label for="title">Title</label>
        <input type="text" id="title" name="title" maxLength={1000} value={v.title} aria-invalid={err('title') ? 'true' : undefined} aria-describedby={described('title')} />
        <Err field="title" />
      </div>
      <div class="field">
        <label for="description">Caption</label>
        <textarea id="description" name="description" rows={3} maxLength={65535} aria-invalid={err('description') ? 'true' : undefined} aria-describedby={described('description')}>
          {v.description}
        </textarea>
        <Err field="description" />
      </div>
      <div class="field">
        <label for="alt_text">Alt text</label>
        <span class="hint" id="alt_text-hint">
          What the picture shows, for people who cannot see it; the website uses the title when empty.
        </span>
        <textarea id="alt_text" name="alt_text" rows={2} maxLength={1000} aria-invalid={err('alt_text') ? 'true' : undefined} aria-describedby={described('alt_text', 'alt_text-hint')}>
          {v.alt_text}
        </textarea>
        <Err field="alt_text" />
      </div>
      <div class="field">
        <label for="keywords">Keywords</label>
        <span class="hint" id="keywords-hint">
          Separated by commas.
        </span>
        <input type="text" id="keywords" name="keywords" value={v.keywords} aria-invalid={err('keywords') ? 'true' : undefined} aria-describedby={described('keywords', 'keywords-hint')} />
        <Err field="keywords" />
      </div>
      <button type="submit">Save</button>
    </form>
  );
}

export function mediaDetailPage(p: { viewer: Viewer; media: MediaDetail; notice?: string; values?: MediaEditValues; error?: { field: string; message: string } }): string {
  const m = p.media;
  return html(
    <Layout title={m.title || m.name} viewer={p.viewer}>
      <p>
        <a href="/studio/media">Library</a>
      </p>
      <h1>{m.title || m.name}</h1>
      <Notice notice={p.notice} />
      <div class="media-one">
        {m.thumb ? <img src={`/studio/thumbs/${m.uuid}`} alt={m.altText || m.title || ''} /> : <span class="nothumb big">No preview yet</span>}
        <div class="media-side">
          <EditForm viewer={p.viewer} m={m} values={p.values} error={p.error} />
          <section class="card" aria-labelledby="facts-title">
            <h2 id="facts-title">From the file</h2>
            <dl class="facts">
              <dt>File</dt>
              <dd>{m.name}</dd>
              <dt>Size</dt>
              <dd>{m.size === null ? '—' : `${Math.round(m.size / 1024)} kB`}</dd>
              {m.facts.map(([k, val]) => (
                <>
                  <dt>{k}</dt>
                  <dd>{val}</dd>
                </>
              ))}
            </dl>
          </section>
          <section class="card" aria-labelledby="in-galleries">
            <h2 id="in-galleries">In galleries</h2>
            {m.galleries.length ? (
              <ul class="in-galleries">
                {m.galleries.map((g) => (
                  <li>
                    <a href={`/studio/media?gallery=${g.uuid}`}>{g.name || '(home)'}</a>
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted">In no gallery yet: publish it from the library's batch edit.</p>
            )}
          </section>
        </div>
      </div>
      <h2>Replace the file</h2>
      <form class="card" method="post" action={`/studio/media/${m.uuid}/replace`} encType="multipart/form-data">
        <Csrf viewer={p.viewer} />
        <div class="field">
          <label for="replace-file">New file (the media keeps its address, title and galleries)</label>
          <input type="file" id="replace-file" name="file" required accept="image/*,video/*" />
        </div>
        <button type="submit">Replace</button>
      </form>
      <h2>Delete</h2>
      <form class="card" method="post" action={`/studio/media/${m.uuid}/delete`}>
        <Csrf viewer={p.viewer} />
        <label class="inline">
          <input type="checkbox" name="confirm" value="yes" required /> Yes, delete this media and its files
        </label>{' '}
        <button type="submit" class="danger">
          Delete
        </button>
      </form>
    </Layout>,
  );
}

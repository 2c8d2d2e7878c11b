// The gallery screens: a website's tree (nested lists; drag and drop from browser/galleries.js,
// and the same moves as buttons and a "Move…" page for the keyboard and without script), a
// gallery's settings, password and access list, the delete confirmation.
import type { VNode } from 'preact';
import { CONTENT_ORDERS } from '../../galleries/input.js';
import type { OverviewState } from '../../galleries/overview.js';
import { studioScript } from '../assets.js';
import type { InvitationDelivery } from '../context.js';
import { WholeSaleCard, type SaleView } from './gallery-sale.js';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';

const TREE_SCRIPT = studioScript('galleries');

export interface TreeNode {
  uuid: string;
  /** Its cover (or latest photo below) as a studio thumbnail; none: a grey square. */
  thumb?: string;
  name: string;
  parent: string | null;
  medias: number;
  fullMedias: number;
  hidden: boolean;
  locked: boolean;
  /** Past its expiry: visitors see the closed page. */
  closed?: boolean;
  /** What the website enforces there, a gallery above included (the tree page's badges); absent: not read. */
  effective?: EffectiveState;
  orderByName: boolean;
  depth: number;
  children: TreeNode[];
}

const photos = (n: number) => `${n} ${n === 1 ? 'photo' : 'photos'}`;
/** A gallery's name in a select, indented by its depth (options cannot hold markup). */
const indented = (n: TreeNode) => `${'\u2003'.repeat(n.depth)}${n.depth ? '└ ' : ''}${n.name}`;

export function chooseWebsitePage(p: { viewer: Viewer; websites: { urlname: string; title: string }[] }): string {
  return html(
    <Layout title="Galleries" viewer={p.viewer}>
      <h1>Galleries</h1>
      {p.websites.length === 0 ? (
        <p>You have no website yet.</p>
      ) : (
        <>
          <p>Choose a website:</p>
          <ul class="list card">
            {p.websites.map((w) => (
              <li>
                <a href={`/studio/websites/${w.urlname}/galleries/grid`}>{w.title || w.urlname}</a>
              </li>
            ))}
          </ul>
        </>
      )}
    </Layout>,
  );
}

function Item(p: { n: TreeNode; index: number; count: number; urlname: string }): VNode {
  const n = p.n;
  const root = n.parent === null;
  return (
    <li id={`g-${n.uuid}`} class="node">
      <div class="item" draggable={root ? undefined : true} data-root={root ? '1' : undefined}>
        {root ? null : (
          <span class="grip" aria-hidden="true">
            ⠿
          </span>
        )}
        {n.thumb ? <img class="thumb" src={n.thumb} alt="" width={48} height={48} loading="lazy" decoding="async" /> : <span class="thumb none" aria-hidden="true" />}
        <a class="gname" href={`/studio/galleries/${n.uuid}`}>
          {root ? `${n.name} (home)` : n.name}
        </a>
        <span class="count">
          {photos(n.medias)}
          {n.fullMedias > n.medias ? `, ${n.fullMedias} with the galleries inside` : ''}
        </span>
        {n.effective ? (
          // Public says nothing here: the badges are the exceptions.
          states(n.effective, TREE_LABELS)
            .filter((st) => st.kind !== 'public')
            .map((st) => (
              <span class="badge" title={st.title}>
                {st.label}
                <From from={st.from} />
              </span>
            ))
        ) : (
          <>
            {n.locked ? <span class="badge">Password</span> : null}
            {n.hidden ? <span class="badge">Hidden</span> : null}
            {n.closed ? <span class="badge">Closed</span> : null}
          </>
        )}
        {root ? null : (
          <span class="actions">
            <button type="submit" class="icon" name="up" value={n.uuid} disabled={p.index === 0 || n.orderByName}>
              <span aria-hidden="true">↑</span>
              <span class="sr">Move {n.name} up</span>
            </button>
            <button type="submit" class="icon" name="down" value={n.uuid} disabled={p.index === p.count - 1 || n.orderByName}>
              <span aria-hidden="true">↓</span>
              <span class="sr">Move {n.name} down</span>
            </button>
            <a href={`/studio/galleries/${n.uuid}/move`}>
              Move<span class="sr"> {n.name}</span>…
            </a>
            <a href={`/studio/galleries/${n.uuid}/delete`}>
              Delete<span class="sr"> {n.name}</span>…
            </a>
          </span>
        )}
      </div>
      {n.children.length ? (
        <ul>
          {n.children.map((c, i) => (
            <Item n={{ ...c, orderByName: n.orderByName }} index={i} count={n.children.length} urlname={p.urlname} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** Grid or tree: two views of one website's galleries. */
function Views(p: { urlname: string; current: 'grid' | 'tree' }): VNode {
  const base = `/studio/websites/${p.urlname}/galleries`;
  return (
    <nav aria-label="View" class="views">
      <ul>
        <li>
          <a href={`${base}/grid`} aria-current={p.current === 'grid' ? 'page' : undefined}>
            Grid
          </a>
        </li>
        <li>
          <a href={base} aria-current={p.current === 'tree' ? 'page' : undefined}>
            Tree
          </a>
        </li>
      </ul>
    </nav>
  );
}

/** One card of the overview. */
export interface GridCard {
  uuid: string;
  name: string;
  /** The website's home gallery. */
  home: boolean;
  /** Its cover (or latest photo below) as a studio thumbnail; none: a grey box. */
  thumb?: string;
  /** Distinct photos in it and the galleries below it. */
  photos: number;
  /** Galleries directly inside it. */
  inside: number;
  /** The gallery it is in, when that is not the home gallery. */
  parentName?: string;
  /** Its own password and access list: a client gallery (the Proofing link). */
  locked: boolean;
  accessList: boolean;
  /** Its state on the website, a gallery above included. */
  effective: EffectiveState;
}

/** The grid's form as sent (shown back as typed, a refused value included). */
export interface GridDraft {
  q: string;
  sort: string;
  state: string;
}

/**
 * What the website enforces at a gallery, a protection set on a gallery above included
 * (GalleriesRepository.effectiveStates, the site's rule; the state filter's too), and the gallery
 * above it comes from (null: its own).
 */
export interface EffectiveState {
  state: OverviewState;
  from: string | null;
  hidden: boolean;
  hiddenFrom: string | null;
}

const GRID_LABELS: Record<OverviewState, string> = { public: 'Public', password: 'Password', 'access-list': 'Access list', expired: 'Expired', hidden: 'Hidden' };
/** The tree's words (a closed gallery has always said Closed there). */
const TREE_LABELS: Record<OverviewState, string> = { ...GRID_LABELS, expired: 'Closed' };
const KINDS: Record<OverviewState, string> = { public: 'public', password: 'locked', 'access-list': 'acl', expired: 'closed', hidden: 'hidden' };

/** A gallery's pills: its state, then Hidden; each names the gallery above it comes from. */
function states(e: EffectiveState, labels: Record<OverviewState, string>): { label: string; kind: string; from: string | null; title?: string }[] {
  const pill = (state: OverviewState, from: string | null) => ({ label: labels[state], kind: KINDS[state], from, title: from === null ? undefined : `${labels[state]}, set on ${from}` });
  return e.hidden ? [pill(e.state, e.from), pill('hidden', e.hiddenFrom)] : [pill(e.state, e.from)];
}

/** "(from Smith wedding)" after a pill whose state a gallery above sets; the title keeps it whole where a phone cuts it. */
function From(p: { from: string | null }): VNode | null {
  return p.from === null ? null : <span class="from"> (from {p.from})</span>;
}

function Card(p: { n: GridCard }): VNode {
  const n = p.n;
  const settings = `/studio/galleries/${n.uuid}`;
  const client = n.locked || n.accessList;
  return (
    <li class={`gcard${n.home ? ' home' : ''}`}>
      <a class="gcover" href={settings} tabIndex={-1} aria-hidden="true">
        {n.thumb ? <img class="thumb" src={n.thumb} alt="" width={320} height={240} loading="lazy" decoding="async" /> : <span class="thumb none" />}
      </a>
      <div class="gbody">
        {n.parentName !== undefined ? (
          <p class="gparent">
            <span class="sr">Inside </span>
            <span aria-hidden="true">↳ </span>
            {n.parentName}
          </p>
        ) : null}
        <h2 class="gtitle">
          <a href={settings}>{n.home ? `${n.name} (home)` : n.name}</a>
        </h2>
        <p class="gmeta">
          {photos(n.photos)}
          {n.inside ? ` · ${n.inside} ${n.inside === 1 ? 'gallery' : 'galleries'} inside` : ''}
        </p>
        <ul class="gstates" aria-label="State">
          {states(n.effective, GRID_LABELS).map((st) => (
            <li class={`state ${st.kind}`} title={st.title}>
              {st.label}
              <From from={st.from} />
            </li>
          ))}
        </ul>
        <p class="glinks">
          <a href={settings}>
            Settings<span class="sr"> of {n.name}</span>
          </a>
          {client ? (
            <a href={`${settings}/proofing`}>
              Proofing<span class="sr"> of {n.name}</span>
            </a>
          ) : null}
          {n.home ? null : (
            <a href={`${settings}/share-links`}>
              Share links<span class="sr"> of {n.name}</span>
            </a>
          )}
        </p>
      </div>
    </li>
  );
}

const SORTS: Array<[string, string]> = [
  ['newest', 'Newest first'],
  ['oldest', 'Oldest first'],
  ['name', 'Name A–Z'],
  ['photos', 'Most photos'],
];
const SHOWN: Array<[string, string]> = [
  ['all', 'All galleries'],
  ['public', 'Public'],
  ['password', 'Password'],
  ['access-list', 'Access list'],
  ['expired', 'Expired'],
  ['hidden', 'Hidden'],
];

/** Search, order and state: a GET form, so the address keeps them (a bookmark, the back button), with or without script. */
function GridFilters(p: { urlname: string; draft: GridDraft; error?: { field: string; message: string } }): VNode {
  const e = p.error;
  const action = `/studio/websites/${p.urlname}/galleries/grid`;
  const asked = p.draft.q !== '' || p.draft.sort !== '' || p.draft.state !== '';
  return (
    // autocomplete off: after Back, the browser would refill the fields as last typed, not as the page's address says.
    <form method="get" action={action} class="card gfilters" role="search" aria-label="Find galleries" autocomplete="off">
      <Field id="q" label="Search by name" error={e}>
        {(d, bad) => <input type="search" id="q" name="q" value={p.draft.q} maxLength={100} aria-describedby={d} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined} />}
      </Field>
      <Field id="sort" label="Sort" error={e}>
        {(d, bad) => (
          <select id="sort" name="sort" aria-describedby={d} aria-invalid={bad || undefined}>
            {SORTS.map(([v, label]) => (
              <option value={v} selected={p.draft.sort === v}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field id="state" label="Show" error={e}>
        {(d, bad) => (
          <select id="state" name="state" aria-describedby={d} aria-invalid={bad || undefined}>
            {SHOWN.map(([v, label]) => (
              <option value={v} selected={p.draft.state === v}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div class="gfilter-buttons">
        <button type="submit">Apply</button>
        {asked ? <a href={action}>Clear</a> : null}
      </div>
    </form>
  );
}

/** The overview: a page of galleries as cards with large covers, found by name, sorted and filtered by state. */
export function gridPage(p: {
  viewer: Viewer;
  urlname: string;
  siteTitle: string;
  home: string;
  cards: GridCard[];
  total: number;
  page: number;
  pageSize: number;
  draft: GridDraft;
  pageUrl: (page: number) => string;
  error?: { field: string; message: string };
}): string {
  const pages = Math.max(1, Math.ceil(p.total / p.pageSize));
  const count = `${p.total} ${p.total === 1 ? 'gallery' : 'galleries'}${pages > 1 ? `, page ${p.page} of ${pages}` : ''}`;
  return html(
    <Layout title={`Galleries · ${p.siteTitle}`} viewer={p.viewer} wide>
      <p class="crumbs">
        <a href={`/studio/websites/${p.urlname}`}>{p.siteTitle}</a> · <a href={p.home}>View site</a>
      </p>
      <div class="head-row">
        <h1>Galleries</h1>
        <a class="button" href={`/studio/websites/${p.urlname}/galleries#new-name`}>
          New gallery
        </a>
      </div>
      <Views urlname={p.urlname} current="grid" />
      <GridFilters urlname={p.urlname} draft={p.draft} error={p.error} />
      <p class="gcount muted" role="status">
        {p.error ? 'The search could not be read: nothing is shown.' : p.total === 0 ? 'No gallery matches.' : count}
      </p>
      {p.cards.length ? (
        <ul class="ggrid">
          {p.cards.map((n) => (
            <Card n={n} />
          ))}
        </ul>
      ) : null}
      {pages > 1 ? (
        <nav class="pager" aria-label="Pages">
          {p.page > 1 ? (
            <a href={p.pageUrl(Math.min(p.page - 1, pages))} rel="prev">
              Previous page
            </a>
          ) : null}
          {p.page < pages ? (
            <a href={p.pageUrl(p.page + 1)} rel="next">
              Next page
            </a>
          ) : null}
        </nav>
      ) : null}
    </Layout>,
  );
}

/** Under a list cut at its page size: how many of how many are shown. */
function Truncated(p: { shown: number; total: number }): VNode | null {
  return p.total > p.shown ? (
    <p class="muted">
      Showing the first {p.shown} of {p.total} galleries.
    </p>
  ) : null;
}

export function treePage(p: { viewer: Viewer; urlname: string; siteTitle: string; home: string; roots: TreeNode[]; flat: TreeNode[]; total: number; notice?: string; error?: string }): string {
  return html(
    <Layout title={`Galleries · ${p.siteTitle}`} viewer={p.viewer} scripts={[TREE_SCRIPT]}>
      <p class="crumbs">
        <a href={`/studio/websites/${p.urlname}`}>{p.siteTitle}</a> · <a href={p.home}>View site</a>
      </p>
      <h1>Galleries</h1>
      <Views urlname={p.urlname} current="tree" />
      <Notice notice={p.notice} error={p.error} />
      <form class="card create" method="post" action={`/studio/websites/${p.urlname}/galleries`}>
        <Csrf viewer={p.viewer} />
        <h2 class="first">New gallery</h2>
        <div class="row">
          <div class="field">
            <label for="new-name">Name</label>
            <input id="new-name" name="name" type="text" required maxLength={255} />
          </div>
          <div class="field">
            <label for="new-parent">Inside</label>
            <select id="new-parent" name="parent">
              {p.flat.map((n) => (
                <option value={n.uuid}>{indented(n)}</option>
              ))}
            </select>
          </div>
          <button type="submit">Create</button>
        </div>
      </form>
      <p class="muted" id="tree-help">
        Drag a gallery onto another to put it inside; drop it on the upper or lower edge of one to place it before or after. With the keyboard: the arrow buttons move a gallery among its
        neighbours, “Move…” puts it anywhere.
      </p>
      <form method="post" action={`/studio/websites/${p.urlname}/galleries/order`} class="card">
        <Csrf viewer={p.viewer} />
        <ul class="tree" id="tree" data-urlname={p.urlname} aria-describedby="tree-help">
          {p.roots.map((n, i) => (
            <Item n={n} index={i} count={p.roots.length} urlname={p.urlname} />
          ))}
        </ul>
      </form>
      <Truncated shown={p.flat.length} total={p.total} />
    </Layout>,
  );
}

export function movePage(p: { viewer: Viewer; urlname: string; gallery: { uuid: string; name: string; parent: string | null }; parents: TreeNode[]; error?: string }): string {
  return html(
    <Layout title={`Move ${p.gallery.name}`} viewer={p.viewer}>
      <p class="crumbs">
        <a href={`/studio/websites/${p.urlname}/galleries#g-${p.gallery.uuid}`}>Galleries</a>
      </p>
      <h1>Move “{p.gallery.name}”</h1>
      <Notice error={p.error} />
      <form class="card" method="post" action={`/studio/galleries/${p.gallery.uuid}/move`}>
        <Csrf viewer={p.viewer} />
        <div class="field">
          <label for="parent">Put it inside</label>
          <select id="parent" name="parent">
            {p.parents.map((n) => (
              <option value={n.uuid} selected={n.uuid === p.gallery.parent}>
                {indented(n)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="position">At position</label>
          <span class="hint" id="position-hint">
            1 is first; leave empty to keep it in creation order.
          </span>
          <input id="position" name="position" type="number" min={1} max={1000} inputMode="numeric" aria-describedby="position-hint" />
        </div>
        <div class="row">
          <button type="submit">Move</button>
          <a href={`/studio/websites/${p.urlname}/galleries`}>Cancel</a>
        </div>
      </form>
    </Layout>,
  );
}

export function deletePage(p: { viewer: Viewer; urlname: string; uuid: string; name: string; galleries: number; medias: number; error?: string }): string {
  const below = p.galleries - 1;
  return html(
    <Layout title={`Delete ${p.name}`} viewer={p.viewer}>
      <h1>Delete “{p.name}”?</h1>
      <Notice error={p.error} />
      <form class="card" method="post" action={`/studio/galleries/${p.uuid}/delete`}>
        <Csrf viewer={p.viewer} />
        <input type="hidden" name="medias_count" value={String(p.medias)} />
        <p>
          This deletes the gallery{below > 0 ? ` and the ${below} ${below === 1 ? 'gallery' : 'galleries'} inside it` : ''}. {photos(p.medias)} of yours {p.medias === 1 ? 'is' : 'are'} published
          there.
        </p>
        <fieldset class="field">
          <legend>The photos</legend>
          <label class="check">
            <input type="radio" name="medias" value="keep" checked />
            Keep them in the library (they leave only these galleries)
          </label>
          <label class="check">
            <input type="radio" name="medias" value="delete" />
            Delete them too, from every gallery and the library ({photos(p.medias)})
          </label>
        </fieldset>
        <div class="row">
          <button type="submit" class="danger">
            Delete the gallery
          </button>
          <a href={`/studio/websites/${p.urlname}/galleries#g-${p.uuid}`}>Cancel</a>
        </div>
      </form>
    </Layout>,
  );
}

/** The settings form's values by the gallery spec's keys (GALLERY_FIELDS): as stored, or echoed as sent. */
export interface SettingsForm {
  name: string;
  description: string;
  displayStyle: string;
  coverMedia: string;
  contentOrder: string;
  contentOrderDirection: string;
  hidden: boolean;
  indexing: string;
  /** `YYYY-MM-DDTHH:MM` in UTC, as a datetime-local field holds it; '' when none. */
  expiresAt?: string;
  /** The download controls, as stored or echoed as sent ('' when none). */
  delivery?: DeliveryForm;
  /** Favourites: 'on', 'off' or 'default'; the list names one a line; the pick limit ('' none). */
  favourites?: string;
  favouriteLists?: string;
  pickLimit?: string;
}

export interface DeliveryForm {
  downloadPin: string;
  downloadLimit: string;
  downloadSize: string;
}

/** The section of the settings screen a notice or a refusal is about. */
export type NoticeAt = 'expiry' | 'downloads' | 'password' | 'access' | 'invite' | 'favourites';

export interface AclRow {
  position: number;
  email: string;
  read: boolean;
  comp: boolean;
  hires: boolean;
  /** The client's latest invitation mail to this gallery, when they were invited. */
  delivery?: InvitationDelivery;
}

/** A time as the studio shows it: `2026-11-29 00:50 UTC`. */
const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** What became of a client's invitation: the words, and whether it may be sent again. */
function deliveryWords(d: InvitationDelivery): { text: string; tone: string } {
  switch (d.state) {
    case 'queued':
      return { text: `Invitation being sent (since ${utc(d.queuedAt)})`, tone: 'muted' };
    case 'sent':
      return { text: `Invitation sent ${utc(d.settledAt ?? d.queuedAt)}: the mail server accepted it`, tone: 'ok' };
    case 'failed':
      return { text: `Invitation not delivered (${d.code ?? 'error'}, ${utc(d.settledAt ?? d.queuedAt)})`, tone: 'bad' };
    case 'not_mailed':
      return { text: `Invitation not mailed (${utc(d.queuedAt)}): no mail server is set up, the link was shown to copy`, tone: 'muted' };
  }
}

/**
 * A client's invitation state in the access list, with "Send again" for a failed one: a button of
 * its own small form (after the list's), never the list form's default button (Enter saves the list).
 */
function DeliveryState({ position, email, delivery }: { position: number; email: string; delivery: InvitationDelivery }) {
  const w = deliveryWords(delivery);
  return (
    <p class={`delivery ${w.tone}`} data-state={delivery.state}>
      {w.text}
      {delivery.state === 'failed' ? (
        <>
          {' '}
          <button type="submit" class="quiet small" form={`resend-${position}`}>
            Send again<span class="sr"> to {email}</span>
          </button>
        </>
      ) : null}
    </p>
  );
}

const ORDER_LABELS: Record<string, string> = {
  'manual-first': 'Manual (new photos first)',
  'manual-last': 'Manual (new photos last)',
  file_name: 'File name',
  file_name_nat: 'File name (natural: 2 before 10)',
  published_at: 'Date published',
  shot_at: 'Date taken',
  created_at: 'Date uploaded',
  updated_at: 'Date changed',
  artist_rating: 'Rating',
};

function Rights(p: { row: string; who: string; read: boolean; comp: boolean; hires: boolean }): VNode {
  return (
    <span class="rights">
      <label class="check">
        <input type="checkbox" name={`${p.row}_read`} value="1" checked={p.read} />
        View<span class="sr"> ({p.who})</span>
      </label>
      <label class="check">
        <input type="checkbox" name={`${p.row}_comp_download`} value="1" checked={p.comp} />
        Download web size<span class="sr"> ({p.who})</span>
      </label>
      <label class="check">
        <input type="checkbox" name={`${p.row}_hires_download`} value="1" checked={p.hires} />
        Download full size<span class="sr"> ({p.who})</span>
      </label>
    </span>
  );
}

/** The gallery's attributes: name, description, style, order, indexing, hidden, cover. */
function SettingsCard(p: SettingsProps) {
  const v = p.values;
  const e = p.error;
  const knownCover = v.coverMedia === '' || p.covers.includes(v.coverMedia);
  return (
    <form class="card" method="post" action={`/studio/galleries/${p.uuid}`}>
      <Csrf viewer={p.viewer} />
      <h2 class="first">Settings</h2>
      <Field id="name" label="Name" error={e}>
        {(d, bad) => <input id="name" name="name" type="text" required maxLength={255} value={v.name} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
      </Field>
      <Field id="description" label="Description" error={e} hint="Shown above the photos.">
        {(d, bad) => (
          <textarea id="description" name="description" rows={3} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined}>
            {v.description}
          </textarea>
        )}
      </Field>
      <div class="row">
        <Field id="display_style" label="Display style" error={e}>
          {(d) => (
            <select id="display_style" name="display_style" aria-describedby={d}>
              <option value="">The website’s default</option>
              {p.styles.map((s) => (
                <option value={s.uuid} selected={s.uuid === v.displayStyle}>
                  {s.name}
                  {s.isDefault ? ' (default)' : ''}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="content_order" label="Order of the photos" error={e}>
          {(d) => (
            <select id="content_order" name="content_order" aria-describedby={d}>
              {CONTENT_ORDERS.map((o) => (
                <option value={o} selected={o === v.contentOrder}>
                  {ORDER_LABELS[o] ?? o}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="content_order_direction" label="Direction" error={e}>
          {(d) => (
            <select id="content_order_direction" name="content_order_direction" aria-describedby={d}>
              <option value="asc" selected={v.contentOrderDirection === 'asc'}>
                Ascending
              </option>
              <option value="desc" selected={v.contentOrderDirection === 'desc'}>
                Descending
              </option>
            </select>
          )}
        </Field>
      </div>
      <div class="row">
        <Field id="indexing" label="Search engines" error={e}>
          {(d) => (
            <select id="indexing" name="indexing" aria-describedby={d}>
              <option value="1" selected={v.indexing === '1'}>
                Automatic (index when public)
              </option>
              <option value="2" selected={v.indexing === '2'}>
                Always index
              </option>
              <option value="0" selected={v.indexing === '0'}>
                Never index
              </option>
            </select>
          )}
        </Field>
        {p.isRoot ? null : (
          <label class="check">
            <input type="checkbox" name="hidden" value="1" checked={v.hidden} />
            Hidden from the website’s navigation
          </label>
        )}
      </div>
      <fieldset class="field" aria-describedby={e?.field === 'cover' ? 'cover-error' : undefined}>
        <legend>Cover</legend>
        <div class="pick covers">
          <label>
            <span class="none" aria-hidden="true">
              Automatic
            </span>
            <input type="radio" name="cover" value="" checked={v.coverMedia === ''} />
            First photo
          </label>
          {knownCover ? null : (
            <label>
              <img src={`/studio/thumbs/${v.coverMedia}`} alt="" loading="lazy" />
              <input type="radio" name="cover" value={v.coverMedia} checked />
              Current cover
            </label>
          )}
          {p.covers.map((u, i) => (
            <label>
              <img src={`/studio/thumbs/${u}`} alt="" loading="lazy" />
              <input type="radio" name="cover" value={u} checked={u === v.coverMedia} />
              Photo {i + 1}
            </label>
          ))}
        </div>
        {e?.field === 'cover' ? (
          <span class="error" id="cover-error" role="alert">
            {e.message}
          </span>
        ) : null}
      </fieldset>
      <button type="submit">Save settings</button>
    </form>
  );
}

/**
 * Favourites and proofing (docs/delivery.md "Favourites"): on, off or the default (on in client
 * galleries), the named lists clients sort picks into, the most photos a client may choose.
 */
function FavouritesCard(p: SettingsProps) {
  const err = p.error && ['favourites', 'favourite_lists', 'pick_limit'].includes(p.error.field) ? p.error : undefined;
  const setting = p.values.favourites ?? 'default';
  return (
    <section class="card" id="favourites-card" aria-labelledby="favourites-h">
      <h2 class="first" id="favourites-h">
        Favourites and lists
      </h2>
      {p.noticeAt === 'favourites' ? <Notice notice={p.notice} /> : null}
      <form method="post" action={`/studio/galleries/${p.uuid}/favourites`}>
        <Csrf viewer={p.viewer} />
        <Field id="favourites" label="Clients may choose favourites" error={err} hint="Default: on when this gallery or one above it has a password or an access list, off in public galleries.">
          {(d, bad) => (
            <select id="favourites" name="favourites" aria-describedby={d} aria-invalid={bad ? 'true' : undefined}>
              <option value="default" selected={setting === 'default'}>
                Default
              </option>
              <option value="on" selected={setting === 'on'}>
                On
              </option>
              <option value="off" selected={setting === 'off'}>
                Off
              </option>
            </select>
          )}
        </Field>
        <Field id="favourite_lists" label="Named lists" error={err} hint="One a line, such as Album, Prints, Retouch: at most 10 names of 40 characters.">
          {(d, bad) => <textarea id="favourite_lists" name="favourite_lists" rows={3} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} value={p.values.favouriteLists ?? ''} />}
        </Field>
        <Field id="pick_limit" label="Most photos a client may choose" error={err} hint="Leave empty for no limit.">
          {(d, bad) => <input id="pick_limit" name="pick_limit" type="number" min={1} inputMode="numeric" value={p.values.pickLimit ?? ''} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <p class="row">
          <button type="submit">Save favourites</button>
        </p>
      </form>
    </section>
  );
}

/**
 * When the gallery closes to visitors (docs/website.md "Expiry"): the spec's `expires_at`, in
 * UTC, and "Extend 30 days" (the same form, another action) while an expiry is set.
 */
function ExpiryCard(p: SettingsProps) {
  const e = p.error?.field === 'expires_at' ? p.error : undefined;
  const value = p.values.expiresAt ?? '';
  const closed = value !== '' && Date.parse(`${value}Z`) <= Date.now();
  return (
    <section class="card" id="expiry" aria-labelledby="expiry-h">
      <h2 class="first" id="expiry-h">
        Expiry
      </h2>
      {p.noticeAt === 'expiry' ? <Notice notice={p.notice} /> : null}
      <p>{value === '' ? 'This gallery stays open: it has no expiry date.' : closed ? 'This gallery has closed: visitors see a closed page and no photos.' : 'Visitors see a closed page from this date on.'}</p>
      <form method="post" action={`/studio/galleries/${p.uuid}/expiry`}>
        <Csrf viewer={p.viewer} />
        <Field id="expires_at" label="Closes on (UTC)" error={e} hint="Leave empty for no expiry.">
          {(d, bad) => <input id="expires_at" name="expires_at" type="datetime-local" value={value} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <p class="row">
          <button type="submit">Save expiry</button>
          {value === '' ? null : (
            <button type="submit" formaction={`/studio/galleries/${p.uuid}/extend`}>
              Extend 30 days
            </button>
          )}
        </p>
      </form>
    </section>
  );
}

/**
 * Downloads and favourites (docs/delivery.md "Download controls"): the PIN asked before a
 * download, the photos each client may download, web size or originals, and the favourites limit.
 */
function DownloadsCard(p: SettingsProps) {
  const v = p.values.delivery ?? { downloadPin: '', downloadLimit: '', downloadSize: 'original' };
  const at = (field: string) => (p.error?.field === field ? p.error : undefined);
  const attrs = (field: string) => ({ 'aria-invalid': at(field) ? ('true' as const) : undefined, class: at(field) ? 'invalid' : undefined });
  return (
    <section class="card" id="downloads" aria-labelledby="downloads-h">
      <h2 class="first" id="downloads-h">
        Downloads
      </h2>
      {p.noticeAt === 'downloads' ? <Notice notice={p.notice} /> : null}
      <p>Who may download at all is the access list’s download rights; these settings narrow them for this gallery.</p>
      <form method="post" action={`/studio/galleries/${p.uuid}/downloads`}>
        <Csrf viewer={p.viewer} />
        <Field id="download_pin" label="Download PIN" error={at('download_pin')} hint="4 to 8 digits clients type once before downloading. Leave empty for none.">
          {(d) => <input id="download_pin" name="download_pin" type="text" inputmode="numeric" pattern="[0-9]{4,8}" maxlength={8} autocomplete="off" value={v.downloadPin} aria-describedby={d} {...attrs('download_pin')} class={at('download_pin') ? 'pin invalid' : 'pin'} />}
        </Field>
        <Field id="download_limit" label="Downloads per client" error={at('download_limit')} hint="Distinct photos each client may download here (by their e-mail when invited, else per browser). Leave empty for no limit.">
          {(d) => <input id="download_limit" name="download_limit" type="number" min={1} max={100000} inputmode="numeric" value={v.downloadLimit} aria-describedby={d} {...attrs('download_limit')} />}
        </Field>
        <Field id="download_size" label="What “Download full size” gives" error={at('download_size')} hint="The large size is a 2048-pixel sRGB JPEG with only the copyright and author kept; “Download web size” stays the watermarked comp.">
          {(d) => (
            <select id="download_size" name="download_size" aria-describedby={d} {...attrs('download_size')}>
              <option value="original" selected={v.downloadSize !== 'web'}>
                Original files, byte for byte
              </option>
              <option value="web" selected={v.downloadSize === 'web'}>
                A large size (2048 pixels)
              </option>
            </select>
          )}
        </Field>
        <p class="row">
          <button type="submit">Save downloads</button>
        </p>
      </form>
    </section>
  );
}

/** The gallery's password: set, changed or removed. */
function PasswordCard(p: SettingsProps) {
  const e = p.error;
  return (
    <section class="card" id="password" aria-labelledby="password-h">
      <h2 class="first" id="password-h">
        Password
      </h2>
      {p.noticeAt === 'password' ? <Notice notice={p.notice} /> : null}
      <p>{p.locked ? 'Visitors are asked for a password before they see this gallery.' : 'Anyone with the address can see this gallery.'}</p>
      <form method="post" action={`/studio/galleries/${p.uuid}/password`}>
        <Csrf viewer={p.viewer} />
        <Field id="gallery-password" label={p.locked ? 'New password' : 'Password'} error={e?.field === 'password' ? { field: 'gallery-password', message: e.message } : undefined}>
          {(d, bad) => (
            <input id="gallery-password" name="password" type="text" autocomplete="off" autocapitalize="none" spellcheck={false} maxLength={200} required aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />
          )}
        </Field>
        <button type="submit">Set the password</button>
      </form>
      {p.locked ? (
        <form method="post" action={`/studio/galleries/${p.uuid}/password`} class="then">
          <Csrf viewer={p.viewer} />
          <input type="hidden" name="remove" value="1" />
          <button type="submit" class="quiet">
            Remove the password
          </button>
        </form>
      ) : null}
    </section>
  );
}

/** The access list: everyone's rights, each client's, one client added. */
function AccessCard(p: SettingsProps) {
  const e = p.error;
  const def = p.acl.find((a) => a.position === 0) ?? { position: 0, email: 'DEFAULT', read: true, comp: false, hires: false };
  const clients = p.acl.filter((a) => a.position !== 0);
  return (
    <section class="card" id="access" aria-labelledby="access-h">
      <h2 class="first" id="access-h">
        Access list
      </h2>
      {p.noticeAt === 'access' ? <Notice notice={p.notice} /> : null}
      <p class="muted">What everyone may do, and what each client signed in with their address may do instead.</p>
      {e?.field === 'acl' ? (
        <p class="alert" role="alert" id="acl-error">
          {e.message}
        </p>
      ) : null}
      <form method="post" action={`/studio/galleries/${p.uuid}/acl`}>
        <Csrf viewer={p.viewer} />
        <fieldset class="acl">
          <legend>Everyone</legend>
          <Rights row="default" who="everyone" read={def.read} comp={def.comp} hires={def.hires} />
        </fieldset>
        {clients.map((c) => (
          <fieldset class="acl">
            <legend>{c.email}</legend>
            <input type="hidden" name="entry" value={String(c.position)} />
            <input type="hidden" name={`${c.position}_email`} value={c.email} />
            <Rights row={String(c.position)} who={c.email} read={c.read} comp={c.comp} hires={c.hires} />
            {c.delivery ? <DeliveryState position={c.position} email={c.email} delivery={c.delivery} /> : null}
            <label class="check">
              <input type="checkbox" name={`${c.position}_remove`} value="1" />
              Remove<span class="sr"> {c.email}</span>
            </label>
          </fieldset>
        ))}
        <fieldset class="acl">
          <legend>Add a client</legend>
          <div class="field">
            <label for="new_email">E-mail address</label>
            <input id="new_email" name="new_email" type="email" autocomplete="off" />
          </div>
          <Rights row="new" who="new client" read={true} comp={false} hires={false} />
        </fieldset>
        <button type="submit">Save the access list</button>
      </form>
      {clients
        .filter((c) => c.delivery?.state === 'failed')
        .map((c) => (
          <form id={`resend-${c.position}`} method="post" action={`/studio/galleries/${p.uuid}/resend`} hidden>
            <Csrf viewer={p.viewer} />
            <input type="hidden" name="resend" value={c.email} />
          </form>
        ))}
    </section>
  );
}

/** Inviting a client: the access list, then a mail (or the link to hand over). */
function InviteCard(p: SettingsProps) {
  const e = p.error;
  return (
    <section class="card" id="invite" aria-labelledby="invite-h">
      <h2 class="first" id="invite-h">
        Invite a client
      </h2>
      {p.noticeAt === 'invite' ? <Notice notice={p.notice} /> : null}
      {p.inviteLink ? (
        <div class="notice warn" role="status">
          <p>
            <strong>No mail server is set up</strong> (SMTP_URL), so nothing was mailed to {p.inviteLink.email}. Send them this link yourself; it signs them in to this gallery, once:
          </p>
          <p>
            <code class="secret" id="invite-link">
              {p.inviteLink.link}
            </code>
          </p>
          <p class="muted">A click on the link selects all of it, to copy.</p>
        </div>
      ) : null}
      <p class="muted">
        {p.invitations ? 'They are added to the access list and get an e-mail with a link that signs them in.' : 'They are added to the access list. Sending invitations by e-mail is not available on this service yet.'}
      </p>
      <form method="post" action={`/studio/galleries/${p.uuid}/invite`}>
        <Csrf viewer={p.viewer} />
        <Field id="invite_email" label="Their e-mail address" error={e}>
          {(d, bad) => <input id="invite_email" name="email" type="email" required autocomplete="off" aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <div class="field">
          <label for="invite_message">Message (optional)</label>
          <textarea id="invite_message" name="message" rows={3} maxLength={2000}></textarea>
        </div>
        <span class="rights">
          <label class="check">
            <input type="checkbox" name="comp_download" value="1" />
            May download web size
          </label>
          <label class="check">
            <input type="checkbox" name="hires_download" value="1" />
            May download full size
          </label>
        </span>
        <button type="submit">{p.invitations ? 'Send the invitation' : 'Add to the access list'}</button>
      </form>
    </section>
  );
}

/** What a gallery's settings page shows. */
export interface SettingsProps {
  viewer: Viewer;
  /** The user's price lists: the gallery's photos are sold by attaching one to them all. */
  priceLists: { uuid: string; label: string }[];
  urlname: string;
  siteTitle: string;
  uuid: string;
  isRoot: boolean;
  publicUrl: string;
  values: SettingsForm;
  styles: { uuid: string; name: string; isDefault: boolean }[];
  covers: string[];
  mediasCount: number;
  locked: boolean;
  acl: AclRow[];
  invitations: boolean;
  error?: { field: string; message: string };
  notice?: string;
  /** The section the notice is about (shown there, where the phone's screen is after the form): none for the top. */
  noticeAt?: NoticeAt;
  /** An invitation that could not be mailed (no SMTP_URL): the link for the photographer to hand over. */
  inviteLink?: { email: string; link: string };
  /** The whole-gallery sale (pages/gallery-sale.tsx). */
  sale?: SaleView;
}

/**
 * Selling the gallery's photos: a gallery carries no price list of its own (nor does the API's),
 * so this attaches one to every photo in it now, through the library's batch edit (a job).
 */
function SellCard(p: SettingsProps) {
  return (
    <form method="post" action="/studio/media/batch" class="card" aria-labelledby="sell-title">
      <h2 id="sell-title">Sell these photos</h2>
      <Csrf viewer={p.viewer} />
      <input type="hidden" name="all" value="1" />
      <input type="hidden" name="gallery" value={p.uuid} />
      <input type="hidden" name="count" value={String(p.mediasCount)} />
      {p.priceLists.length === 0 ? (
        <p class="muted">
          No price list yet: <a href="/studio/shop/price-lists">create one in the shop</a>.
        </p>
      ) : (
        <>
          <div class="field">
            <label for="sell-list">Price list</label>
            <span class="hint" id="sell-list-hint">
              {`Attached to the ${p.mediasCount} photos in the gallery now; photos added later need it too (the library's batch edit).`}
            </span>
            <select id="sell-list" name="add_price_list" aria-describedby="sell-list-hint">
              {p.priceLists.map((l) => (
                <option value={l.uuid}>{l.label}</option>
              ))}
            </select>
          </div>
          <button type="submit" class="quiet">
            Sell all the gallery's photos with it
          </button>
        </>
      )}
    </form>
  );
}

export function settingsPage(p: SettingsProps): string {
  const v = p.values;
  const e = p.error;
  return html(
    <Layout title={v.name || 'Gallery'} viewer={p.viewer}>
      <p class="crumbs">
        <a href={`/studio/websites/${p.urlname}/galleries#g-${p.uuid}`}>Galleries of {p.siteTitle}</a>
      </p>
      <h1>{v.name}</h1>
      <p class="quick">
        <a href={p.publicUrl}>View on the website</a>
        <a href={`/studio/upload?gallery=${p.uuid}`}>Upload photos</a>
        <a href={`/studio/media?gallery=${p.uuid}`}>Medias ({p.mediasCount})</a>
        <a href={`/studio/galleries/${p.uuid}/proofing`}>Proofing: clients’ selections</a>
        <a href={`/studio/galleries/${p.uuid}/share-links`}>Share links</a>
      </p>
      <Notice notice={p.noticeAt ? undefined : p.notice} error={e && !['name', 'description', 'display_style', 'cover', 'content_order', 'content_order_direction', 'indexing', 'expires_at', 'download_pin', 'download_limit', 'download_size', 'password', 'acl', 'invite_email', 'favourites', 'favourite_lists', 'pick_limit', 'sale_item', 'sale_price', 'sale'].includes(e.field) ? e.message : undefined} />
      <SettingsCard {...p} />
      {/* Each card below saves on its own; their buttons are quieter than "Save settings", the screen's one primary action. */}
      <div class="secondary-cards">
        <ExpiryCard {...p} />
        <DownloadsCard {...p} />
        <FavouritesCard {...p} />
        <SellCard {...p} />
        {p.sale ? <WholeSaleCard {...p.sale} /> : null}
        <PasswordCard {...p} />
        <AccessCard {...p} />
        <InviteCard {...p} />
      </div>
    </Layout>,
  );
}

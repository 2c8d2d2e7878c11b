// The proofing screen of a gallery (routes/proofing.ts; docs/studio.md "Proofing"): the clients'
// selections down the side, the chosen one with its photos, notes and file names to copy, and
// what the client did beside it. Works without script; browser/proofing.js adds the Copy buttons.
import type { VNode } from 'preact';
import { studioScript } from '../assets.js';
import type { EventRow } from '../../activity/service.js';
import type { LightboxListRow, Proofing } from '../../lightboxes/service.js';
import { Csrf, html, Layout, Notice, type Viewer } from './layout.js';

const PROOFING_SCRIPT = studioScript('proofing');

type Activity = { total: number; events: EventRow[]; kinds: Array<{ kind: string; count: number }> };

/** "20 Nov 2026, 10:00 UTC" */
function when(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })}, ${d.toISOString().slice(11, 16)} UTC`;
}

const photos = (n: number) => `${n} photo${n === 1 ? '' : 's'}`;
const who = (l: LightboxListRow) => l.client_name || l.client_email || l.name;
const stateLine = (l: LightboxListRow) => (l.state === 'sent' ? when(l.sent_at) : `still choosing, last change ${when(l.updated_at ?? l.created_at)}`);

const KINDS: Record<string, [string, string]> = {
  view: ['Viewed the gallery', 'Views'],
  download: ['Downloaded', 'Downloads'],
  archive: ['Downloaded a ZIP', 'ZIP downloads'],
  pick: ['Chose', 'Picks'],
  unpick: ['Removed', 'Removals'],
  sent: ['Sent the selection', 'Sent'],
  invited: ['Was invited', 'Invitations'],
};

function Clients(p: { selections: LightboxListRow[]; chosen?: string; base: string }): VNode {
  return (
    <nav class="proof-clients card" aria-label="Clients’ selections">
      <h2 class="first">Clients</h2>
      <ul>
        {p.selections.map((l) => (
          <li>
            <a href={`${p.base}?selection=${l.uuid}`} aria-current={l.uuid === p.chosen ? 'page' : undefined}>
              <span class="pc-name">{who(l)}</span>
              <span class="pc-meta">
                {photos(l.count)} · {l.state === 'sent' ? `sent ${when(l.sent_at)}` : 'still choosing'}
              </span>
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The three lists in a disclosure (select and copy by hand without script); the header's buttons copy them. */
function Names(p: { names: NonNullable<Proofing['chosen']>['names'] }): VNode {
  const forms: Array<[string, string, string, string]> = [
    ['lightroom', 'Lightroom Classic', 'Library, Filter: Text, Filename, Contains; paste. Names without extension, separated by commas.', p.names.lightroom],
    ['captureone', 'Capture One', 'Filters tool: paste into its search field. Names without extension, separated by spaces.', p.names.captureOne],
    ['lines', 'One file name a line', 'Full names, for anything else.', p.names.lines],
  ];
  return (
    <details class="proof-names">
      <summary>File names for Lightroom, Capture One or a list</summary>
      {p.names.missing ? <p class="muted">{`${photos(p.names.missing)} without a file name left out.`}</p> : null}
      <div class="names-grid">
        {forms.map(([id, label, hint, value]) => (
          <div class="field">
            <label for={`names-${id}`}>{label}</label>
            <span class="hint" id={`names-${id}-hint`}>
              {hint}
            </span>
            <textarea id={`names-${id}`} readOnly rows={3} aria-describedby={`names-${id}-hint`} spellcheck={false}>
              {value}
            </textarea>
          </div>
        ))}
      </div>
    </details>
  );
}

/** A button the script shows and wires (browser/proofing.js): copies the field `target` names. */
function CopyButton(p: { target: string; label: string }): VNode {
  return (
    <span class="js-only">
      <button type="button" class="quiet" data-copy={p.target}>
        {p.label}
      </button>
    </span>
  );
}

function ActivityAside(p: { client: string; activity?: Activity }): VNode {
  const a = p.activity;
  return (
    <aside class="card proof-activity" aria-labelledby="activity-title">
      <h2 id="activity-title" class="first">
        Activity of {p.client}
      </h2>
      {!a || a.total === 0 ? (
        <p class="muted">Nothing recorded in this gallery yet.</p>
      ) : (
        <>
          <ul class="kinds">
            {a.kinds.map((k) => (
              <li>
                <strong>{k.count}</strong> {KINDS[k.kind]?.[1] ?? k.kind}
              </li>
            ))}
          </ul>
          <ol class="events">
            {a.events.map((e) => (
              <li>
                <span>
                  {KINDS[e.kind]?.[0] ?? e.kind}
                  {e.media_file_name ? ` ${e.media_file_name}` : ''}
                </span>
                <time dateTime={e.at}>{when(e.at)}</time>
              </li>
            ))}
          </ol>
          {a.total > a.events.length ? <p class="muted">{`and ${a.total - a.events.length} earlier`}</p> : null}
        </>
      )}
    </aside>
  );
}

/** The client's named lists as tabs (links: the copy buttons and names then follow the list shown); none without lists. */
function ListTabs(p: { base: string; chosen: NonNullable<Proofing['chosen']> }): VNode | null {
  const c = p.chosen;
  if (c.lists.length === 0) return null;
  const tabs: Array<[string, string, number, boolean]> = [
    ['All favourites', p.base, c.total, c.list === undefined],
    ...c.lists.map((l): [string, string, number, boolean] => [l.name, `${p.base}&list=${encodeURIComponent(l.name)}`, l.count, c.list === l.name]),
  ];
  return (
    <nav class="proof-lists" aria-label="Lists">
      <ul>
        {tabs.map(([name, href, count, current]) => (
          <li>
            <a href={href} aria-current={current ? 'page' : undefined}>
              {name} <span class="count">{count}</span>
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Chosen(p: { viewer: Viewer; base: string; chosen: NonNullable<Proofing['chosen']>; activity?: Activity }): VNode {
  const l = p.chosen.lightbox;
  return (
    <>
      <section class="proof-main" aria-labelledby="selection-title">
        <div class="card proof-head">
          <h2 id="selection-title" class="first">
            {who(l)}
          </h2>
          <p class="muted">
            {l.client_email}
            {l.client_verified ? '' : ' (address not verified)'}
          </p>
          <p>
            <span class={l.state === 'sent' ? 'tag' : 'tag open'}>{l.state === 'sent' ? 'Sent' : 'Open'}</span> {photos(l.count)} · {stateLine(l)}
          </p>
          <ListTabs base={`${p.base}?selection=${l.uuid}`} chosen={p.chosen} />
          <div class="row actions">
            {l.state === 'sent' ? (
              <form method="post" action={`${p.base}/${l.uuid}/reopen`}>
                <Csrf viewer={p.viewer} />
                <button type="submit" aria-describedby="reopen-hint">
                  Reopen the selection
                </button>
              </form>
            ) : null}
            <CopyButton target="names-lightroom" label={p.chosen.list === undefined ? 'Copy for Lightroom' : `Copy ${p.chosen.list} for Lightroom`} />
            <CopyButton target="names-captureone" label={p.chosen.list === undefined ? 'Copy for Capture One' : `Copy ${p.chosen.list} for Capture One`} />
            <a href={`/studio/media?lightbox=${l.uuid}`}>Open in the library grid</a>
          </div>
          {l.state === 'sent' ? (
            <p class="hint" id="reopen-hint">
              Reopened, the client can change it and send it again.
            </p>
          ) : null}
          <Names names={p.chosen.names} />
        </div>
        <h2 id="picks-title">{p.chosen.list === undefined ? `Photos (${p.chosen.picks.length})` : `${p.chosen.list} (${p.chosen.picks.length})`}</h2>
        <ol class="proof-picks">
          {p.chosen.picks.map((m) => (
            <li>
              <img src={`/studio/thumbs/${m.media_uuid}`} alt="" loading="lazy" />
              <span class="fname">{m.file_name ?? m.media_uuid}</span>
              {m.title ? <span class="ptitle">{m.title}</span> : null}
              {m.note ? (
                <p class="pnote">
                  <span class="sr">Note: </span>
                  {m.note}
                </p>
              ) : null}
            </li>
          ))}
        </ol>
      </section>
      <ActivityAside client={who(l)} activity={p.activity} />
    </>
  );
}

export function proofingPage(p: { viewer: Viewer; proofing: Proofing; activity?: Activity; notice?: string }): string {
  const g = p.proofing.gallery;
  const base = `/studio/galleries/${g.uuid}/proofing`;
  return html(
    <Layout title={`Proofing: ${g.name}`} viewer={p.viewer} wide scripts={[PROOFING_SCRIPT]}>
      <p class="crumbs">
        <a href={`/studio/websites/${g.urlname}/galleries#g-${g.uuid}`}>Galleries</a> › <a href={`/studio/galleries/${g.uuid}`}>{g.name}</a>
      </p>
      <h1>Proofing: {g.name}</h1>
      <Notice notice={p.notice} />
      {p.proofing.selections.length === 0 || !p.proofing.chosen ? (
        <div class="card">
          <p class="first">No client has chosen photos in this gallery yet.</p>
          <p class="muted">Clients choose favourites with the hearts on the gallery’s pages; each client’s selection appears here as they pick, with their notes.</p>
        </div>
      ) : (
        <div class="proof">
          <Clients selections={p.proofing.selections} chosen={p.proofing.chosen.lightbox.uuid} base={base} />
          <Chosen viewer={p.viewer} base={base} chosen={p.proofing.chosen} activity={p.activity} />
        </div>
      )}
    </Layout>,
  );
}

// Collections, smart collections (with their rules) and lightboxes: lists with their counts,
// links to their medias in the grid (/studio/media?group=… / ?lightbox=…).
import type { VNode } from 'preact';
import { RULE_OPERATORS, type SmartRule } from '../../groups/smart-rules.js';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';

export interface GroupItem {
  uuid: string;
  name: string;
  smart: boolean;
  medias: number;
}

export interface LightboxItem {
  uuid: string;
  name: string;
  medias: number;
}

const count = (n: number) => (n === 1 ? '1 media' : `${n} medias`);

export function collectionsPage(p: { viewer: Viewer; groups: GroupItem[]; total: number; lightboxes: LightboxItem[]; lightboxTotal: number; notice?: string; error?: { field: string; message: string }; draft?: { name: string; kind: string } }): string {
  const d = p.draft ?? { name: '', kind: 'collection' };
  return html(
    <Layout title="Collections" viewer={p.viewer}>
      <h1>Collections</h1>
      <Notice notice={p.notice} error={p.error && p.error.field === '' ? p.error.message : undefined} />
      {p.groups.length === 0 ? (
        <p>No collection yet.</p>
      ) : (
        <ul class="list card">
          {p.groups.map((g) => (
            <li>
              <span>
                <a href={`/studio/collections/${g.uuid}`}>{g.name}</a>
                {g.smart ? <span class="tag">smart</span> : null}
              </span>
              <a href={`/studio/media?group=${g.uuid}`}>
                {count(g.medias)}
                <span class="sr"> in {g.name}</span>
              </a>
            </li>
          ))}
        </ul>
      )}
      {p.total > p.groups.length ? <p class="muted">Showing the first {p.groups.length} of {p.total}.</p> : null}
      <h2>New collection</h2>
      <form class="card" method="post" action="/studio/collections" novalidate>
        <Csrf viewer={p.viewer} />
        <Field id="name" label="Name" error={p.error}>
          {(dd, bad) => <input id="name" type="text" name="name" value={d.name} maxLength={255} required aria-describedby={dd} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <fieldset class="field">
          <legend>Kind</legend>
          <label>
            <input type="radio" name="kind" value="collection" checked={d.kind !== 'smart'} /> A collection: you choose its medias
          </label>
          <label>
            <input type="radio" name="kind" value="smart" checked={d.kind === 'smart'} /> A smart collection: its rules choose them
          </label>
        </fieldset>
        <button type="submit">Create</button>
      </form>
      <h2>Lightboxes</h2>
      <p class="muted">Selections of medias, such as a client's picks.</p>
      {p.lightboxes.length === 0 ? (
        <p>No lightbox yet.</p>
      ) : (
        <ul class="list card">
          {p.lightboxes.map((l) => (
            <li>
              <span>{l.name}</span>
              <a href={`/studio/media?lightbox=${l.uuid}`}>
                {count(l.medias)}
                <span class="sr"> in {l.name}</span>
              </a>
              <a href={`/studio/lightboxes/${l.uuid}/share-links`}>
                Share links<span class="sr"> of {l.name}</span>
              </a>
            </li>
          ))}
        </ul>
      )}
      {p.lightboxTotal > p.lightboxes.length ? <p class="muted">Showing the latest {p.lightboxes.length} of {p.lightboxTotal}.</p> : null}
    </Layout>,
  );
}

/** Rows of the rules form: the stored rules, then blank ones to add. */
export const BLANK_RULE_ROWS = 3;

function RuleRow(p: { i: number; rule?: SmartRule }): VNode {
  const id = (n: string) => `rule-${p.i}-${n}`;
  return (
    <fieldset class="rule">
      <legend>Rule {p.i + 1}</legend>
      <div class="field">
        <label for={id('field')}>Field</label>
        <select id={id('field')} name={`rules[${p.i}][field]`}>
          <option value="" selected={!p.rule}>
            (none)
          </option>
          {Object.keys(RULE_OPERATORS).map((f) => (
            <option value={f} selected={p.rule?.field === f}>
              {f.replace('_', ' ')}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={id('operator')}>Operator</label>
        <select id={id('operator')} name={`rules[${p.i}][operator]`}>
          {[...new Set(Object.values(RULE_OPERATORS).flat())].map((o) => (
            <option value={o} selected={p.rule?.operator === o}>
              {o.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={id('value')}>Value</label>
        <input id={id('value')} type="text" name={`rules[${p.i}][value]`} value={p.rule?.value ?? ''} maxLength={255} />
      </div>
    </fieldset>
  );
}

export function collectionPage(p: { viewer: Viewer; uuid: string; name: string; smart: boolean; medias: number; match: 'all' | 'any'; rules: SmartRule[]; notice?: string; error?: { field: string; message: string } }): string {
  const e = p.error;
  return html(
    <Layout title={p.name} viewer={p.viewer}>
      <h1>
        {p.name}
        {p.smart ? <span class="tag">smart</span> : null}
      </h1>
      <p class="row">
        <a href="/studio/collections">All collections</a>
        <a href={`/studio/media?group=${p.uuid}`}>See its {count(p.medias)}</a>
      </p>
      <Notice notice={p.notice} error={e && e.field === '' ? e.message : undefined} />
      <form class="card" method="post" action={`/studio/collections/${p.uuid}`} novalidate>
        <Csrf viewer={p.viewer} />
        <Field id="name" label="Name" error={e}>
          {(d, bad) => <input id="name" type="text" name="name" value={p.name} maxLength={255} required aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        {p.smart ? (
          <>
            <h2>Rules</h2>
            {e?.field === 'rules' ? (
              <p class="alert" role="alert" id="rules-error">
                {e.message}
              </p>
            ) : null}
            <div class="field">
              <label for="match">A media belongs when it matches</label>
              <select id="match" name="match">
                <option value="all" selected={p.match === 'all'}>
                  every rule
                </option>
                <option value="any" selected={p.match === 'any'}>
                  any rule
                </option>
              </select>
            </div>
            {[...p.rules, ...Array.from({ length: BLANK_RULE_ROWS }, () => undefined)].map((r, i) => (
              <RuleRow i={i} rule={r} />
            ))}
            <p class="muted">A rule with no field is left out. Dates are written 2026-05-31; a gallery by its UUID.</p>
          </>
        ) : null}
        <button type="submit">Save</button>
      </form>
      <h2>Delete</h2>
      <form class="card" method="post" action={`/studio/collections/${p.uuid}/delete`}>
        <Csrf viewer={p.viewer} />
        <input type="hidden" name="medias_count" value={String(p.medias)} />
        <label>
          <input type="checkbox" name="delete_medias" value="1" /> Also delete its {count(p.medias)} from the library
        </label>
        <p>
          <button type="submit" class="danger">
            Delete {p.name}
          </button>
        </p>
      </form>
    </Layout>,
  );
}

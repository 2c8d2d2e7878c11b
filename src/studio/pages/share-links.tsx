// A gallery's share links (docs/studio.md "Share links", docs/integrations.md): each link's
// recipient, expiry, views, downloads and creation, a revoke button, and a new link's form; a new
// link's address is shown once, with a copy button (browser/proofing.js wires it).
import { studioScript } from '../assets.js';
import type { ShareLink, ShareTargetKind } from '../../share-links/service.js';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';

/** The copy buttons' script, shared with the proofing screen. */
const COPY_SCRIPT = studioScript('proofing');
const DOWNLOADS: Record<string, string> = { none: 'none', comps: 'comps (watermarked)', originals: 'comps and originals' };
const day = (iso: string | null) => (iso ? iso.slice(0, 16).replace('T', ' ') + ' UTC' : 'never');

function stateOf(l: ShareLink, now: number): string {
  if (l.revokedAt) return 'revoked';
  if (l.expiresAt && Date.parse(l.expiresAt) <= now) return 'expired';
  if (l.maxViews !== null && l.views >= l.maxViews) return 'used up';
  return 'live';
}

export interface ShareLinksProps {
  viewer: Viewer;
  /** What the links open: a gallery or a lightbox. */
  kind: ShareTargetKind;
  uuid: string;
  name: string;
  links: ShareLink[];
  notice?: string;
  error?: { field: string; message: string };
  /** A new link's address: shown this once. */
  created?: string;
  form?: { recipient?: string; expires_at?: string; max_views?: string; download?: string };
}

export function shareLinksPage(p: ShareLinksProps): string {
  const base = `/studio/${p.kind === 'gallery' ? 'galleries' : 'lightboxes'}/${p.uuid}/share-links`;
  // Where the gallery or lightbox is shown in the studio: its settings, or its medias in the grid.
  const home = p.kind === 'gallery' ? `/studio/galleries/${p.uuid}` : `/studio/media?lightbox=${p.uuid}`;
  const what = p.kind === 'gallery' ? 'gallery' : 'lightbox';
  const e = p.error;
  const now = Date.now();
  return html(
    <Layout title={`Share links · ${p.name}`} viewer={p.viewer} scripts={[COPY_SCRIPT]}>
      <p class="crumbs">
        <a href={home}>{p.name || (p.kind === 'gallery' ? 'Gallery' : 'Lightbox')}</a>
      </p>
      <h1>Share links</h1>
      <p class="muted">
        A link for one person: it opens this {what}
        {p.kind === 'lightbox' ? "'s photos on your website" : ''} for whoever holds it, until it expires, is used up or you revoke it.
      </p>
      <Notice notice={p.notice} error={e && e.field === '' ? e.message : undefined} />
      {p.created ? (
        <section class="card created" aria-labelledby="created-h">
          <h2 id="created-h">The new link</h2>
          <p>
            <strong>Copy it now and send it to its recipient: it is shown this once, never again.</strong>
          </p>
          <p class="row">
            <label class="sr" for="new-link">
              The link's address
            </label>
            <input id="new-link" type="text" readOnly value={p.created} class="secret" />
            <span class="js-only">
              <button type="button" class="quiet" data-copy="new-link">
                Copy the link
              </button>
            </span>
          </p>
        </section>
      ) : null}
      {p.links.length === 0 ? (
        <p>No share link yet.</p>
      ) : (
        <div class="card table-wrap" tabIndex={0} role="region" aria-label="Share links">
          <table>
            <caption class="sr">Share links of {p.name}</caption>
            <thead>
              <tr>
                <th scope="col">Recipient</th>
                <th scope="col">Expires</th>
                <th scope="col">Views</th>
                <th scope="col">Downloads</th>
                <th scope="col">Created</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="sr">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {p.links.map((l) => (
                <tr>
                  <td>
                    {l.recipient ?? <span class="muted">no name</span>}
                    {l.passwordProtected ? <span class="muted"> · password</span> : null}
                  </td>
                  <td>{l.expiresAt ? `until ${day(l.expiresAt)}` : 'never expires'}</td>
                  <td>{l.maxViews !== null ? `${l.views} / ${l.maxViews} visits` : `${l.views} ${l.views === 1 ? 'visit' : 'visits'}, no limit`}</td>
                  <td>
                    downloads: {DOWNLOADS[l.download] ?? l.download}
                    {l.download !== 'none' ? `, ${l.downloads} so far` : null}
                  </td>
                  <td>made {day(l.createdAt)}</td>
                  <td>{stateOf(l, now)}</td>
                  <td>
                    {l.revokedAt ? null : (
                      <form method="post" action={`${base}/${l.uuid}/revoke`}>
                        <Csrf viewer={p.viewer} />
                        <button type="submit" class="danger">
                          Revoke<span class="sr"> the link for {l.recipient ?? 'no name'}</span>
                        </button>
                      </form>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>New link</h2>
      <form class="card" method="post" action={base} novalidate>
        <Csrf viewer={p.viewer} />
        <Field id="recipient" label="Recipient" hint={p.kind === 'gallery' ? 'A name or an e-mail address: it names their visits and downloads in the activity.' : 'A name or an e-mail address: who the link is for.'} error={e}>
          {(d, bad) => <input id="recipient" type="text" name="recipient" maxLength={200} value={p.form?.recipient} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} />}
        </Field>
        <Field id="expires_at" label="Expires on" hint="Left empty: in 30 days." error={e}>
          {(d, bad) => <input id="expires_at" type="date" name="expires_at" value={p.form?.expires_at} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} />}
        </Field>
        <Field id="max_views" label="Visits allowed" hint="Left empty: no limit. A visit is one opening of the link, however many photos it shows." error={e}>
          {(d, bad) => <input id="max_views" type="number" name="max_views" min={1} max={1000000} inputMode="numeric" value={p.form?.max_views} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} />}
        </Field>
        <Field id="password" label="Password" hint="Optional: asked once per visit." error={e}>
          {(d, bad) => <input id="password" type="password" name="password" maxLength={200} autocomplete="new-password" aria-describedby={d} aria-invalid={bad ? 'true' : undefined} />}
        </Field>
        <Field id="download" label="Downloads" error={e}>
          {(d, bad) => (
            <select id="download" name="download" aria-describedby={d} aria-invalid={bad ? 'true' : undefined}>
              {Object.entries(DOWNLOADS).map(([v, label]) => (
                <option value={v} selected={(p.form?.download ?? 'none') === v}>
                  {label[0]!.toUpperCase() + label.slice(1)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="submit">Make the link</button>
      </form>
    </Layout>,
  );
}

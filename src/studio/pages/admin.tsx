// The instance's administration, for operators (the admin role): photographers' accounts
// (invite, disable, storage used), applications (create, revoke; a secret shown once) and the
// job queue. The applications screen is also every photographer's own ("Account" → "Applications").
import type { VNode } from 'preact';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';

/** 1 536 → "1.5 KB": storage as people read it (decimal units, as disks are sold). */
export function bytesText(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB', 'PB'];
  let v = n;
  let i = -1;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

function AdminNav(p: { here: 'accounts' | 'apps' | 'jobs' }): VNode {
  const items = [
    ['accounts', '/studio/admin/accounts', 'Accounts'],
    ['apps', '/studio/admin/apps', 'Applications'],
    ['jobs', '/studio/admin/jobs', 'Job queue'],
  ] as const;
  return (
    <nav aria-label="Administration" class="subnav">
      <ul class="row">
        {items.map(([k, href, label]) => (
          <li>
            <a href={href} aria-current={p.here === k ? 'page' : undefined}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export interface AccountItem {
  uuid: string;
  email: string;
  name: string;
  admin: boolean;
  disabled: boolean;
  /** An operator stopped the mail sent on the account's behalf (invitations). */
  mailStopped: boolean;
  medias: number;
  bytes: number;
  createdAt: string;
}

export function accountsPage(p: {
  viewer: Viewer;
  accounts: AccountItem[];
  total: number;
  page: number;
  pages: number;
  notice?: string;
  /** The link of an invitation that could not be mailed (no SMTP_URL): the operator hands it over. */
  link?: string;
  error?: { field: string; message: string };
  draft?: { email: string; first_name: string; last_name: string };
}): string {
  const e = p.error;
  const d = p.draft ?? { email: '', first_name: '', last_name: '' };
  return html(
    <Layout title="Accounts" viewer={p.viewer}>
      <h1>Administration</h1>
      <AdminNav here="accounts" />
      <Notice notice={p.notice} error={e && e.field === '' ? e.message : undefined} />
      {p.link ? (
        <p class="card">
          No mail server is set up (SMTP_URL), so nothing was mailed: give the new photographer this link, which works once, for 7 days: <code class="secret">{p.link}</code>
        </p>
      ) : null}
      <h2>Invite a photographer</h2>
      <form class="card" method="post" action="/studio/admin/accounts" novalidate>
        <Csrf viewer={p.viewer} />
        <Field id="email" label="E-mail address" hint="They get a link to set their password; it works once, for 7 days." error={e}>
          {(dd, bad) => <input id="email" type="email" name="email" value={d.email} maxLength={254} required autocomplete="off" aria-describedby={dd} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="first_name" label="First name" error={e}>
          {(dd) => <input id="first_name" type="text" name="first_name" value={d.first_name} maxLength={100} autocomplete="off" aria-describedby={dd} />}
        </Field>
        <Field id="last_name" label="Last name" error={e}>
          {(dd) => <input id="last_name" type="text" name="last_name" value={d.last_name} maxLength={100} autocomplete="off" aria-describedby={dd} />}
        </Field>
        <button type="submit">Create the account and send the invitation</button>
      </form>
      <h2>All accounts</h2>
      <div class="card table-wrap" tabIndex={0} role="region" aria-label="Accounts">
        <table>
          <caption class="sr">Accounts, {p.total} in all</caption>
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Medias</th>
              <th scope="col">Storage used</th>
              <th scope="col">State</th>
              <th scope="col">
                <span class="sr">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {p.accounts.map((a) => (
              <tr>
                <td>
                  {a.email}
                  {a.name ? <span class="muted"> · {a.name}</span> : null}
                  {a.admin ? <span class="tag">operator</span> : null}
                </td>
                <td class="num">{a.medias === 1 ? '1 media' : `${a.medias} medias`}</td>
                <td class="num">{bytesText(a.bytes)} used</td>
                <td>
                  {a.disabled ? <span class="tag off">disabled</span> : 'active'}
                  {a.mailStopped ? <span class="tag off">mail stopped</span> : null}
                </td>
                <td>
                  {a.email === p.viewer.email ? (
                    <span class="muted">you</span>
                  ) : (
                    <div class="row">
                      <form method="post" action={`/studio/admin/accounts/${a.uuid}/${a.disabled ? 'enable' : 'disable'}`}>
                        <Csrf viewer={p.viewer} />
                        <button type="submit" class={a.disabled ? 'quiet' : 'danger'}>
                          {a.disabled ? 'Enable' : 'Disable'}
                          <span class="sr"> {a.email}</span>
                        </button>
                      </form>
                      <form method="post" action={`/studio/admin/accounts/${a.uuid}/${a.mailStopped ? 'mail-on' : 'mail-off'}`}>
                        <Csrf viewer={p.viewer} />
                        <button type="submit" class="quiet">
                          {a.mailStopped ? 'Let mail go' : 'Stop mail'}
                          <span class="sr"> of {a.email}</span>
                        </button>
                      </form>
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {p.pages > 1 ? (
        <p class="row">
          {p.page > 1 ? <a href={`/studio/admin/accounts?page=${p.page - 1}`}>Previous page</a> : null}
          <span class="muted">
            Page {p.page} of {p.pages}
          </span>
          {p.page < p.pages ? <a href={`/studio/admin/accounts?page=${p.page + 1}`}>Next page</a> : null}
        </p>
      ) : null}
    </Layout>,
  );
}

export interface AppItem {
  name: string;
  key: string;
  owner: string | null;
  /** The owner's account is disabled: the application signs nothing meanwhile. */
  ownerDisabled: boolean;
  createdAt: string;
  revoked: boolean;
}

/**
 * Applications: `scope` admin lists every one (with its owner), account the photographer's own.
 * `created` carries a new application's secret: this one answer shows it, never another.
 */
export function appsPage(p: { viewer: Viewer; scope: 'admin' | 'account'; apps: AppItem[]; total: number; notice?: string; error?: string; created?: { name: string; key: string; secret: string } }): string {
  const base = p.scope === 'admin' ? '/studio/admin/apps' : '/studio/account/apps';
  return html(
    <Layout title="Applications" viewer={p.viewer}>
      {p.scope === 'admin' ? (
        <>
          <h1>Administration</h1>
          <AdminNav here="apps" />
          <h2>Applications</h2>
        </>
      ) : (
        <>
          <h1>Applications</h1>
          <p>
            <a href="/studio/account">Back to the account</a>
          </p>
        </>
      )}
      <p class="muted">An application's key and secret sign the API's requests (a publishing plugin, a script); it still signs in as a photographer to act.</p>
      <Notice notice={p.notice} error={p.error} />
      {p.created ? (
        <section class="card created" aria-labelledby="created-h">
          <h2 id="created-h">{p.created.name}: its key and secret</h2>
          <p>
            <strong>Copy the secret now: it is shown this once, never again.</strong>
          </p>
          <dl>
            <dt>API key</dt>
            <dd>
              <code class="secret" id="new-key">
                {p.created.key}
              </code>
            </dd>
            <dt>API secret</dt>
            <dd>
              <code class="secret" id="new-secret">
                {p.created.secret}
              </code>
            </dd>
          </dl>
        </section>
      ) : null}
      {p.apps.length === 0 ? (
        <p>No application yet.</p>
      ) : (
        <ul class="list card">
          {p.apps.map((a) => (
            <li>
              <span>
                <strong>{a.name}</strong> <code>{a.key}</code>
                {p.scope === 'admin' ? <span class="muted"> · {a.owner ?? 'the operator'}</span> : null}
                {p.scope === 'admin' && a.ownerDisabled ? <span class="tag off"> owner disabled: signs nothing</span> : null}
                <span class="muted"> · {a.createdAt.slice(0, 10)}</span>
              </span>
              {a.revoked ? (
                <span class="tag off">revoked</span>
              ) : (
                <form method="post" action={`${base}/${a.key}/revoke`}>
                  <Csrf viewer={p.viewer} />
                  <button type="submit" class="danger">
                    Revoke<span class="sr"> {a.name}</span>
                  </button>
                </form>
              )}
            </li>
          ))}
        </ul>
      )}
      {p.total > p.apps.length ? <p class="muted">Showing the latest {p.apps.length} of {p.total}.</p> : null}
      <h2>New application</h2>
      <form class="card" method="post" action={base} novalidate>
        <Csrf viewer={p.viewer} />
        <Field id="app_name" label="Name" hint="What uses it: a plugin, a script, a computer." error={p.error ? { field: 'app_name', message: p.error } : undefined}>
          {(d) => <input id="app_name" type="text" name="name" maxLength={100} required aria-describedby={d} />}
        </Field>
        <button type="submit">Create the application</button>
      </form>
    </Layout>,
  );
}

export interface LaneItem {
  lane: string;
  pending: number;
  oldest?: string;
}

export interface RunningItem {
  uuid: string;
  kind: string;
  owner: string;
  processed: number;
  total: number;
  startedAt: string | null;
}

export function jobQueuePage(p: { viewer: Viewer; lanes: LaneItem[]; running: RunningItem[]; now: number }): string {
  const age = (iso?: string | null) => {
    if (!iso) return '';
    const s = Math.max(0, Math.round((p.now - Date.parse(iso)) / 1000));
    return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
  };
  return html(
    <Layout title="Job queue" viewer={p.viewer}>
      <h1>Administration</h1>
      <AdminNav here="jobs" />
      <h2>Job queue</h2>
      <div class="card table-wrap" tabIndex={0} role="region" aria-label="Lanes of the job queue">
        <table>
          <caption class="sr">Jobs waiting or running, per lane</caption>
          <thead>
            <tr>
              <th scope="col">Lane</th>
              <th scope="col">Waiting or running</th>
              <th scope="col">Oldest</th>
            </tr>
          </thead>
          <tbody>
            {p.lanes.map((l) => (
              <tr>
                <td>{l.lane}</td>
                <td class="num">{l.pending}</td>
                <td>{l.oldest ? `${age(l.oldest)} ago` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Running now</h2>
      {p.running.length === 0 ? (
        <p>No job is running.</p>
      ) : (
        <ul class="list card">
          {p.running.map((j) => (
            <li>
              <span>
                {j.kind} <span class="muted">of {j.owner}</span>
              </span>
              <span>
                <progress max={Math.max(1, j.total)} value={j.processed} aria-label={`${j.kind} of ${j.owner}`}>
                  {j.processed} of {j.total}
                </progress>{' '}
                {j.processed} / {j.total} <span class="muted">· {age(j.startedAt)}</span>
              </span>
            </li>
          ))}
        </ul>
      )}
      <p>
        <a href="/studio/admin/jobs">Reload</a>
      </p>
    </Layout>,
  );
}

/** The invitation's page: a new photographer sets their password (no session yet). */
export function welcomePage(p: { email?: string; csrf: string; token: string; error?: { field: string; message: string }; gone?: boolean }): string {
  return html(
    <Layout title="Welcome">
      <h1>Welcome to the studio</h1>
      {p.gone ? (
        <p>This invitation has been used or has expired. Ask the operator of the service for a new one, or sign in if you set your password already.</p>
      ) : (
        <form class="card" method="post" action={`/studio/welcome/${p.token}`} novalidate>
          <p>Choose the password of {p.email}.</p>
          <input type="hidden" name="csrf" value={p.csrf} />
          <input type="hidden" name="username" value={p.email} autocomplete="username" />
          <Field id="password" label="Password" hint="At least 10 characters." error={p.error}>
            {(d, bad) => <input id="password" type="password" name="password" required autocomplete="new-password" minLength={10} maxLength={200} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
          </Field>
          <button type="submit">Set the password</button>
        </form>
      )}
      <p>
        <a href="/studio/signin">Sign in</a>
      </p>
    </Layout>,
  );
}

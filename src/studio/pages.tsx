// The studio's screens, rendered on the server (Preact; JSX escapes every text and
// attribute). Every change is a form posting back with the session's CSRF token.
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { COLOR_SCHEMES, THEMES } from '../websites/brand.js';
import { STUDIO_CSS } from './assets.js';

const html = (node: VNode) => '<!doctype html>' + renderToString(node);

/** Who is signed in, for the header and the forms' token. */
export interface Viewer {
  email: string;
  csrf: string;
}

function Layout(p: { title: string; viewer?: Viewer; children: ComponentChildren }): VNode {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{`${p.title} · Studio`}</title>
        <link rel="stylesheet" href={`/studio/_assets/${STUDIO_CSS.name}`} />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="bar">
          <a class="name" href="/studio/">
            Studio
          </a>
          {p.viewer ? (
            <nav aria-label="Studio">
              <ul>
                <li>
                  <a href="/studio/websites">Websites</a>
                </li>
                <li>
                  <a href="/studio/account">Account</a>
                </li>
                <li>
                  <form method="post" action="/studio/signout">
                    <Csrf viewer={p.viewer} />
                    <button type="submit">Sign out</button>
                  </form>
                </li>
              </ul>
            </nav>
          ) : null}
        </header>
        <main id="main">{p.children}</main>
      </body>
    </html>
  );
}

function Csrf(p: { viewer: Viewer }): VNode {
  return <input type="hidden" name="csrf" value={p.viewer.csrf} />;
}

function Notice(p: { notice?: string; error?: string }): VNode | null {
  if (p.error)
    return (
      <p class="alert" role="alert">
        {p.error}
      </p>
    );
  if (p.notice)
    return (
      <p class="notice" role="status">
        {p.notice}
      </p>
    );
  return null;
}

export function messagePage(p: { title: string; text: string; viewer?: Viewer }): string {
  return html(
    <Layout title={p.title} viewer={p.viewer}>
      <h1>{p.title}</h1>
      <p>{p.text}</p>
      <p>
        <a href="/studio/">Back to the studio</a>
      </p>
    </Layout>,
  );
}

export function signInPage(p: { token: string; email?: string; error?: string }): string {
  return html(
    <Layout title="Sign in">
      <h1>Sign in to the studio</h1>
      <Notice error={p.error} />
      <form class="card" method="post" action="/studio/signin">
        <input type="hidden" name="csrf" value={p.token} />
        <div class="field">
          <label for="email">E-mail address</label>
          <input id="email" type="email" name="email" required autocomplete="username" maxLength={254} value={p.email ?? ''} />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input id="password" type="password" name="password" required autocomplete="current-password" maxLength={200} />
        </div>
        <button type="submit">Sign in</button>
      </form>
    </Layout>,
  );
}

export function codePage(p: { token: string; error?: string }): string {
  return html(
    <Layout title="Two-factor code">
      <h1>Your two-factor code</h1>
      <Notice error={p.error} />
      <form class="card" method="post" action="/studio/signin/code">
        <input type="hidden" name="csrf" value={p.token} />
        <div class="field">
          <label for="code">Six-digit code from your authenticator app</label>
          <input id="code" type="text" name="code" required inputMode="numeric" pattern="[0-9]{6}" autocomplete="one-time-code" maxLength={6} />
        </div>
        <button type="submit">Continue</button>
      </form>
    </Layout>,
  );
}

export interface WebsiteItem {
  urlname: string;
  title: string;
  home: string;
}

export function websitesPage(p: { viewer: Viewer; websites: WebsiteItem[]; total: number }): string {
  return html(
    <Layout title="Websites" viewer={p.viewer}>
      <h1>Your websites</h1>
      {p.websites.length === 0 ? (
        <p>You have no website yet.</p>
      ) : (
        <ul class="list card">
          {p.websites.map((w) => (
            <li>
              <span>
                <a href={`/studio/websites/${w.urlname}`}>{w.title || w.urlname}</a> <span class="muted">({w.urlname})</span>
              </span>
              <a href={w.home}>
                View site<span class="sr"> {w.title}</span>
              </a>
            </li>
          ))}
        </ul>
      )}
      {p.total > p.websites.length ? <p class="muted">Showing the first {p.websites.length} of {p.total}.</p> : null}
    </Layout>,
  );
}

/** A library image to choose as a logo or favicon. */
export interface Pickable {
  uuid: string;
  label: string;
  thumb?: string;
}

export interface SettingsValues {
  title: string;
  tagline: string;
  colorScheme: string;
  accentColor: string;
  theme: string;
  credit: string;
  copyright: string;
  contactEmail: string;
  socialLinks: string;
  logo: string;
  favicon: string;
}

function Field(p: { id: string; label: string; error?: { field: string; message: string }; hint?: string; children: (describedBy: string | undefined, invalid: boolean) => ComponentChildren }): VNode {
  const bad = p.error?.field === p.id;
  const describedBy = [p.hint ? `${p.id}-hint` : '', bad ? `${p.id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={p.id}>{p.label}</label>
      {p.hint ? (
        <span class="hint" id={`${p.id}-hint`}>
          {p.hint}
        </span>
      ) : null}
      {p.children(describedBy, bad)}
      {bad ? (
        <span class="error" id={`${p.id}-error`} role="alert">
          {p.error!.message}
        </span>
      ) : null}
    </div>
  );
}

function Picker(p: { name: 'logo' | 'favicon'; legend: string; value: string; images: Pickable[]; error?: { field: string; message: string } }): VNode {
  const bad = p.error?.field === p.name;
  const known = p.images.some((i) => i.uuid === p.value);
  return (
    <fieldset class="field" aria-describedby={bad ? `${p.name}-error` : undefined}>
      <legend>{p.legend}</legend>
      <div class="pick">
        <label>
          <span class="none" aria-hidden="true">None</span>
          <input type="radio" name={p.name} value="" checked={p.value === ''} />
          None
        </label>
        {!known && p.value ? (
          <label>
            <span class="none" aria-hidden="true">Current</span>
            <input type="radio" name={p.name} value={p.value} checked />
            Current image
          </label>
        ) : null}
        {p.images.map((i) => (
          <label>
            {i.thumb ? <img src={i.thumb} alt="" loading="lazy" /> : <span class="none">No preview</span>}
            <input type="radio" name={p.name} value={i.uuid} checked={p.value === i.uuid} />
            {i.label}
          </label>
        ))}
      </div>
      {bad ? (
        <span class="error" id={`${p.name}-error`} role="alert">
          {p.error!.message}
        </span>
      ) : null}
    </fieldset>
  );
}

export function settingsPage(p: {
  viewer: Viewer;
  urlname: string;
  home: string;
  values: SettingsValues;
  images: Pickable[];
  notice?: string;
  error?: { field: string; message: string };
}): string {
  const v = p.values;
  const e = p.error;
  return html(
    <Layout title={`Settings of ${v.title || p.urlname}`} viewer={p.viewer}>
      <h1>Settings of {v.title || p.urlname}</h1>
      <p class="row">
        <a href={p.home}>View site</a>
        <a href={`/studio/websites/${p.urlname}/pages`}>Pages</a>
      </p>
      <Notice notice={p.notice} error={e && e.field === '' ? e.message : undefined} />
      <form class="card" method="post" action={`/studio/websites/${p.urlname}`} novalidate>
        <Csrf viewer={p.viewer} />
        <Field id="title" label="Title" error={e}>
          {(d, bad) => <input id="title" type="text" name="title" value={v.title} maxLength={255} required aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="tagline" label="Tagline" error={e}>
          {(d, bad) => <input id="tagline" type="text" name="tagline" value={v.tagline} maxLength={255} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="theme" label="Theme" error={e}>
          {(d) => (
            <select id="theme" name="theme" aria-describedby={d}>
              {THEMES.map((t) => (
                <option value={t} selected={v.theme === t}>
                  {t}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="color_scheme" label="Colour scheme" error={e}>
          {(d) => (
            <select id="color_scheme" name="color_scheme" aria-describedby={d}>
              {COLOR_SCHEMES.map((t) => (
                <option value={t} selected={v.colorScheme === t}>
                  {t}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id="accent_color" label="Accent colour" hint="Written #rrggbb; blank for the theme's own." error={e}>
          {(d, bad) => <input id="accent_color" type="text" name="accent_color" value={v.accentColor} maxLength={7} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="credit" label="Credit line" error={e}>
          {(d, bad) => <input id="credit" type="text" name="credit" value={v.credit} maxLength={255} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="copyright" label="Copyright notice" error={e}>
          {(d, bad) => <input id="copyright" type="text" name="copyright" value={v.copyright} maxLength={255} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="contact_email" label="Contact e-mail" error={e}>
          {(d, bad) => <input id="contact_email" type="email" name="contact_email" value={v.contactEmail} maxLength={254} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="social_links" label="Social links" hint="One http or https address per line, at most 8." error={e}>
          {(d, bad) => (
            <textarea id="social_links" name="social_links" rows={4} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined}>
              {v.socialLinks}
            </textarea>
          )}
        </Field>
        <Picker name="logo" legend="Logo" value={v.logo} images={p.images} error={e} />
        <Picker name="favicon" legend="Favicon" value={v.favicon} images={p.images} error={e} />
        <button type="submit">Save settings</button>
      </form>
      <p class="muted">The host name of a website is set by the admin command for now.</p>
    </Layout>,
  );
}

export interface PageItem {
  slug: string;
  title: string;
  position: number;
}

export function pagesPage(p: { viewer: Viewer; urlname: string; siteTitle: string; pages: PageItem[]; notice?: string }): string {
  return html(
    <Layout title={`Pages of ${p.siteTitle}`} viewer={p.viewer}>
      <h1>Pages of {p.siteTitle}</h1>
      <p>
        <a href={`/studio/websites/${p.urlname}`}>Back to the settings</a>
      </p>
      <Notice notice={p.notice} />
      {p.pages.length === 0 ? (
        <p>No page yet.</p>
      ) : (
        <ul class="list card">
          {p.pages.map((pg) => (
            <li>
              <a href={`/studio/websites/${p.urlname}/pages/${pg.slug}`}>{pg.title}</a>
              <span class="muted">/p/{pg.slug}</span>
            </li>
          ))}
        </ul>
      )}
      <p>
        <a class="button" href={`/studio/websites/${p.urlname}/new-page`}>
          New page
        </a>
      </p>
    </Layout>,
  );
}

export function pageEditPage(p: {
  viewer: Viewer;
  urlname: string;
  isNew: boolean;
  slug: string;
  title: string;
  body: string;
  position: number;
  error?: { field: string; message: string };
}): string {
  const e = p.error;
  const action = p.isNew ? `/studio/websites/${p.urlname}/new-page` : `/studio/websites/${p.urlname}/pages/${p.slug}`;
  return html(
    <Layout title={p.isNew ? 'New page' : `Page ${p.title}`} viewer={p.viewer}>
      <h1>{p.isNew ? 'New page' : `Page: ${p.title}`}</h1>
      <p>
        <a href={`/studio/websites/${p.urlname}/pages`}>All pages</a>
      </p>
      <Notice error={e && e.field === '' ? e.message : undefined} />
      <form class="card" method="post" action={action} novalidate>
        <Csrf viewer={p.viewer} />
        {p.isNew ? (
          <Field id="slug" label="Address" hint="Lower-case letters, digits and dashes: the page is at /p/<address>." error={e}>
            {(d, bad) => <input id="slug" type="text" name="slug" value={p.slug} maxLength={64} required aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
          </Field>
        ) : null}
        <Field id="page_title" label="Title" error={e}>
          {(d, bad) => <input id="page_title" type="text" name="title" value={p.title} maxLength={255} required aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="position" label="Position in the menu" hint="0 to 1000; lower comes first." error={e}>
          {(d, bad) => <input id="position" type="text" inputMode="numeric" name="position" value={String(p.position)} maxLength={4} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="body" label="Text (Markdown)" error={e}>
          {(d, bad) => (
            <textarea id="body" name="body" rows={14} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined}>
              {p.body}
            </textarea>
          )}
        </Field>
        <button type="submit">Save page</button>
      </form>
      {p.isNew ? null : (
        <form method="post" action={`/studio/websites/${p.urlname}/pages/${p.slug}/delete`}>
          <Csrf viewer={p.viewer} />
          <button class="danger" type="submit">
            Delete this page
          </button>
        </form>
      )}
    </Layout>,
  );
}

export function accountPage(p: { viewer: Viewer; otp: boolean; notice?: string; error?: { field: string; message: string } }): string {
  const e = p.error;
  return html(
    <Layout title="Account" viewer={p.viewer}>
      <h1>Account</h1>
      <p>Signed in as {p.viewer.email}.</p>
      <Notice notice={p.notice} />
      <h2>Change the password</h2>
      <form class="card" method="post" action="/studio/account/password" novalidate>
        <Csrf viewer={p.viewer} />
        <input type="hidden" name="username" value={p.viewer.email} autocomplete="username" />
        <Field id="current" label="Current password" error={e}>
          {(d, bad) => <input id="current" type="password" name="current" required autocomplete="current-password" maxLength={200} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="next" label="New password" hint="At least 10 characters. Your other sessions end." error={e}>
          {(d, bad) => <input id="next" type="password" name="next" required autocomplete="new-password" minLength={10} maxLength={200} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <button type="submit">Change the password</button>
      </form>
      <h2>Two-factor sign-in</h2>
      <div class="card">
        {p.otp ? (
          <form method="post" action="/studio/account/two-factor/off" novalidate>
            <p>Two-factor sign-in is on.</p>
            <Csrf viewer={p.viewer} />
            <input type="hidden" name="username" value={p.viewer.email} autocomplete="username" />
            <Field id="otp_password" label="Password, to turn it off" error={e}>
              {(d, bad) => <input id="otp_password" type="password" name="password" required autocomplete="current-password" maxLength={200} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
            </Field>
            <button class="danger" type="submit">
              Turn two-factor sign-in off
            </button>
          </form>
        ) : (
          <p>
            Two-factor sign-in is off. <a href="/studio/account/two-factor">Turn it on</a>
          </p>
        )}
      </div>
      <h2>Sessions</h2>
      <form class="card" method="post" action="/studio/signout-everywhere">
        <Csrf viewer={p.viewer} />
        <p>Ends every session of your account: this browser, other browsers and the API's sessions (publishing plugins sign in again).</p>
        <button class="danger" type="submit">
          Sign out everywhere
        </button>
      </form>
    </Layout>,
  );
}

export function enrolPage(p: { viewer: Viewer; secret: string; qrSvg: string; error?: string }): string {
  return html(
    <Layout title="Turn on two-factor sign-in" viewer={p.viewer}>
      <h1>Turn on two-factor sign-in</h1>
      <Notice error={p.error} />
      <div class="card">
        <p>Scan this code with your authenticator app, or type the key below into it.</p>
        <div class="qr" role="img" aria-label="QR code of the two-factor key" dangerouslySetInnerHTML={{ __html: p.qrSvg }} />
        <p>
          Key: <code class="secret">{p.secret}</code>
        </p>
        <form method="post" action="/studio/account/two-factor" novalidate>
          <Csrf viewer={p.viewer} />
          <input type="hidden" name="secret" value={p.secret} />
          <div class="field">
            <label for="code">The six-digit code the app shows now</label>
            <input id="code" type="text" name="code" required inputMode="numeric" pattern="[0-9]{6}" autocomplete="one-time-code" maxLength={6} />
          </div>
          <button type="submit">Turn it on</button>
        </form>
      </div>
    </Layout>,
  );
}

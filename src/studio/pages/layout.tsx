// The studio's frame, shared by every screen: the layout (header, navigation, the page's
// scripts), the CSRF field of a form, the notices, a labelled field, the message page.
// Rendered on the server (Preact; JSX escapes every text and attribute).
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { NAV_SCRIPT, STUDIO_CSS, STUDIO_ICON, type StudioAsset } from '../assets.js';

export const html = (node: VNode) => '<!doctype html>' + renderToString(node);

/** Who is signed in, for the header and the forms' token. */
export interface Viewer {
  email: string;
  csrf: string;
  /** An operator of the instance (the admin role): the header shows the administration. */
  admin?: boolean;
}

/** The header's sections, in order; `admin` ones only for operators. */
export const NAV: { href: string; label: string; admin?: boolean }[] = [
  { href: '/studio/websites', label: 'Websites' },
  { href: '/studio/galleries', label: 'Galleries' },
  { href: '/studio/media', label: 'Media' },
  { href: '/studio/upload', label: 'Upload' },
  { href: '/studio/collections', label: 'Collections' },
  { href: '/studio/watermarks', label: 'Watermarks' },
  { href: '/studio/shop', label: 'Shop' },
  { href: '/studio/analytics', label: 'Analytics' },
  { href: '/studio/jobs', label: 'Jobs' },
  { href: '/studio/account', label: 'Account' },
  { href: '/studio/admin', label: 'Administration', admin: true },
];

export function Layout(p: { title: string; viewer?: Viewer; scripts?: StudioAsset[]; wide?: boolean; children: ComponentChildren }): VNode {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        {p.viewer ? <meta name="studio-csrf" content={p.viewer.csrf} /> : null}
        <title>{`${p.title} · Studio`}</title>
        <link rel="icon" type="image/svg+xml" href={`/studio/_assets/${STUDIO_ICON.name}`} />
        <link rel="stylesheet" href={`/studio/_assets/${STUDIO_CSS.name}`} />
        {(p.scripts ?? []).map((s) => (
          <script type="module" src={`/studio/_assets/${s.name}`} />
        ))}
        {p.viewer ? <script type="module" src={`/studio/_assets/${NAV_SCRIPT.name}`} /> : null}
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
            <>
              {/* On a phone: the current section's name and a Menu button that shows or hides the
                  sections (browser/nav.js; without it the sections stay listed, as on a desktop). */}
              <span class="here" id="studio-here" aria-hidden="true"></span>
              <button type="button" class="menu" id="studio-menu" aria-expanded="false" aria-controls="studio-nav" hidden>
                Menu
              </button>
              <nav aria-label="Studio" id="studio-nav">
                <ul>
                  {NAV.filter((n) => !n.admin || p.viewer!.admin).map((n) => (
                    <li>
                      <a href={n.href}>{n.label}</a>
                    </li>
                  ))}
                  <li>
                    <form method="post" action="/studio/signout">
                      <Csrf viewer={p.viewer} />
                      <button type="submit">Sign out</button>
                    </form>
                  </li>
                </ul>
              </nav>
            </>
          ) : null}
        </header>
        <main id="main" class={p.wide ? 'wide' : undefined}>
          {p.children}
        </main>
        <div id="announce" class="sr" aria-live="polite"></div>
      </body>
    </html>
  );
}

export function Csrf(p: { viewer: Viewer }): VNode {
  return <input type="hidden" name="csrf" value={p.viewer.csrf} />;
}

export function Notice(p: { notice?: string; error?: string }): VNode | null {
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

export function Field(p: { id: string; label: string; error?: { field: string; message: string }; hint?: string; children: (describedBy: string | undefined, invalid: boolean) => ComponentChildren }): VNode {
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

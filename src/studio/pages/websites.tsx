// The websites' screens: the list, the settings (brand), the Markdown pages.
import type { VNode } from 'preact';
import { COLOR_SCHEMES, THEMES } from '../../websites/brand.js';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';
import { studioScript } from '../assets.js';

const WEBSITES_SCRIPT = studioScript('websites');

export interface WebsiteItem {
  urlname: string;
  title: string;
  home: string;
  /** The home gallery's cover as a studio thumbnail. */
  thumb?: string;
}

export function websitesPage(p: { viewer: Viewer; websites: WebsiteItem[]; total: number }): string {
  return html(
    <Layout title="Websites" viewer={p.viewer}>
      <div class="head-row">
        <h1>Your websites</h1>
        <a class="button" href="/studio/upload">
          Add photos
        </a>
      </div>
      {p.websites.length === 0 ? (
        <p>You have no website yet.</p>
      ) : (
        <ul class="list card sites">
          {p.websites.map((w) => (
            <li>
              {w.thumb ? <img class="thumb" src={w.thumb} alt="" width={96} height={64} loading="lazy" decoding="async" /> : <span class="thumb none" aria-hidden="true" />}
              <span class="site-name">
                <a href={`/studio/websites/${w.urlname}`}>{w.title || w.urlname}</a> <span class="muted">({w.urlname})</span>
                {/* The screens a website's work starts from, quieter than its name. */}
                <span class="quick">
                  <a href={`/studio/websites/${w.urlname}/galleries/grid`}>
                    Gallery overview<span class="sr"> of {w.title || w.urlname}</span>
                  </a>
                  <a href={`/studio/websites/${w.urlname}/home`}>
                    Home page<span class="sr"> of {w.title || w.urlname}</span>
                  </a>
                  <a href={w.home}>
                    View site<span class="sr"> {w.title}</span>
                  </a>
                </span>
              </span>
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

/** A page of the images offered, the latest first; `older`/`newer`: whether there are more either way. */
export interface PickPage {
  images: Pickable[];
  page: number;
  newer: boolean;
  older: boolean;
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
  hostname: string;
  /** '1': search engines may index it (each gallery's setting decides); '0': never. */
  indexing: string;
}


function Picker(p: { name: 'logo' | 'favicon'; legend: string; value: string; images: Pickable[]; error?: { field: string; message: string } }): VNode {
  const bad = p.error?.field === p.name;
  const known = p.images.some((i) => i.uuid === p.value);
  return (
    <fieldset class="field" id={`${p.name}-picker`} aria-describedby={bad ? `${p.name}-error` : undefined}>
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

/** The host name as it stands: the one in effect, and one waiting for its proof (docs/studio.md "Host names"). */
export interface HostnameState {
  inEffect: string | null;
  pending: { name: string; record: string; token: string; checkedAt: string | null; check: string | null } | null;
}

/** A name waiting for proof: what to put in DNS, what the last look found, and "Verify now". */
function HostnameProof(p: { viewer: Viewer; urlname: string; state: HostnameState }): VNode | null {
  const pending = p.state.pending;
  if (!pending) return null;
  return (
    <section class="card" aria-labelledby="proof-title">
      <h2 id="proof-title">Host name: waiting for proof</h2>
      <p>
        Waiting for proof that <strong>{pending.name}</strong> is yours.{' '}
        {p.state.inEffect ? (
          <>
            Until then the website stays at <strong>{p.state.inEffect}</strong>.
          </>
        ) : (
          <>Until then the website stays at this service's address.</>
        )}
      </p>
      <p>At your domain's DNS provider, add this TXT record, then choose Verify now (DNS changes can take a few minutes to show):</p>
      <dl>
        <dt>Type</dt>
        <dd>TXT</dd>
        <dt>Name</dt>
        <dd>
          <code class="secret">{pending.record}</code>
        </dd>
        <dt>Value</dt>
        <dd>
          <code class="secret">{pending.token}</code>
        </dd>
        <dt>Status</dt>
        <dd>{pending.checkedAt ? `Last checked ${pending.checkedAt.replace('T', ' ').slice(0, 16)} UTC: ${pending.check ?? 'not found'}` : 'Not checked yet.'}</dd>
      </dl>
      <p class="muted">Then point the name at this service (a CNAME or A record): its visitors get the website over HTTPS.</p>
      <form method="post" action={`/studio/websites/${p.urlname}/hostname/verify`}>
        <Csrf viewer={p.viewer} />
        <button type="submit">Verify now</button>
      </form>
    </section>
  );
}

export function settingsPage(p: {
  viewer: Viewer;
  urlname: string;
  home: string;
  values: SettingsValues;
  images: PickPage;
  hostname?: HostnameState;
  notice?: string;
  error?: { field: string; message: string };
}): string {
  const v = p.values;
  const e = p.error;
  return html(
    <Layout title={`Settings of ${v.title || p.urlname}`} viewer={p.viewer} scripts={[WEBSITES_SCRIPT]}>
      <h1>Settings of {v.title || p.urlname}</h1>
      <p class="row">
        <a href={p.home}>View site</a>
        <a href={`/studio/websites/${p.urlname}/home`}>Home page</a>
        <a href={`/studio/websites/${p.urlname}/pages`}>Pages</a>
        <a href={`/studio/websites/${p.urlname}/styles`}>Display styles</a>
        <a href={`/studio/websites/${p.urlname}/mails`}>Preview the mails</a>
      </p>
      <Notice notice={p.notice} error={e && e.field === '' ? e.message : undefined} />
      {p.hostname ? <HostnameProof viewer={p.viewer} urlname={p.urlname} state={p.hostname} /> : null}
      <form class="card" method="post" action={`/studio/websites/${p.urlname}`} novalidate>
        <Csrf viewer={p.viewer} />
        <Field id="title" label="Title" error={e}>
          {(d, bad) => <input id="title" type="text" name="title" value={v.title} maxLength={255} required aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="tagline" label="Tagline" error={e}>
          {(d, bad) => <input id="tagline" type="text" name="tagline" value={v.tagline} maxLength={255} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="hostname" label="Host name" hint="The website's own address, such as photos.example.com: it takes effect once a DNS record proves the name is yours (shown after saving); blank: it stays under this service's address." error={e}>
          {(d, bad) => <input id="hostname" type="text" name="hostname" value={v.hostname} maxLength={260} autocomplete="off" spellcheck={false} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="indexing" label="Search engines" hint="Whether search engines may list this website (each gallery can still opt out)." error={e}>
          {(d) => (
            <select id="indexing" name="indexing" aria-describedby={d}>
              <option value="1" selected={v.indexing !== '0'}>
                may index the website
              </option>
              <option value="0" selected={v.indexing === '0'}>
                may not index anything
              </option>
            </select>
          )}
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
        <Field id="accent_color" label="Accent colour" hint="Pick it, or write it #rrggbb; blank for the theme's own." error={e}>
          {(d, bad) => (
            <span class="row">
              <input id="accent_color" type="text" name="accent_color" value={v.accentColor} maxLength={7} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />
              {/* Shown by the script (browser/websites.js), which keeps the two in step; it has no name: the field is what is sent. */}
              <input id="accent_pick" type="color" value={/^#[0-9a-f]{6}$/i.test(v.accentColor) ? v.accentColor.toLowerCase() : '#2f5fd0'} aria-label="Colour picker" hidden />
            </span>
          )}
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
        <Picker name="logo" legend="Logo" value={v.logo} images={p.images.images} error={e} />
        <Picker name="favicon" legend="Favicon" value={v.favicon} images={p.images.images} error={e} />
        {p.images.newer || p.images.older ? (
          <p class="pick-pages">
            {`Your latest images first${p.images.page > 1 ? ` (page ${p.images.page})` : ''}. `}
            {p.images.newer ? <a href={`/studio/websites/${p.urlname}${p.images.page > 2 ? `?images=${p.images.page - 1}` : ''}#logo-picker`}>Newer images</a> : null}
            {p.images.newer && p.images.older ? ' · ' : null}
            {p.images.older ? <a href={`/studio/websites/${p.urlname}?images=${p.images.page + 1}#logo-picker`}>Older images</a> : null}
            {' Save first: changes not saved are lost on the way.'}
          </p>
        ) : null}
        <button type="submit">Save settings</button>
      </form>
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


// A website's home page settings (docs/studio.md "Home page"): the hero's photos, chosen from the
// library (the latest first, searchable) and ordered, how they fill the screen and the words over
// them; the galleries featured, chosen from the tree and ordered. One form, the API's fields.
import type { VNode } from 'preact';
import { MAX_FEATURED, MAX_HEADLINE, MAX_HERO, MAX_LINE } from '../../websites/brand.js';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';
import type { Pickable, PickPage } from './websites.js';

export interface HomeGallery {
  uuid: string;
  name: string;
  depth: number;
  /** A password or an access list: a client gallery, off the home page unless chosen. */
  client: boolean;
  hidden: boolean;
  photos: number;
}

export interface HomeValues {
  heroFit: string;
  heroHeadline: string;
  heroTagline: string;
  /** The hero's photos in order. */
  hero: Pickable[];
  /** The featured galleries' UUIDs in order. */
  featured: string[];
}

function Order(p: { name: string; value: number | undefined; label: string }): VNode {
  return (
    <label class="order">
      <span>Order</span>
      <input type="number" name={p.name} value={p.value === undefined ? '' : String(p.value)} min={1} max={99} inputMode="numeric" aria-label={p.label} />
    </label>
  );
}

export function homeSettingsPage(p: {
  viewer: Viewer;
  urlname: string;
  home: string;
  values: HomeValues;
  images: PickPage;
  q: string;
  galleries: HomeGallery[];
  notice?: string;
  error?: { field: string; message: string };
}): string {
  const v = p.values;
  const e = p.error;
  const chosen = new Set(v.hero.map((i) => i.uuid));
  const offered = p.images.images.filter((i) => !chosen.has(i.uuid));
  const base = `/studio/websites/${p.urlname}/home`;
  const pageHref = (n: number) => `${base}?${new URLSearchParams({ ...(p.q ? { q: p.q } : {}), ...(n > 1 ? { images: String(n) } : {}) }).toString()}#library`;
  const featuredAt = new Map(v.featured.map((u, i) => [u, i + 1]));
  const heroError = e?.field === 'hero' ? e : undefined;
  const featuredError = e?.field === 'featured' ? e : undefined;
  return html(
    <Layout title={`Home page of ${p.urlname}`} viewer={p.viewer}>
      <h1>Home page</h1>
      <p class="row">
        <a href={p.home}>View site</a>
        <a href={`/studio/websites/${p.urlname}`}>Settings</a>
        <a href={`/studio/websites/${p.urlname}/pages`}>Pages</a>
      </p>
      <Notice notice={p.notice} error={e && e.field === '' ? e.message : undefined} />
      <form class="search-row" method="get" action={base} role="search" aria-label="Search the library">
        <label for="q">Find photos by title or file name</label>
        <input id="q" type="search" name="q" value={p.q} maxLength={100} />
        <button type="submit">Search</button>
        {p.q ? <a href={base}>Latest photos</a> : null}
      </form>
      <form class="card" method="post" action={base} novalidate>
        <Csrf viewer={p.viewer} />
        <h2>Hero</h2>
        <p class="hint">One photo, or up to {MAX_HERO} for a slideshow, full width at the top of the home page.</p>
        <fieldset class="field" id="hero" aria-describedby={heroError ? 'hero-error' : undefined}>
          <legend>Chosen photos</legend>
          {v.hero.length === 0 ? <p class="muted">None yet: the home page starts with its galleries.</p> : null}
          <div class="pick chosen">
            {v.hero.map((i, n) => (
              <div class="pick-item">
                <label>
                  {i.thumb ? <img src={i.thumb} alt="" /> : <span class="none">No preview</span>}
                  <input type="checkbox" name="hero" value={i.uuid} checked />
                  {i.label}
                </label>
                <Order name={`hero_order.${i.uuid}`} value={n + 1} label={`Order of ${i.label}`} />
              </div>
            ))}
          </div>
          {heroError ? (
            <span class="error" id="hero-error" role="alert">
              {heroError.message}
            </span>
          ) : null}
        </fieldset>
        <fieldset class="field" id="library">
          <legend>{p.q ? `Photos matching “${p.q}”` : `Add from your latest photos${p.images.page > 1 ? ` (page ${p.images.page})` : ''}`}</legend>
          {offered.length === 0 ? <p class="muted">{p.images.images.length > 0 ? 'The photos that match are chosen already.' : p.q ? 'No photo matches.' : 'No other photo.'}</p> : null}
          <div class="pick">
            {offered.map((i) => (
              <label>
                {i.thumb ? <img src={i.thumb} alt="" loading="lazy" /> : <span class="none">No preview</span>}
                <input type="checkbox" name="hero" value={i.uuid} />
                {i.label}
              </label>
            ))}
          </div>
          {p.images.newer || p.images.older ? (
            <p class="pick-pages">
              {p.images.newer ? <a href={pageHref(p.images.page - 1)}>Newer photos</a> : null}
              {p.images.newer && p.images.older ? ' · ' : null}
              {p.images.older ? <a href={pageHref(p.images.page + 1)}>Older photos</a> : null}
              {' Save first: changes not saved are lost on the way.'}
            </p>
          ) : null}
        </fieldset>
        <fieldset class="field">
          <legend>How the hero fills the screen</legend>
          <label class="inline">
            <input type="radio" name="hero_fit" value="fill" checked={v.heroFit !== 'fit'} /> Fill the width and height (the photo is cropped at its edges, around its centre)
          </label>
          <label class="inline">
            <input type="radio" name="hero_fit" value="fit" checked={v.heroFit === 'fit'} /> Show the whole photo (bands beside or above it)
          </label>
        </fieldset>
        <Field id="hero_headline" label="Headline over the hero" hint="Optional: shown large over a dark gradient, legible on any photo." error={e}>
          {(d, bad) => <input id="hero_headline" type="text" name="hero_headline" value={v.heroHeadline} maxLength={MAX_HEADLINE} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="hero_tagline" label="Tagline under the headline" error={e}>
          {(d, bad) => <input id="hero_tagline" type="text" name="hero_tagline" value={v.heroTagline} maxLength={MAX_LINE} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <h2>Featured galleries</h2>
        <p class="hint">
          Up to {MAX_FEATURED}, in the order you give. None chosen: the home page shows the top-level galleries open to everyone; client galleries (behind a password or an access list) appear only when chosen here.
        </p>
        <fieldset class="field" id="featured" aria-describedby={featuredError ? 'featured-error' : undefined}>
          <legend>Galleries</legend>
          {p.galleries.length === 0 ? <p class="muted">The website has no gallery yet.</p> : null}
          <ul class="feature-list">
            {p.galleries.map((g) => (
              <li class={`depth-${Math.min(g.depth, 4)}`}>
                <label>
                  <input type="checkbox" name="featured" value={g.uuid} checked={featuredAt.has(g.uuid)} /> {g.name}
                  <span class="muted">
                    {' '}
                    {g.photos === 1 ? '1 photo' : `${g.photos} photos`}
                    {g.client ? ' · client gallery' : ''}
                    {g.hidden ? ' · hidden' : ''}
                  </span>
                </label>
                <Order name={`featured_order.${g.uuid}`} value={featuredAt.get(g.uuid)} label={`Order of ${g.name}`} />
              </li>
            ))}
          </ul>
          {featuredError ? (
            <span class="error" id="featured-error" role="alert">
              {featuredError.message}
            </span>
          ) : null}
        </fieldset>
        <button type="submit">Save the home page</button>
      </form>
    </Layout>,
  );
}

// The frame of every page: landmarks, the site's brand (name or logo, tagline,
// navigation, footer: src/site/brand.ts), breadcrumbs, the stylesheets (the
// base one, then the brand's theme) and the script (all external: the CSP
// allows nothing inline).
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { ICON_ASSET, SCRIPT, STYLESHEET } from '../assets.js';
import type { SiteBrand } from '../brand.js';
import type { Crumb, Picture } from '../service.js';
import { themeHref } from '../theme.js';

export interface Frame {
  siteTitle: string;
  homeHref: string;
  title: string;
  /** false: `noindex`. */
  indexable: boolean;
  canonical?: string;
  crumbs?: Crumb[];
  /** Pages with a media list load the lightbox script. */
  script?: boolean;
  /** The website's brand; absent when no website is known (the default theme). */
  brand?: SiteBrand;
  /** The navigation entry of this page (its href); the root gallery's page is found from its crumbs. */
  current?: string;
}

export function Layout(props: Frame & { children: ComponentChildren }): VNode {
  const { crumbs, brand } = props;
  const current = props.current ?? (crumbs && crumbs.length === 1 ? crumbs[0].href : undefined);
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title === props.siteTitle ? props.title : `${props.title} · ${props.siteTitle}`}</title>
        {props.indexable ? null : <meta name="robots" content="noindex" />}
        {props.canonical ? <link rel="canonical" href={props.canonical} /> : null}
        {brand?.favicon ? <link rel="icon" href={brand.favicon.href} type={brand.favicon.type} /> : <link rel="icon" href={`/_site/${ICON_ASSET.name}`} type="image/svg+xml" />}
        <link rel="stylesheet" href={`/_site/${STYLESHEET.name}`} />
        {brand?.fontHref ? <link rel="preload" href={brand.fontHref} as="font" type="font/woff2" crossorigin="anonymous" /> : null}
        <link rel="stylesheet" href={brand?.themeHref ?? themeHref('modern', 'light', null)} />
        {props.script ? <script src={`/_site/${SCRIPT.name}`} defer /> : null}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="site">
          <a class="brand" href={props.homeHref}>
            {brand?.logo ? (
              <img src={brand.logo.src} srcset={brand.logo.srcset} sizes={brand.logo.sizes} width={brand.logo.width} height={brand.logo.height} alt={props.siteTitle} />
            ) : null}
            <span class="brand-name">
              {brand?.logo ? null : <span class="brand-title">{props.siteTitle}</span>}
              {brand?.tagline ? <span class="tagline">{brand.tagline}</span> : null}
            </span>
          </a>
          {/* The root gallery alone would repeat the home link: a navigation once there are pages. */}
          {brand && brand.nav.length > 1 ? (
            <nav class="site-nav" aria-label="Site">
              <ul>
                {brand.nav.map((n) => (
                  <li key={n.href}>
                    <a href={n.href} aria-current={n.href === current ? 'page' : undefined}>
                      {n.name}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          ) : null}
        </header>
        {crumbs && crumbs.length > 1 ? (
          <nav class="crumbs" aria-label="Breadcrumb">
            <ol>
              {crumbs.map((c, i) => (
                <li key={c.href}>{i === crumbs.length - 1 ? <span aria-current="page">{c.name}</span> : <a href={c.href}>{c.name}</a>}</li>
              ))}
            </ol>
          </nav>
        ) : null}
        <main id="main">{props.children}</main>
        {brand ? (
          <footer class="site">
            <div>
              <p>{brand.copyright}</p>
              {brand.credit ? <p>{brand.credit}</p> : null}
            </div>
            {brand.email || brand.social.length > 0 ? (
              <ul aria-label="Contact">
                {brand.email ? (
                  <li>
                    <a href={`mailto:${brand.email}`}>{brand.email}</a>
                  </li>
                ) : null}
                {brand.social.map((l) => (
                  <li key={l.href}>
                    <a href={l.href} rel="me noopener noreferrer">
                      {l.label}
                    </a>
                  </li>
                ))}
              </ul>
            ) : null}
          </footer>
        ) : null}
      </body>
    </html>
  );
}

/** An image with its sizes, or a placeholder of its shape while it has none. */
export function Img(props: { picture: Picture; sizes: string; eager?: boolean; class?: string }): VNode {
  const p = props.picture;
  if (!p.src) {
    return (
      <svg class={props.class ? `ph ${props.class}` : 'ph'} viewBox={`0 0 ${p.width} ${p.height}`} width={p.width} height={p.height} role="img" aria-label={p.alt}>
        <rect width="100%" height="100%" />
      </svg>
    );
  }
  return (
    <img
      class={props.class}
      src={p.src}
      srcset={p.srcset}
      sizes={props.sizes}
      width={p.width}
      height={p.height}
      alt={p.alt}
      loading={props.eager ? 'eager' : 'lazy'}
      decoding="async"
    />
  );
}

export function render(page: VNode): string {
  return '<!doctype html>' + renderToString(page);
}

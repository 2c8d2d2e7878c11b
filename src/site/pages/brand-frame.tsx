// The website's brand in every page's frame (layout.tsx): the theme's head
// links, the header (logo or name, tagline, navigation) and the footer
// (copyright, credit, contact and social links). What they show is
// src/site/look/brand.ts's; JSX escapes every text and attribute.
import type { VNode } from 'preact';
import { MENU_AFTER, type SiteBrand } from '../look/brand.js';
import type { Crumb } from '../service.js';
import { themeHref } from '../look/theme.js';

/**
 * After the base stylesheet: the brand's favicon (declared after the default icon, so browsers
 * take it), its body font preloaded, and its theme stylesheet (the default theme when no website
 * is known), whose rules win over the base stylesheet's by coming later.
 */
export function BrandHead(props: { brand?: SiteBrand }): VNode {
  const { brand } = props;
  return (
    <>
      {brand?.favicon ? <link rel="icon" href={brand.favicon.href} type={brand.favicon.type} /> : null}
      {brand?.fontHref ? <link rel="preload" href={brand.fontHref} as="font" type="font/woff2" crossorigin="anonymous" /> : null}
      <link rel="stylesheet" href={brand?.themeHref ?? themeHref('modern', 'light', null)} />
    </>
  );
}

export function BrandHeader(props: { brand?: SiteBrand; siteTitle: string; homeHref: string; current?: string; crumbs?: Crumb[] }): VNode {
  const { brand, crumbs } = props;
  // The navigation entry of this page: given, else the root gallery's page (its crumbs are the root alone).
  const current = props.current ?? (crumbs && crumbs.length === 1 ? crumbs[0].href : undefined);
  return (
    <header class="site">
      <a class="brand" href={props.homeHref}>
        {brand?.logo ? <img src={brand.logo.src} srcset={brand.logo.srcset} sizes={brand.logo.sizes} width={brand.logo.width} height={brand.logo.height} alt={props.siteTitle} /> : null}
        <span class="brand-name">
          {brand?.logo ? null : <span class="brand-title">{props.siteTitle}</span>}
          {brand?.tagline ? <span class="tagline">{brand.tagline}</span> : null}
        </span>
      </a>
      {/* The root gallery alone would repeat the home link: a navigation once there are pages. */}
      {brand && brand.nav.length > 1 ? (
        <nav class="site-nav" aria-label="Site">
          {/* A long navigation folds behind this button on a phone (the script shows it: without it the list stays open). */}
          {brand.nav.length > MENU_AFTER ? (
            <button type="button" class="menu-toggle" data-menu aria-expanded="true" aria-controls="site-nav-list" hidden>
              Menu
            </button>
          ) : null}
          <ul id="site-nav-list">
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
  );
}

export function BrandFooter(props: { brand?: SiteBrand }): VNode | null {
  const { brand } = props;
  if (!brand) return null;
  return (
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
  );
}

// The frame of every page: landmarks, the site's name, breadcrumbs, the
// stylesheet and the script (both external: the CSP allows nothing inline).
// The brand's head links, header and footer: brand-frame.tsx.
import type { ComponentChildren, VNode } from 'preact';
import { MENU_AFTER, type SiteBrand } from '../look/brand.js';
import { BrandFooter, BrandHead, BrandHeader } from './brand-frame.js';
import { renderToString } from 'preact-render-to-string';
import { ICON_ASSET, SCRIPT, STYLESHEET } from '../look/assets.js';
import type { Crumb } from '../service.js';
import type { PageMeta } from './share.js';
import { HeadMeta } from './head-meta.js';

export interface Frame {
  siteTitle: string;
  homeHref: string;
  /** The website's brand (brand-frame.tsx); absent when no website is known: the default theme. */
  brand?: SiteBrand;
  /** This page's entry in the navigation (its href); the root gallery's page is found from its crumbs. */
  current?: string;
  title: string;
  /** false: `noindex`. */
  indexable: boolean;
  canonical?: string;
  crumbs?: Crumb[];
  /** Pages with a media list load the viewer's script (an ES module: deferred, and it loads PhotoSwipe on first use). */
  script?: boolean;
  /** Open Graph, Twitter card and JSON-LD (src/site/pages/share.ts, pages/head-meta.tsx). */
  meta?: PageMeta;
  /** Full-bleed above the content, a labelled region of its own (the home page's hero). */
  hero?: VNode;
}

export function Layout(props: Frame & { children: ComponentChildren }): VNode {
  const { crumbs } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title === props.siteTitle ? props.title : `${props.title} · ${props.siteTitle}`}</title>
        {props.indexable ? null : <meta name="robots" content="noindex" />}
        {props.canonical ? <link rel="canonical" href={props.canonical} /> : null}
        <HeadMeta meta={props.meta} />
        <link rel="icon" href={`/_site/${ICON_ASSET.name}`} type="image/svg+xml" />
        <link rel="stylesheet" href={`/_site/${STYLESHEET.name}`} />
        <BrandHead brand={props.brand} />
        {props.script || (props.brand?.nav.length ?? 0) > MENU_AFTER ? <script type="module" src={`/_site/${SCRIPT.name}`} /> : null}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <BrandHeader brand={props.brand} siteTitle={props.siteTitle} homeHref={props.homeHref} current={props.current} crumbs={crumbs} />
        {crumbs && crumbs.length > 1 ? (
          <nav class="crumbs" aria-label="Breadcrumb">
            <ol>
              {crumbs.map((c, i) => (
                <li key={c.href}>{i === crumbs.length - 1 ? <span aria-current="page">{c.name}</span> : <a href={c.href}>{c.name}</a>}</li>
              ))}
            </ol>
          </nav>
        ) : null}
        {props.hero}
        <main id="main">{props.children}</main>
        <BrandFooter brand={props.brand} />
      </body>
    </html>
  );
}

export function render(page: VNode): string {
  return '<!doctype html>' + renderToString(page);
}

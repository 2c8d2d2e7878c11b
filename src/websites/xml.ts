// Reply shapes of websites and their display styles (spec 4.2, 4.4).
import { challengeName } from './hostnames.js';
import { xmlArray, type XmlObject } from '../http/xml.js';
import { homeUrl } from './home-url.js';
import type { WebsitePageRow } from '../database/schema.js';
import type { DisplayStyleListRow, WebsiteListRow } from './repository.js';
import type { WebsiteDetails } from './service.js';
import { socialLinksOf } from './social-links.js';

export type View = 'list' | 'details';

export function websitesXml(websites: readonly WebsiteListRow[], view: View, publicUrl: string, pages: number): XmlObject {
  const items = websites.map((w): XmlObject =>
    view === 'list'
      ? { uuid: w.uuid, urlname: w.urlname, title: w.title }
      : {
          uuid: w.uuid,
          urlname: w.urlname,
          title: w.title,
          hostname: w.hostname,
          'home-url': homeUrl(publicUrl, w),
          'root-gallery-uuid': w.root_uuid,
          'created-at': new Date(w.created_at),
          'updated-at': new Date(w.updated_at),
        },
  );
  return { websites: xmlArray('website', items), 'total-pages': pages };
}

export function displayStylesXml(styles: readonly DisplayStyleListRow[], view: View, pages: number): XmlObject {
  const items = styles.map(
    (s): XmlObject =>
      view === 'list'
        ? { uuid: s.uuid, name: s.name }
        : { uuid: s.uuid, name: s.name, layout: s.layout, default: s.is_default === 1, 'created-at': new Date(s.created_at) },
  );
  return { 'gallery-display-styles': xmlArray('gallery-display-style', items), 'total-pages': pages };
}

/** Where a page is seen: `<home-url>/p/<slug>`. */
export function pageUrl(publicUrl: string, w: { urlname: string; hostname: string | null }, slug: string): string {
  return `${homeUrl(publicUrl, w)}/p/${slug}`;
}

/**
 * One website with its brand and pages (an API extension, docs/website.md): the fields of
 * `GET /websites.xml?view=details`, then the extension's, so a client that reads only the former
 * finds them where it always did.
 */
export function websiteDetailsXml(d: WebsiteDetails, publicUrl: string): XmlObject {
  const w = d.website;
  const social = socialLinksOf(w.social_links);
  return {
    uuid: w.uuid,
    urlname: w.urlname,
    title: w.title,
    hostname: w.hostname,
    'home-url': homeUrl(publicUrl, w),
    'root-gallery-uuid': d.rootGalleryUuid,
    'created-at': new Date(w.created_at),
    'updated-at': new Date(w.updated_at),
    tagline: w.tagline,
    logo: d.logoUuid,
    favicon: d.faviconUuid,
    'color-scheme': w.color_scheme,
    'accent-color': w.accent_color,
    theme: w.theme,
    credit: w.credit,
    copyright: w.copyright,
    'contact-email': w.contact_email,
    'social-links': xmlArray('social-link', social),
    indexing: w.indexing,
    // The home page (docs/website.md "Home page"): the hero's photos and the featured galleries, in order.
    hero: xmlArray('media', d.hero),
    'hero-fit': w.hero_fit,
    'hero-headline': w.hero_headline,
    'hero-tagline': w.hero_tagline,
    featured: xmlArray('gallery', d.featured),
    pages: xmlArray('page', d.pages.map((p) => pageXml(p, publicUrl, w, false))),
    // A host name asked for and waiting for its proof (docs/website.md "Host names"): `hostname`
    // stays the name in effect until the TXT record `hostname-record` holds `hostname-token`.
    'hostname-pending': w.hostname_pending,
    'hostname-record': w.hostname_pending === null ? null : challengeName(w.hostname_pending),
    'hostname-token': w.hostname_token,
    'hostname-checked-at': w.hostname_checked_at === null ? null : new Date(w.hostname_checked_at),
    'hostname-check': w.hostname_check,
  };
}

export function pageXml(p: WebsitePageRow, publicUrl: string, w: { urlname: string; hostname: string | null }, withBody: boolean): XmlObject {
  return {
    slug: p.slug,
    title: p.title,
    position: p.position,
    'home-url': pageUrl(publicUrl, w, p.slug),
    ...(withBody ? { body: p.body } : {}),
    'created-at': new Date(p.created_at),
    'updated-at': new Date(p.updated_at),
  };
}

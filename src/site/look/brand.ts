// A website's brand as its pages show it: name and tagline, logo, favicon, theme stylesheet,
// navigation (the root gallery, then its pages), footer. The website's row is read on every
// request; the rest (pages' titles, logo's renditions) comes from a small memory keyed on the
// website's `updated_at`, which every brand or page change moves on, on any process.
// Details: docs/website.md, "Brand and pages" ("Changes show at once").
import { MemoryCache } from '../../ops/cache.js';
import type { SiteAddress } from '../address.js';
import type { BrandExtras, SiteRendition, SiteRepository, SiteWebsite } from '../repository.js';
import { bodyFont, themeHref } from './theme.js';
import { socialLinksOf } from '../../websites/social-links.js';

export interface SiteBrand {
  title: string;
  tagline: string | null;
  /** `sizes` is the width it is drawn at: 48 CSS pixels high. */
  logo?: { src: string; srcset: string; sizes: string; width: number; height: number };
  favicon?: { href: string; type: string };
  themeHref: string;
  /** The body font, preloaded. */
  fontHref?: string;
  /** The root gallery first, then the pages in their order. */
  nav: Array<{ name: string; href: string }>;
  credit: string | null;
  copyright: string;
  email: string | null;
  social: Array<{ href: string; label: string }>;
}

const LOGO_HEIGHT = 48;
/** How long a process keeps a website's navigation galleries before reading them again. */
export const GALLERIES_MS = 30_000;
/** A navigation longer than this folds behind a Menu button on a phone. */
export const MENU_AFTER = 4;

const KNOWN_SITES: Record<string, string> = {
  'instagram.com': 'Instagram',
  'facebook.com': 'Facebook',
  'x.com': 'X',
  'twitter.com': 'X',
  'linkedin.com': 'LinkedIn',
  'youtube.com': 'YouTube',
  'vimeo.com': 'Vimeo',
  'flickr.com': 'Flickr',
  'pinterest.com': 'Pinterest',
  'tiktok.com': 'TikTok',
  'behance.net': 'Behance',
  '500px.com': '500px',
  'threads.net': 'Threads',
  'bsky.app': 'Bluesky',
  'mastodon.social': 'Mastodon',
};

/** A social link's name: the site's own for the well-known ones, else its host name. */
export function socialLabel(href: string): string {
  const host = new URL(href).hostname.replace(/^www\./, '');
  return KNOWN_SITES[host] ?? host;
}

/** The picture sizes of a brand media: WebP when there are any (transparency kept), else JPEG; small ones only (never watermarked). */
function small(rs: readonly SiteRendition[], mediaId: number): SiteRendition[] {
  const own = rs.filter((r) => r.media_id === mediaId && r.name !== 'poster' && Math.max(r.width, r.height) <= 640);
  const webp = own.filter((r) => r.mime_type === 'image/webp');
  return (webp.length > 0 ? webp : own.filter((r) => r.mime_type === 'image/jpeg')).sort((a, b) => a.width - b.width);
}

/** The brand of the website at `at`, from its row and its extras; `fileUrl` gives a public file's address. */
export function brandOf(at: SiteAddress, fileUrl: (key: string) => string, year = new Date().getUTCFullYear()): SiteBrand {
  const w = at.website;
  const extras: BrandExtras = w.extras ?? { nav: [], renditions: [] };
  const home = `${at.homePath}/`;
  const brand: SiteBrand = {
    title: w.title || w.urlname,
    tagline: w.tagline ?? null,
    themeHref: themeHref(w.theme ?? 'modern', w.color_scheme ?? 'light', w.accent_color ?? null),
    fontHref: bodyFont((w.theme as Parameters<typeof bodyFont>[0]) ?? 'modern'),
    nav: [
      { name: w.root_name || 'Home', href: home },
      ...(extras.galleries ?? []).map((g) => ({ name: g.name, href: `${at.homePath}/-/${g.full_url_path}` })),
      ...extras.nav.map((p) => ({ name: p.title, href: `${at.homePath}/p/${p.slug}` })),
    ],
    credit: w.credit ?? null,
    copyright: w.copyright ?? `© ${year} ${w.title || w.urlname}`,
    email: w.contact_email ?? null,
    social: socialLinksOf(w.social_links).map((href) => ({ href, label: socialLabel(href) })),
  };
  if (w.logo_media_id != null) {
    const sizes = small(extras.renditions, w.logo_media_id);
    if (sizes.length > 0) {
      const first = sizes[0];
      const drawn = Math.round((LOGO_HEIGHT * first.width) / Math.max(1, first.height));
      brand.logo = {
        src: fileUrl(sizes[sizes.length - 1].storage_key),
        srcset: sizes.map((r) => `${fileUrl(r.storage_key)} ${r.width}w`).join(', '),
        sizes: `${drawn}px`,
        width: drawn,
        height: LOGO_HEIGHT,
      };
    }
  }
  if (w.favicon_media_id != null) {
    const icon = small(extras.renditions, w.favicon_media_id)[0];
    if (icon) brand.favicon = { href: fileUrl(icon.storage_key), type: icon.mime_type };
  }
  return brand;
}

/** The brand's extras of websites, remembered per (website, updated_at). */
export class BrandExtrasLoader {
  private readonly cache = new MemoryCache<string, BrandExtras>({ entries: 1000, ttlMs: Infinity });

  async attach(repo: SiteRepository, website: SiteWebsite): Promise<SiteWebsite> {
    const key = `${website.id}\n${website.updated_at ?? ''}`;
    let extras = this.cache.get(key);
    if (!extras) {
      const media = [website.logo_media_id, website.favicon_media_id].filter((i): i is number => i != null);
      extras = await repo.brandExtras(website.id, media);
      // A logo whose renditions are still being made (or whose media is gone) is looked for again within seconds.
      const complete = media.every((id) => extras!.renditions.some((r) => r.media_id === id));
      // The navigation's galleries change without the website's row: looked for again within GALLERIES_MS.
      this.cache.set(key, extras, complete ? GALLERIES_MS : 5000);
    }
    // The lookup's row is this request's own: completed in place rather than copied.
    website.extras = extras;
    return website;
  }
}

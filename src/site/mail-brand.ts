// The website's brand as its mails show it (src/mail/shell.tsx): title, accent, the logo as an
// absolute address of a small PNG or JPEG rendition (Outlook draws no WebP), the home page.
import { publicFilePath } from '../file-storage/file-urls.js';
import type { MailBrand } from '../mail/shell.js';
import { canonicalAddress } from './address.js';
import { BrandExtrasLoader } from './look/brand.js';
import type { SiteRepository, SiteWebsite } from './repository.js';

/** The logo's height in a mail, CSS pixels (the rendition is about twice that, for sharp screens). */
const LOGO_HEIGHT = 48;
const FORMATS = ['image/png', 'image/jpeg', 'image/webp'];

export class MailBrands {
  private readonly extras = new BrandExtrasLoader();

  constructor(
    private readonly repo: SiteRepository,
    /** Read at each use: PUBLIC_URL may be settled after start. */
    private readonly config: { readonly publicUrl?: string },
  ) {}

  /** The brand of a website by id or UUID; the service's neutral look (undefined) for none. */
  async of(ref: { id: number } | { uuid: string }): Promise<MailBrand | undefined> {
    const site = await this.repo.websiteBy(ref);
    return site && this.ofSite(site);
  }

  async ofSite(site: SiteWebsite): Promise<MailBrand> {
    const w = await this.extras.attach(this.repo, site);
    const at = canonicalAddress(this.config.publicUrl ?? 'http://localhost:8080', w);
    return { title: w.title || w.urlname, accent: w.accent_color ?? null, logo: w.logo_media_id == null ? null : this.logo(w, at.home), home: `${at.home}/` };
  }

  private logo(w: SiteWebsite, home: string): MailBrand['logo'] {
    const own = (w.extras?.renditions ?? []).filter((r) => r.media_id === w.logo_media_id && r.name !== 'poster' && !r.watermarked && Math.max(r.width, r.height) <= 640);
    const format = FORMATS.find((f) => own.some((r) => r.mime_type === f));
    const sizes = own.filter((r) => r.mime_type === format).sort((a, b) => a.width - b.width);
    if (sizes.length === 0) return null;
    // The smallest twice as high as drawn, or the largest there is.
    const pick = sizes.find((r) => r.height >= LOGO_HEIGHT * 2) ?? sizes[sizes.length - 1];
    return { src: new URL(publicFilePath(pick.storage_key), home).href, width: Math.round((LOGO_HEIGHT * pick.width) / Math.max(1, pick.height)), height: LOGO_HEIGHT };
  }
}

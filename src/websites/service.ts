// Websites: the ones a user may see, creating one (with its root gallery and
// display styles, operations.md), sharing one with another user, and its
// display styles (spec 4.2, 4.4).
import type { Access } from '../access/access.js';
import { conflict, invalid, missing, notFound } from '../core/errors.js';
import type { DisplayStyleRow, UserRow, WebsitePageRow, WebsiteRow } from '../database/schema.js';
import type { DisplayStyleInput } from './display-style-input.js';
import { MAX_PAGES, SLUG, type BrandInput, type PageInput } from './brand.js';
import type { BrandColumns, DisplayStyleListRow, WebsiteListRow, WebsitesRepository } from './repository.js';
import { isValidHostname } from './input.js';
import { checkTxtProof, isOwnHost, newProofToken, type TxtResolver } from './hostnames.js';
import { socialLinksColumn } from './social-links.js';

/** A website's display styles, at most (the API lists up to 500 per page; a handful is usual). */
export const MAX_DISPLAY_STYLES = 100;

/** What a new website comes with; the first is its default. */
export const DEFAULT_DISPLAY_STYLES = [
  { name: 'Grid', layout: 'grid' },
  { name: 'Slideshow', layout: 'slideshow' },
  { name: 'Masonry', layout: 'masonry' },
  { name: 'Filmstrip', layout: 'filmstrip' },
] as const;

export interface NewWebsite {
  urlname: string;
  /** The urlname when not given. */
  title?: string;
  hostname?: string;
}

/** A website with its brand (an API extension) and its pages, as the details show them. */
export interface WebsiteDetails {
  website: WebsiteRow;
  logoUuid: string | null;
  faviconUuid: string | null;
  rootGalleryUuid: string | null;
  pages: WebsitePageRow[];
  /** The home page's hero photos and featured galleries, by UUID in order (docs/website.md "Home page"). */
  hero: string[];
  featured: string[];
}

/** Who asks: a user (the API: their own websites, their own medias) or the operator (the admin command line). */
export type Actor = { user: Pick<UserRow, 'id'> } | { operator: true };

export interface PageWindow {
  limit: number;
  offset: number;
}

/** What a website's host name is checked against (docs/website.md "Host names"). */
export interface HostnameRules {
  /** The service's own host names, without ports (hostnames.ts ownHosts), read at each use. */
  own(): ReadonlySet<string>;
  /** Where the proof's TXT record is looked up. */
  resolver: TxtResolver;
}

/** What a look for the proof found: the name took effect, or why not (for the photographer). */
export type Verification = { verified: true; details: WebsiteDetails } | { verified: false; reason: string; details: WebsiteDetails };

export class WebsitesService {
  private readonly hostnameListeners: Array<(hostname: string) => void> = [];

  constructor(
    private readonly repo: WebsitesRepository,
    private readonly access: Access,
    private readonly hostnames: HostnameRules,
  ) {}

  /** Tells `listener` each host name that takes effect (the site forgets its misses of it). */
  onHostname(listener: (hostname: string) => void): void {
    this.hostnameListeners.push(listener);
  }

  private tookEffect(hostname: string): void {
    for (const l of this.hostnameListeners) l(hostname);
  }

  /** The websites the user owns or was given, a page of them, and how many in all. */
  async list(user: Pick<UserRow, 'id'>, window: PageWindow): Promise<{ total: number; websites: WebsiteListRow[] }> {
    const total = await this.repo.countAccessible(user.id);
    const websites = await this.repo.accessible(user.id, window.limit, window.offset);
    return { total, websites };
  }

  /**
   * A website of `owner`; a taken urlname is a conflict. The operator's (the admin command line):
   * a host name given takes effect at once, no proof asked.
   */
  async create(owner: Pick<UserRow, 'id'>, input: NewWebsite): Promise<{ uuid: string; urlname: string; rootGalleryUuid: string }> {
    if (await this.repo.byUrlname(input.urlname)) throw conflict(`urlname ${input.urlname} is taken`);
    if (input.hostname) await this.checkHostname(input.hostname, undefined);
    const created = await this.repo.create(
      { ownerId: owner.id, urlname: input.urlname, title: input.title ?? input.urlname, hostname: input.hostname?.toLowerCase() ?? null },
      DEFAULT_DISPLAY_STYLES,
    );
    if (input.hostname) this.tookEffect(input.hostname.toLowerCase());
    return created;
  }

  /**
   * The rules of a website's host name besides its form (input.ts isValidHostname): never one of
   * the service's own (PUBLIC_URL's, the object store's, RESERVED_HOSTNAMES; with or without a
   * port), and no two websites share one, in any case. A 422 naming the field, as the API's other
   * refusals of a value.
   */
  private async checkHostname(hostname: string, websiteId: number | undefined): Promise<void> {
    if (!isValidHostname(hostname)) throw invalid('website[hostname] must be a host name, such as photos.example.com', 'hostname');
    if (isOwnHost(hostname, this.hostnames.own())) throw invalid(`website[hostname]: ${hostname.toLowerCase()} is an address of this service itself; choose your own domain`, 'hostname');
    const other = await this.repo.byHostname(hostname);
    if (other && other.id !== websiteId) throw invalid(`website[hostname]: ${hostname.toLowerCase()} is the host name of another website`, 'hostname');
  }

  /**
   * A change of the host name (setBrand). The operator's takes effect at once; a user's new name
   * waits for proof (`hostname_pending`, a fresh token) while the name in effect stays: asking
   * again for the pending name keeps its token, asking for the name in effect drops the pending
   * one, and blank clears both at once (giving a name up needs no proof).
   */
  private async hostnameChange(actor: Actor, website: WebsiteRow, asked: string | null): Promise<BrandColumns> {
    const none = { hostname_pending: null, hostname_token: null, hostname_checked_at: null, hostname_check: null };
    if (asked === null) return { hostname: null, ...none };
    const name = asked.toLowerCase();
    if ('operator' in actor) {
      await this.checkHostname(name, website.id);
      return { hostname: name, ...none };
    }
    if (name === website.hostname?.toLowerCase()) return website.hostname_pending === null ? {} : none;
    if (name === website.hostname_pending) return {};
    await this.checkHostname(name, website.id);
    return { ...none, hostname_pending: name, hostname_token: newProofToken() };
  }

  /**
   * Looks for the proof of the website's pending host name: a TXT record at
   * `_mps-challenge.<name>` holding its token. Found, the name takes effect (the one in effect
   * before is let go); not found, the reason is kept and told. Nothing pending: a 422.
   */
  async verifyHostname(actor: Actor, urlname: string): Promise<Verification> {
    const website = await this.websiteFor(actor, urlname);
    const name = website.hostname_pending;
    const token = website.hostname_token;
    if (name === null || token === null) throw invalid('website[hostname]: no host name is waiting for proof', 'hostname');
    const notYet = async (reason: string): Promise<Verification> => {
      await this.repo.recordHostnameCheck(website.id, token, reason);
      return { verified: false, reason, details: await this.detailsOf((await this.repo.fullByUrlname(website.urlname))!) };
    };
    // The rules again: RESERVED_HOSTNAMES may have grown, another website may have proved it first.
    if (isOwnHost(name, this.hostnames.own())) return notYet(`${name} is an address of this service itself; choose your own domain.`);
    const other = await this.repo.byHostname(name);
    if (other && other.id !== website.id) return notYet(`${name} is the host name of another website.`);
    const proof = await checkTxtProof(this.hostnames.resolver, name, token);
    if (!proof.ok) return notYet(proof.reason);
    const done = await this.repo.promoteHostname(website.id, name, token);
    if (done === 'taken') return notYet(`${name} is the host name of another website.`);
    if (done === 'changed') return notYet('The website asks for another host name now; look at its settings again.');
    this.tookEffect(name);
    return { verified: true, details: await this.detailsOf((await this.repo.fullByUrlname(website.urlname))!) };
  }

  /** Gives `member` the use of the website as if it were theirs (galleries, medias on it). */
  async share(urlname: string, member: Pick<UserRow, 'id'>): Promise<{ uuid: string; urlname: string }> {
    const website = await this.repo.byUrlname(urlname);
    if (!website) throw notFound(`website ${urlname}`);
    await this.repo.addMember(website.id, member.id);
    return { uuid: website.uuid, urlname: website.urlname };
  }

  /**
   * What a display style chooses besides its layout (an extension, docs/display-styles.md):
   * crop a grid's photos to square cells, the spacing between photos, captions under them. The
   * operator's (the admin command `display-style set`); a user's is changeDisplayStyle.
   */
  async setDisplayStyle(urlname: string, style: string, changes: DisplayStyleInput): Promise<void> {
    await this.changeDisplayStyle({ operator: true }, urlname, style, changes);
  }

  /** Changes a display style (by UUID or name) of a website the actor may change; its name, layout and extras (display-style-input.ts). */
  async changeDisplayStyle(actor: Actor, urlname: string, style: string, changes: DisplayStyleInput): Promise<void> {
    const website = await this.websiteFor(actor, urlname);
    const set: { name?: string; layout?: string; crop?: number; spacing?: string; captions?: number } = {};
    if (changes.name !== undefined) {
      const same = (await this.repo.displayStylesFull(website.id, MAX_DISPLAY_STYLES)).find((s) => s.name === changes.name);
      if (same && same.uuid !== style && same.name !== style) throw invalid(`display_style[name]: the website has a style named ${changes.name} already`, 'name');
      set.name = changes.name;
    }
    if (changes.layout !== undefined) set.layout = changes.layout;
    if (changes.crop !== undefined) set.crop = changes.crop ? 1 : 0;
    if (changes.spacing !== undefined) set.spacing = changes.spacing;
    if (changes.captions !== undefined) set.captions = changes.captions ? 1 : 0;
    if (!(await this.repo.updateDisplayStyle(website.id, style, set))) throw notFound(`display style ${style} of website ${urlname}`);
  }

  /** A new display style of a website the actor may change: a name (unique on the website) and a layout are required. */
  async createDisplayStyle(actor: Actor, urlname: string, input: DisplayStyleInput): Promise<{ uuid: string }> {
    const website = await this.websiteFor(actor, urlname);
    if (input.name === undefined) throw missing('display_style[name]');
    if (input.layout === undefined) throw missing('display_style[layout]');
    const existing = await this.repo.displayStylesFull(website.id, MAX_DISPLAY_STYLES);
    if (existing.length >= MAX_DISPLAY_STYLES) throw invalid(`a website has at most ${MAX_DISPLAY_STYLES} display styles`);
    if (existing.some((s) => s.name === input.name)) throw invalid(`display_style[name]: the website has a style named ${input.name} already`, 'name');
    const uuid = await this.repo.createDisplayStyle(website.id, { name: input.name, layout: input.layout, crop: input.crop ? 1 : 0, spacing: input.spacing ?? 'normal', captions: input.captions ? 1 : 0 });
    return { uuid };
  }

  /** Every display style of a website the actor may see, with what each chooses (at most MAX_DISPLAY_STYLES). */
  async displayStylesOf(actor: Actor, urlname: string): Promise<DisplayStyleRow[]> {
    const website = await this.websiteFor(actor, urlname);
    return this.repo.displayStylesFull(website.id, MAX_DISPLAY_STYLES);
  }

  /** A page of the display styles of a website the user may see, and how many in all. */
  async displayStyles(user: Pick<UserRow, 'id'>, urlname: string, window: PageWindow): Promise<{ total: number; styles: DisplayStyleListRow[] }> {
    const website = await this.access.website(user, urlname);
    const total = await this.repo.countDisplayStyles(website.id);
    const styles = await this.repo.displayStyles(website.id, window.limit, window.offset);
    return { total, styles };
  }

  // ---- brand and pages (an API extension, docs/website.md)

  /** The website an actor may change: a user's own or shared one (404 otherwise), any for the operator. */
  private async websiteFor(actor: Actor, urlname: string): Promise<WebsiteRow> {
    if ('user' in actor) return this.access.website(actor.user, urlname);
    const website = await this.repo.fullByUrlname(urlname);
    if (!website) throw notFound(`website ${urlname}`);
    return website;
  }

  async details(actor: Actor, urlname: string): Promise<WebsiteDetails> {
    return this.detailsOf(await this.websiteFor(actor, urlname));
  }

  private async detailsOf(website: WebsiteRow): Promise<WebsiteDetails> {
    const [refs, pages, home] = await Promise.all([this.repo.brandRefs(website), this.repo.pages(website.id), this.repo.homeRefs(website.id)]);
    return { website, logoUuid: refs.logo, faviconUuid: refs.favicon, rootGalleryUuid: refs.root, pages, hero: home.hero, featured: home.featured };
  }

  /**
   * Changes the brand: every value is checked before anything is written. A logo or favicon is
   * an image of the actor's media libraries (the operator: of the website owner's), by UUID.
   */
  async setBrand(actor: Actor, urlname: string, input: BrandInput): Promise<WebsiteDetails> {
    const website = await this.websiteFor(actor, urlname);
    const owner = 'user' in actor ? actor.user : { id: website.owner_id };
    const values: BrandColumns = {};
    if (input.title !== undefined) values.title = input.title;
    if (input.tagline !== undefined) values.tagline = input.tagline;
    for (const [key, column, name] of [['logo', 'logo_media_id', 'website[logo]'], ['favicon', 'favicon_media_id', 'website[favicon]']] as const) {
      const uuid = input[key];
      if (uuid === undefined) continue;
      if (uuid === null) {
        values[column] = null;
        continue;
      }
      const id = await this.access.requireOne(owner, 'media', uuid, { invalid: name, field: key });
      const mime = await this.repo.mediaMime(id);
      // An image or a video's poster would do for a picture, but a logo is a picture made for it.
      if (!mime?.startsWith('image/')) throw invalid(`${name}: media ${uuid} is not an image`, key);
      values[column] = id;
    }
    if (input.colorScheme !== undefined) values.color_scheme = input.colorScheme;
    if (input.accentColor !== undefined) values.accent_color = input.accentColor;
    if (input.theme !== undefined) values.theme = input.theme;
    if (input.credit !== undefined) values.credit = input.credit;
    if (input.copyright !== undefined) values.copyright = input.copyright;
    if (input.contactEmail !== undefined) values.contact_email = input.contactEmail;
    if (input.socialLinks !== undefined) values.social_links = socialLinksColumn(input.socialLinks);
    if (input.hostname !== undefined) Object.assign(values, await this.hostnameChange(actor, website, input.hostname));
    if (input.indexing !== undefined) values.indexing = input.indexing ? 1 : 0;
    if (input.heroFit !== undefined) values.hero_fit = input.heroFit;
    if (input.heroHeadline !== undefined) values.hero_headline = input.heroHeadline;
    if (input.heroTagline !== undefined) values.hero_tagline = input.heroTagline;
    const lists = await this.homeLists(owner, website, input);
    if (Object.keys(values).length > 0 || lists.hero || lists.featured) await this.repo.updateBrand(website.id, values, lists);
    if (values.hostname) this.tookEffect(values.hostname);
    return this.detailsOf((await this.repo.fullByUrlname(website.urlname))!);
  }

  /**
   * The home page's lists as ids, checked: hero photos are images of the owner's libraries,
   * featured galleries the website's own; anything else is a 422 naming the field (a foreign
   * one reads as unknown, as a logo's does).
   */
  private async homeLists(owner: Pick<UserRow, 'id'>, website: WebsiteRow, input: BrandInput): Promise<{ hero?: number[]; featured?: number[] }> {
    const out: { hero?: number[]; featured?: number[] } = {};
    if (input.hero !== undefined) {
      const ids = await this.access.require(owner, 'media', input.hero, { invalid: 'website[hero]', field: 'hero' });
      const mimes = await this.repo.mediaMimes(ids);
      const i = ids.findIndex((id) => !mimes.get(id)?.startsWith('image/'));
      if (i >= 0) throw invalid(`website[hero]: media ${input.hero[i]} is not an image`, 'hero');
      out.hero = ids;
    }
    if (input.featured !== undefined) {
      const ids = await this.access.require(owner, 'gallery', input.featured, { invalid: 'website[featured]', field: 'featured' });
      const own = await this.repo.galleriesOf(website.id, ids);
      const i = ids.findIndex((id) => !own.has(id));
      if (i >= 0) throw invalid(`website[featured]: gallery ${input.featured[i]} is not a gallery of website ${website.urlname}`, 'featured');
      out.featured = ids;
    }
    return out;
  }

  async page(actor: Actor, urlname: string, slug: string): Promise<{ page: WebsitePageRow; website: WebsiteRow }> {
    const website = await this.websiteFor(actor, urlname);
    const page = SLUG.test(slug) ? await this.repo.page(website.id, slug) : undefined;
    if (!page) throw notFound(`page ${slug}`);
    return { page, website };
  }

  /** Creates or changes a page (a new one needs its title); at most MAX_PAGES per website. */
  async putPage(actor: Actor, urlname: string, slug: string, input: PageInput): Promise<{ page: WebsitePageRow; website: WebsiteRow; created: boolean }> {
    const website = await this.websiteFor(actor, urlname);
    if (!SLUG.test(slug)) throw invalid('the page name must be lower-case letters, digits and inner dashes (at most 64)', 'slug');
    const existing = await this.repo.page(website.id, slug);
    const title = input.title ?? existing?.title;
    if (title === undefined) throw missing('page[title]', 'title');
    const result = await this.repo.putPage(website.id, slug, { title, body: input.body ?? existing?.body ?? '', position: input.position ?? existing?.position ?? 0 }, MAX_PAGES);
    if (result === 'full') throw invalid(`a website has at most ${MAX_PAGES} pages`);
    return { page: (await this.repo.page(website.id, slug))!, website, created: result === 'created' };
  }

  async deletePage(actor: Actor, urlname: string, slug: string): Promise<void> {
    const website = await this.websiteFor(actor, urlname);
    if (!SLUG.test(slug) || !(await this.repo.deletePage(website.id, slug))) throw notFound(`page ${slug}`);
  }
}

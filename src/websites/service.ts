// Websites: the ones a user may see, creating one (with its root gallery and
// display styles, operations.md), sharing one with another user, and its
// display styles (spec 4.2, 4.4).
import type { Access } from '../access/access.js';
import { conflict, notFound } from '../http/errors.js';
import type { UserRow } from '../store/schema.js';
import type { DisplayStyleListRow, WebsiteListRow, WebsitesRepository } from './repository.js';

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

export interface PageWindow {
  limit: number;
  offset: number;
}

export class WebsitesService {
  constructor(
    private readonly repo: WebsitesRepository,
    private readonly access: Access,
  ) {}

  /** The websites the user owns or was given, a page of them, and how many in all. */
  async list(user: Pick<UserRow, 'id'>, window: PageWindow): Promise<{ total: number; websites: WebsiteListRow[] }> {
    const total = await this.repo.countAccessible(user.id);
    const websites = await this.repo.accessible(user.id, window.limit, window.offset);
    return { total, websites };
  }

  /** A website of `owner`; a taken urlname is a conflict. */
  async create(owner: Pick<UserRow, 'id'>, input: NewWebsite): Promise<{ uuid: string; urlname: string; rootGalleryUuid: string }> {
    if (await this.repo.byUrlname(input.urlname)) throw conflict(`urlname ${input.urlname} is taken`);
    return this.repo.create(
      { ownerId: owner.id, urlname: input.urlname, title: input.title ?? input.urlname, hostname: input.hostname ?? null },
      DEFAULT_DISPLAY_STYLES,
    );
  }

  /** Gives `member` the use of the website as if it were theirs (galleries, medias on it). */
  async share(urlname: string, member: Pick<UserRow, 'id'>): Promise<{ uuid: string; urlname: string }> {
    const website = await this.repo.byUrlname(urlname);
    if (!website) throw notFound(`website ${urlname}`);
    await this.repo.addMember(website.id, member.id);
    return { uuid: website.uuid, urlname: website.urlname };
  }

  /**
   * What a display style chooses besides its layout (an extension, set by the admin command
   * `display-style set`; docs/display-styles.md): crop a grid's photos to square cells, the
   * spacing between photos, captions under them.
   */
  async setDisplayStyle(urlname: string, style: string, changes: { crop?: boolean; spacing?: 'none' | 'tight' | 'normal' | 'wide'; captions?: boolean }): Promise<void> {
    const website = await this.repo.byUrlname(urlname);
    if (!website) throw notFound(`website ${urlname}`);
    const set: { crop?: number; spacing?: string; captions?: number } = {};
    if (changes.crop !== undefined) set.crop = changes.crop ? 1 : 0;
    if (changes.spacing !== undefined) set.spacing = changes.spacing;
    if (changes.captions !== undefined) set.captions = changes.captions ? 1 : 0;
    if (!(await this.repo.updateDisplayStyle(website.id, style, set))) throw notFound(`display style ${style} of website ${urlname}`);
  }

  /** A page of the display styles of a website the user may see, and how many in all. */
  async displayStyles(user: Pick<UserRow, 'id'>, urlname: string, window: PageWindow): Promise<{ total: number; styles: DisplayStyleListRow[] }> {
    const website = await this.access.website(user, urlname);
    const total = await this.repo.countDisplayStyles(website.id);
    const styles = await this.repo.displayStyles(website.id, window.limit, window.offset);
    return { total, styles };
  }
}

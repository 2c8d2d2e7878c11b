// Every query of the visitors' sign-in: the websites a visitor's request names,
// whether an address is on a website's access lists, and the one-time links.
import type { Db } from '../../database/db.js';
import type { SiteWebsite } from '../repository.js';

/** What sign-in needs of a website: the website as the pages know it. */
export type SiteRow = SiteWebsite;

export interface NewLink {
  tokenHash: string;
  websiteId: number;
  email: string;
  back: string;
  createdAt: string;
  expiresAt: string;
}

/** A link just used: the address it proves and where it leads. */
export interface UsedLink {
  email: string;
  back: string;
}

/** Why a link opened nothing. */
export type DeadLink = 'unknown' | 'used' | 'expired';

const SITE_COLUMNS = ['websites.id', 'websites.uuid', 'websites.urlname', 'websites.title', 'websites.hostname', 'websites.owner_id'] as const;

export class VisitorsRepository {
  constructor(private readonly db: Db) {}

  siteByUrlname(urlname: string): Promise<SiteRow | undefined> {
    return this.db.selectFrom('websites').select(SITE_COLUMNS).where('urlname', '=', urlname).executeTakeFirst();
  }

  siteByUuid(uuid: string): Promise<SiteRow | undefined> {
    return this.db.selectFrom('websites').select(SITE_COLUMNS).where('uuid', '=', uuid).executeTakeFirst();
  }

  /** Whether a client entry of any of the website's galleries names the (lower-cased, as stored) address. */
  async isListed(websiteId: number, email: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('gallery_acl')
      .innerJoin('galleries', 'galleries.id', 'gallery_acl.gallery_id')
      .select('gallery_acl.gallery_id')
      .where('galleries.website_id', '=', websiteId)
      .where('gallery_acl.email', '=', email)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async insertLink(link: NewLink): Promise<void> {
    await this.db
      .insertInto('visitor_links')
      .values({
        token_hash: link.tokenHash,
        website_id: link.websiteId,
        email: link.email,
        back: link.back,
        created_at: link.createdAt,
        expires_at: link.expiresAt,
        used_at: null,
      })
      .execute();
  }

  /**
   * Marks the link used. A token that matches no link of the website is
   * answered by a read alone: an UPDATE takes SQLite's write lock (and
   * waits for it) even when it changes nothing, which a stream of made-up
   * tokens must not cost. A live link is then marked in one statement: of two
   * simultaneous uses only the one matching `used_at IS NULL` wins (UPDATE …
   * RETURNING on both databases). A link opens only the website it was made for.
   */
  async useLink(websiteId: number, tokenHash: string, now: string): Promise<UsedLink | DeadLink> {
    const link = await this.db
      .selectFrom('visitor_links')
      .select(['used_at', 'expires_at'])
      .where('token_hash', '=', tokenHash)
      .where('website_id', '=', websiteId)
      .executeTakeFirst();
    if (!link) return 'unknown';
    if (link.used_at !== null) return 'used';
    if (!(link.expires_at > now)) return 'expired';
    const used = await this.db
      .updateTable('visitor_links')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('website_id', '=', websiteId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['email', 'back'])
      .executeTakeFirst();
    // Nothing marked: another request used it between the read and here.
    return used ? { email: used.email, back: used.back } : 'used';
  }

  /** Deletes every link (used or not) of an address on the websites of an owner; how many. */
  async deleteLinksOf(ownerId: number, email: string): Promise<number> {
    const res = await this.db
      .deleteFrom('visitor_links')
      .where('email', '=', email)
      .where('website_id', 'in', this.db.selectFrom('websites').select('id').where('owner_id', '=', ownerId))
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** Deletes the links that expired before `before`; the number deleted. */
  async purgeLinks(before: string): Promise<number> {
    const res = await this.db.deleteFrom('visitor_links').where('expires_at', '<', before).executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}

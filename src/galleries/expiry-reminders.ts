// The reminder a gallery's clients get a week before it closes (docs/website.md "Expiry"): a part
// of the cleanup sweep (shared: one node, under the sweep's lock), each gallery claimed before
// its mail goes, so that every client is reminded once per gallery and expiry.
import { DEFAULT_ACL_EMAIL } from './acl.js';
import type { GalleriesRepository } from './repository.js';
import { homeUrl } from '../websites/home-url.js';

/** How long before its expiry a gallery's clients are reminded. */
export const REMINDER_BEFORE_MS = 7 * 86_400_000;
/** Galleries one run reminds at most (the next run takes the rest). */
const PER_RUN = 200;

export interface ExpiryReminder {
  /** The website's id: the mail's brand. */
  websiteId: number;
  to: string;
  siteTitle: string;
  galleryName: string;
  url: string;
  expires: Date;
  contact: string | null;
}

export class ExpiryReminders {
  constructor(
    private readonly repo: GalleriesRepository,
    private readonly publicUrl: string,
    /** Starts a mail (once its brand is read); never throws (the mailer logs its failures). */
    private readonly send: (mail: ExpiryReminder) => Promise<void>,
  ) {}

  /** Reminds the clients of every gallery closing within a week of `now`; the number of mails started. */
  async run(now: Date): Promise<number> {
    const due = await this.repo.dueExpiryReminders(now.toISOString(), new Date(now.getTime() + REMINDER_BEFORE_MS).toISOString(), PER_RUN);
    if (due.length === 0) return 0;
    const acls = await this.repo.acls(due.map((g) => g.id));
    let sent = 0;
    for (const g of due) {
      // Claimed first: at most once, even when a mail fails or two nodes run at once.
      if (!(await this.repo.claimExpiryReminder(g.id, g.expires_at!))) continue;
      const home = homeUrl(this.publicUrl, g);
      const url = g.full_url_path === '' ? `${home}/` : `${home}/-/${g.full_url_path}`;
      // The gallery's clients: every address on its access list that may open it.
      for (const e of acls.get(g.id) ?? []) {
        if (e.email === DEFAULT_ACL_EMAIL || !e.read) continue;
        await this.send({ websiteId: g.website_id, to: e.email, siteTitle: g.title || g.urlname, galleryName: g.name, url, expires: new Date(g.expires_at!), contact: g.contact_email });
        sent++;
      }
    }
    return sent;
  }
}

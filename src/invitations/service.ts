// Invitations (an API extension): the photographer mails a client a sign-in link to one gallery with a
// message of their own, adding the client's access-list entry when missing. The link is the website's
// visitor sign-in link, longer lived, reached through ports the composition root wires: no feature
// imports the website (docs/delivery.md, "Invitations"; docs/architecture.md, "Where a feature's
// rules stop").
import { bracketNames, flag, text, type InputOf } from '../core/fields.js';
import type { ActivityService } from '../activity/service.js';
import type { ClientRights, GalleryClients } from '../galleries/clients.js';
import { clientEmail } from '../galleries/acl.js';
import { ApiError, invalid, missing } from '../core/errors.js';
import type { InvitationMailContent, MailBrand } from '../mail/messages.js';
import type { MailOutcome } from '../mail/mailer.js';
import type { Delivery, InvitationDeliveriesRepository } from './repository.js';
import type { UserRow } from '../database/schema.js';

export const MAX_MESSAGE_LENGTH = 2000;
export const DEFAULT_INVITATION_TTL_SECONDS = 7 * 24 * 3600;
/** Invitations one owner may send per hour by default (INVITATIONS_PER_HOUR): a photographer's day, not a spam cannon. */
export const DEFAULT_INVITATIONS_PER_HOUR = 100;
/** The counters of the limiter store: per owner and hour, per recipient and day (every owner together), per day for the service. */
export const invitationLimits = (perHour: number, perRecipientPerDay: number, perDay: number) => ({
  owner: { keyPrefix: 'invitations-owner', points: perHour, durationSeconds: 3600 },
  recipient: { keyPrefix: 'invitations-recipient', points: perRecipientPerDay, durationSeconds: 86_400 },
  service: { keyPrefix: 'invitations-service', points: perDay, durationSeconds: 86_400 },
});

/** Makes the sign-in link of an invitation (the website's VisitorLinks). */
export interface InvitationLinks {
  /** A link to the gallery at `fullUrlPath` of the website, for `email`, valid `ttlSeconds`. */
  invitation(websiteUuid: string, email: string, fullUrlPath: string, ttlSeconds: number): Promise<{ url: string; expiresAt: Date; siteTitle: string }>;
}

/** What the invitation mail says (src/mail/messages.tsx writes it). */
export type InvitationMail = InvitationMailContent;

/** A counter (a Limiter of the limiter store, made by the composition root). */
export interface InvitationThrottle {
  take(key: string): Promise<{ ok: true; left?: unknown } | { ok: false; retryAfterSeconds: number }>;
  giveBack(key: string): Promise<void>;
}

/** The three counters an invitation takes from (invitationLimits). */
export interface InvitationThrottles {
  owner: InvitationThrottle;
  recipient: InvitationThrottle;
  service: InvitationThrottle;
}

/** Why each counter refuses. */
const REFUSALS: Record<keyof InvitationThrottles, (minutes: number) => string> = {
  owner: (m) => `too many invitations this hour: try again in ${m} min`,
  recipient: (m) => `this address received as many invitations as it may today: try again in ${m} min`,
  service: (m) => `the service sent as many invitations as it may today: try again in ${m} min`,
};

/** Sends the mail (the visitors' mailer): starts sending, never throws; the promise (never rejected) is its outcome. */
export type SendInvitation = (mail: InvitationMail) => Promise<MailOutcome>;

/** An invitation as every face sends it (the API as invitation[...]): the service checks the address and the message. */
export const INVITATION_FIELDS = {
  email: text(),
  message: text(),
  comp: flag({ param: 'comp_download' }),
  hires: flag({ param: 'hires_download' }),
};
export type InvitationInput = InputOf<typeof INVITATION_FIELDS>;
export const INVITATION_API = bracketNames('invitation', INVITATION_FIELDS);

export interface Invitation {
  email: string;
  galleryUuid: string;
  /** Whether the access-list entry was made now (false: it existed, and was left as it was). */
  entryCreated: boolean;
  expiresAt: Date;
  /** The sign-in link, for the studio to show when no mail server is set (never in an API reply: the client's secret). */
  link: string;
  /** Whether it went to a mail server (false: no SMTP_URL; the studio shows the link). */
  mailed: boolean;
}

export class InvitationsService {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      clients: Pick<GalleryClients, 'gallery' | 'ensure'>;
      links: InvitationLinks;
      send: SendInvitation;
      /** False without SMTP_URL: the delivery state says "not mailed" at once. */
      mails: boolean;
      /** The website's brand for the mail (src/site/mail-brand.ts). */
      brand: (websiteUuid: string) => Promise<MailBrand | undefined>;
      /** What became of each mail (migration 038). */
      deliveries: Pick<InvitationDeliveriesRepository, 'queue' | 'settle' | 'latest'>;
      /** A delivery state that could not be written (the mail is not affected). */
      onError: (err: unknown) => void;
      activity: Pick<ActivityService, 'record'>;
      ttlSeconds: number;
      /** Per owner, per recipient, per day; none on the admin command line (the operator is trusted). */
      limiters?: InvitationThrottles;
      /** Whether an operator stopped the user's mail (`admin user mail --off`); not asked on the admin command line. */
      mailStopped?: (userId: number) => Promise<boolean>;
    },
  ) {}

  /**
   * Invites `email` to the gallery: its access-list entry (read, and the downloads asked for)
   * when it has none, a sign-in link to the gallery, the mail. 404 for a gallery the user may not
   * manage; 422 for a bad address or message; 403 when an operator stopped the user's mail; 429
   * past the owner's invitations of the hour (INVITATIONS_PER_HOUR), the address's of the day
   * (INVITATIONS_PER_RECIPIENT_PER_DAY) or the service's of the day (INVITATIONS_PER_DAY).
   */
  async invite(user: Pick<UserRow, 'id'>, galleryUuid: string, input: InvitationInput): Promise<Invitation> {
    // What the user may not manage is a 404 whatever the rest of the request.
    const gallery = await this.deps.clients.gallery(user, galleryUuid);
    if (input.email === undefined || input.email.trim() === '') throw missing(INVITATION_API('email'), 'email');
    const email = clientEmail(input.email);
    if (!email) throw invalid(`${INVITATION_API('email')} must be an e-mail address`, 'email');
    const message = messageOf(input.message);
    const rights: ClientRights = { compDownload: input.comp ?? false, hiresDownload: input.hires ?? false };
    if (this.deps.mailStopped && (await this.deps.mailStopped(user.id))) throw new ApiError('forbidden', "the operator stopped this account's mail: invitations are not sent; ask the operator of the service");
    if (this.deps.limiters) await take(this.deps.limiters, { owner: String(user.id), recipient: email, service: 'all' });
    const created = await this.deps.clients.ensure(gallery, email, rights);
    const link = await this.deps.links.invitation(gallery.websiteUuid, email, gallery.fullUrlPath, this.deps.ttlSeconds);
    const brand = await this.deps.brand(gallery.websiteUuid);
    const now = new Date().toISOString();
    const id = await this.deps.deliveries.queue(gallery.id, email, this.deps.mails ? 'queued' : 'not_mailed', now);
    const outcome = this.deps.send({ to: email, siteTitle: link.siteTitle, galleryName: gallery.name, url: link.url, days: Math.max(1, Math.round(this.deps.ttlSeconds / 86_400)), message, brand });
    // Recorded when the server has answered; the reply does not wait for it.
    const settled = outcome
      .then((o) => (o.state === 'not_mailed' ? undefined : this.deps.deliveries.settle(id, o.state, o.state === 'failed' ? o.code : null, o.state === 'sent' ? o.at.toISOString() : new Date().toISOString())))
      .catch(this.deps.onError);
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
    this.deps.activity.record({ gallery: gallery.id, client: { email, verified: false }, kind: 'invited' });
    return { email, galleryUuid: gallery.uuid, entryCreated: created, expiresAt: link.expiresAt, link: link.url, mailed: this.deps.mails };
  }

  /** Resolves once every delivery state being written is written (before the database closes). */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /** Each invited client's latest mail to the gallery (the studio's access list); 404 for a gallery the user may not manage. */
  async deliveries(user: Pick<UserRow, 'id'>, galleryUuid: string): Promise<Map<string, Delivery>> {
    const gallery = await this.deps.clients.gallery(user, galleryUuid);
    return this.deps.deliveries.latest(gallery.id);
  }
}

/**
 * Takes one from each counter at once; when one refuses, what the others took is given back
 * (nothing was sent) and the refusal names the counter, with the longest wait.
 */
async function take(limiters: InvitationThrottles, keys: Record<keyof InvitationThrottles, string>): Promise<void> {
  const names = Object.keys(keys) as Array<keyof InvitationThrottles>;
  const taken = await Promise.all(names.map((n) => limiters[n].take(keys[n])));
  let worst: { name: keyof InvitationThrottles; seconds: number } | undefined;
  taken.forEach((t, i) => {
    if (!t.ok && (!worst || t.retryAfterSeconds > worst.seconds)) worst = { name: names[i], seconds: t.retryAfterSeconds };
  });
  if (!worst) return;
  await Promise.all(names.map((n, i) => (taken[i].ok && taken[i].left !== undefined ? limiters[n].giveBack(keys[n]) : undefined)));
  throw new ApiError('rate_limited', REFUSALS[worst.name](Math.ceil(worst.seconds / 60)), { retryAfter: worst.seconds });
}

/** The message as plain text: line breaks kept, other control characters dropped, bounded. */
function messageOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const text = raw.replace(/\r\n?/g, '\n').replace(/[\x00-\x09\x0b-\x1f\x7f]/g, '').trim();
  if (text.length > MAX_MESSAGE_LENGTH) throw invalid(`${INVITATION_API('message')} may hold at most ${MAX_MESSAGE_LENGTH} characters`, 'message');
  return text || undefined;
}

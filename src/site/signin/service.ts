// Visitors' e-mail sign-in (docs/visitors.md): a visitor asks for a link at a
// website, the link comes by mail, and opening it once proves the address
// (their pass then carries it; access.ts compares it with the access lists).
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { isUuid } from '../../core/uuid.js';
import type { Config } from '../../config.js';
import { ApiError } from '../../core/errors.js';
import { MemoryCache } from '../../ops/cache.js';
import { backUnder, canonicalAddress, type SiteAddress } from '../address.js';
import { galleryHref } from '../service.js';
import type { Mailer } from '../../mail/mailer.js';
import type { MailBrand } from '../../mail/shell.js';
import type { DeadLink, SiteRow, UsedLink, VisitorsRepository } from './repository.js';
import type { LinkThrottle } from '../limits/throttle.js';

export const MAX_EMAIL_LENGTH = 254;
const EMAIL = /^[^\s@"\\<>,;]+@[^\s@"\\<>,;]+\.[^\s@"\\<>,;]+$/;
/** 256 bits, base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** Used and expired links stay this long (to tell "already used" from "unknown"), then the sweep deletes them. */
export const LINK_RETENTION_SECONDS = 24 * 3600;
export const DEFAULT_LINK_TTL_SECONDS = 1800;
/**
 * Tokens that matched no link stay known as such this long, at most this many (per process): asking
 * again costs no query. No link is ever made with a token someone already asked for (256 random
 * bits), so remembering a miss is never wrong, only bounded to keep memory small.
 */
const UNKNOWN_TOKEN_MS = 60_000;
const UNKNOWN_TOKEN_ENTRIES = 10_000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');

/** The address lower-cased, when it is one. */
export function normaliseEmail(raw: string | undefined): string | undefined {
  const email = (raw ?? '').trim().toLowerCase();
  return email.length <= MAX_EMAIL_LENGTH && EMAIL.test(email) ? email : undefined;
}

export interface CreatedLink {
  url: string;
  expiresAt: Date;
}

/** The links themselves: made, used once, purged. Needs neither mail nor HTTP (the admin command line uses it). */
export class VisitorLinks {
  /** `<website id>:<token hash>` of tokens that matched nothing lately. */
  private readonly unknown = new MemoryCache<string, true>({ entries: UNKNOWN_TOKEN_ENTRIES, ttlMs: UNKNOWN_TOKEN_MS });

  constructor(
    private readonly repo: VisitorsRepository,
    /** Read at each use: PUBLIC_URL may be settled after start (a port chosen by the system). */
    private readonly config: Partial<Pick<Config, 'publicUrl' | 'visitors'>>,
  ) {}

  get ttlSeconds(): number {
    return this.config.visitors?.linkTtlSeconds ?? DEFAULT_LINK_TTL_SECONDS;
  }

  private get publicUrl(): string {
    return this.config.publicUrl ?? 'http://localhost:8080';
  }

  /** A website by UUID or urlname. */
  async site(ref: string): Promise<SiteRow | undefined> {
    const r = ref.trim();
    return isUuid(r) ? this.repo.siteByUuid(r.toLowerCase()) : this.repo.siteByUrlname(r);
  }

  /** Whether a client entry of one of the website's access lists names the address. */
  isListed(site: SiteRow, email: string): Promise<boolean> {
    return this.repo.isListed(site.id, email);
  }

  canonical(site: SiteRow): SiteAddress {
    return canonicalAddress(this.publicUrl, site);
  }

  /** A new link for a checked address and return path. */
  async create(at: SiteAddress, email: string, back: string, now = new Date(), ttlSeconds = this.ttlSeconds): Promise<CreatedLink> {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    await this.repo.insertLink({
      tokenHash: hashToken(token),
      websiteId: at.website.id,
      email,
      back,
      createdAt: now.toISOString(),
      expiresAt: expiresAt.toISOString(),
    });
    return { url: `${at.home}/_signin/${token}`, expiresAt };
  }

  /** Checks the operator's input, then makes a link at the website's announced address. */
  async createFor(siteRef: string, rawEmail: string, rawBack?: string): Promise<CreatedLink> {
    const site = await this.site(siteRef);
    if (!site) throw new ApiError('not_found', `no website ${siteRef}`);
    const email = normaliseEmail(rawEmail);
    if (!email) throw new ApiError('invalid_parameter', `not an e-mail address: ${rawEmail}`);
    const at = this.canonical(site);
    const back = backUnder(at.homePath, rawBack);
    if (back === undefined) throw new ApiError('invalid_parameter', `the return path must be a path under ${at.homePath || '/'}`);
    return this.create(at, email, back);
  }

  /**
   * An invitation's link (docs/delivery.md "Invitations"): the same one-time link, to a gallery of
   * the website at its announced address, valid `ttlSeconds`.
   */
  async invitation(websiteUuid: string, email: string, fullUrlPath: string, ttlSeconds: number): Promise<CreatedLink & { siteTitle: string }> {
    const site = await this.repo.siteByUuid(websiteUuid);
    if (!site) throw new ApiError('not_found', 'website not found');
    const at = this.canonical(site);
    const link = await this.create(at, email, galleryHref(at.homePath, fullUrlPath), new Date(), ttlSeconds);
    return { ...link, siteTitle: site.title };
  }

  /** Deletes every sign-in link (pending, used or expired) of an address on the owner's websites (a client's data on request); how many. */
  forgetAddress(ownerId: number, email: string): Promise<number> {
    return this.repo.deleteLinksOf(ownerId, email);
  }

  /** Uses the link: once, before it expires, on the website it was made for. */
  async consume(site: SiteRow, token: string, now = new Date()): Promise<UsedLink | DeadLink> {
    if (!TOKEN.test(token)) return 'unknown';
    const hash = hashToken(token);
    const memo = `${site.id}:${hash}`;
    if (this.unknown.get(memo)) return 'unknown';
    const used = await this.repo.useLink(site.id, hash, now.toISOString());
    if (used === 'unknown') this.unknown.set(memo, true);
    return used;
  }

  /** Deletes links dead for a while; how many. */
  purge(now = new Date()): Promise<number> {
    return this.repo.purgeLinks(new Date(now.getTime() - LINK_RETENTION_SECONDS * 1000).toISOString());
  }
}

/** Asking for a link by mail, as a visitor does. */
export class SignInService {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly links: VisitorLinks,
    private readonly mailer: Mailer,
    private readonly throttle: LinkThrottle,
    private readonly log: Logger,
    /** The website's brand in the mail (mail-brand.ts); none: the title alone. */
    private readonly brand?: (site: SiteRow) => Promise<MailBrand>,
  ) {}

  /**
   * Checks the request and counts it, then answers; whether the address is on
   * one of the website's access lists (and then the link and its mail) is
   * settled after the answer. So the answer, its timing and the throttle are
   * the same for any address: addresses cannot be found out by asking.
   */
  async requestLink(at: SiteAddress, rawEmail: string | undefined, rawBack: string | undefined, clientAddress: string, now = new Date()): Promise<void> {
    const email = normaliseEmail(rawEmail);
    if (!email) throw new ApiError('invalid_parameter', 'enter an e-mail address');
    const back = backUnder(at.homePath, rawBack);
    if (back === undefined) throw new ApiError('invalid_parameter', 'the return address is not on this website');
    const taken = await this.throttle.take(at.website.uuid, email, clientAddress);
    if (!taken.ok) {
      throw new ApiError('rate_limited', `too many sign-in requests: try again in ${Math.ceil(taken.retryAfterSeconds / 60)} min`, { retryAfter: taken.retryAfterSeconds });
    }
    const task = this.sendIfListed(at, email, back, now).catch((err: unknown) => this.log.error({ err, website: at.website.uuid }, 'visitor sign-in link could not be made'));
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
  }

  /** Resolves once every request taken so far has made and sent its link (or found nothing to send). */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
    await this.mailer.idle();
  }

  private async sendIfListed(at: SiteAddress, email: string, back: string, now: Date): Promise<void> {
    if (!(await this.links.isListed(at.website, email))) {
      this.log.debug({ website: at.website.uuid }, 'sign-in link asked for an address on no access list: nothing sent');
      return;
    }
    const link = await this.links.create(at, email, back, now);
    const brand = await this.brand?.(at.website);
    this.mailer.sendSignIn({ to: email, siteTitle: at.website.title, url: link.url, minutes: Math.max(1, Math.round(this.links.ttlSeconds / 60)), brand });
  }
}

// Share links per recipient (issue 34; docs/integrations.md "Share links"): a bearer link to one
// gallery or one lightbox for one recipient, under the same rules whatever it opens. The token is 256 random bits; only its SHA-256 is stored, so the URL
// is shown once, at creation (as API secrets are). Every visit reads the link from the database,
// so a revocation holds at once on every node; nothing about a link is cached in a process.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Access } from '../access/access.js';
import { ApiError, notFound } from '../core/errors.js';
import type { ShareLinkRow, UserRow } from '../database/schema.js';
import { hashPassword, verifyPassword } from '../users/passwords.js';
import { DEFAULT_SHARE_DAYS, type ShareDownload, type ShareLinkInput } from './fields.js';
import type { ShareLinkPlace, ShareLinksRepository, ShareTargetRef } from './repository.js';

type User = Pick<UserRow, 'id'>;

/** What a link opens. */
export const SHARE_TARGETS = ['gallery', 'lightbox'] as const;
export type ShareTargetKind = (typeof SHARE_TARGETS)[number];

/** The form of a token in an address: 43 base64url characters. */
export const SHARE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface ShareLink {
  uuid: string;
  /** What it opens: one of the two is set. */
  galleryUuid: string | null;
  lightboxUuid: string | null;
  recipient: string | null;
  expiresAt: string | null;
  maxViews: number | null;
  views: number;
  passwordProtected: boolean;
  download: ShareDownload;
  /** Files downloaded through it. */
  downloads: number;
  createdAt: string;
  revokedAt: string | null;
}

/** What a visitor's share link grants, once checked live. */
export interface ShareGrant {
  link: string;
  /** The gallery it opens (with those below it), or the lightbox: one of the two is set. */
  gallery: string | null;
  lightbox: string | null;
  download: ShareDownload;
  recipient: string | null;
}

export type ShareState = 'live' | 'revoked' | 'expired' | 'used-up';

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function linkOf(r: ShareLinkRow, target: { kind: ShareTargetKind; uuid: string }): ShareLink {
  return {
    uuid: r.uuid,
    galleryUuid: target.kind === 'gallery' ? target.uuid : null,
    lightboxUuid: target.kind === 'lightbox' ? target.uuid : null,
    recipient: r.recipient,
    expiresAt: r.expires_at,
    maxViews: r.max_views,
    views: r.views,
    passwordProtected: r.password_hash !== null,
    download: r.download as ShareDownload,
    downloads: r.downloads,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  };
}

/** Whether a link may still start a visit (`visit`) or keep one going (views are not counted again). */
export function stateOf(r: Pick<ShareLinkRow, 'revoked_at' | 'expires_at' | 'max_views' | 'views'>, now: number, visit: boolean): ShareState {
  if (r.revoked_at !== null) return 'revoked';
  if (r.expires_at !== null && Date.parse(r.expires_at) <= now) return 'expired';
  if (visit && r.max_views !== null && r.views >= r.max_views) return 'used-up';
  return 'live';
}

export class ShareLinksService {
  constructor(
    private readonly repo: ShareLinksRepository,
    private readonly access: Access,
    /** PUBLIC_URL, read at each use. */
    private readonly publicUrl: () => string,
  ) {}

  /** The user's gallery or lightbox; a 404 otherwise (another's is never told apart from none). */
  async targetOf(user: User, kind: ShareTargetKind, uuid: string): Promise<ShareTargetRef> {
    return { kind, id: await this.access.requireOne(user, kind, uuid, { notFound: kind }) };
  }

  /** A new link for a gallery or lightbox of the user: the link and its URL, which is shown only now. */
  async create(user: User, kind: ShareTargetKind, uuid: string, input: ShareLinkInput, now = Date.now()): Promise<{ link: ShareLink; url: string }> {
    const target = await this.targetOf(user, kind, uuid);
    // A lightbox has no website of its own: its link is shown on one of its owner's.
    const websiteId = kind === 'lightbox' ? await this.repo.lightboxWebsite(user.id, target.id) : null;
    if (websiteId === undefined) throw new ApiError('unprocessable', 'A lightbox is shared on one of your websites: make a website first.');
    const token = randomBytes(32).toString('base64url');
    const expiresAt = input.expires_at === undefined ? new Date(now + DEFAULT_SHARE_DAYS * 86_400_000).toISOString() : input.expires_at;
    const row = await this.repo.create({
      uuid: randomUUID(),
      ownerId: user.id,
      target,
      websiteId,
      tokenHash: tokenHash(token),
      recipient: input.recipient ?? null,
      expiresAt,
      maxViews: input.max_views ?? null,
      passwordHash: input.password ? await hashPassword(input.password) : null,
      download: input.download ?? 'none',
    });
    const placed = (await this.repo.byUuid(row.uuid))!;
    return { link: linkOf(row, { kind, uuid: uuid.toLowerCase() }), url: `${this.publicUrl()}/sites/${placed.urlname}/_share/${token}` };
  }

  /** The studio's screen: the gallery's or lightbox's name and its links. */
  async screen(user: User, kind: ShareTargetKind, uuid: string): Promise<{ name: string; links: ShareLink[] }> {
    const target = await this.targetOf(user, kind, uuid);
    const [name, rows] = await Promise.all([this.repo.targetName(target), this.repo.listOf(target)]);
    return { name, links: rows.map((r) => linkOf(r, { kind, uuid: uuid.toLowerCase() })) };
  }

  async list(user: User, kind: ShareTargetKind, uuid: string): Promise<ShareLink[]> {
    return (await this.repo.listOf(await this.targetOf(user, kind, uuid))).map((r) => linkOf(r, { kind, uuid: uuid.toLowerCase() }));
  }

  /** Revokes at once: the next request of its holder, on any node, is refused. */
  async revoke(user: User, uuid: string): Promise<void> {
    if (!(await this.repo.revoke(user.id, uuid.toLowerCase()))) throw notFound('share link');
  }

  // ---- the website's side

  /** The link a token names on a website, with its state for a new visit; undefined when none. */
  async opening(websiteId: number, token: string, now = Date.now()): Promise<{ row: ShareLinkPlace; state: ShareState } | undefined> {
    if (!SHARE_TOKEN.test(token)) return undefined;
    const row = await this.repo.byTokenHash(tokenHash(token));
    if (!row || row.website_id !== websiteId) return undefined;
    return { row, state: stateOf(row, now, true) };
  }

  /** Counts a visit: false when the link ended (revoked, expired, its views used up) meanwhile. */
  countView(row: ShareLinkPlace, now = Date.now()): Promise<boolean> {
    return this.repo.countView(row.id, new Date(now).toISOString());
  }

  /** argon2id, in constant time. */
  passwordMatches(row: ShareLinkPlace, password: string): Promise<boolean> {
    return row.password_hash === null ? Promise.resolve(true) : verifyPassword(row.password_hash, password);
  }

  /** What a link grants now, read from the database at each request (a revocation holds at once). */
  async grant(linkUuid: string, websiteId: number | undefined, now = Date.now()): Promise<ShareGrant | undefined> {
    const row = await this.repo.byUuid(linkUuid);
    if (!row || (websiteId !== undefined && row.website_id !== websiteId) || stateOf(row, now, false) !== 'live') return undefined;
    return { link: row.uuid, gallery: row.gallery_uuid, lightbox: row.lightbox_uuid, download: row.download as ShareDownload, recipient: row.recipient };
  }

  /** A lightbox link's /files check: the media is one of the lightbox's (read at each request). */
  inLightbox(lightboxUuid: string, mediaId: number): Promise<boolean> {
    return this.repo.inLightbox(lightboxUuid, mediaId);
  }

  /** A file downloaded through a lightbox's link: counted on the link (a lightbox has no gallery activity). */
  countDownload(linkUuid: string): Promise<void> {
    return this.repo.countDownload(linkUuid);
  }
}

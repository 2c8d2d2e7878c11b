// Whether a visitor may see a gallery and what they may download there: the website's access rules
// in one pure function (decide), applied to the chain of galleries from the root down, which one
// loader reads (SiteRepository.chains); a protection applies to all sub-galleries. The pages, the
// sitemap and /files all ask here (VisitorAccess). Rules: docs/website.md, "Access rules"; place:
// docs/architecture.md, "The public website".
import { MemoryCache } from '../ops/cache.js';
import { passOpens, shareClient, type VisitorPass } from './signin/pass.js';
import type { FileUrls } from '../file-storage/file-urls.js';
import { controlsOf, guarded, type DownloadControls } from './delivery/download-controls.js';
import type { ShareGrant } from '../share-links/service.js';
import type { AclRule, LoadedChains, SiteGallery, SiteRepository, StoredFileInfo } from './repository.js';

export type { AclRule } from './repository.js';

export const DEFAULT_ENTRY = 'DEFAULT';
/** The visitor of a share link's signed file addresses: `l.<link uuid>`. */
export const SHARE_VISITOR = 'l.';

/**
 * What a share link's level lets its holder's addresses have, whatever it opens (a gallery or a
 * lightbox): an original only at `originals`, a download at `comps` or more, any image shown.
 */
export function shareLevelAllows(grant: Pick<ShareGrant, 'download'>, info: Pick<StoredFileInfo, 'kind'>, download: boolean): boolean {
  if (info.kind === 'original') return grant.download === 'originals';
  return !download || grant.download !== 'none';
}

/** How long a key found public stays known as such in this process, and how many keys are remembered. */
const PUBLIC_CACHE_MS = 10_000;
const PUBLIC_CACHE_ENTRIES = 10_000;
/**
 * How long a key that could not be fetched unsigned (unknown, an original, not public) stays known
 * as such, and how many: a miss asked again costs no query. Keys are at most 255 characters, so
 * the memory is bounded (a few MiB at worst).
 */
const MISS_CACHE_MS = 10_000;
const MISS_CACHE_ENTRIES = 10_000;

export interface GateGallery {
  uuid: string;
  passwordProtected: boolean;
  /**
   * The stored hash of its password: a pass opens the gallery only for this
   * password (signin/pass.ts, passwordVersion). Absent, no pass opens it (only a
   * decision without a pass, the public check, may leave it out).
   */
  passwordHash?: string | null;
  /** The gallery's access list; empty when it has none. */
  acl: readonly AclRule[];
  /** When it closes to visitors, it and all below it (ISO 8601 UTC); null or absent: never. */
  expiresAt?: string | null;
  /** Its row id and its own download controls (the gallery's alone, not inherited); absent: none. */
  id?: number;
  downloads?: DownloadControls;
}

export type Decision =
  | {
      ok: true;
      compDownload: boolean;
      hiresDownload: boolean;
      /** Not visible to everyone: file addresses must be signed for this visitor. */
      restricted: boolean;
    }
  /** The first protected gallery on the way whose password the visitor has not given. */
  | { ok: false; need: 'password'; gallery: string }
  /** An access list refuses this visitor: proving an address on it may open it. */
  | { ok: false; need: 'signin' }
  /** A gallery on the way is past its expiry: closed to every visitor, whatever their pass. */
  | { ok: false; need: 'closed'; gallery: string };

/** The first gallery of the chain past its expiry at `now` (ms), or undefined. */
export function closedBy(chain: readonly GateGallery[], now: number): GateGallery | undefined {
  return chain.find((g) => g.expiresAt != null && Date.parse(g.expiresAt) <= now);
}

/** `chain`: the root first, the gallery asked for last. */
export function decide(chain: readonly GateGallery[], pass: VisitorPass | undefined, now = Date.now()): Decision {
  // Expiry comes first: a closed gallery asks for no password, it is closed to everyone.
  const closed = closedBy(chain, now);
  if (closed) return { ok: false, need: 'closed', gallery: closed.uuid };
  // A live share link of this gallery or one above it opens it at the link's own download level.
  const share = pass?.share;
  if (share && share.gallery !== null && chain.some((g) => g.uuid === share.gallery)) return { ok: true, compDownload: share.download !== 'none', hiresDownload: share.download === 'originals', restricted: true };
  let comp: boolean | undefined;
  let hires: boolean | undefined;
  let restricted = false;
  for (const g of chain) {
    if (g.passwordProtected) {
      restricted = true;
      if (!g.passwordHash || !passOpens(pass, g.uuid, g.passwordHash)) return { ok: false, need: 'password', gallery: g.uuid };
    }
    if (g.acl.length === 0) continue;
    const fallback = g.acl.find((r) => r.email === DEFAULT_ENTRY);
    if (!fallback || !fallback.read) restricted = true;
    const own = pass?.email ? g.acl.find((r) => r.email === pass.email) : undefined;
    const rule = own ?? fallback;
    if (!rule?.read) return { ok: false, need: 'signin' };
    comp = (comp ?? true) && rule.compDownload;
    hires = (hires ?? true) && rule.hiresDownload;
  }
  return { ok: true, compDownload: comp ?? false, hiresDownload: hires ?? false, restricted };
}

/** Whether a gallery is open to every visitor with no pass (its files may then be public). */
export function isPublic(chain: readonly GateGallery[]): boolean {
  const d = decide(chain, undefined);
  return d.ok && !d.restricted;
}

/**
 * What decides access along a chain, written out: each gallery's UUID, its
 * password's stored hash and its access list. Signed file addresses carry a
 * keyed digest of it (FileUrls.accessStamp), and /files compares it with the
 * chain as it is now: a new password, an access-list entry changed, added or
 * removed, or a gallery moved elsewhere each revoke the addresses given
 * before. `passwordHash` must be given for every protected gallery of the chain.
 */
export function accessState(chain: readonly GateGallery[]): string {
  return JSON.stringify(chain.map((g) => [g.uuid, g.passwordHash ?? null, g.acl.map((r) => [r.email, r.read, r.compDownload, r.hiresDownload])]));
}

/**
 * What a download address of the chain's last gallery is stamped with: its access state, and its
 * controls when it has any, so a new PIN, limit or size revokes the download addresses given
 * before, and an address signed without them (before a PIN was set) does not serve a file.
 */
export function downloadState(gate: readonly GateGallery[]): string {
  const c = gate[gate.length - 1]?.downloads;
  return c && guarded(c) ? `${accessState(gate)}\n${JSON.stringify([c.pin, c.limit, c.size])}` : accessState(gate);
}

/** A gallery's chain as loaded (the root first) and as the decision reads it. */
export interface Chain {
  galleries: SiteGallery[];
  gate: GateGallery[];
}

function chainsOf(loaded: LoadedChains): Map<string, Chain> {
  const out = new Map<string, Chain>();
  for (const [path, galleries] of loaded.chains) out.set(path, { galleries, gate: toGate(galleries, loaded.acls) });
  return out;
}

export function toGate(galleries: readonly SiteGallery[], acls: ReadonlyMap<number, readonly AclRule[]>): GateGallery[] {
  return galleries.map((g) => ({ uuid: g.uuid, passwordProtected: g.password_hash !== null, passwordHash: g.password_hash, acl: acls.get(g.id) ?? [], expiresAt: g.expires_at, id: g.id, downloads: controlsOf(g) }));
}

/** Who may see what, over the one chain loader: for the pages, the sitemap and /files. */
export class VisitorAccess {
  // Apart, so that a flood of misses cannot push the hot public keys out.
  private readonly publicCache = new MemoryCache<string, StoredFileInfo>({ entries: PUBLIC_CACHE_ENTRIES, ttlMs: PUBLIC_CACHE_MS });
  private readonly missCache = new MemoryCache<string, true>({ entries: MISS_CACHE_ENTRIES, ttlMs: MISS_CACHE_MS });

  constructor(
    private readonly repo: SiteRepository,
    /** Checks the access stamps signed file addresses carry. */
    private readonly urls: Pick<FileUrls, 'accessStamp'>,
    /** Share links, read at each request (a revocation holds at once on every node). */
    private readonly shares?: { grant(linkUuid: string, websiteId: number | undefined): Promise<ShareGrant | undefined>; inLightbox(lightboxUuid: string, mediaId: number): Promise<boolean> },
  ) {}

  /** The activity's client of a share link's address (its recipient), when the link is still live. */
  async shareClient(visitor: string): Promise<{ email: string; verified: false; label?: boolean } | undefined> {
    const grant = await this.shareGrant(visitor);
    return grant && shareClient(grant.recipient);
  }

  /** The live link a share link's signed address names (`l.<link uuid>` as its visitor), read from the database. */
  private shareGrant(visitor: string): Promise<ShareGrant | undefined> {
    return this.shares ? this.shares.grant(visitor.slice(SHARE_VISITOR.length), undefined) : Promise.resolve(undefined);
  }

  /**
   * A lightbox link's file (its signed address names the lightbox as `g`): served while the link
   * is live, the media is in the lightbox and the link's level allows it; undefined otherwise.
   */
  private async lightboxFile(grant: ShareGrant, lightbox: string, info: StoredFileInfo, download: boolean): Promise<(StoredFileInfo & { lightboxLink: string }) | undefined> {
    if (grant.lightbox !== lightbox || !shareLevelAllows(grant, info, download)) return undefined;
    return (await this.shares!.inLightbox(lightbox, info.mediaId)) ? { ...info, lightboxLink: grant.link } : undefined;
  }

  /** The chain of a gallery of a website by its full url path; undefined when there is none. */
  async chain(websiteId: number, fullUrlPath: string): Promise<Chain | undefined> {
    return chainsOf(await this.repo.chains(websiteId, [fullUrlPath])).get(fullUrlPath);
  }

  /** The chains of several galleries of a website by their full url paths (two queries whatever their number). */
  async chains(websiteId: number, fullUrlPaths: readonly string[]): Promise<Map<string, Chain>> {
    return chainsOf(await this.repo.chains(websiteId, fullUrlPaths));
  }

  /** Every gallery's chain of a website, by full url path (the sitemap). */
  async everyChain(websiteId: number): Promise<Map<string, Chain>> {
    return chainsOf(await this.repo.chains(websiteId, undefined));
  }

  /**
   * The chain of the gallery a signed file address names, while the media is live and
   * published there (its access stamp is compared with it); undefined otherwise.
   */
  async publishedChain(mediaId: number, galleryUuid: string): Promise<GateGallery[] | undefined> {
    const g = (await this.repo.publishedIn(mediaId)).find((p) => p.uuid === galleryUuid);
    return g && (await this.chain(g.website_id, g.full_url_path))?.gate;
  }

  /**
   * Whether the media's renditions are public: it is live and published in at least one gallery
   * open to everyone, or it is the public cover a photographer chose for a gallery (shown, with a
   * lock, to visitors who may not open that gallery; docs/website.md).
   */
  async publiclyVisible(mediaId: number): Promise<boolean> {
    const byWebsite = new Map<number, string[]>();
    for (const p of await this.repo.publishedIn(mediaId)) byWebsite.set(p.website_id, [...(byWebsite.get(p.website_id) ?? []), p.full_url_path]);
    for (const [websiteId, paths] of byWebsite) {
      const chains = chainsOf(await this.repo.chains(websiteId, paths));
      for (const c of chains.values()) if (isPublic(c.gate)) return true;
    }
    return this.repo.isPublicCover(mediaId);
  }

  // ---- /files

  /**
   * What `key` is, if the request may have it: unsigned (`signed`
   * undefined), only a rendition of a public media (live, published in a
   * gallery open to everyone); signed for a gallery, any rendition or original
   * of a media still live and published in that gallery (the signature proves
   * the visitor was shown it there; unpublishing it revokes the address) and,
   * when the signature carries an access stamp, while the gallery's chain still
   * has that stamp (a new password or access list revokes it).
   */
  async servable(key: string, signed: { gallery: string; access?: string; visitor?: string; download?: boolean } | undefined): Promise<(StoredFileInfo & { gate?: GateGallery; lightboxLink?: string }) | undefined> {
    if (signed === undefined) {
      const known = this.remembered(key);
      if (known !== undefined) return known ?? undefined;
    }
    const info = await this.repo.fileInfo(key);
    if (signed !== undefined) {
      if (!info) return undefined;
      // A share link's address: nothing once the link is revoked, expired or used up.
      const grant = signed.visitor?.startsWith(SHARE_VISITOR) ? await this.shareGrant(signed.visitor) : undefined;
      if (signed.visitor?.startsWith(SHARE_VISITOR) && !grant) return undefined;
      if (grant && grant.lightbox !== null) return this.lightboxFile(grant, signed.gallery, info, signed.download === true);
      // Read at each request, not remembered: a revocation holds at once, on every node. The
      // browser keeps what it fetched (private, until the expiry), so a page's images cost this once.
      const chain = await this.publishedChain(info.mediaId, signed.gallery);
      // A closed gallery serves nothing to its visitors, signed addresses given before included.
      if (!chain || closedBy(chain, Date.now())) return undefined;
      // A download address is stamped with the gallery's download controls too (a new PIN revokes it);
      // where there are controls, an address without a stamp serves nothing.
      const last = chain[chain.length - 1];
      const controlled = signed.download === true && last.downloads !== undefined && guarded(last.downloads);
      const state = signed.download ? downloadState(chain) : accessState(chain);
      if (signed.access === undefined ? controlled : this.urls.accessStamp(state) !== signed.access) return undefined;
      if (grant && !shareLevelAllows(grant, info, signed.download === true)) return undefined;
      return { ...info, gate: last };
    }
    // A website's logo or favicon (docs/website.md "Brand and pages") is shown on every page of it, protected ones included.
    if (!info || info.kind !== 'rendition' || !((await this.publiclyVisible(info.mediaId)) || (await this.repo.isBrandMedia(info.mediaId)))) {
      this.missCache.set(key, true);
      return undefined;
    }
    // Public answers are cached for ever downstream anyway (immutable); here briefly, so a hot thumbnail costs no query.
    this.publicCache.set(key, info);
    return info;
  }

  /**
   * What this process remembers of an unsigned fetch of `key`, without any query: its file when
   * it was found public lately, null when it was refused lately, undefined when not known.
   */
  remembered(key: string): StoredFileInfo | null | undefined {
    return this.publicCache.get(key) ?? (this.missCache.get(key) ? null : undefined);
  }
}

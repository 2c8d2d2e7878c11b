// Whether a visitor may see a gallery, and what they may download there: the
// access rules of docs/website.md in one pure function, applied to the chain of
// galleries from the website's root down to the one asked for. A protection
// on a gallery (password, access list) applies to all its sub-galleries.
import { passOpens, type VisitorPass } from './pass.js';

export const DEFAULT_ENTRY = 'DEFAULT';

export interface AclRule {
  /** DEFAULT, or a lower-cased client address. */
  email: string;
  read: boolean;
  compDownload: boolean;
  hiresDownload: boolean;
}

export interface GateGallery {
  uuid: string;
  passwordProtected: boolean;
  /**
   * The stored hash of its password: a pass opens the gallery only for this
   * password (pass.ts, passwordVersion). Absent, no pass opens it (only a
   * decision without a pass, the public check, may leave it out).
   */
  passwordHash?: string | null;
  /** The gallery's access list; empty when it has none. */
  acl: readonly AclRule[];
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
  | { ok: false; need: 'signin' };

/** `chain`: the root first, the gallery asked for last. */
export function decide(chain: readonly GateGallery[], pass: VisitorPass | undefined): Decision {
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

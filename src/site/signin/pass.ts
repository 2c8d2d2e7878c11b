// A visitor's pass: what a visitor of one website has proved, kept in a signed,
// HttpOnly cookie (no server state, so every node accepts it): the protected
// galleries whose password they gave, each with the version of the password it
// was proved with, and the e-mail address they signed in with. The signing key
// is derived from the upload secret (shared by every process of one installation).
import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { isUuid } from '../../core/uuid.js';
import type { ShareGrant } from '../../share-links/service.js';

export const PASS_COOKIE = 'mps_visitor';
/** A share link's visit: a session cookie scoped to the link's gallery (docs/integrations.md "Share links"). */
export const SHARE_COOKIE = 'mps_share';
/** A pass lasts a month from its last change. */
export const PASS_LIFETIME_SECONDS = 30 * 24 * 3600;
/** Passwords remembered per pass: the oldest are forgotten first (the cookie stays small). */
export const MAX_PASS_GALLERIES = 40;

export interface VisitorPass {
  /** Random, names the visitor in signed file addresses. */
  id: string;
  /** The website the pass belongs to. */
  website: string;
  /**
   * Protected galleries whose password the visitor gave: `<uuid>:<version>`,
   * the version of the password it was (passwordVersion). A pass of the form
   * before versions (bare UUIDs) opens nothing.
   */
  galleries: string[];
  /** Lower-cased address proved by a sign-in link. */
  email?: string;
  /**
   * A name and an address the visitor typed to choose favourites (docs/delivery.md): not proved,
   * so shown as "not verified" wherever the photographer sees it, and naming only this pass's
   * own selections, never those of whoever owns the address.
   */
  guest?: { name: string; email: string };
  /**
   * Galleries whose download PIN the visitor gave (docs/delivery.md "Download controls"):
   * `<uuid>:<keyed proof of the PIN>` (download-controls.ts pinEntry), the oldest forgotten first.
   */
  pins?: string[];
  /**
   * A share link this visit holds (docs/integrations.md "Share links"), checked live against the
   * database at this request: never written into the pass cookie (its own cookie, SHARE_COOKIE).
   */
  share?: ShareGrant;
  /** Unix seconds. */
  expires: number;
}

/** Who a visit is in the activity (docs/delivery.md "Activity"): a share link's recipient, a proved address, or nobody. */
export function activityClientOf(pass: VisitorPass | undefined): { email: string; verified: boolean; label?: boolean } | null {
  if (pass?.share) return shareClient(pass.share.recipient);
  return pass?.email ? { email: pass.email, verified: true } : null;
}

/**
 * A share link's recipient as the activity names them: their address when the photographer gave
 * one (not proven, so "not verified"; a client's data deleted on request includes it), else a label.
 */
export function shareClient(recipient: string | null): { email: string; verified: false; label?: boolean } {
  const r = (recipient ?? '').trim();
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(r) && r.length <= 254) return { email: r.toLowerCase(), verified: false };
  return { email: `share link: ${r || 'no recipient'}`.slice(0, 254), verified: false, label: true };
}

export class PassCodec {
  private readonly key: Buffer;

  constructor(secret: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'mps visitor pass', 32));
  }

  /** A new, empty pass for a website. */
  fresh(website: string, now = Date.now()): VisitorPass {
    return { id: randomBytes(12).toString('base64url'), website, galleries: [], expires: Math.floor(now / 1000) + PASS_LIFETIME_SECONDS };
  }

  encode(pass: VisitorPass): string {
    const { share: _share, ...kept } = pass;
    pass = kept;
    const body = Buffer.from(JSON.stringify(pass)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The pass in a cookie value, when it is ours, intact, unexpired and for this website. */
  decode(value: string | undefined, website: string, now = Date.now()): VisitorPass | undefined {
    if (!value || value.length > 4096) return undefined;
    const dot = value.indexOf('.');
    if (dot <= 0) return undefined;
    const body = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(this.mac(body));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let pass: VisitorPass;
    try {
      pass = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as VisitorPass;
    } catch {
      return undefined;
    }
    if (pass.website !== website || !(pass.expires * 1000 > now) || !Array.isArray(pass.galleries)) return undefined;
    if (pass.pins !== undefined && !Array.isArray(pass.pins)) return undefined;
    delete pass.share;
    return pass;
  }

  /** The pass with one more gallery opened by its current password (its stored hash), its lifetime renewed. */
  withGallery(pass: VisitorPass, galleryUuid: string, passwordHash: string, now = Date.now()): VisitorPass {
    const galleries = [...pass.galleries.filter((g) => !g.startsWith(`${galleryUuid}:`) && g !== galleryUuid), passEntry(galleryUuid, passwordHash)].slice(-MAX_PASS_GALLERIES);
    return { ...pass, galleries, expires: Math.floor(now / 1000) + PASS_LIFETIME_SECONDS };
  }

  /** The pass with one more gallery's download PIN given (`entry`: pinEntry), its lifetime renewed. */
  withPin(pass: VisitorPass, galleryUuid: string, entry: string, now = Date.now()): VisitorPass {
    const pins = [...(pass.pins ?? []).filter((p) => !p.startsWith(`${galleryUuid}:`)), entry].slice(-MAX_PASS_GALLERIES);
    return { ...pass, pins, expires: Math.floor(now / 1000) + PASS_LIFETIME_SECONDS };
  }

  /** The pass with a proved e-mail address, its lifetime renewed. */
  withEmail(pass: VisitorPass, email: string, now = Date.now()): VisitorPass {
    return { ...pass, email: email.toLowerCase(), expires: Math.floor(now / 1000) + PASS_LIFETIME_SECONDS };
  }

  /** The pass with the name and address a visitor typed to choose favourites, its lifetime renewed. */
  withGuest(pass: VisitorPass, name: string, email: string, now = Date.now()): VisitorPass {
    return { ...pass, guest: { name, email: email.toLowerCase() }, expires: Math.floor(now / 1000) + PASS_LIFETIME_SECONDS };
  }

  /** The share cookie's value: a link's UUID, signed so that none can be made up. */
  sealShare(linkUuid: string): string {
    return `${linkUuid}.${this.mac(`share\n${linkUuid}`)}`;
  }

  /** The link UUID a share cookie names, when it is ours and intact. */
  openShare(value: string | undefined): string | undefined {
    const dot = value?.indexOf('.') ?? -1;
    const m = dot > 0 ? [value!, value!.slice(0, dot), value!.slice(dot + 1)] : undefined;
    if (!m || !isUuid(m[1]) || !/^[A-Za-z0-9_-]{43}$/.test(m[2])) return undefined;
    const given = Buffer.from(m[2]);
    const expected = Buffer.from(this.mac(`share\n${m[1]}`));
    return given.length === expected.length && timingSafeEqual(given, expected) ? m[1] : undefined;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

/**
 * The version of a gallery's password, as a pass remembers it: derived from
 * the stored argon2 hash, whose random salt is new at every setting, so a
 * change, a removal followed by a new password, even the same password set
 * again, each make a new version and the passes given before open nothing.
 * One-way and salted inside: the visitor, who can read the cookie, learns
 * nothing about the password from it.
 */
export function passwordVersion(passwordHash: string): string {
  return createHash('sha256').update('mps gallery password version\n').update(passwordHash).digest('base64url').slice(0, 16);
}

function passEntry(galleryUuid: string, passwordHash: string): string {
  return `${galleryUuid}:${passwordVersion(passwordHash)}`;
}

/** Whether the pass holds the gallery's password as it is now (`passwordHash`: its stored hash). */
export function passOpens(pass: VisitorPass | undefined, galleryUuid: string, passwordHash: string): boolean {
  return pass !== undefined && pass.galleries.includes(passEntry(galleryUuid, passwordHash));
}

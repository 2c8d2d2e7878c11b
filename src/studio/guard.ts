// The studio's cookies and its checks on a change: the session cookie (a token of the
// API's session store, src/users/sessions.ts), the CSRF token of a session (derived from
// it, so nothing more is stored), the sign-in form's own token before there is a session,
// the short-lived proof that a two-factor user's password was right, and where a post
// comes from (Origin, Sec-Fetch-Site).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';

/** How long the code step may follow a right password. */
export const PENDING_SECONDS = 5 * 60;
/** A studio session lasts as an API session does (sessions.ts); the cookie dies with the browser's session otherwise. */
const SESSION_MAX_AGE = 30 * 24 * 3600;
/** A device cookie lives a year from the last sign-in. */
export const DEVICE_MAX_AGE = 365 * 24 * 3600;

/**
 * The cookies' names and paths. Under https the `__Host-` prefix (no Domain, Secure; the
 * browser then insists on Path=/, so the prefix and Path=/studio cannot go together: the
 * prefix's guarantee, that no other host can set it, is the one worth having). Over plain
 * http (development, tests) the prefix is not allowed: plain names under Path=/studio.
 */
export class StudioCookies {
  readonly session: string;
  readonly pending: string;
  readonly signinToken: string;
  /** The device cookie (OWASP): this browser signed in to an account before (src/users/login-throttle.ts). */
  readonly device: string;
  /** `tree` when the galleries' tree was the last view opened here, so the header's Galleries opens it again. */
  readonly galleriesView: string;
  private readonly path: string;

  constructor(readonly secure: boolean) {
    const prefix = secure ? '__Host-' : '';
    this.session = `${prefix}studio_session`;
    this.pending = `${prefix}studio_2fa`;
    this.signinToken = `${prefix}studio_csrf`;
    this.device = `${prefix}studio_device`;
    this.galleriesView = `${prefix}studio_galleries_view`;
    this.path = secure ? '/' : '/studio';
  }

  read(req: FastifyRequest, name: string): string | undefined {
    const header = req.headers.cookie;
    if (!header || header.length > 8192) return undefined;
    const value = parseCookie(header)[name];
    return value && /^[A-Za-z0-9_.-]{16,300}$/.test(value) ? value : undefined;
  }

  /** Whether this browser last chose the galleries' tree (a preference, not a token: read as one word). */
  treeChosen(req: FastifyRequest): boolean {
    const header = req.headers.cookie;
    return header !== undefined && header.length <= 8192 && parseCookie(header)[this.galleriesView] === 'tree';
  }

  set(name: string, value: string, maxAge: number): string {
    return stringifySetCookie({ name, value, path: this.path, maxAge, httpOnly: true, sameSite: 'strict', secure: this.secure });
  }

  sessionCookie(token: string): string {
    return this.set(this.session, token, SESSION_MAX_AGE);
  }

  cleared(name: string): string {
    return this.set(name, '', 0);
  }
}

/** Tokens made and checked with the studio's own key (derived from the service's secret). */
export class StudioTokens {
  private readonly key: Buffer;

  constructor(secret: Buffer) {
    this.key = createHmac('sha256', secret).update('studio v1').digest();
  }

  private mac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }

  /** The CSRF token of a session: the same for the session's life, unknown without its token. */
  csrfOf(sessionToken: string): string {
    return this.mac(`csrf|${sessionToken}`);
  }

  /** A random token for the sign-in form, sent in a cookie and in the form (double submit). */
  fresh(): string {
    return randomBytes(24).toString('base64url');
  }

  /** Proof that the password of `userId` was right, valid PENDING_SECONDS, void once the password changes. */
  pending(userId: number, passwordHash: string, now = Date.now()): string {
    const until = Math.floor(now / 1000) + PENDING_SECONDS;
    return `${userId}.${until}.${this.mac(`2fa|${userId}|${until}|${passwordHash}`)}`;
  }

  /** The user id a pending proof names, when it is well formed and not expired; its MAC is checked against the user's hash by `pendingValid`. */
  pendingUser(value: string | undefined, now = Date.now()): number | undefined {
    const m = value ? /^(\d{1,15})\.(\d{1,12})\.[A-Za-z0-9_-]{43}$/.exec(value) : null;
    if (!m || Number(m[2]) < Math.floor(now / 1000)) return undefined;
    return Number(m[1]);
  }

  pendingValid(value: string, userId: number, passwordHash: string): boolean {
    const [, until, mac] = value.split('.');
    return same(mac, this.mac(`2fa|${userId}|${until}|${passwordHash}`));
  }
}

/** Constant-time equality of two tokens. */
export function same(given: string | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether a post comes from the studio's own pages: a browser says where with Sec-Fetch-Site
 * and Origin; a client that sends neither (not a browser) still needs the form's token.
 */
export function fromOwnOrigin(req: FastifyRequest, publicUrl: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const ours = new Set([`${req.protocol}://${req.host}`]);
  try {
    ours.add(new URL(publicUrl).origin);
  } catch {
    /* PUBLIC_URL is checked at start */
  }
  return ours.has(origin);
}

// The visitor's pass (pass.ts) on the wire: read from the Cookie header, set
// with the attributes of docs/visitors.md (HttpOnly, SameSite=Lax, the home's
// path, Secure when PUBLIC_URL is https).
import { parseCookie, stringifySetCookie } from 'cookie';
import { PASS_COOKIE, PASS_LIFETIME_SECONDS, SHARE_COOKIE, type PassCodec, type VisitorPass } from './pass.js';

/** The request's valid pass for the website, if any. */
export function readPass(codec: PassCodec, cookieHeader: string | undefined, websiteUuid: string, now = Date.now()): VisitorPass | undefined {
  if (!cookieHeader || !cookieHeader.includes(`${PASS_COOKIE}=`)) return undefined;
  let value: string | undefined;
  try {
    value = parseCookie(cookieHeader)[PASS_COOKIE];
  } catch {
    return undefined;
  }
  return codec.decode(value, websiteUuid, now);
}

export function passCookie(codec: PassCodec, pass: VisitorPass, path: string, secure: boolean): string {
  return stringifySetCookie({ name: PASS_COOKIE, value: codec.encode(pass), path, maxAge: PASS_LIFETIME_SECONDS, httpOnly: true, sameSite: 'lax', secure });
}

/** The share link UUID the request's share cookie names (signed by us), if any. */
export function readShare(codec: PassCodec, cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader || !cookieHeader.includes(`${SHARE_COOKIE}=`)) return undefined;
  try {
    return codec.openShare(parseCookie(cookieHeader)[SHARE_COOKIE]);
  } catch {
    return undefined;
  }
}

/** A session cookie (a visit) for a share link, scoped to its gallery's path. */
export function shareCookie(codec: PassCodec, linkUuid: string, path: string, secure: boolean): string {
  return stringifySetCookie({ name: SHARE_COOKIE, value: codec.sealShare(linkUuid), path, httpOnly: true, sameSite: 'lax', secure });
}

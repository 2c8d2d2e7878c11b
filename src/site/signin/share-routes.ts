// Share links on the website (docs/integrations.md "Share links"): `<home>/_share/<token>` opens a
// visit (counted, a session cookie scoped to the gallery or lightbox) and sends the visitor to the
// gallery's clean address, or the lightbox's `<home>/_lightbox/<uuid>`, so the token leaves the
// address bar; `<home>/_share` asks a link's password; `<home>/_lightbox/<uuid>` shows a lightbox
// to the holder of a live link to it (a 404 to anyone else).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseCookie, stringifySetCookie } from 'cookie';
import { ApiError } from '../../core/errors.js';
import type { ShareLinkPlace } from '../../share-links/repository.js';
import type { ShareState } from '../../share-links/service.js';
import type { SiteAddress } from '../address.js';
import { messagePage, sharePasswordPage } from '../pages/signin.js';
import type { Addressing, SiteHelpers, SiteRoute, WebsiteDeps } from '../plugin-deps.js';
import { isUuid } from '../../core/uuid.js';
import { GalleryPage } from '../pages/gallery.js';
import { render } from '../pages/layout.js';
import { PAGE } from '../pages/routes.js';
import { galleryHref } from '../service.js';
import { notFound, visiting } from '../visit.js';
import { shareCookie } from './pass-cookie.js';

/** The token between its link and its password form: a session cookie on `<home>/_share` only. */
const PENDING_COOKIE = 'mps_share_pending';
const FORM_BYTES = 1024;

const ENDED: Record<Exclude<ShareState, 'live'>, string> = {
  revoked: 'This link has been withdrawn by the photographer.',
  expired: 'This link has expired.',
  'used-up': 'This link has been opened as many times as it allows.',
};

const LIGHTBOX_PREFIX = '_lightbox/';
const lightboxHref = (at: SiteAddress, uuid: string) => `${at.homePath}/${LIGHTBOX_PREFIX}${uuid}`;

export function shareRoutes(helpers: SiteHelpers, deps: WebsiteDeps): SiteRoute[] {
  const secure = () => deps.config.publicUrl.startsWith('https:');
  const page = (reply: FastifyReply, status: number, body: string) => helpers.html(reply, status, body, { personal: true, referrer: 'no-referrer' });

  async function addressOf(req: FastifyRequest, by: Addressing): Promise<SiteAddress> {
    await helpers.withinBudget(req);
    const at = await by.find(req);
    if (!at) throw new ApiError('not_found', 'There is no website at this address.');
    return at;
  }

  function ended(reply: FastifyReply, at: SiteAddress, state: ShareState | 'unknown'): FastifyReply {
    const text = state === 'unknown' || state === 'live' ? 'This link is not valid.' : ENDED[state];
    return page(reply, state === 'unknown' ? 404 : 410, messagePage({ frame: helpers.frameOf(at), title: 'Link not valid', text, link: { href: `${at.homePath}/`, text: 'Go to the website' } }));
  }

  /** Counts the visit and sends the visitor to the gallery's own address with the visit's cookie. */
  async function enter(reply: FastifyReply, at: SiteAddress, row: ShareLinkPlace, extra: string[] = []): Promise<FastifyReply> {
    if (!(await deps.shareLinks.countView(row))) return ended(reply, at, 'used-up');
    const href = row.lightbox_uuid !== null ? lightboxHref(at, row.lightbox_uuid) : galleryHref(at.homePath, row.full_url_path ?? '');
    const path = href.endsWith('/') ? href.slice(0, -1) || '/' : href;
    return reply
      .code(303)
      .header('set-cookie', [...extra, shareCookie(deps.passes, row.uuid, path, secure())])
      .header('location', href)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-robots-tag', 'noindex')
      .send();
  }

  function pendingOf(req: FastifyRequest): string | undefined {
    const header = req.headers.cookie;
    if (!header || !header.includes(`${PENDING_COOKIE}=`)) return undefined;
    try {
      return parseCookie(header)[PENDING_COOKIE];
    } catch {
      return undefined;
    }
  }

  const open = async (req: FastifyRequest, reply: FastifyReply, by: Addressing) => {
    const at = await addressOf(req, by);
    const found = await deps.shareLinks.opening(at.website.id, (req.params as { token: string }).token);
    if (!found) return ended(reply, at, 'unknown');
    if (found.state !== 'live') return ended(reply, at, found.state);
    if (found.row.password_hash === null) return enter(reply, at, found.row);
    // The password is asked at the clean address: the token moves to a cookie of that page alone.
    const pending = stringifySetCookie({ name: PENDING_COOKIE, value: (req.params as { token: string }).token, path: `${at.homePath}/_share`, httpOnly: true, sameSite: 'lax', secure: secure() });
    return reply.code(303).header('set-cookie', pending).header('location', `${at.homePath}/_share`).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-robots-tag', 'noindex').send();
  };

  const form = async (req: FastifyRequest, reply: FastifyReply, by: Addressing) => {
    const at = await addressOf(req, by);
    const token = pendingOf(req);
    const found = token === undefined ? undefined : await deps.shareLinks.opening(at.website.id, token);
    if (!found) return ended(reply, at, 'unknown');
    if (found.state !== 'live') return ended(reply, at, found.state);
    return helpers.html(reply, 200, sharePasswordPage({ frame: helpers.frameOf(at), action: `${at.homePath}/_share` }), { personal: true });
  };

  const post = async (req: FastifyRequest, reply: FastifyReply, by: Addressing) => {
    const at = await addressOf(req, by);
    if (!helpers.fromOwnSite(req, at)) throw new ApiError('forbidden', 'This form can only be sent from the website itself.');
    if (!Buffer.isBuffer(req.body)) throw new ApiError('bad_request', 'The form could not be read.');
    const token = pendingOf(req);
    const found = token === undefined ? undefined : await deps.shareLinks.opening(at.website.id, token);
    if (!found) return ended(reply, at, 'unknown');
    if (found.state !== 'live') return ended(reply, at, found.state);
    const given = new URLSearchParams(req.body.toString('utf8')).get('password') ?? '';
    // The gallery passwords' throttle, keyed by the link: counted before the hash is computed.
    const taken = await deps.passwordThrottle.take(at.website.uuid, found.row.uuid, req.ip);
    if (!taken.ok) throw new ApiError('rate_limited', `Please wait ${taken.retryAfterSeconds} seconds and try again.`, { retryAfter: taken.retryAfterSeconds });
    if (given.length > 0 && given.length <= 200 && (await deps.shareLinks.passwordMatches(found.row, given))) {
      await deps.passwordThrottle.succeeded(at.website.uuid, found.row.uuid, req.ip);
      const cleared = stringifySetCookie({ name: PENDING_COOKIE, value: '', path: `${at.homePath}/_share`, maxAge: 0, httpOnly: true, sameSite: 'lax', secure: secure() });
      return enter(reply, at, found.row, [cleared]);
    }
    return helpers.html(reply, 403, sharePasswordPage({ frame: helpers.frameOf(at), action: `${at.homePath}/_share`, wrong: true }), { personal: true });
  };

  /** A lightbox's page for the holder of a live link to it; a 404 to anyone else, as for a lightbox that does not exist. */
  const lightbox = visiting(helpers, deps, async (_req, reply, v) => {
    const uuid = v.rest.slice(LIGHTBOX_PREFIX.length);
    const p = v.query.get('page');
    if (!isUuid(uuid) || uuid !== uuid.toLowerCase() || (p !== null && !PAGE.test(p)) || [...v.query.keys()].some((k) => k !== 'page')) throw notFound();
    if (!v.pass?.share || v.pass.share.lightbox !== uuid) throw notFound();
    const view = await deps.site.lightbox(v.at, uuid, p === null ? 1 : Number(p), v.pass);
    if (view.kind !== 'gallery') throw notFound();
    const body = render(GalleryPage({ view, frame: { ...helpers.frameOf(v.at), canonical: undefined } }));
    return helpers.html(reply, 200, body, { personal: true, referrer: 'no-referrer' });
  });

  return [
    { method: 'GET', path: '/_lightbox/:uuid', handler: lightbox },
    // A HEAD (a mail scanner) must not count a view.
    { method: 'GET', path: '/_share/:token', head: false, handler: open },
    { method: 'GET', path: '/_share', handler: form },
    { method: 'POST', path: '/_share', bodyLimit: FORM_BYTES, handler: post },
  ];
}

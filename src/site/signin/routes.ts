// The sign-in pages of every website, as rows of the one route table (../routes.ts):
// `<home>/_signin` (the form and its post) and `<home>/_signin/<token>` (the link
// of the mail). Each finds its website itself: a sign-in at an unknown website is
// a 404 page, whichever way it is addressed.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { backGalleryPath, backUnder, cookiePath, pathAndQuery, type SiteAddress } from '../address.js';
import { checkMailPage, messagePage, signInFormPage } from '../pages/signin.js';
import { passCookie, readPass } from './pass-cookie.js';
import type { Addressing, SiteHelpers, SiteRoute, WebsiteDeps } from '../plugin-deps.js';

/** The sign-in form's fields, names and all: an e-mail address and a path are far shorter. */
export const SIGNIN_FORM_LIMIT_BYTES = 8 * 1024;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function minutesOf(seconds: number): number {
  return Math.max(1, Math.round(seconds / 60));
}

/** One text field of a query or form: absent, or given exactly once. */
function field(values: URLSearchParams, name: string): string | undefined {
  const all = values.getAll(name);
  if (all.length > 1) throw new ApiError('bad_request', `${name} is given more than once`);
  return all[0];
}

function formOf(req: FastifyRequest): URLSearchParams {
  const contentType = (req.headers['content-type'] ?? '').toLowerCase();
  if (!contentType.startsWith('application/x-www-form-urlencoded')) {
    throw new ApiError('unsupported_media_type', 'send the sign-in form as application/x-www-form-urlencoded');
  }
  const body = req.body;
  if (body !== undefined && body !== null && !Buffer.isBuffer(body)) throw new ApiError('bad_request', 'the form could not be read');
  try {
    return new URLSearchParams(body ? strictUtf8.decode(body) : '');
  } catch {
    throw new ApiError('bad_encoding', 'the form is not valid UTF-8');
  }
}

/** The sign-in rows of the route table. */
export function signInRoutes(helpers: SiteHelpers, deps: WebsiteDeps): SiteRoute[] {
  const { links, signIn, passes: codec } = deps;
  const frameOf = helpers.frameOf;
  const sendHtml = (reply: FastifyReply, status: number, body: string, referrer?: 'no-referrer') => helpers.html(reply, status, body, { personal: true, referrer });
  const secure = () => deps.config.publicUrl.startsWith('https:');
  const withinBudget = helpers.withinBudget;

  /** The website this request visits, by its path or its Host; a 404 page otherwise. */
  async function addressOf(req: FastifyRequest, by: Addressing): Promise<SiteAddress> {
    const at = await by.find(req);
    if (!at) throw new ApiError('not_found', 'There is no website at this address.');
    return at;
  }

  /** A cross-site form may not make us send mail in a visitor's name (the browser tells where a post comes from). */
  function checkOrigin(req: FastifyRequest, at: SiteAddress): void {
    if (!helpers.fromOwnSite(req, at)) {
      throw new ApiError('forbidden', 'This form can only be sent from the website itself.');
    }
  }

  const form = async (req: FastifyRequest, reply: FastifyReply, by: Addressing) => {
    await withinBudget(req);
    const at = await addressOf(req, by);
    const back = backUnder(at.homePath, field(pathAndQuery(req.raw.url).query, 'back'));
    if (back === undefined) throw new ApiError('invalid_parameter', 'The return address is not on this website.');
    // The gallery it returns to, as its own page showed it (name, date, the public cover chosen).
    const locked = await deps.site.lockedForSignin(at, backGalleryPath(back, at.homePath), readPass(codec, req.headers.cookie, at.website.uuid));
    return sendHtml(reply, 200, signInFormPage({ frame: frameOf(at), action: `${at.homePath}/_signin`, back, locked }));
  };

  const post = async (req: FastifyRequest, reply: FastifyReply, by: Addressing) => {
    const at = await addressOf(req, by);
    checkOrigin(req, at);
    const values = formOf(req);
    const email = field(values, 'email');
    const back = field(values, 'back');
    try {
      await signIn.requestLink(at, email, back, req.ip);
    } catch (err) {
      // A mistyped address: the form again, with what was typed and why it was refused.
      if (err instanceof ApiError && err.code === 'invalid_parameter' && backUnder(at.homePath, back) !== undefined) {
        const page = signInFormPage({ frame: frameOf(at), action: `${at.homePath}/_signin`, back: backUnder(at.homePath, back)!, email: email?.slice(0, 254), error: err.message });
        return sendHtml(reply, err.status, page);
      }
      throw err;
    }
    return sendHtml(reply, 200, checkMailPage({ frame: frameOf(at), minutes: minutesOf(links.ttlSeconds), back: backUnder(at.homePath, back)! }));
  };

  const consume = async (req: FastifyRequest, reply: FastifyReply, by: Addressing) => {
    await withinBudget(req);
    const at = await addressOf(req, by);
    const token = (req.params as { token: string }).token;
    const used = await links.consume(at.website, token);
    if (typeof used === 'string') {
      const text =
        used === 'used'
          ? 'This sign-in link has been used already: each link works once.'
          : used === 'expired'
            ? `This sign-in link has expired: links work for ${minutesOf(links.ttlSeconds)} minutes.`
            : 'This sign-in link is not valid.';
      const page = messagePage({ frame: frameOf(at), title: 'Sign-in link not valid', text, link: { href: `${at.homePath}/_signin`, text: 'Ask for a new link' } });
      return sendHtml(reply, used === 'unknown' ? 404 : 410, page, 'no-referrer');
    }
    const pass = codec.withEmail(readPass(codec, req.headers.cookie, at.website.uuid) ?? codec.fresh(at.website.uuid), used.email);
    return reply
      .code(303)
      .header('set-cookie', passCookie(codec, pass, cookiePath(at), secure()))
      .header('location', backUnder(at.homePath, used.back) ?? `${at.homePath}/`)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send();
  };

  return [
    { method: 'GET', path: '/_signin', handler: form },
    { method: 'POST', path: '/_signin', bodyLimit: SIGNIN_FORM_LIMIT_BYTES, handler: post },
    // A HEAD (link checkers, mail scanners) must not use the link up.
    { method: 'GET', path: '/_signin/:token', head: false, handler: consume },
  ];
}

// The sign-in pages of every website, at `<home>/_signin` (the form and its
// post) and `<home>/_signin/<token>` (the link of the mail), under both ways a
// website is addressed: `/sites/<urlname>/…` and, on its own host name, `/…`.
// Plain HTML pages, unsigned: the API's signature and XML replies stay out.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { ApiError } from '../http/errors.js';
import { closeAfterReply } from '../http/linger.js';
import { cookiePath, fromOwnOrigin, hostAddress, pathAddress, safeBack, type SiteAddress } from './address.js';
import type { VisitorBudget } from './budget.js';
import { checkMailPage, messagePage, signInFormPage, type SiteFrame } from './pages/signin.js';
import type { PassCodec } from './pass.js';
import { passCookie, readPass } from './pass-cookie.js';
import type { SignInService, VisitorLinks } from './signin-service.js';

export interface VisitorRouteDeps {
  links: VisitorLinks;
  signIn: SignInService;
  codec: PassCodec;
  /** Its PUBLIC_URL is read at each request (it may be settled after start). */
  config: Pick<Config, 'publicUrl'>;
  /** PUBLIC_URL is https: the pass cookie is Secure. */
  secureCookies: boolean;
  /** The website's visitor budget (VISITOR_RATE_LIMIT), shared with its pages: the GETs take from it. */
  budget: VisitorBudget;
}

/** The sign-in form's fields, names and all: an e-mail address and a path are far shorter. */
export const SIGNIN_FORM_LIMIT_BYTES = 8 * 1024;

const URLNAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `no-referrer` on the pages at a token's address (the token must not travel on); elsewhere
 * `same-origin`: under `no-referrer` a browser posts the form with `Origin: null`, which
 * the origin check refuses.
 */
type Referrer = 'same-origin' | 'no-referrer';

/** The website's frame for its sign-in pages: its name, linking home. */
function frameOf(at: SiteAddress): SiteFrame {
  return { siteTitle: at.site.title || at.site.urlname, homeHref: `${at.basePath}/` };
}

/** What every visitor page carries: no caching of personal pages, no active content but ours (the site's stylesheet and icon), no leaked link. */
function sendHtml(reply: FastifyReply, status: number, body: string, referrer: Referrer = 'same-origin'): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', referrer)
    .header('content-security-policy', "default-src 'none'; img-src 'self'; style-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
    .send(body);
}

function minutesOf(seconds: number): number {
  return Math.max(1, Math.round(seconds / 60));
}

/** One text field of a query or form: absent, or given exactly once. */
function field(values: URLSearchParams, name: string): string | undefined {
  const all = values.getAll(name);
  if (all.length > 1) throw new ApiError('bad_request', `${name} is given more than once`);
  return all[0];
}

function queryOf(req: FastifyRequest): URLSearchParams {
  const url = req.raw.url ?? '';
  const q = url.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
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

export function visitorRoutes(deps: VisitorRouteDeps): FastifyPluginAsync {
  const { links, signIn, codec } = deps;
  /** The website of a request once known, so that its error pages wear its frame too. */
  const known = new WeakMap<FastifyRequest, SiteAddress>();

  /** The website this request visits, by its path or its Host; a 404 page otherwise. */
  async function addressOf(req: FastifyRequest): Promise<SiteAddress> {
    const urlname = (req.params as { urlname?: string }).urlname;
    if (urlname !== undefined) {
      const site = URLNAME.test(urlname) ? await links.siteByUrlname(urlname) : undefined;
      if (site) return remember(req, pathAddress(deps.config.publicUrl, site));
    } else {
      const site = await links.siteByHost(req.host);
      if (site) return remember(req, hostAddress(site));
    }
    throw new ApiError('not_found', 'There is no website at this address.');
  }

  /** A page fetched without any check of its own (the form, a link) takes from the visitor budget first. */
  async function withinBudget(req: FastifyRequest): Promise<void> {
    const wait = await deps.budget.take(req.ip);
    if (wait !== undefined) throw new ApiError('rate_limited', `Too many requests: please wait ${wait} seconds and try again.`, { retryAfter: wait });
  }

  function remember(req: FastifyRequest, at: SiteAddress): SiteAddress {
    known.set(req, at);
    return at;
  }

  /** A cross-site form may not make us send mail in a visitor's name (the browser tells where a post comes from). */
  function checkOrigin(req: FastifyRequest, at: SiteAddress): void {
    if (!fromOwnOrigin(req.headers.origin, [new URL(at.home).origin, `${req.protocol}://${req.host}`])) {
      throw new ApiError('forbidden', 'This form can only be sent from the website itself.');
    }
  }

  const form = async (req: FastifyRequest, reply: FastifyReply) => {
    await withinBudget(req);
    const at = await addressOf(req);
    const back = safeBack(at, field(queryOf(req), 'back'));
    if (back === undefined) throw new ApiError('invalid_parameter', 'The return address is not on this website.');
    return sendHtml(reply, 200, signInFormPage({ frame: frameOf(at), action: `${at.basePath}/_signin`, back }));
  };

  const post = async (req: FastifyRequest, reply: FastifyReply) => {
    const at = await addressOf(req);
    checkOrigin(req, at);
    const values = formOf(req);
    const email = field(values, 'email');
    const back = field(values, 'back');
    try {
      await signIn.requestLink(at, email, back, req.ip);
    } catch (err) {
      // A mistyped address: the form again, with what was typed and why it was refused.
      if (err instanceof ApiError && err.code === 'invalid_parameter' && safeBack(at, back) !== undefined) {
        const page = signInFormPage({ frame: frameOf(at), action: `${at.basePath}/_signin`, back: safeBack(at, back)!, email: email?.slice(0, 254), error: err.message });
        return sendHtml(reply, err.status, page);
      }
      throw err;
    }
    return sendHtml(reply, 200, checkMailPage({ frame: frameOf(at), minutes: minutesOf(links.ttlSeconds), back: safeBack(at, back)! }));
  };

  const consume = async (req: FastifyRequest, reply: FastifyReply) => {
    await withinBudget(req);
    const at = await addressOf(req);
    const token = (req.params as { token: string }).token;
    const used = await links.consume(at.site, token);
    if (typeof used === 'string') {
      const text =
        used === 'used'
          ? 'This sign-in link has been used already: each link works once.'
          : used === 'expired'
            ? `This sign-in link has expired: links work for ${minutesOf(links.ttlSeconds)} minutes.`
            : 'This sign-in link is not valid.';
      const page = messagePage({ frame: frameOf(at), title: 'Sign-in link not valid', text, link: { href: `${at.basePath}/_signin`, text: 'Ask for a new link' } });
      return sendHtml(reply, used === 'unknown' ? 404 : 410, page, 'no-referrer');
    }
    const pass = codec.withEmail(readPass(codec, req.headers.cookie, at.site.uuid) ?? codec.fresh(at.site.uuid), used.email);
    return reply
      .code(303)
      .header('set-cookie', passCookie(codec, pass, cookiePath(at), deps.secureCookies))
      .header('location', safeBack(at, used.back) ?? `${at.basePath}/`)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send();
  };

  return async (f: FastifyInstance) => {
    f.setErrorHandler((err, req, reply) => {
      const at = known.get(req);
      const frame = at ? frameOf(at) : undefined;
      const referrer: Referrer = req.routeOptions.url?.endsWith('/:token') ? 'no-referrer' : 'same-origin';
      // A refused body is not read further: the connection ends with the reply.
      closeAfterReply(req, reply);
      if (err instanceof ApiError) {
        if (err.extra.retryAfter) reply.header('retry-after', String(err.extra.retryAfter));
        const title = err.status === 404 ? 'Not found' : err.status === 429 ? 'Please wait' : 'Request refused';
        return sendHtml(reply, err.status, messagePage({ frame, title, text: err.message }), referrer);
      }
      const status = (err as { statusCode?: number }).statusCode ?? 500;
      if (status >= 400 && status < 500) {
        const text = status === 413 ? 'The form is too large.' : 'The request could not be understood.';
        return sendHtml(reply, status, messagePage({ frame, title: 'Request refused', text }), referrer);
      }
      // The path may hold a sign-in token: only the route's pattern is logged.
      req.log.error({ reqId: req.id, method: req.method, route: req.routeOptions.url, err }, 'unhandled error');
      return sendHtml(reply, 500, messagePage({ frame, title: 'Something went wrong', text: `Please try again later (request ${req.id}).` }), referrer);
    });
    for (const prefix of ['/sites/:urlname', '']) {
      f.get(`${prefix}/_signin`, form);
      f.post(`${prefix}/_signin`, { bodyLimit: SIGNIN_FORM_LIMIT_BYTES }, post);
      // A HEAD (link checkers, mail scanners) must not use the link up.
      f.get(`${prefix}/_signin/:token`, { exposeHeadRoute: false }, consume);
    }
  };
}

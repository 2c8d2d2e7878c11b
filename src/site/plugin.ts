// The public website as one encapsulated Fastify plugin (docs/website.md, docs/visitors.md,
// docs/architecture.md): its pages under `/sites/<urlname>` and at a website's own host name
// (routes.ts, the one table), `/_site/<name>` and `/_tls/ask` (Caddy's TLS check). Unsigned,
// HTML only: the API's signature, router and XML stay outside it, and what is set here (the
// error handler, the HTML headers) stays inside it.
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { imageSources } from '../file-storage/image-sources.js';
import { closeAfterReply } from '../http/lingering-close.js';
import { homeUrl } from '../websites/home-url.js';
import { fromOwnOrigin, hostAddress, pathAddress, URLNAME, type SiteAddress } from './address.js';
import { ASSETS, encodedAsset } from './look/assets.js';
import { brandAsset } from './look/theme.js';
import type { Referrer, SiteHelpers, WebsiteDeps } from './plugin-deps.js';
import { messagePage, type SiteFrame } from './pages/signin.js';
import { ClosedPage } from './pages/messages.js';
import { render } from './pages/layout.js';
import { siteRoutes } from './routes.js';

const NO_SITE: SiteFrame = { siteTitle: 'Not found', homeHref: '/' };

export function websitePlugin(deps: WebsiteDeps): FastifyPluginAsync {
  const csp = contentSecurityPolicy(deps.config.storageUrl);
  /** Requests that took from the visitor budget already: a Host that names no website takes once. */
  const charged = new WeakSet<FastifyRequest>();
  /** The website of a request once known, so that its error pages wear its frame too. */
  const known = new WeakMap<FastifyRequest, SiteAddress>();
  const remember = (req: FastifyRequest, at: SiteAddress | undefined) => {
    if (at) known.set(req, at);
    return at;
  };

  const helpers: SiteHelpers = {
    html(reply, status, body, options = {}) {
      reply
        .code(status)
        .header('content-type', 'text/html; charset=utf-8')
        .header('content-security-policy', options.formTargets?.length ? csp.replace("form-action 'self'", `form-action 'self' ${options.formTargets.join(' ')}`) : csp)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', options.referrer ?? 'same-origin')
        .header('cache-control', options.personal ? 'no-store' : 'private, no-cache')
        .header('vary', 'Cookie');
      if (!options.indexable) reply.header('x-robots-tag', 'noindex');
      // Encoded once here: a string would be measured for its length and encoded again for the socket.
      return reply.send(typeof body === 'string' ? Buffer.from(body) : body);
    },
    frameOf: (at) => (at ? { siteTitle: at.website.title || at.website.urlname, homeHref: `${at.homePath}/`, brand: deps.site.brand(at) } : NO_SITE),
    async byUrlname(req, urlname) {
      const website = URLNAME.test(urlname) ? await deps.site.website({ urlname }) : undefined;
      return remember(req, website && pathAddress(deps.config.publicUrl, website));
    },
    async byHost(req) {
      const host = hostOf(req.headers.host);
      const website = host ? await deps.site.website({ host }) : undefined;
      // A Host that names no website costs a visitor's request too (a remembered one included):
      // made-up names cannot be sent without bound.
      if (!website?.hostname) await helpers.withinBudget(req);
      return remember(req, website?.hostname ? hostAddress(website) : undefined);
    },
    fromOwnSite(req, at) {
      const ours = [new URL(homeUrl(deps.config.publicUrl, at.website)).origin, new URL(at.home).origin, new URL(deps.config.publicUrl).origin, `${req.protocol}://${req.host}`];
      return fromOwnOrigin(req.headers.origin, ours);
    },
    async withinBudget(req) {
      if (charged.has(req)) return;
      charged.add(req);
      const wait = await deps.budget.take(req.ip);
      if (wait !== undefined) throw new ApiError('rate_limited', `Please wait ${wait} seconds and try again.`, { retryAfter: wait });
    },
  };

  return async (f: FastifyInstance) => {
    // The one error handler of the website: every refusal and failure is an HTML page in the
    // website's frame, never the API's XML.
    f.setErrorHandler((err, req, reply) => {
      const frame = helpers.frameOf(known.get(req));
      const referrer: Referrer = req.routeOptions.url?.endsWith('/:token') ? 'no-referrer' : 'same-origin';
      // A refused body is not read further: the connection ends with the reply.
      closeAfterReply(req, reply);
      if (err instanceof ApiError) {
        if (err.extra.retryAfter) reply.header('retry-after', String(err.extra.retryAfter));
        // A gallery past its expiry, refused where no page of its own is drawn (favourites): the closed page.
        if (err.code === 'gone' && frame) return helpers.html(reply, 410, render(ClosedPage({ frame })), { personal: true, referrer });
        const title = err.status === 404 ? 'Not found' : err.status === 429 ? 'Too many requests' : 'Request refused';
        return helpers.html(reply, err.status, messagePage({ frame, title, text: err.message }), { personal: true, referrer });
      }
      const status = (err as { statusCode?: number }).statusCode ?? 500;
      if (status >= 400 && status < 500) {
        const text = status === 413 ? 'The form is too large.' : 'The request could not be understood.';
        return helpers.html(reply, status, messagePage({ frame, title: 'Request refused', text }), { personal: true, referrer });
      }
      // The path may hold a sign-in token: only the route's pattern is logged.
      req.log.error({ reqId: req.id, method: req.method, route: req.routeOptions.url, err }, 'website page failed');
      return helpers.html(reply, 500, messagePage({ frame, title: 'Something went wrong', text: `Please try again later (request ${req.id}).` }), { personal: true, referrer });
    });

    siteRoutes(f, helpers, deps);

    // Caddy's on-demand TLS asks here before it gets a certificate for a name a TLS client sent
    // (docs/deploy.md "Automatic HTTPS"): 200 for the verified host name of a website whose owner
    // is not disabled, 404 for anything else, one answer shape, nothing about why.
    f.get('/_tls/ask', async (req, reply) => {
      const domain = (req.query as { domain?: unknown }).domain;
      const ok = typeof domain === 'string' && domain.length <= 253 && TLS_NAME.test(domain) && (await deps.site.tlsAllowed(domain));
      return reply
        .code(ok ? 200 : 404)
        .header('content-type', 'text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .send(ok ? 'ok\n' : 'not found\n');
    });

    f.get('/_site/:name', (req, reply) => {
      const name = (req.params as { name: string }).name;
      const asset = ASSETS.get(name) ?? brandAsset(name);
      if (!asset) return reply.code(404).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send('not found\n');
      const { body, encoding, varies } = encodedAsset(asset, req.headers['accept-encoding']);
      if (encoding) reply.header('content-encoding', encoding);
      if (varies) reply.header('vary', 'accept-encoding');
      return reply
        .header('content-type', asset.type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('etag', `"${asset.name}"`)
        .send(body);
    });
  };
}

/** A name a TLS client may ask a certificate for: DNS labels, no port. */
const TLS_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** A Host header lower-cased, when it is a host name with an optional port. */
function hostOf(header: string | undefined): string | undefined {
  if (!header || header.length > 255) return undefined;
  return /^[a-z0-9.-]+(?::\d{1,5})?$/i.test(header) ? header.toLowerCase() : undefined;
}

/** The pages' policy: nothing inline, images from here (and from the object store when files are there); the favourites script posts to the website itself. */
function contentSecurityPolicy(storageUrl: string | undefined): string {
  return `default-src 'none'; img-src ${imageSources(storageUrl).join(' ')}; style-src 'self'; font-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
}

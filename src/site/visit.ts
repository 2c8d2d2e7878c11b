// A visit: a request below a website's home, once its website is known, the visitor
// budget taken and the pass read. Every page and favourites route of the table
// (routes.ts) is one of these; the sign-in routes find their website themselves.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { closeAfterReply } from '../http/lingering-close.js';
import { pathAndQuery, type SiteAddress } from './address.js';
import type { Addressing, SiteHelpers, WebsiteDeps } from './plugin-deps.js';
import { readPass, readShare } from './signin/pass-cookie.js';
import type { VisitorPass } from './signin/pass.js';

export interface Visit {
  at: SiteAddress;
  /** The path below the home as the visitor sent it (undecoded), without its leading slash. */
  rest: string;
  query: URLSearchParams;
  pass: VisitorPass | undefined;
  /** Names the page in the micro-cache: what names the page, nothing a visitor may vary freely. */
  cacheKey: string;
  /** A HEAD request: nothing is shown, so no view is recorded. */
  head: boolean;
}

export type VisitHandler = (req: FastifyRequest, reply: FastifyReply, v: Visit) => Promise<unknown>;

export const notFound = () => new ApiError('not_found', 'There is nothing at this address.');

/**
 * The visitor's pass, with the share link their share cookie names when it is live now: read from
 * the database at each request (no process remembers it), so a revocation holds at once on every node.
 */
async function passWithShare(deps: WebsiteDeps, cookie: string | undefined, at: SiteAddress): Promise<VisitorPass | undefined> {
  const pass = readPass(deps.passes, cookie, at.website.uuid);
  const link = readShare(deps.passes, cookie);
  const grant = link === undefined ? undefined : await deps.shareLinks.grant(link, at.website.id);
  return grant ? { ...(pass ?? deps.passes.fresh(at.website.uuid)), share: grant } : pass;
}

/** A route handler that sees `handle` the visit: no website there is `by.missing`. */
export function visiting(helpers: SiteHelpers, deps: WebsiteDeps, handle: VisitHandler) {
  return async (req: FastifyRequest, reply: FastifyReply, by: Addressing): Promise<unknown> => {
    const at = await by.find(req);
    if (!at) return by.missing(req, reply);
    await helpers.withinBudget(req);
    const { path, query } = pathAndQuery(req.raw.url);
    const v: Visit = { at, rest: path.slice(at.homePath.length + 1), query, pass: await passWithShare(deps, req.headers.cookie, at), cacheKey: '', head: req.method === 'HEAD' };
    // A body we do not read (not a form) must not stay on the connection.
    if (req.method === 'POST') closeAfterReply(req, reply);
    return handle(req, reply, v);
  };
}

/**
 * A handler for the paths below the home that `accepts` (the path as sent, undecoded): the
 * router matched the decoded path, so `/-%2F…` or `%5F/…` reaches a route whose shape it is not.
 */
export function only(accepts: (rest: string) => boolean, handle: VisitHandler): VisitHandler {
  return (req, reply, v) => {
    if (!accepts(v.rest)) throw notFound();
    return handle(req, reply, v);
  };
}

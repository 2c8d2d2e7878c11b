// The download route of galleries with download controls (docs/delivery.md "Download controls"):
// `GET <home>/_download/<gallery>/<media>?as=comp|full` asks for the PIN when one is set, gives a
// visitor without a pass one (a limit counts per session), shows the limit page when it is spent,
// and sends the visitor on (303) to a signed address stamped with the controls; `POST _download/pin`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { backUnder, cookiePath } from '../address.js';
import { render } from '../pages/layout.js';
import { LimitPage, PinPage } from '../pages/downloads.js';
import type { SiteHelpers, SiteRoute, WebsiteDeps } from '../plugin-deps.js';
import { DOWNLOAD_ROUTE, type Crumb, type Refusal } from '../service.js';
import { passCookie } from '../signin/pass-cookie.js';
import type { VisitorPass } from '../signin/pass.js';
import { notFound, only, visiting, type Visit } from '../visit.js';
import { clientKeyOf, samePin } from './download-controls.js';

const PIN_FORM_BYTES = 4096;
/** Characters of a PIN looked at: anything longer is wrong anyway. */
const MAX_PIN_INPUT = 16;

export function downloadControlRoutes(helpers: SiteHelpers, deps: WebsiteDeps): SiteRoute[] {
  const d = new Downloads(helpers, deps);
  const below = (rest: string) => rest.startsWith(`${DOWNLOAD_ROUTE}/`);
  return [
    { method: 'GET', path: `/${DOWNLOAD_ROUTE}/*`, head: false, handler: visiting(helpers, deps, only(below, (req, reply, v) => d.download(req, reply, v))) },
    { method: 'POST', path: `/${DOWNLOAD_ROUTE}/pin`, bodyLimit: PIN_FORM_BYTES, handler: visiting(helpers, deps, only((rest) => rest === `${DOWNLOAD_ROUTE}/pin`, (req, reply, v) => d.pin(req, reply, v))) },
  ];
}

/** The PIN page and the limit page, also for the archives (pages/routes.ts, favourites). */
export class Downloads {
  constructor(
    private readonly helpers: SiteHelpers,
    private readonly deps: WebsiteDeps,
  ) {}

  pinPage(reply: FastifyReply, v: Visit, o: { gallery: string; galleryName: string; back: string; cancel: string; crumbs: Crumb[]; wrong: boolean }) {
    const page = PinPage({ frame: this.helpers.frameOf(v.at), action: `${v.at.homePath}/${DOWNLOAD_ROUTE}/pin`, ...o });
    return this.helpers.html(reply, 403, render(page), { personal: true });
  }

  limitPage(reply: FastifyReply, v: Visit, o: { galleryName: string; limit: number; back: string; crumbs: Crumb[] }) {
    return this.helpers.html(reply, 403, render(LimitPage({ frame: this.helpers.frameOf(v.at), ...o })), { personal: true });
  }

  /** The visitor's pass, made now (and set) when they have none: a download limit counts per session. */
  passOf(reply: FastifyReply, v: Visit): VisitorPass {
    if (v.pass) return v.pass;
    const pass = this.deps.passes.fresh(v.at.website.uuid);
    reply.header('set-cookie', passCookie(this.deps.passes, pass, cookiePath(v.at), this.deps.config.publicUrl.startsWith('https:')));
    return pass;
  }

  /** Whether the client has no download left in the gallery (a photo they had is free again). */
  async spent(galleryId: number, limit: number | null, pass: VisitorPass, mediaId?: number): Promise<boolean> {
    if (limit === null) return false;
    const key = clientKeyOf(pass);
    if (mediaId !== undefined && (await this.deps.downloads.guard.had(galleryId, key, mediaId))) return false;
    return (await this.deps.downloads.guard.left(galleryId, { pin: null, limit, size: 'original' }, key)) <= 0;
  }

  async download(_req: FastifyRequest, reply: FastifyReply, v: Visit): Promise<unknown> {
    const [, gallery, media, ...more] = v.rest.split('/');
    const as = v.query.get('as');
    if (more.length > 0 || !gallery || !media || (as !== 'comp' && as !== 'full') || [...v.query.keys()].length !== 1) throw notFound();
    const t = await this.deps.site.downloadTarget(v.at, gallery, media, as, v.pass);
    if (t.kind === 'no-rights') throw new ApiError('forbidden', 'This photo offers no download here.');
    if (t.kind !== 'download') return refused(reply, t);
    reply.header('cache-control', 'no-store');
    const here = `${v.at.homePath}/${v.rest}?as=${as}`;
    if (!this.deps.site.pinOpened(v.pass, t.galleryUuid, t.controls.pin)) {
      return this.pinPage(reply, v, { gallery: t.galleryUuid, galleryName: t.galleryName, back: here, cancel: t.back, crumbs: t.crumbs, wrong: false });
    }
    const pass = t.controls.limit === null ? v.pass : this.passOf(reply, v);
    if (pass && (await this.spent(t.galleryId, t.controls.limit, pass, t.mediaId))) {
      return this.limitPage(reply, v, { galleryName: t.galleryName, limit: t.controls.limit!, back: t.back, crumbs: t.crumbs });
    }
    // The file itself is counted by /files when it is fetched (download-guard.ts), not here.
    return reply.code(303).header('location', this.deps.site.signDownload(t, pass)).send();
  }

  async pin(req: FastifyRequest, reply: FastifyReply, v: Visit): Promise<unknown> {
    if (!Buffer.isBuffer(req.body)) throw new ApiError('bad_request', 'The form could not be read.');
    if (!this.helpers.fromOwnSite(req, v.at)) throw new ApiError('forbidden', 'This form can only be sent from the website itself.');
    const form = new URLSearchParams(req.body.toString('utf8'));
    const back = backUnder(v.at.homePath, form.get('back') ?? undefined) ?? `${v.at.homePath}/`;
    const g = await this.deps.site.galleryPin(v.at, form.get('gallery') ?? '', v.pass);
    if (g.kind !== 'pin') return refused(reply, g);
    if (g.pin === null) return reply.code(303).header('location', back).header('cache-control', 'no-store').send();
    const throttle = this.deps.downloads.pinThrottle;
    // Counted before the comparison, so simultaneous guesses cannot all be checked.
    const taken = await throttle.take(g.uuid, req.ip, v.pass?.id);
    if (!taken.ok) throw new ApiError('rate_limited', `Too many wrong PINs: please wait ${taken.retryAfterSeconds} seconds and try again.`, { retryAfter: taken.retryAfterSeconds });
    const given = (form.get('pin') ?? '').trim().slice(0, MAX_PIN_INPUT);
    if (samePin(given, g.pin)) {
      await throttle.succeeded(g.uuid, req.ip, v.pass?.id);
      const pass = this.deps.passes.withPin(v.pass ?? this.deps.passes.fresh(v.at.website.uuid), g.uuid, this.deps.site.pinEntry(g.uuid, g.pin));
      reply.header('set-cookie', passCookie(this.deps.passes, pass, cookiePath(v.at), this.deps.config.publicUrl.startsWith('https:')));
      return reply.code(303).header('location', back).header('cache-control', 'no-store').send();
    }
    const cancel = g.crumbs.length > 0 ? g.crumbs[g.crumbs.length - 1].href : `${v.at.homePath}/`;
    return this.pinPage(reply, v, { gallery: g.uuid, galleryName: g.name, back, cancel, crumbs: g.crumbs, wrong: true });
  }
}

/** A download asked where the gallery is not the visitor's to see: its page says why (password, sign-in, closed). */
function refused(reply: FastifyReply, r: Refusal) {
  if (r.kind === 'closed') throw new ApiError('gone', 'This gallery has closed.');
  if (r.kind === 'password' || r.kind === 'signin') return reply.code(303).header('location', r.back).header('cache-control', 'no-store').send();
  throw notFound();
}

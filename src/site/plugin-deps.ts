// What the website plugin (plugin.ts) is built with (WebsiteDeps), what it hands
// every route (SiteHelpers), and the shape of a route of the one table (routes.ts).
import type { FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Encoded } from '../core/content-coding.js';
import type { ActivityService } from '../activity/service.js';
import type { Config } from '../config.js';
import type { SiteAddress } from './address.js';
import type { SiteArchives } from './delivery/archives.js';
import type { VisitorBudget } from './limits/budget.js';
import type { LightboxesService } from '../lightboxes/service.js';
import type { Mailer } from '../mail/mailer.js';
import type { SiteFrame } from './pages/signin.js';
import type { PassCodec } from './signin/pass.js';
import type { SiteService } from './service.js';
import type { SignInService, VisitorLinks } from './signin/service.js';
import type { PasswordThrottle, PinThrottle } from './limits/throttle.js';
import type { DownloadGuard } from './delivery/download-guard.js';
import type { OrdersService } from '../orders/service.js';
import type { StripePayments } from '../payments/stripe.js';
import type { OfferedList } from '../shop/offer.js';
import type { ShareLinksService } from '../share-links/service.js';

export interface WebsiteDeps {
  /** Share links per recipient (docs/integrations.md "Share links"), read at each visit. */
  shareLinks: Pick<ShareLinksService, 'grant' | 'opening' | 'countView' | 'passwordMatches'>;
  site: SiteService;
  links: VisitorLinks;
  signIn: SignInService;
  passes: PassCodec;
  /** Clients' selections (favourites, docs/delivery.md): lightboxes of the photographer. */
  lightboxes: LightboxesService;
  /** Mails the photographer when a client sends a selection. */
  mailer: Pick<Mailer, 'sendSelection'>;
  /** Wrong gallery passwords per address (limits/throttle.ts), shared through Redis when set. */
  passwordThrottle: PasswordThrottle;
  /** Visitor requests per address (VISITOR_RATE_LIMIT): pages, the password form, the sign-in GETs. */
  budget: VisitorBudget;
  /** Records what visitors did (docs/delivery.md "Activity"): here, the views of galleries. */
  activity: Pick<ActivityService, 'record'>;
  /** A gallery's download controls (docs/delivery.md): the ledger of downloads per client, wrong PINs. */
  downloads: { guard: Pick<DownloadGuard, 'had' | 'left'>; pinThrottle: PinThrottle };
  /** Archives of a gallery's photos (delivery/archives.ts): one at a time per visitor. */
  archives: SiteArchives;
  /** How long a page for a visitor without a pass is served from memory; 0: never. */
  cacheSeconds: number;
  /** The shop (docs/shop.md "On the website"): carts and orders, card payments, a media's offer. */
  shop: {
    orders: OrdersService;
    stripe: Pick<StripePayments, 'isConfigured' | 'checkout'>;
    offer(ownerId: number, mediaUuid: string): Promise<OfferedList[]>;
    /** Which of these medias a list of `kinds` offers something of (one query: a gallery page's viewer). */
    forSale(ownerId: number, mediaUuids: readonly string[], kinds: readonly string[]): Promise<Set<string>>;
    /** The origin of the card provider's checkout pages: the checkout form's redirect ends there (CSP form-action). */
    checkoutOrigin: string;
  };
  /** PUBLIC_URL is read at each request (it may be settled after start). */
  config: Pick<Config, 'publicUrl' | 'storageUrl'>;
}

/**
 * `no-referrer` on the pages at a sign-in token's address (the token must not travel on);
 * elsewhere `same-origin`: under `no-referrer` a browser posts a form with `Origin: null`,
 * which the origin checks refuse.
 */
export type Referrer = 'same-origin' | 'no-referrer';

export interface HtmlOptions {
  /** Search engines may index it (else `X-Robots-Tag: noindex`). */
  indexable?: boolean;
  /** A page made for this visitor alone (sign-in, a refusal of a form): stored nowhere. */
  personal?: boolean;
  referrer?: Referrer;
  /** Origins beyond the site's own that this page's forms may end at (the card provider's checkout, reached by redirect). */
  formTargets?: string[];
}

/** What the website's routes share, made once per plugin. */
export interface SiteHelpers {
  /**
   * The one HTML sender: every page of the website goes out with these headers, compressed when
   * the visitor takes it. A page kept `Encoded` (the micro-cache's) is compressed once per copy
   * and carries an ETag per coding (a 304 to a match); any other page is compressed for its request.
   */
  html(reply: FastifyReply, status: number, body: string | Buffer | Encoded, options?: HtmlOptions): FastifyReply;
  /** The website's frame (its name linking home); a neutral one when no website is known. */
  frameOf(at: SiteAddress | undefined): SiteFrame;
  /** The website a request names by its urlname (`/sites/<urlname>`), remembered for its error pages. */
  byUrlname(req: FastifyRequest, urlname: string): Promise<SiteAddress | undefined>;
  /** The website at the request's Host, remembered for its error pages. */
  byHost(req: FastifyRequest): Promise<SiteAddress | undefined>;
  /**
   * Whether a form post comes from the website itself (its announced home, the service's own
   * address, or the address it was posted to): a cross-site page may not post in a visitor's name.
   */
  fromOwnSite(req: FastifyRequest, at: SiteAddress): boolean;
  /** Takes one request of the visitor budget: a 429 page (thrown) when it is spent. */
  withinBudget(req: FastifyRequest): Promise<void>;
}

/**
 * How a route finds its website: by the urlname in its path (`/sites/<urlname>/…`), or by the
 * request's Host (a website at its own host name). Two of them, made once per plugin.
 */
export interface Addressing {
  /** What every path of the table is served under: `/sites/:urlname`, or '' at a website's own host. */
  prefix: string;
  /** The website the request names, remembered for its error pages; undefined when none. */
  find(req: FastifyRequest): Promise<SiteAddress | undefined>;
  /** A page's answer when no website is there: a 404 page under `/sites/` (the budget taken), the API's own 404 at another host. */
  missing(req: FastifyRequest, reply: FastifyReply): Promise<unknown>;
}

/**
 * One path of the website, written once below a home: served at `/sites/<urlname><path>` and at
 * `<path>` on a website's own host name.
 */
export interface SiteRoute {
  method: HTTPMethods | HTTPMethods[];
  /** Below the home, starting with `/`: `/`, `/robots.txt`, `/-/*`. */
  path: string;
  bodyLimit?: number;
  /** false: no HEAD beside the GET (a link checker must not use a sign-in link up). */
  head?: false;
  handler(req: FastifyRequest, reply: FastifyReply, by: Addressing): Promise<unknown>;
}

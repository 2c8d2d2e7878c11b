// The composition root (docs/architecture.md, "Composition root"): every dependency is built here,
// once, eagerly, handed typed to what uses it, and closed in reverse order. Wiring only: what a
// part does is its feature's. What brings heavy libraries (fastify, sharp, file-type, exifr) is
// imported when buildApp runs (loadHeavy): the admin command line imports this for buildCore alone.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import type { Config } from './config.js';
import { Access } from './access/access.js';
import { ActivityRepository } from './activity/repository.js';
import { activityRoutes } from './activity/routes.js';
import { ActivityService } from './activity/service.js';
import { GalleryClients } from './galleries/clients.js';
import { invitationRoutes } from './invitations/routes.js';
import { invitationLimits, InvitationsService, type InvitationThrottles } from './invitations/service.js';
import { InvitationDeliveriesRepository } from './invitations/repository.js';
import { MailBrands } from './site/mail-brand.js';
import type { MailBrand } from './mail/shell.js';
import { AccessRepository } from './access/repository.js';
import { AppsRepository } from './apps/repository.js';
import { AppsService } from './apps/service.js';
import { ArtistsRepository } from './artists/repository.js';
import { artistRoutes } from './artists/routes.js';
import { ArtistsService } from './artists/service.js';
import { WatermarkFiles } from './artists/watermark-files.js';
import { GalleriesRepository } from './galleries/repository.js';
import { ExpiryReminders } from './galleries/expiry-reminders.js';
import { expiryReminderMessage } from './mail/messages.js';
import { galleryRoutes } from './galleries/routes.js';
import { GalleriesService } from './galleries/service.js';
import { GroupsRepository } from './groups/repository.js';
import { GroupsService } from './groups/service.js';
import { AppKeys } from './http/app-keys.js';
import { Authenticator } from './users/auth.js';
import { LoginThrottle } from './users/login-throttle.js';
import { createEach, createLimiterFactory } from './http/limiter-store.js';
import { RateLimit } from './http/rate-limit.js';
import { installOpenApiRoute } from './http/openapi.js';
import { ApiRouter, type RouteSpec } from './http/router.js';
import { purgeSessions, SessionStore } from './users/sessions.js';
import { PeriodicTask } from './jobs/periodic.js';
import { CleanupSweep, sweepIntervalMs, type SweepPart, type SweepResult } from './jobs/sweep.js';
import { jobRoutes } from './jobs/routes.js';
import { JobsRepository } from './jobs/repository.js';
import { JobQueue } from './jobs/service.js';
import { JobWorker } from './jobs/worker.js';
import { jobHandlers, type JobHandler } from './jobs/handlers.js';
import { LightboxesRepository } from './lightboxes/repository.js';
import { LightboxesService, type SelectionEvent } from './lightboxes/service.js';
import { lightboxRoutes } from './lightboxes/routes.js';
import { changeRoutes } from './changes/routes.js';
import { ChangesRepository } from './changes/repository.js';
import { ChangesService } from './changes/service.js';
import { pricingProfileRoutes } from './pricing-profiles/routes.js';
import { MediaRepository } from './media/repository.js';
import { PricingProfilesRepository } from './pricing-profiles/repository.js';
import { PricingProfilesService } from './pricing-profiles/service.js';
import { OrdersRepository } from './orders/repository.js';
import { OrderMails } from './orders/mails.js';
import { OrdersService } from './orders/service.js';
import { orderRoutes } from './orders/routes.js';
import { CouponsRepository } from './coupons/repository.js';
import { couponRoutes } from './coupons/routes.js';
import { CouponsService } from './coupons/service.js';
import { ShopSettingsRepository } from './shop-settings/repository.js';
import { shopSettingsRoutes } from './shop-settings/routes.js';
import { ShopSettingsService } from './shop-settings/service.js';
import { PaymentAccountsRepository } from './payments/repository.js';
import { paymentRoutes } from './payments/routes.js';
import { checkoutOrigin, StripePayments } from './payments/stripe.js';
import { DeliveriesRepository } from './orders/repository.js';
import { Delivery, DELIVERY_JOB_KIND } from './orders/delivery.js';
import { downloadRoutes } from './orders/downloads.js';
import { PrintFulfilment } from './orders/fulfilment.js';
import { PrintLinks } from './orders/sheet.js';
import { RenditionsRepository } from './renditions/repository.js';
import { chooseFfmpeg, ffmpegVersion } from './renditions/ffmpeg.js';
import { FileUrls } from './file-storage/file-urls.js';
import { VisitorAccess } from './site/access.js';
import { fileRoutes } from './site/delivery/files.js';
import { SiteRepository } from './site/repository.js';
import { websitePlugin } from './site/plugin.js';
import { StudioBudget } from './studio/budget.js';
import { studioPlugin } from './studio/plugin.js';
import { SiteService } from './site/service.js';
import { DeletionsRepository } from './file-storage/deletions-repository.js';
import { FileDeletions } from './file-storage/file-deletions.js';
import type { StorageBackend } from './file-storage/backend.js';
import { createStorage } from './file-storage/factory.js';
import { ensurePrivateDir } from './core/private-files.js';
import { loadUploadSecret } from './file-storage/secret.js';
import { tempDirOf } from './file-storage/temp-file.js';
import { migrate, openStore, type Store } from './database/db.js';
import type { Unit } from './database/unit-of-work.js';
import { UploadsRepository } from './uploads/repository.js';
import { ResumableUploadsRepository } from './resumable-uploads/repository.js';
import { ResumableUploadsService } from './resumable-uploads/service.js';
import { QuotaRepository } from './uploads/quota-repository.js';
import { StorageQuota } from './uploads/quota.js';
import { redisTusLocker } from './resumable-uploads/tus-locker.js';
import { tusEndpoint, tusFiles } from './resumable-uploads/tus-endpoint.js';
import { SameFiles } from './media/same-files.js';
import { uploadRoutes } from './uploads/routes.js';
import { UsersRepository } from './users/repository.js';
import { sessionRoutes } from './users/routes.js';
import { UsersService } from './users/service.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { PassCodec } from './site/signin/pass.js';
import { VisitorsRepository } from './site/signin/repository.js';
import { SignInService, VisitorLinks } from './site/signin/service.js';
import { VisitorBudget } from './site/limits/budget.js';
import { SiteArchives } from './site/delivery/archives.js';
import { LinkThrottle, PasswordThrottle, PinThrottle } from './site/limits/throttle.js';
import { DownloadGuard } from './site/delivery/download-guard.js';
import { DownloadsRepository } from './site/delivery/downloads-repository.js';
import { WebsitesRepository } from './websites/repository.js';
import { websiteRoutes } from './websites/routes.js';
import { WebsitesService } from './websites/service.js';
import { ownHosts, systemResolver, type TxtResolver } from './websites/hostnames.js';
import { localExclusive, redisExclusive } from './ops/sweep-lock.js';
import { installHealthRoutes, Readiness } from './ops/health.js';
import type { Metrics } from './ops/metrics.js';
import { checkScaleOut, dutiesOf } from './ops/roles.js';
import { pingStore } from './database/health.js';
import type { Server as NodeHttpServer } from 'node:http';
import { SecretBox } from './payments/secrets.js';
import { WebhooksRepository } from './webhooks/repository.js';
import { ShareLinksRepository } from './share-links/repository.js';
import { redactPath } from './http/redact.js';
import { ShareLinksService } from './share-links/service.js';
import { shareLinkRoutes } from './share-links/routes.js';
import { WebhooksService } from './webhooks/service.js';
import { webhookRoutes } from './webhooks/routes.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { WebhookSender } from './webhooks/sender.js';
import { webhookDisabledMessage } from './mail/messages.js';

/**
 * The store and the services that need neither HTTP nor background work:
 * what the admin command line runs on, and what the service builds on.
 */
export interface Core {
  store: Store;
  access: Access;
  /** What the HTTP layer reads on every request: sessions and logins, application keys. */
  repositories: { users: UsersRepository; apps: AppsRepository };
  users: UsersService;
  apps: AppsService;
  websites: WebsitesService;
  artists: ArtistsService;
  /** Watermark images in the object store, and this node's copies of them (the renditions draw them). */
  watermarkFiles: WatermarkFiles;
  lightboxes: LightboxesService;
  pricingProfiles: PricingProfilesService;
  /** Carts and orders (docs/shop.md "Orders"). */
  orders: OrdersService;
  /** A website's coupons and its tax and terms (docs/shop.md "Coupons, taxes and terms"). */
  coupons: CouponsService;
  shopSettings: ShopSettingsService;
  /** Card payments through the photographer's Stripe account (docs/shop.md "Card payments"). */
  stripe: StripePayments;
  /** Visitors' sign-in links (the admin command line hands them out too). */
  visitorLinks: VisitorLinks;
  /** What clients did (docs/delivery.md "Activity"): the one place every part records to. */
  activity: ActivityService;
  /** Client entries added to access lists after a gallery's creation (invitations). */
  galleryClients: GalleryClients;
  /** Signed webhooks (docs/integrations.md "Webhooks"): endpoints, their log, and the emitter every feature writes events through. */
  webhooks: WebhooksService;
  mailBrands: MailBrands;
  /** Share links per recipient (docs/integrations.md "Share links"): read from the database at each visit. */
  shareLinks: ShareLinksService;
  /** Closes the store. */
  close(): Promise<void>;
}

/** The outside boundaries the composition root may be given instead of the real ones (tests). */
export interface Seams {
  /** DNS TXT lookups of the host names' proofs; default: node's resolver. */
  resolver?: TxtResolver;
}

/** Opens and migrates the store and builds the services on it; starts nothing. */
export async function buildCore(
  config: Pick<Config, 'dataDir' | 'databaseUrl'> & Partial<Pick<Config, 'publicUrl' | 'visitors' | 'activityRetentionDays' | 'payments' | 'storageUrl' | 'storageCredentials' | 'reservedHostnames'>>,
  // The admin command line's stdout is its answer: what the services log goes to stderr.
  log: Logger = pino({ level: 'warn' }, pino.destination(2)),
  /** The service's object store; without it, one is made from STORAGE_URL when first needed (an image watermark) and closed with the core. */
  storage?: StorageBackend,
  seams: Seams = {},
): Promise<Core> {
  let ownStorage: Promise<StorageBackend> | undefined;
  const storageOf = storage ? () => Promise.resolve(storage) : () => (ownStorage ??= createStorage(config));
  const watermarkFiles = new WatermarkFiles(storageOf, config.dataDir);
  const store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    await migrate(store);
  } catch (err) {
    await store.close();
    throw err;
  }
  const access = new Access(new AccessRepository(store.db));
  const users = new UsersRepository(store.db);
  const apps = new AppsRepository(store.db);
  const visitorLinks = new VisitorLinks(new VisitorsRepository(store.db), config);
  const payments = config.payments ?? { secretsKey: undefined, stripeApiBase: 'https://api.stripe.com' };
  // Endpoints' signing secrets are sealed with the payments' key when there is one (src/payments/secrets.ts).
  const webhooks = new WebhooksService(new WebhooksRepository(store), payments.secretsKey ? new SecretBox(payments.secretsKey) : undefined);
  const activity = new ActivityService(new ActivityRepository(store.db), access, log, { retentionDays: config.activityRetentionDays ?? 400 }, [
    // A client's data on request: their sign-in links go with their activity (docs/delivery.md).
    { name: 'signin_links', forget: (ownerId, email) => visitorLinks.forgetAddress(ownerId, email) },
  ]);
  // Picks, unpicks and a sent selection are what clients did (docs/delivery.md "Activity"); their selections are their data too.
  const selectionActivity = (kind: 'pick' | 'unpick' | 'sent') => (e: SelectionEvent) =>
    activity.record({ gallery: e.galleryId, client: e.client.email ? { email: e.client.email, verified: e.client.verified } : null, kind, mediaId: e.mediaId ?? null });
  const lightboxes = new LightboxesService(new LightboxesRepository(store.db), access, {
    onPick: selectionActivity('pick'),
    onUnpick: selectionActivity('unpick'),
    onSent: selectionActivity('sent'),
    // Written with the sending itself: a selection is sent exactly when its event exists.
    sentIn: (unit, e) => webhooks.emitIn(unit, 'selection.sent', { lightbox: e.lightboxId, extra: { count: e.count } }),
  });
  activity.addEraser({ name: 'selections', forget: (ownerId, email) => lightboxes.forgetClient(ownerId, email) });
  const pricingProfiles = new PricingProfilesService(new PricingProfilesRepository(store.db), access);
  const orders = new OrdersService(new OrdersRepository(store.db), pricingProfiles, {
    // Webhook events with their change (docs/integrations.md "Webhooks"): an order exactly when its order.created, a sale's change with its gallery.updated.
    placedIn: (unit, id) => webhooks.emitIn(unit, 'order.created', { order: id }),
    saleChangedIn: (unit, galleryId) => webhooks.emitIn(unit, 'gallery.updated', { gallery: galleryId }),
  });
  const stripe = new StripePayments(new PaymentAccountsRepository(store.db), orders, { ...payments, publicUrl: () => config.publicUrl ?? '' }, log);
  orders.setHooks({ refund: (ownerId, payment) => stripe.refund(ownerId, payment) });
  // A buyer's data on request goes with the client's activity (docs/shop.md "Privacy").
  activity.addEraser({ name: 'orders', forget: (ownerId, email) => orders.forgetBuyer(ownerId, email) });
  return {
    store,
    access,
    repositories: { users, apps },
    users: new UsersService(users),
    apps: new AppsService(apps),
    // The service's own host names are read at each use: PUBLIC_URL may be settled after start.
    websites: new WebsitesService(new WebsitesRepository(store.db), access, { own: () => ownHosts(config), resolver: seams.resolver ?? systemResolver() }),
    // sharp is loaded when a preview is first drawn, not at start: the admin command line's commands start without it.
    artists: new ArtistsService(new ArtistsRepository(store.db, new DeletionsRepository(store.db)), access, config.dataDir, watermarkFiles, async (...args) =>
      (await import('./renditions/ladder.js')).watermarkPreview(...args),
    ),
    watermarkFiles,
    lightboxes,
    pricingProfiles,
    orders,
    coupons: new CouponsService(new CouponsRepository(store.db), access),
    shopSettings: new ShopSettingsService(new ShopSettingsRepository(store.db), access),
    stripe,
    visitorLinks,
    activity,
    galleryClients: new GalleryClients(new GalleriesRepository(store.db, store.dialect), access, webhooks),
    webhooks,
    // The website's brand in its clients' and buyers' mails (docs/delivery.md "Mails").
    mailBrands: new MailBrands(new SiteRepository(store.db), config),
    shareLinks: new ShareLinksService(new ShareLinksRepository(store.db), access, () => config.publicUrl ?? ''),
    close: async () => {
      await activity.idle();
      await store.close();
      if (ownStorage) (await ownStorage.catch(() => undefined))?.close?.();
    },
  };
}

export interface App {
  fastify: FastifyInstance;
  store: Store;
  /** Sessions (tests sign users in without a login). */
  sessions: SessionStore;
  /** Signs upload policies and raw-upload URLs. */
  uploadSecret: Buffer;
  galleries: GalleriesService;
  /** The services the admin command line uses too (tests create their users, websites and applications through them). */
  core: Core;
  /** Every route the service declares, in the order they were declared. */
  routes: readonly RouteSpec[];
  /** This process's job worker. */
  worker: JobWorker;
  /** Photographers' invitations (docs/delivery.md "Invitations"). */
  invitations: InvitationsService;
  /** The visitors' side: sign-in by mail, the pass, the password throttle (for the website's password form). */
  visitors: { signIn: SignInService; links: VisitorLinks; passCodec: PassCodec; passwordThrottle: PasswordThrottle; mailer: Mailer };
  /** Runs the cleanup sweep once, as the periodic task does, as if it were `now`. */
  sweep(now?: Date): Promise<SweepResult>;
  /** Stops accepting connections, finishes requests in flight, stops background work, closes every dependency. */
  close(): Promise<void>;
  /** Running at scale (src/ops): readiness (drained at SIGTERM), metrics when configured. */
  ops: AppOps;
}

export interface AppOps {
  readiness: Readiness;
  /** Present when METRICS_PORT or METRICS_TOKEN is set. */
  metrics?: Metrics;
  /** The METRICS_PORT listener, once listening. */
  metricsServer?: NodeHttpServer;
}

/** The service's logger: secrets and query strings (upload URLs carry their authorisation there) never reach it. */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({
    level: config.logLevel,
    redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-service-authorization"]', 'res.headers["set-cookie"]'],
    serializers: {
      req: (r: { method: string; url: string; id: string }) => ({ method: r.method, path: redactPath((r.url ?? '').split('?')[0]), id: r.id }),
    },
  });
}

export type { SweepResult } from './jobs/sweep.js';

/** The studio's uploads of one user not ended yet: a browser sends 3 at a time; reloads and cuts leave a few more. */
const RESUMABLE_OPEN_PER_USER = 24;

type Closers = Array<() => unknown>;

/** The modules only buildApp uses that bring heavy libraries (fastify, sharp, file-type, exifr): loaded when it runs. */
async function loadHeavy() {
  const [{ createHttpServer }, { MediaService }, { mediaRoutes }, { groupRoutes }, { RenditionsService }, { UploadsService }, { FileLife }] = await Promise.all([
    import('./http/server.js'),
    import('./media/service.js'),
    import('./media/routes.js'),
    import('./groups/routes.js'),
    import('./renditions/service.js'),
    import('./uploads/service.js'),
    import('./media/file-life.js'),
  ]);
  return { createHttpServer, MediaService, mediaRoutes, groupRoutes, RenditionsService, UploadsService, FileLife };
}

export async function buildApp(config: Config, log: Logger = createLogger(config), seams: Seams = {}): Promise<App> {
  // Closed in reverse order; whatever was built before a failure is closed too.
  const closers: Closers = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    // A scaled-out process with node-local state stops here, before it touches anything.
    checkScaleOut(config);
    const duties = dutiesOf(config.ops.role);
    const heavy = await loadHeavy();
    // The store is built here, not on first use: a bad STORAGE_URL stops the service at start.
    ensurePrivateDir(config.dataDir);
    const storage = await createStorage(config);
    closers.push(() => storage.close?.());
    const core = await buildCore(config, log, storage, seams);
    closers.push(() => core.close());
    const front = await buildFront(config, log, core, closers);
    const library = await buildLibrary(config, log, core, storage, front, duties, heavy, closers);
    const visitors = buildVisitors(config, log, core, front, closers);
    const webhookLane = buildWebhooks(config, log, core, visitors.mailer, duties, closers);
    const shop = buildShop(config, log, core, storage, library, visitors, front, () => webhookLane.wake());
    const worker = library.startWorker([shop.jobHandler]);
    const { media, galleries, groups, uploads, jobs } = library;

    const routes: RouteSpec[] = [
      ...sessionRoutes({ sessions: front.sessions, secureCookies: front.secureCookies }),
      ...websiteRoutes({ websites: core.websites, config }),
      ...artistRoutes({ artists: core.artists }),
      ...galleryRoutes(galleries),
      ...uploadRoutes(uploads),
      ...heavy.mediaRoutes(media),
      ...heavy.groupRoutes(groups),
      ...jobRoutes({ jobs }),
      ...activityRoutes(core.activity),
      ...invitationRoutes(visitors.invitations, (user, uuid) => core.activity.galleryOf(user, uuid)),
      ...lightboxRoutes({ lightboxes: core.lightboxes }),
      ...pricingProfileRoutes({ pricingProfiles: core.pricingProfiles }),
      ...orderRoutes({ orders: core.orders }),
      ...couponRoutes({ coupons: core.coupons }),
      ...shopSettingsRoutes({ shopSettings: core.shopSettings }),
      ...paymentRoutes({ stripe: core.stripe }),
      ...changeRoutes(new ChangesService(new ChangesRepository(core.store.db, core.store.dialect))),
      ...webhookRoutes({ webhooks: core.webhooks }),
      ...shareLinkRoutes({ shareLinks: core.shareLinks }),
    ];
    const router = new ApiRouter();
    // A worker answers only health and metrics.
    if (duties.serve) for (const route of routes) router.add(route);

    // The cleanup sweep: each feature's part (sweepParts); temporary files of a crashed process go before this one serves.
    const sweep = new CleanupSweep(sweepParts(config, core, library, visitors.mailer, log), log);
    await sweep.run(new Date(), 'local');
    const cleanup = sweep.start(sweepIntervalMs(config.uploadExpirySeconds), duties.work, front.exclusive);
    closers.push(() => cleanup.stop());
    if (duties.work) {
      const sessionPurge = new PeriodicTask('session purge', config.sessionPurgeSeconds * 1000, () => front.exclusive.run('session-purge', () => purgeSessions(front.users, log)), log);
      sessionPurge.start();
      closers.push(() => sessionPurge.stop());
    }

    const { ops, extensions } = await buildOps(config, log, core.store, storage, front, library.metrics, closers);
    const http = heavy.createHttpServer({
      config,
      log,
      appKeys: front.appKeys,
      authenticator: front.authenticator,
      rateLimit: front.rateLimit,
      router,
      // The API's description, from the same route tables (docs/api.md "OpenAPI").
      extensions: duties.serve ? [...extensions, (f: FastifyInstance) => installOpenApiRoute(f, routes)] : extensions,
      plainRoutes: duties.serve ? [fileRoutes({ access: library.visitorAccess, storage, urls: library.fileUrls, budget: visitors.fileBudget, activity: core.activity, shareLinks: core.shareLinks, guard: library.downloadGuard }), downloadRoutes({ repo: shop.deliveries, storage, links: shop.printLinks })] : [],
    });
    closers.push(() => http.close());
    if (duties.serve) await registerFaces(http.fastify, config, log, core, storage, front, library, visitors);

    let closed: Promise<void> | undefined;
    return {
      fastify: http.fastify,
      store: core.store,
      sessions: front.sessions,
      uploadSecret: front.uploadSecret,
      galleries,
      invitations: visitors.invitations,
      core,
      routes,
      worker,
      visitors: { signIn: visitors.signIn, links: core.visitorLinks, passCodec: visitors.passCodec, passwordThrottle: visitors.passwordThrottle, mailer: visitors.mailer },
      sweep: (now?: Date) => sweep.run(now),
      ops,
      close: () => (closed ??= closeAll()),
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** Who is calling, and how often: the upload secret, limiters, sessions, logins, application keys, the sweeps' lock. */
async function buildFront(config: Config, log: Logger, core: Core, closers: Closers) {
  const uploadSecret = loadUploadSecret(config);
  const limiters = await createLimiterFactory(config.redisUrl, config.redisPrefix);
  closers.push(() => limiters.close());
  const users = core.repositories.users;
  // With REDIS_URL, other nodes end sessions too: no cache, so their logouts hold here at once.
  const sessions = new SessionStore(users, config.redisUrl ? 0 : undefined);
  // Each sweep runs on one worker at a time.
  const exclusive = config.redisUrl ? await redisExclusive(config.redisUrl, { prefix: config.redisPrefix }) : localExclusive();
  closers.push(() => exclusive.close());
  const appKeys = new AppKeys(core.repositories.apps);
  core.apps.onRevoked((key) => appKeys.forget(key));
  core.users.onDisabledChange((userId) => appKeys.forgetOwner(userId));
  const secureCookies = config.publicUrl.startsWith('https:');
  const loginThrottle = new LoginThrottle(limiters, users, uploadSecret, (err) => log.error({ err }, 'login-throttle store unavailable; login let through'));
  const authenticator = new Authenticator(users, sessions, loginThrottle, secureCookies);
  const rateLimit = config.rateLimit ? new RateLimit(config.rateLimit, limiters, (err) => log.error({ err }, 'rate-limit store unavailable; request let through')) : null;
  return { uploadSecret, limiters, users, sessions, exclusive, appKeys, secureCookies, authenticator, rateLimit };
}
type Front = Awaited<ReturnType<typeof buildFront>>;

/** The library: files, uploads, renditions, media, groups, galleries, the studio's resumable uploads, the job queue and this process's worker. */
async function buildLibrary(config: Config, log: Logger, core: Core, storage: StorageBackend, front: Front, duties: Duties, heavy: Heavy, closers: Closers) {
  const { store, access } = core;
  if (storage.kind === 'local') ensurePrivateDir(join(config.dataDir, 'media'));
  const tmpDir = tempDirOf(config.dataDir);
  ensurePrivateDir(tmpDir);
  const jobsRepo = new JobsRepository(store);
  // The worker is built below, once its handlers exist; enqueueing wakes it.
  let worker: JobWorker | undefined;
  const jobs = new JobQueue(jobsRepo, () => worker?.wake());

  // Uploads, media and groups, on the storage's bookkeeping of files to remove.
  const deletions = new DeletionsRepository(store.db);
  const fileDeletions = new FileDeletions(storage, deletions, log);
  const uploadsRepo = new UploadsRepository(store.db, deletions);
  const quota = new StorageQuota(new QuotaRepository(store.db, store.dialect), config);
  const uploads = new heavy.UploadsService(uploadsRepo, storage, fileDeletions, { secret: front.uploadSecret, tmpDir, config }, quota);
  // Read at each use: the public URL may be set once the port is known.
  const fileUrls = new FileUrls(front.uploadSecret, () => config.publicUrl);
  const renditionsWork = join(config.dataDir, 'renditions-work');
  ensurePrivateDir(renditionsWork);
  const ffmpeg = chooseFfmpeg(config.renditions.ffmpegPath);
  if (duties.work) {
    // Which decoder of hostile videos this worker runs, for whoever keeps it patched.
    const version = await ffmpegVersion(ffmpeg);
    if (version) log.info({ ffmpeg: ffmpeg.path, source: ffmpeg.source, version }, 'video frames by ffmpeg');
    else log.warn({ ffmpeg: ffmpeg.path, source: ffmpeg.source }, 'ffmpeg does not run: videos will get no poster frame');
  }
  // prom-client (~13 MiB of memory) is loaded only when metrics are asked for.
  const metrics = config.ops.metricsPort !== undefined || config.ops.metricsToken ? new (await import('./ops/metrics.js')).Metrics({ queue: () => jobs.stats(), pool: store.poolStats }) : undefined;
  const renditionsRepo = new RenditionsRepository(store.db);
  // Who may see what on the websites: one decision over one chain loader, for the pages, the sitemap and /files alike.
  const siteRepo = new SiteRepository(store.db);
  const visitorAccess = new VisitorAccess(siteRepo, fileUrls, core.shareLinks);
  // A gallery's download controls (docs/delivery.md): the ledger a download limit is enforced against.
  const downloadsRepo = new DownloadsRepository(store.db);
  const downloadGuard = new DownloadGuard(downloadsRepo, fileUrls);
  // A client's download ledger goes with their activity on request (docs/delivery.md "A client's data on request").
  core.activity.addEraser({ name: 'downloads', forget: (ownerId, email) => downloadsRepo.forgetClient(ownerId, email) });
  const renditions = new heavy.RenditionsService(renditionsRepo, storage, fileDeletions, deletions, fileUrls, log, {
    workDir: renditionsWork,
    watermarkFiles: core.watermarkFiles,
    timeoutSeconds: config.renditions.timeoutSeconds,
    avif: config.renditions.avif,
    ffmpeg,
    onWatermarkDecode: metrics ? () => metrics.watermarkDecoded() : undefined,
    events: core.webhooks,
  });
  // Before the worker starts: what a crashed job left behind.
  await renditions.sweepWork();
  const mediaRepo = new MediaRepository(store.db, store.dialect);
  // The one owner of a media file's life (publication, replacement, abandonment, deletion, sweep).
  const fileLife = new heavy.FileLife(store.db, { medias: mediaRepo, uploads: uploadsRepo, renditions: renditionsRepo, jobs: jobsRepo, deletions }, fileDeletions, jobs, config, core.webhooks);
  const groupsRepo = new GroupsRepository(store.db, store.dialect);
  const media = new heavy.MediaService(mediaRepo, fileLife, uploads, access, groupsRepo, jobs, log, renditions, core.webhooks);
  const groups = new GroupsService(groupsRepo, media, fileLife, access);
  const galleries = new GalleriesService(new GalleriesRepository(store.db, store.dialect), access, fileLife, config.galleryListCap, core.webhooks);
  // The studio's resumable uploads (tus): received under DATA_DIR, or in the bucket with S3, ended through the file's life (src/resumable-uploads/service.ts).
  const tusReceived = await tusFiles(config.dataDir, config.uploadExpirySeconds, storage);
  closers.push(() => tusReceived.close?.());
  // With REDIS_URL (several API nodes), one upload's requests are ordered across nodes, not only
  // within this process; closed after the HTTP server, once its requests have ended.
  const tusLocker = duties.serve && config.redisUrl ? await redisTusLocker(config.redisUrl, log, { prefix: config.redisPrefix }) : undefined;
  if (tusLocker) closers.push(() => tusLocker.close());
  const sameFiles = new SameFiles(mediaRepo, (key, size) => uploads.digestOf(key, size));
  const resumable = new ResumableUploadsService(new ResumableUploadsRepository(store.db), { uploads, fileLife, sameFiles, access, quota }, tusReceived, { maxOpenPerUser: RESUMABLE_OPEN_PER_USER, config }, log);

  /** Background work, after migrations and before the first request: each feature hands in its job handler (startWorker). */
  const startWorker = (handlers: ReadonlyArray<readonly [string, JobHandler<any>]>) => {
    const jobWorker = (worker = new JobWorker(jobsRepo, log, jobHandlers([media.jobHandler(), renditions.jobHandler(), ...handlers], metrics), config.jobs));
    // API nodes enqueue; workers run.
    if (duties.work) jobWorker.start();
    closers.push(() => jobWorker.stop());
    return jobWorker;
  };
  return { jobs, jobsRepo, startWorker, uploads, deletions, fileDeletions, fileLife, fileUrls, renditionsWork, metrics, siteRepo, visitorAccess, downloadGuard, media, groups, galleries, tusReceived, tusLocker, resumable };
}

/** The shop's background part: paid orders' downloads, queued with the payment, made by the worker, mailed (docs/shop.md "Delivery"). */
function buildShop(config: Config, log: Logger, core: Core, storage: StorageBackend, library: Library, visitors: Visitors, front: Front, webhookWake: () => void) {
  const deliveries = new DeliveriesRepository(core.store.db);
  // Prints (docs/shop.md "Prints"): the order sheet's signed file links, the lab, the shipped mail.
  const printLinks = new PrintLinks(front.uploadSecret, () => config.publicUrl);
  const prints = new PrintFulfilment(new OrdersRepository(core.store.db), printLinks, visitors.mailer, log);
  const delivery = new Delivery(deliveries, storage, library.fileDeletions, library.deletions, visitors.mailer, { workDir: library.renditionsWork, publicUrl: () => config.publicUrl, brand: mailBrand(core, log) }, log);
  const mails = new OrderMails(new OrdersRepository(core.store.db), visitors.mailer, { publicUrl: () => config.publicUrl, takesCards: (ownerId) => core.stripe.isConfigured(ownerId), brand: mailBrand(core, log) }, log);
  core.orders.setHooks({
    queueDelivery: async (trx, o) => {
      await library.jobsRepo.enqueue({ ownerId: o.ownerId, kind: DELIVERY_JOB_KIND, payload: { orderId: o.id }, total: 1, lane: 'background' }, trx);
      // order.paid with the payment, in its transaction; onPaid wakes the dispatcher.
      await core.webhooks.emitIn({ db: trx, afterCommit: () => undefined }, 'order.paid', { order: o.id });
    },
    onPaid: async (id) => {
      library.jobs.wakeWorker();
      webhookWake();
      await prints.paid(id);
    },
    resend: (id) => delivery.resend(id),
    // order.created was written with the order (OrdersService.placeOrder) and woke this process's runners.
    onPlaced: (id) => mails.placed(id),
    onShipped: (id) => prints.shipped(id),
    sheet: (id) => prints.sheet(id),
    toLab: (id) => prints.toLab(id),
  });
  return { deliveries, printLinks, jobHandler: [DELIVERY_JOB_KIND, delivery.handler()] as const };
}
type Library = Awaited<ReturnType<typeof buildLibrary>>;

/**
 * The webhooks' lane (src/webhooks/dispatcher.ts): its own runners in worker processes, beside the
 * job queue's lanes; an event written in this process wakes it. Endpoints failing for days are
 * disabled and their owner mailed.
 */
function buildWebhooks(config: Config, log: Logger, core: Core, mailer: Mailer, duties: Duties, closers: Closers) {
  const sender = new WebhookSender({ allowPrivate: config.webhooks.allowPrivate, connectTimeoutMs: config.webhooks.connectTimeoutMs, timeoutMs: config.webhooks.timeoutMs });
  closers.push(() => sender.close());
  const disabled = async (endpoint: { owner_id: number; url: string; failing_since: string | null }) => {
    const owner = await core.users.byId(endpoint.owner_id);
    if (owner) mailer.send(webhookDisabledMessage({ to: owner.email, url: endpoint.url, failingSince: endpoint.failing_since ?? new Date().toISOString(), studioUrl: `${config.publicUrl}/studio/` }), 'webhook disabled mail', `${config.publicUrl}/studio/`);
  };
  const dispatcher = new WebhookDispatcher(new WebhooksRepository(core.store), core.webhooks, sender, disabled, log, config.webhooks);
  core.webhooks.onEmitted(() => dispatcher.wake());
  // API nodes write events; workers deliver them.
  if (duties.work) dispatcher.start();
  closers.push(() => dispatcher.stop());
  return dispatcher;
}
type Heavy = Awaited<ReturnType<typeof loadHeavy>>;
type Duties = ReturnType<typeof dutiesOf>;

/** Each feature's part of the cleanup sweep (src/jobs/sweep.ts): what it removes, and whether the deployment's (shared) or this machine's (local). */
function sweepParts(config: Config, core: Core, l: Library, mailer: Mailer, log: Logger): SweepPart[] {
  const ago = (now: Date, seconds: number) => new Date(now.getTime() - seconds * 1000);
  const brand = mailBrand(core, log);
  const reminders = new ExpiryReminders(new GalleriesRepository(core.store.db, core.store.dialect), config.publicUrl, async (m) => {
    mailer.send(expiryReminderMessage({ ...m, brand: await brand(m.websiteId) }), 'expiry reminder', m.url);
  });
  return [
    // An hour after step 1 with no file: expired early (it held its declared size against the quota).
    {
      name: 'abandoned uploads',
      where: 'shared',
      run: async (now) => {
        await l.uploads.expireIdle(now);
        return l.fileLife.sweepAbandonedUploads(now);
      },
    },
    { name: 'resumable uploads', where: 'shared', run: async (now) => ({ resumable: await l.resumable.sweep(now) }) },
    { name: 'file deletions', where: 'shared', run: async (now) => ({ fileDeletions: await l.fileDeletions.drain(now) }) },
    { name: 'incoming objects', where: 'shared', run: async (now) => ({ incoming: await l.uploads.sweepIncoming(now) }) },
    // Temporary files are this machine's: every node sweeps its own, without the lock.
    { name: 'temporary files', where: 'local', run: async (now) => ({ tempFiles: await l.uploads.sweepTempFiles(now.getTime()) }) },
    { name: 'tus part files', where: 'local', run: async (now) => ({ tempFiles: (await l.tusReceived.sweepScratch?.(ago(now, config.uploadExpirySeconds).getTime())) ?? 0 }) },
    { name: 'finished jobs', where: 'shared', run: async (now) => ({ jobs: await l.jobs.purgeFinished(ago(now, config.jobs.retentionSeconds)) }) },
    { name: 'visitor sign-in links', where: 'shared', run: async (now) => ({ visitorLinks: await core.visitorLinks.purge(now) }) },
    { name: 'activity past its retention', where: 'shared', run: async (now) => ({ activity: await core.activity.purge(now) }) },
    { name: 'webhook log past its retention', where: 'shared', run: async (now) => ({ webhookEvents: await core.webhooks.purge(ago(now, config.webhooks.logRetentionDays * 86_400)) }) },
    // A week before a gallery closes, its clients are reminded, once (docs/website.md "Expiry").
    { name: 'gallery expiry reminders', where: 'shared', run: async (now) => ({ reminders: await reminders.run(now) }) },
  ];
}

/** A website's brand for a mail; a failure to read it gives the neutral look, never a lost mail. */
function mailBrand(core: Core, log: Logger): (websiteId: number) => Promise<MailBrand | undefined> {
  return (id) =>
    core.mailBrands.of({ id }).catch((err: unknown) => {
      log.warn({ err }, "the website's brand could not be read for a mail; it goes in the neutral look");
      return undefined;
    });
}

/** The one InvitationsService, of the service and of the admin command line: the mail, its brand, its delivery state. */
export function buildInvitations(
  core: Core,
  mailer: Pick<Mailer, 'mails' | 'sendInvitation'>,
  log: Logger,
  o: { ttlSeconds: number; limiters?: InvitationThrottles; mailStopped?: (userId: number) => Promise<boolean> },
): InvitationsService {
  return new InvitationsService({
    clients: core.galleryClients,
    links: core.visitorLinks,
    send: (mail) => mailer.sendInvitation(mail),
    mails: mailer.mails,
    brand: (uuid) => core.mailBrands.of({ uuid }).catch(() => undefined),
    deliveries: new InvitationDeliveriesRepository(core.store.db),
    onError: (err) => log.error({ err }, 'invitation delivery state not recorded'),
    activity: core.activity,
    ...o,
  });
}

/** Visitors and clients: the mailer, invitations, sign-in links, the pass cookie, the password throttle, the visitor budgets. */
function buildVisitors(config: Config, log: Logger, core: Core, front: Front, closers: Closers) {
  const { limiters } = front;
  // Visitors: sign-in links by mail (or to the log), the pass cookie, the password throttle.
  const mailer = createMailer(config.visitors, log);
  closers.push(() => mailer.close());
  const invitations = buildInvitations(core, mailer, log, {
    ttlSeconds: config.visitors.invitationTtlSeconds,
    limiters: createEach(limiters, invitationLimits(config.visitors.invitationsPerHour, config.visitors.invitationsPerRecipientPerDay, config.visitors.invitationsPerDay), (err) =>
      log.error({ err }, 'invitation-throttle store unavailable; invitation let through'),
    ),
    mailStopped: async (userId) => (await front.users.byId(userId))?.mail_stopped_at != null,
  });
  // Before the mailer closes: the mails' outcomes, then their delivery states (the database closes later).
  closers.push(async () => {
    await mailer.idle();
    await invitations.idle();
  });
  const brandOf = mailBrand(core, log);
  const passCodec = new PassCodec(front.uploadSecret);
  const onVisitorStoreError = (err: unknown) => log.error({ err }, 'visitor-throttle store unavailable; request let through');
  const signIn = new SignInService(core.visitorLinks, mailer, new LinkThrottle(limiters, onVisitorStoreError), log, async (site) => (await brandOf(site.id)) ?? { title: site.title, accent: null, logo: null, home: null });
  // Links still being made when the service stops are made and handed to the mailer first.
  closers.push(() => signIn.idle());
  const passwordThrottle = new PasswordThrottle(limiters, onVisitorStoreError);
  const pinThrottle = new PinThrottle(limiters, onVisitorStoreError);
  // One counter for the website's pages and its sign-in pages; /files has its own, larger one.
  const onBudgetStoreError = (err: unknown) => log.error({ err }, 'visitor rate-limit store unavailable; request let through');
  const visitorBudget = new VisitorBudget(limiters, config.visitorRateLimit, 'visitor', onBudgetStoreError);
  const fileBudget = new VisitorBudget(limiters, config.visitorFilesRateLimit, 'visitor-files', onBudgetStoreError);
  return { mailer, invitations, passCodec, signIn, passwordThrottle, pinThrottle, visitorBudget, fileBudget };
}
type Visitors = ReturnType<typeof buildVisitors>;

/** Readiness (drained at SIGTERM), health routes, and the metrics with their listener when configured. */
async function buildOps(config: Config, log: Logger, store: Store, storage: StorageBackend, front: Front, metrics: Metrics | undefined, closers: Closers) {
  const readiness = new Readiness(
    [
      { name: 'database', check: () => pingStore(store) },
      ...(config.redisUrl ? [{ name: 'redis', check: () => front.exclusive.ping() }] : []),
      // Any answer, found or not, shows the store reachable.
      { name: 'storage', check: () => storage.stat('readyz-probe') },
    ],
    log,
  );
  const extensions = [
    (f: FastifyInstance) => installHealthRoutes(f, readiness),
    ...(metrics ? [(f: FastifyInstance) => metrics.instrument(f)] : []),
    ...(metrics && config.ops.metricsToken ? [(f: FastifyInstance) => metrics.installRoute(f, config.ops.metricsToken!)] : []),
  ];
  const ops: AppOps = { readiness, metrics };
  if (metrics && config.ops.metricsPort !== undefined) {
    const server = (ops.metricsServer = await metrics.listen(config.ops.metricsPort, config.host));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  }
  return { ops, extensions };
}

/** The public website and the studio: two encapsulated plugins beside the signed API, on the same services (workers serve neither). */
async function registerFaces(fastify: FastifyInstance, config: Config, log: Logger, core: Core, storage: StorageBackend, front: Front, library: Library, visitors: Visitors) {
  const { media, galleries, groups, jobs, resumable, siteRepo } = library;
  const { mailer, invitations } = visitors;
  // Its file addresses are host-relative: a website at its own hostname is served by this same process.
  const site = new SiteService(siteRepo, library.visitorAccess, new FileUrls(front.uploadSecret, ''), config);
  // A host name that takes effect is served at once here (other nodes: within HOST_MISS_MS).
  core.websites.onHostname((hostname) => site.forgetHost(hostname));
  // Streamed ZIPs of a gallery or a chosen list (src/site/archive.ts). Their start and end are
  // told here, the one place an activity record hooks in.
  const archives = new SiteArchives(siteRepo, storage, log, {
    started: (a) => log.info({ archive: a.id, reqId: a.requestId, kind: a.kind, gallery: a.galleryUuid, visitor: a.visitor }, 'archive started'),
    ended: (a) => {
      log.info({ archive: a.id, reqId: a.requestId, outcome: a.outcome, bytes: a.bytes, files: a.files, skipped: a.skipped, ms: a.ms }, 'archive ended');
      // What clients did (docs/delivery.md "Activity"): an archive with the bytes it sent; a proved address names the client, else it is counted anonymously.
      // Only a whole archive is a download to tell of: its archive.downloaded is written with the archive's activity
      // row, the download's one record (docs/integrations.md "Webhooks", "How it is kept").
      const told = a.outcome === 'complete' ? (unit: Unit) => core.webhooks.emitIn(unit, 'archive.downloaded', { gallery: a.galleryUuid, extra: { client: a.email ?? null, files: a.files, bytes: a.bytes } }) : undefined;
      core.activity.record({ gallery: a.galleryUuid, client: a.email ? { email: a.email, verified: a.verified, label: a.label } : null, kind: 'archive', bytes: a.bytes }, told);
    },
  }, library.downloadGuard);
  const { signIn, passCodec: passes, passwordThrottle, visitorBudget: budget } = visitors;
  // The website's shop (docs/shop.md "On the website"): the orders' face, on the same services.
  const shop = {
    orders: core.orders,
    stripe: core.stripe,
    offer: (ownerId: number, mediaUuid: string) => core.pricingProfiles.offer({ id: ownerId }, mediaUuid),
    forSale: (ownerId: number, uuids: readonly string[], kinds: readonly string[]) => core.pricingProfiles.forSale({ id: ownerId }, uuids, kinds),
    checkoutOrigin: checkoutOrigin(config.payments?.stripeApiBase),
  };
  await fastify.register(
    websitePlugin({ site, archives, links: core.visitorLinks, signIn, passes, shareLinks: core.shareLinks, lightboxes: core.lightboxes, mailer, passwordThrottle, downloads: { guard: library.downloadGuard, pinThrottle: visitors.pinThrottle }, budget, activity: core.activity, cacheSeconds: config.siteCacheSeconds, config, shop }),
  );
  // The photographers' studio (docs/studio.md): a second encapsulated plugin, on the same services, sessions and limiters as the API.
  await fastify.register(
    studioPlugin({
      users: core.users,
      authenticator: front.authenticator,
      sessions: front.sessions,
      websites: core.websites,
      media,
      galleries,
      jobs,
      storage,
      rateLimit: front.rateLimit,
      budget: config.studioRateLimit ? new StudioBudget(config.studioRateLimit, front.limiters, (err) => log.error({ err }, 'studio budget store unavailable; request let through')) : null,
      secret: front.uploadSecret,
      config,
      apps: core.apps,
      mailer,
      groups,
      lightboxes: core.lightboxes,
      activity: core.activity,
      resumable,
      tus: tusEndpoint(library.tusReceived, resumable, config.maxUploadBytes, log, library.tusLocker),
      artists: core.artists,
      webhooks: core.webhooks,
      pricingProfiles: core.pricingProfiles,
      orders: core.orders,
      coupons: core.coupons,
      shopSettings: core.shopSettings,
      stripe: core.stripe,
      shareLinks: core.shareLinks,
      // The studio's "invite a client" mails through the same service as the API's invitations (its throttle, its links, its activity event).
      // Without a mail server the link only reaches the log: the studio shows it to the photographer instead.
      invitationDeliveries: (user, galleryUuid) => invitations.deliveries(user, galleryUuid),
      mailBrand: (uuid) => core.mailBrands.of({ uuid }),
      invite: async (user, galleryUuid, r) => {
        const sent = await invitations.invite(user, galleryUuid, { email: r.email, message: r.message, comp: r.comp, hires: r.hires });
        return mailer.mails ? { mailed: true } : { mailed: false, link: sent.link };
      },
    }),
  );
}

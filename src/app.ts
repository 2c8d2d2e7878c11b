// The composition root: every dependency of the service is built here, once,
// eagerly, from the configuration, handed typed to whatever uses it, and
// closed in the reverse order of its building. Nothing else creates a
// database, a store, a limiter or a worker.
//
// What only buildApp uses and brings heavy libraries with it (fastify, sharp,
// file-type, exifr) is imported inside buildApp, not with this module: the
// admin command line imports this module for buildCore alone.
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
import { invitationLimits, InvitationsService } from './invitations/service.js';
import { AccessRepository } from './access/repository.js';
import { AppsRepository } from './apps/repository.js';
import { AppsService } from './apps/service.js';
import { ArtistsRepository } from './artists/repository.js';
import { artistRoutes } from './artists/routes.js';
import { ArtistsService } from './artists/service.js';
import { WatermarkFiles } from './artists/watermark-files.js';
import { GalleriesRepository } from './galleries/repository.js';
import { galleryRoutes } from './galleries/routes.js';
import { GalleriesService } from './galleries/service.js';
import { GroupsRepository } from './groups/repository.js';
import { GroupsService } from './groups/service.js';
import { AppKeys } from './http/app-keys.js';
import { Authenticator } from './users/auth.js';
import { LOGIN_ORIGIN_DAYS, LoginThrottle } from './users/login-throttle.js';
import { createEach, createLimiterFactory } from './http/limiter-store.js';
import { RateLimit } from './http/rate-limit.js';
import { ApiRouter, type RouteSpec } from './http/router.js';
import { SessionStore } from './users/sessions.js';
import { PeriodicTask } from './jobs/periodic.js';
import { jobRoutes } from './jobs/routes.js';
import { JobsRepository } from './jobs/repository.js';
import { JobQueue } from './jobs/service.js';
import { JobWorker } from './jobs/worker.js';
import { LANES } from './jobs/lanes.js';
import type { JobHandler, JobHandlers } from './jobs/handlers.js';
import { LightboxesRepository } from './lightboxes/repository.js';
import { LightboxesService, type SelectionEvent } from './lightboxes/service.js';
import { lightboxRoutes } from './lightboxes/routes.js';
import { pricingProfileRoutes } from './pricing-profiles/routes.js';
import { MediaRepository } from './media/repository.js';
import { PricingProfilesRepository } from './pricing-profiles/repository.js';
import { PricingProfilesService } from './pricing-profiles/service.js';
import { RenditionsRepository } from './renditions/repository.js';
import { chooseFfmpeg, ffmpegVersion } from './renditions/ffmpeg.js';
import { FileUrls } from './file-storage/file-urls.js';
import { VisitorAccess } from './site/access.js';
import { fileRoutes } from './site/files.js';
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
import { UploadsRepository } from './uploads/repository.js';
import { ResumableUploadsRepository } from './uploads/resumable-repository.js';
import { ResumableUploadsService } from './uploads/resumable-service.js';
import { QuotaRepository } from './uploads/quota-repository.js';
import { StorageQuota } from './uploads/quota.js';
import { redisTusLocker } from './uploads/tus-locker.js';
import { tusEndpoint, tusFiles } from './uploads/tus-endpoint.js';
import { uploadRoutes } from './uploads/routes.js';
import { UsersRepository } from './users/repository.js';
import { sessionRoutes } from './users/routes.js';
import { UsersService } from './users/service.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { PassCodec } from './site/pass.js';
import { VisitorsRepository } from './site/signin-repository.js';
import { SignInService, VisitorLinks } from './site/signin-service.js';
import { VisitorBudget } from './site/budget.js';
import { SiteArchives } from './site/archive.js';
import { LinkThrottle, PasswordThrottle } from './site/throttle.js';
import { WebsitesRepository } from './websites/repository.js';
import { websiteRoutes } from './websites/routes.js';
import { WebsitesService } from './websites/service.js';
import { ownHosts, systemResolver, type TxtResolver } from './websites/hostnames.js';
import { localExclusive, redisExclusive } from './ops/exclusive.js';
import { installHealthRoutes, Readiness } from './ops/health.js';
import type { Metrics, QueueStats } from './ops/metrics.js';
import { checkScaleOut, dutiesOf } from './ops/roles.js';
import { pingStore } from './database/health.js';
import type { Server as NodeHttpServer } from 'node:http';

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
  /** Visitors' sign-in links (the admin command line hands them out too). */
  visitorLinks: VisitorLinks;
  /** What clients did (docs/delivery.md "Activity"): the one place every part records to. */
  activity: ActivityService;
  /** Client entries added to access lists after a gallery's creation (invitations). */
  galleryClients: GalleryClients;
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
  config: Pick<Config, 'dataDir' | 'databaseUrl'> & Partial<Pick<Config, 'publicUrl' | 'visitors' | 'activityRetentionDays' | 'storageUrl' | 'storageCredentials' | 'reservedHostnames'>>,
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
  });
  activity.addEraser({ name: 'selections', forget: (ownerId, email) => lightboxes.forgetClient(ownerId, email) });
  return {
    store,
    access,
    repositories: { users, apps },
    users: new UsersService(users),
    apps: new AppsService(apps),
    // The service's own host names are read at each use: PUBLIC_URL may be settled after start.
    websites: new WebsitesService(new WebsitesRepository(store.db), access, { own: () => ownHosts(config), resolver: seams.resolver ?? systemResolver() }),
    artists: new ArtistsService(new ArtistsRepository(store.db, new DeletionsRepository(store.db)), access, config.dataDir, watermarkFiles),
    watermarkFiles,
    lightboxes,
    pricingProfiles: new PricingProfilesService(new PricingProfilesRepository(store.db), access),
    visitorLinks,
    activity,
    galleryClients: new GalleryClients(new GalleriesRepository(store.db, store.dialect), access),
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
      req: (r: { method: string; url: string; id: string }) => ({ method: r.method, path: (r.url ?? '').split('?')[0], id: r.id }),
    },
  });
}

/** What one run of the cleanup sweep removed. */
export interface SweepResult {
  /** Uploads whose step 3 never came. */
  uploads: number;
  /** Medias that never went live. */
  medias: number;
  tempFiles: number;
  /** Recorded file deletions carried out. */
  fileDeletions: number;
  /** Incoming objects removed that no pending upload pointed to. */
  incoming: number;
  jobs: number;
  /** Visitors' sign-in links long dead. */
  visitorLinks: number;
  /** Activity events and counters past ACTIVITY_RETENTION_DAYS. */
  activity: number;
  /** The studio's resumable uploads expired (an unfinished one with its bytes). */
  resumable: number;
}

/** The studio's uploads of one user not ended yet: a browser sends 3 at a time; reloads and cuts leave a few more. */
const RESUMABLE_OPEN_PER_USER = 24;

/** Every so often, a fraction of the upload expiry: from 1 s to 10 min. */
function sweepIntervalMs(uploadExpirySeconds: number): number {
  return Math.min(600_000, Math.max(1000, Math.floor((uploadExpirySeconds * 1000) / 4)));
}

export async function buildApp(config: Config, log: Logger = createLogger(config), seams: Seams = {}): Promise<App> {
  // Closed in reverse order; whatever was built before a failure is closed too.
  const closers: Array<() => unknown> = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    // A scaled-out process with node-local state stops here, before it touches anything.
    checkScaleOut(config);
    const duties = dutiesOf(config.ops.role);
    const [{ createHttpServer }, { BATCH_JOB_KIND, MediaService }, { mediaRoutes }, { groupRoutes }, { RENDITIONS_JOB_KIND, RenditionsService }, { UploadsService }, { FileLife }] = await Promise.all([
      import('./http/server.js'),
      import('./media/service.js'),
      import('./media/routes.js'),
      import('./groups/routes.js'),
      import('./renditions/service.js'),
      import('./uploads/service.js'),
      import('./media/file-life.js'),
    ]);
    // The store is built here, not on first use: a bad STORAGE_URL stops the service at start.
    ensurePrivateDir(config.dataDir);
    const storage = await createStorage(config);
    closers.push(() => storage.close?.());
    const core = await buildCore(config, log, storage, seams);
    closers.push(() => core.close());
    const { store } = core;

    if (storage.kind === 'local') ensurePrivateDir(join(config.dataDir, 'media'));
    const tmpDir = tempDirOf(config.dataDir);
    ensurePrivateDir(tmpDir);
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

    const jobsRepo = new JobsRepository(store);
    // The worker is built below, once its handlers exist; enqueueing wakes it.
    let worker: JobWorker | undefined;
    const jobs = new JobQueue(jobsRepo, () => worker?.wake());
    const { access } = core;

    // Uploads, media and groups, on the storage's bookkeeping of files to remove.
    const deletions = new DeletionsRepository(store.db);
    const fileDeletions = new FileDeletions(storage, deletions, log);
    const uploadsRepo = new UploadsRepository(store.db, deletions);
    const quota = new StorageQuota(new QuotaRepository(store.db), config);
    const uploads = new UploadsService(uploadsRepo, storage, fileDeletions, { secret: uploadSecret, tmpDir, config }, quota);
    // Read at each use: the public URL may be set once the port is known.
    const fileUrls = new FileUrls(uploadSecret, () => config.publicUrl);
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
    const metrics = config.ops.metricsPort !== undefined || config.ops.metricsToken ? new (await import('./ops/metrics.js')).Metrics({ queue: () => queueStats(jobsRepo), pool: store.poolStats }) : undefined;
    const renditionsRepo = new RenditionsRepository(store.db);
    // Who may see what on the websites: one decision over one chain loader, for the pages, the sitemap and /files alike.
    const siteRepo = new SiteRepository(store.db);
    const visitorAccess = new VisitorAccess(siteRepo, fileUrls);
    const renditions = new RenditionsService(renditionsRepo, storage, fileDeletions, deletions, fileUrls, log, {
      workDir: renditionsWork,
      watermarkFiles: core.watermarkFiles,
      timeoutSeconds: config.renditions.timeoutSeconds,
      ffmpeg,
      onWatermarkDecode: metrics ? () => metrics.watermarkDecoded() : undefined,
    });
    // Before the worker starts: what a crashed job left behind.
    await renditions.sweepWork();
    const mediaRepo = new MediaRepository(store.db, store.dialect);
    // The one owner of a media file's life (publication, replacement, abandonment, deletion, sweep).
    const fileLife = new FileLife(store.db, { medias: mediaRepo, uploads: uploadsRepo, renditions: renditionsRepo, jobs: jobsRepo, deletions }, fileDeletions, jobs, config);
    const groupsRepo = new GroupsRepository(store.db, store.dialect);
    const media = new MediaService(mediaRepo, fileLife, uploads, access, groupsRepo, jobs, log, renditions);
    const groups = new GroupsService(groupsRepo, media, fileLife, access);
    const galleries = new GalleriesService(new GalleriesRepository(store.db, store.dialect), access, fileLife, config.galleryListCap);
    // The studio's resumable uploads (tus): received under DATA_DIR, or in the bucket with S3, ended through the media service (src/uploads/resumable-service.ts).
    const tusReceived = await tusFiles(config.dataDir, config.uploadExpirySeconds, storage);
    closers.push(() => tusReceived.close?.());
    // With REDIS_URL (several API nodes), one upload's requests are ordered across nodes, not only
    // within this process; closed after the HTTP server, once its requests have ended.
    const tusLocker = duties.serve && config.redisUrl ? await redisTusLocker(config.redisUrl, log, { prefix: config.redisPrefix }) : undefined;
    if (tusLocker) closers.push(() => tusLocker.close());
    const resumable = new ResumableUploadsService(new ResumableUploadsRepository(store.db), media, access, tusReceived, { maxOpenPerUser: RESUMABLE_OPEN_PER_USER, config }, log, quota);

    // Visitors: sign-in links by mail (or to the log), the pass cookie, the password throttle.
    const mailer = createMailer(config.visitors, log);
    closers.push(() => mailer.close());
    const invitations = new InvitationsService({
      clients: core.galleryClients,
      links: core.visitorLinks,
      send: (mail) => mailer.sendInvitation(mail),
      activity: core.activity,
      ttlSeconds: config.visitors.invitationTtlSeconds,
      limiters: createEach(limiters, invitationLimits(config.visitors.invitationsPerHour, config.visitors.invitationsPerRecipientPerDay, config.visitors.invitationsPerDay), (err) =>
        log.error({ err }, 'invitation-throttle store unavailable; invitation let through'),
      ),
      mailStopped: async (userId) => (await users.byId(userId))?.mail_stopped_at != null,
    });

    const routes: RouteSpec[] = [
      ...sessionRoutes({ sessions, secureCookies }),
      ...websiteRoutes({ websites: core.websites, config }),
      ...artistRoutes({ artists: core.artists }),
      ...galleryRoutes(galleries),
      ...uploadRoutes(uploads),
      ...mediaRoutes(media),
      ...groupRoutes(groups),
      ...jobRoutes({ jobs }),
      ...activityRoutes(core.activity),
      ...invitationRoutes(invitations, (user, uuid) => core.activity.galleryOf(user, uuid)),
      ...lightboxRoutes({ lightboxes: core.lightboxes }),
      ...pricingProfileRoutes({ pricingProfiles: core.pricingProfiles }),
    ];
    const router = new ApiRouter();
    // A worker answers only health and metrics.
    if (duties.serve) for (const route of routes) router.add(route);

    const passCodec = new PassCodec(uploadSecret);
    const onVisitorStoreError = (err: unknown) => log.error({ err }, 'visitor-throttle store unavailable; request let through');
    const signIn = new SignInService(core.visitorLinks, mailer, new LinkThrottle(limiters, onVisitorStoreError), log);
    // Links still being made when the service stops are made and handed to the mailer first.
    closers.push(() => signIn.idle());
    const passwordThrottle = new PasswordThrottle(limiters, onVisitorStoreError);
    // One counter for the website's pages and its sign-in pages; /files has its own, larger one.
    const onBudgetStoreError = (err: unknown) => log.error({ err }, 'visitor rate-limit store unavailable; request let through');
    const visitorBudget = new VisitorBudget(limiters, config.visitorRateLimit, 'visitor', onBudgetStoreError);
    const fileBudget = new VisitorBudget(limiters, config.visitorFilesRateLimit, 'visitor-files', onBudgetStoreError);

    // Background work, after migrations and before the first request.
    const handlers: JobHandlers = new Map<string, JobHandler<any>>([
      [BATCH_JOB_KIND, { runChunk: media.batchChunk.bind(media) }],
      [RENDITIONS_JOB_KIND, renditions.handler()],
    ]);
    const jobWorker = (worker = new JobWorker(jobsRepo, log, metrics ? timedHandlers(handlers, metrics) : handlers, config.jobs));
    // API nodes enqueue; workers run.
    if (duties.work) jobWorker.start();
    closers.push(() => jobWorker.stop());
    // The cleanup sweep of this process: every part is idempotent (several processes may sweep at
    // once); a part that fails is logged and the others still run.
    const sweep = async (now = new Date(), parts: 'all' | 'shared' | 'local' = 'all'): Promise<SweepResult> => {
      const result: SweepResult = { uploads: 0, medias: 0, tempFiles: 0, fileDeletions: 0, incoming: 0, jobs: 0, visitorLinks: 0, activity: 0, resumable: 0 };
      const part = async (name: string, fn: () => Promise<void>) => {
        try {
          await fn();
        } catch (err) {
          log.error({ err, part: name }, 'cleanup sweep: a part failed; the next sweep tries again');
        }
      };
      const shared = parts !== 'local';
      const local = parts !== 'shared';
      if (shared) await part('abandoned uploads', async () => {
        // An hour after step 1 with no file: expired early (it held its declared size against the quota).
        await uploads.expireIdle(now);
        Object.assign(result, await fileLife.sweepAbandonedUploads(now));
      });
      if (shared) await part('resumable uploads', async () => {
        result.resumable = await resumable.sweep(now);
      });
      if (shared) await part('file deletions', async () => {
        result.fileDeletions = await fileDeletions.drain(now);
      });
      if (shared) await part('incoming objects', async () => {
        result.incoming = await uploads.sweepIncoming(now);
      });
      // Temporary files are this machine's: every node sweeps its own, without the lock.
      if (local) await part('temporary files', async () => {
        result.tempFiles = await uploads.sweepTempFiles(now.getTime());
        result.tempFiles += (await tusReceived.sweepScratch?.(now.getTime() - config.uploadExpirySeconds * 1000)) ?? 0;
      });
      if (shared) await part('finished jobs', async () => {
        result.jobs = await jobs.purgeFinished(new Date(now.getTime() - config.jobs.retentionSeconds * 1000));
      });
      if (shared) await part('visitor sign-in links', async () => {
        result.visitorLinks = await core.visitorLinks.purge(now);
      });
      if (shared) await part('activity past its retention', async () => {
        result.activity = await core.activity.purge(now);
      });
      return result;
    };
    // Temporary files of a crashed process go before this one serves: nothing half-received outlives a restart.
    await uploads.sweepTempFiles(Date.now()).catch((err: unknown) => log.error({ err }, 'start-up sweep of temporary files failed'));
    await tusReceived.sweepScratch?.(Date.now() - config.uploadExpirySeconds * 1000).catch((err: unknown) => log.error({ err }, 'start-up sweep of tus part files failed'));
    const cleanup = new PeriodicTask('cleanup sweep', sweepIntervalMs(config.uploadExpirySeconds), async () => {
      const r = await sweep(new Date(), 'local');
      if (duties.work) await exclusive.run('cleanup-sweep', async () => Object.assign(r, await sweep(new Date(), 'shared'), { tempFiles: r.tempFiles }));
      if (Object.values(r).some((n) => n > 0)) log.info(r, 'cleanup sweep removed leftovers');
    }, log);
    cleanup.start({ now: true });
    closers.push(() => cleanup.stop());
    if (duties.work) {
      const sessionPurge = new PeriodicTask('session purge', config.sessionPurgeSeconds * 1000, async () => {
        await exclusive.run('session-purge', async () => {
          const n = await users.purgeExpiredSessions();
          // The addresses of past sign-ins are remembered for a little over a year.
          await users.purgeOrigins(new Date(Date.now() - LOGIN_ORIGIN_DAYS * 86_400_000).toISOString());
          if (n) log.info({ sessions: n }, 'expired sessions purged');
        });
      }, log);
      sessionPurge.start();
      closers.push(() => sessionPurge.stop());
    }

    const readiness = new Readiness(
      [
        { name: 'database', check: () => pingStore(store) },
        ...(config.redisUrl ? [{ name: 'redis', check: () => exclusive.ping() }] : []),
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

    const http = createHttpServer({ config, log, appKeys, authenticator, rateLimit, router, extensions, plainRoutes: duties.serve ? [fileRoutes({ access: visitorAccess, storage, urls: fileUrls, budget: fileBudget, activity: core.activity })] : [] });
    closers.push(() => http.close());
    // The public website: one encapsulated plugin beside the signed API (unsigned, HTML); workers serve none.
    // Its file addresses are host-relative: a website at its own hostname is served by this same process.
    const site = new SiteService(siteRepo, visitorAccess, new FileUrls(uploadSecret, ''), config);
    // A host name that takes effect is served at once here (other nodes: within HOST_MISS_MS).
    core.websites.onHostname((hostname) => site.forgetHost(hostname));
    // Streamed ZIPs of a gallery or a chosen list (src/site/archive.ts). Their start and end are
    // told here, the one place an activity record hooks in.
    const archives = new SiteArchives(siteRepo, storage, log, {
      started: (a) => log.info({ archive: a.id, reqId: a.requestId, kind: a.kind, gallery: a.galleryUuid, visitor: a.visitor }, 'archive started'),
      ended: (a) => {
        log.info({ archive: a.id, reqId: a.requestId, outcome: a.outcome, bytes: a.bytes, files: a.files, skipped: a.skipped, ms: a.ms }, 'archive ended');
        // What clients did (docs/delivery.md "Activity"): an archive with the bytes it sent; a proved address names the client, else it is counted anonymously.
        core.activity.record({ gallery: a.galleryUuid, client: a.email ? { email: a.email, verified: true } : null, kind: 'archive', bytes: a.bytes });
      },
    });
    if (duties.serve) {
      await http.fastify.register(
        websitePlugin({ site, archives, links: core.visitorLinks, signIn, passes: passCodec, lightboxes: core.lightboxes, mailer, passwordThrottle, budget: visitorBudget, activity: core.activity, cacheSeconds: config.siteCacheSeconds, config }),
      );
      // The photographers' studio (docs/studio.md): a second encapsulated plugin, on the same services, sessions and limiters as the API.
      await http.fastify.register(
        studioPlugin({
          users: core.users,
          authenticator,
          sessions,
          websites: core.websites,
          media,
          galleries,
          jobs,
          storage,
          rateLimit,
          budget: config.studioRateLimit ? new StudioBudget(config.studioRateLimit, limiters, (err) => log.error({ err }, 'studio budget store unavailable; request let through')) : null,
          secret: uploadSecret,
          config,
          apps: core.apps,
          mailer,
          groups,
          lightboxes: core.lightboxes,
          activity: core.activity,
          resumable,
          tus: tusEndpoint(tusReceived, resumable, config.maxUploadBytes, log, tusLocker),
          artists: core.artists,
          // The studio's "invite a client" mails through the same service as the API's invitations (its throttle, its links, its activity event).
          // Without a mail server the link only reaches the log: the studio shows it to the photographer instead.
          invite: async (user, galleryUuid, r) => {
            const sent = await invitations.invite(user, galleryUuid, { email: r.email, message: r.message, comp: r.comp, hires: r.hires });
            return mailer.mails ? { mailed: true } : { mailed: false, link: sent.link };
          },
        }),
      );
    }

    let closed: Promise<void> | undefined;
    return {
      fastify: http.fastify,
      store,
      sessions,
      uploadSecret,
      galleries,
      invitations,
      core,
      routes,
      worker: jobWorker,
      visitors: { signIn, links: core.visitorLinks, passCodec, passwordThrottle, mailer },
      sweep: (now?: Date) => sweep(now),
      ops,
      close: () => (closed ??= closeAll()),
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** The queue's depth and age for the metrics, in all and per lane. */
async function queueStats(repo: JobsRepository): Promise<QueueStats> {
  const stats = await repo.pendingStats();
  const age = (createdAt?: string) => (createdAt ? Math.max(0, (Date.now() - Date.parse(createdAt)) / 1000) : 0);
  const lanes = LANES.map((lane) => {
    const s = stats.find((x) => x.lane === lane);
    return { lane, pending: s?.pending ?? 0, oldestAgeSeconds: age(s?.oldestCreatedAt) };
  });
  return {
    pending: lanes.reduce((n, l) => n + l.pending, 0),
    oldestAgeSeconds: Math.max(0, ...lanes.map((l) => l.oldestAgeSeconds)),
    lanes,
  };
}

/** Every handler's chunks timed in the metrics, by job kind. */
function timedHandlers(handlers: JobHandlers, metrics: Metrics): JobHandlers {
  return new Map(
    [...handlers].map(([kind, h]) => {
      const prepare = h.prepare;
      return [
        kind,
        {
          ...h,
          runChunk: (...args: Parameters<typeof h.runChunk>) => metrics.timeChunk(kind, () => h.runChunk(...args)),
          ...(prepare ? { prepare: (...args: Parameters<typeof prepare>) => metrics.timePrepare(kind, () => prepare(...args)) } : {}),
        },
      ];
    }),
  );
}

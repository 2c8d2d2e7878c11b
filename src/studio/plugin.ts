// The photographers' studio under /studio/ as one encapsulated Fastify plugin beside the API
// and the website (docs/studio.md, docs/architecture.md): its HTML sender and error page, its
// session cookie over the API's sessions, CSRF on every change, the API's throttles. It holds
// what every screen shares (hooks, error page, assets, thumbnails) and registers each area's
// table of routes (routes/*.ts), each handler given the studio's context (context.ts).
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { ApiError } from '../core/errors.js';
import { closeAfterReply } from '../http/lingering-close.js';
import { TUS_PATH } from '../resumable-uploads/tus-endpoint.js';
import { encodedAsset, STUDIO_ASSETS, STUDIO_ICON } from './assets.js';
import { sessionKey, TUS_CHUNK_BYTES } from './budget.js';
import { isUuid } from '../core/uuid.js';
import { JSON_LIMIT_BYTES, makeContext, type StudioDeps, type StudioRoute } from './context.js';
import { messagePage } from './pages/layout.js';
import { accountRoutes } from './routes/account.js';
import { galleryRoutes } from './routes/galleries.js';
import { gallerySettingRoutes } from './routes/gallery-settings.js';
import { mediaRoutes } from './routes/media.js';
import { proofingRoutes } from './routes/proofing.js';
import { adminRoutes } from './routes/admin.js';
import { accountAppRoutes } from './routes/apps.js';
import { webhookStudioRoutes } from './routes/webhooks.js';
import { shareLinkStudioRoutes } from './routes/share-links.js';
import { collectionRoutes } from './routes/collections.js';
import { jobRoutes } from './routes/jobs.js';
import { signInRoutes } from './routes/signin.js';
import { styleRoutes } from './routes/styles.js';
import { uploadRoutes } from './routes/uploads.js';
import { analyticsRoutes } from './routes/analytics.js';
import { watermarkRoutes } from './routes/watermarks.js';
import { couponRoutes } from './routes/shop-coupons.js';
import { priceListRoutes } from './routes/shop-prices.js';
import { shopSettingRoutes } from './routes/shop-settings.js';
import { shopRoutes } from './routes/shop.js';
import { websiteRoutes } from './routes/websites.js';
import { mailPreviewRoutes } from './routes/mails.js';

export type { StudioDeps } from './context.js';

export function studioPlugin(deps: StudioDeps): FastifyPluginAsync {
  const ctx = makeContext(deps);
  return async (f: FastifyInstance) => {
    // The screens' scripts send JSON; read as bytes (bounded) and parsed by ctx.signedJson after the CSRF check.
    f.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: JSON_LIMIT_BYTES }, (_req, body, done) => done(null, body));
    // The one error handler of the studio: every refusal and failure is a studio page, never the API's XML.
    f.setErrorHandler((err, req, reply) => {
      closeAfterReply(req, reply);
      const viewer = ctx.signedInOf(req)?.viewer;
      // A screen's script asked (Accept: application/json): the same refusal as JSON, for it to show.
      const wantsJson = (req.headers.accept ?? '').startsWith('application/json');
      // tus-js-client reads a refusal's body as text (the upload list shows it): a refusal of the budget before the tus endpoint.
      if (!wantsJson && err instanceof ApiError && (req.routeOptions.url ?? '').startsWith(TUS_PATH)) {
        if (err.extra.retryAfter) reply.header('retry-after', String(err.extra.retryAfter));
        return reply.code(err.status).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').header('cache-control', 'no-store').send(`${err.message}\n`);
      }
      if (wantsJson) {
        const status = err instanceof ApiError ? err.status : ((err as { statusCode?: number }).statusCode ?? 500);
        if (err instanceof ApiError && err.extra.retryAfter) reply.header('retry-after', String(err.extra.retryAfter));
        if (status >= 500) req.log.error({ reqId: req.id, method: req.method, route: req.routeOptions.url, err }, 'studio request failed');
        const error = err instanceof ApiError ? err.message : status >= 500 ? `Something went wrong (request ${req.id}).` : 'The request could not be understood.';
        return ctx.json(reply, status, { error, code: err instanceof ApiError ? err.code : undefined });
      }
      if (err instanceof ApiError) {
        if (err.extra.retryAfter) reply.header('retry-after', String(err.extra.retryAfter));
        if (err.status === 401 && req.method === 'GET') return ctx.redirect(reply, '/studio/signin');
        const title = err.status === 404 ? 'Not found' : err.status === 429 ? 'Too many requests' : 'Request refused';
        return ctx.send(reply, err.status, messagePage({ title, text: err.message, viewer }));
      }
      const status = (err as { statusCode?: number }).statusCode ?? 500;
      if (status >= 400 && status < 500) {
        const text = status === 413 ? 'The form is too large.' : 'The request could not be understood.';
        return ctx.send(reply, status, messagePage({ title: 'Request refused', text, viewer }));
      }
      req.log.error({ reqId: req.id, method: req.method, route: req.routeOptions.url, err }, 'studio page failed');
      return ctx.send(reply, 500, messagePage({ title: 'Something went wrong', text: `Please try again later (request ${req.id}).`, viewer }));
    });
    // Any other address under /studio/ is the studio's 404 page (the root's not-found handler is the API's).
    f.all('/studio/*', async (req, reply) => ctx.send(reply, 404, messagePage({ title: 'Not found', text: 'There is no such page in the studio.', viewer: ctx.signedInOf(req)?.viewer })));

    // Who is signed in, then the budget: the session's own (budget.ts; thumbnails take theirs in
    // their route, uploads by bytes and at once), else the API's for the address before sign-in.
    f.addHook('preHandler', async (req, reply) => {
      const url = req.routeOptions.url ?? '';
      if (url.startsWith('/studio/_assets/') || url === '/favicon.ico') return;
      const s = await ctx.sessionOf(req);
      const budget = ctx.deps.budget;
      if (s && budget) {
        if (url === '/studio/thumbs/:uuid') return;
        const session = sessionKey(s.token);
        if (url.startsWith(TUS_PATH) || url.startsWith('/studio/uploads/')) {
          if (req.method !== 'PATCH') return budget.upload(session, 0);
          const release = await budget.uploadSlot(session);
          reply.raw.once('close', release);
          const length = Number(req.headers['content-length']);
          try {
            await budget.upload(session, Number.isSafeInteger(length) && length > 0 ? length : TUS_CHUNK_BYTES);
          } catch (err) {
            release();
            throw err;
          }
          return;
        }
        const decision = await budget.requests.consume(session);
        for (const [k, v] of Object.entries(decision.headers)) reply.header(k, v);
        if (decision.error) throw decision.error;
        return;
      }
      if (!s && ctx.deps.rateLimit) {
        const decision = await ctx.deps.rateLimit.consume(`studio:addr:${req.ip}`);
        for (const [k, v] of Object.entries(decision.headers)) reply.header(k, v);
        if (decision.error) throw decision.error;
      }
    });

    f.get('/studio/_assets/:name', (req, reply) => {
      const asset = STUDIO_ASSETS.get((req.params as { name: string }).name);
      if (!asset) return reply.code(404).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send('not found\n');
      const { body, encoding } = encodedAsset(asset, req.headers['accept-encoding']);
      if (encoding) reply.header('content-encoding', encoding);
      return reply.header('content-type', asset.type).header('cache-control', 'public, max-age=31536000, immutable').header('x-content-type-options', 'nosniff').header('vary', 'accept-encoding').header('etag', `"${asset.name}"`).send(body);
    });

    // Browsers ask for it whatever the page names (a bookmark, a tab restored): the studio's icon, not a 404.
    f.get('/favicon.ico', (req, reply) => {
      const { body, encoding } = encodedAsset(STUDIO_ICON, req.headers['accept-encoding']);
      if (encoding) reply.header('content-encoding', encoding);
      return reply.header('content-type', STUDIO_ICON.type).header('cache-control', 'public, max-age=86400').header('x-content-type-options', 'nosniff').header('vary', 'accept-encoding').send(body);
    });

    // The smallest rendition of one of the user's medias, through the API's access check (404 otherwise);
    // counted in bytes and at once against the session's budget, not as requests.
    f.get('/studio/thumbs/:uuid', async (req, reply) => {
      const s = ctx.need(req);
      const turn = ctx.deps.budget ? await ctx.deps.budget.thumbnail(sessionKey(s.token)) : undefined;
      try {
        const uuid = (req.params as { uuid: string }).uuid;
        if (!isUuid(uuid)) throw new ApiError('not_found', 'There is no such image.');
        const renditions = await ctx.deps.media.renditionsOf(s.user, uuid.toLowerCase());
        const smallest = renditions.slice().sort((a, b) => a.width - b.width)[0];
        const shown = smallest && /^image\/(jpeg|png|webp|avif)$/.test(smallest.type) ? smallest : undefined;
        await turn?.sent(shown?.bytes ?? 0);
        const body = shown ? await ctx.deps.storage.read(shown.key) : undefined;
        if (!shown || !body) throw new ApiError('not_found', 'This image has no preview yet.');
        // The turn lasts until the file is sent (or the connection is gone).
        if (turn) reply.raw.once('close', turn.release);
        return reply.header('content-type', shown.type).header('cache-control', 'private, max-age=300').header('x-content-type-options', 'nosniff').send(body);
      } catch (err) {
        turn?.release();
        throw err;
      }
    });

    f.get('/studio', (_req, reply) => ctx.redirect(reply, '/studio/'));
    f.get('/studio/', (req, reply) => ctx.redirect(reply, ctx.signedInOf(req) ? '/studio/websites' : '/studio/signin'));

    const tables: StudioRoute[][] = [signInRoutes, accountRoutes, websiteRoutes, galleryRoutes, gallerySettingRoutes, mediaRoutes, styleRoutes, accountAppRoutes, collectionRoutes, jobRoutes, adminRoutes, uploadRoutes, watermarkRoutes, analyticsRoutes, proofingRoutes, shopRoutes, priceListRoutes, couponRoutes, shopSettingRoutes, webhookStudioRoutes, mailPreviewRoutes, shareLinkStudioRoutes];
    for (const r of tables.flat()) f.route({ method: r.method, url: r.path, ...(r.bodyLimit ? { bodyLimit: r.bodyLimit } : {}), handler: (req, reply) => r.handler(ctx, req, reply) });
  };
}

// The photographers' studio (issue 21, docs/studio.md) as one encapsulated Fastify plugin
// under /studio/, beside the API and the website (src/site/plugin.ts is its model): its own
// HTML sender and error page, its own session cookie over the API's session store, CSRF on
// every change, the API's login throttle and rate limit. Every change goes through the same
// services and access checks as the API: no SQL here, no rule twice. This file holds what
// every screen shares (hooks, error page, assets, thumbnails); each area's screens are a
// module of routes/ registered below, on the helpers of kit.ts.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { ApiError } from '../core/errors.js';
import { closeAfterReply } from '../http/linger.js';
import { TUS_PATH } from '../uploads/tus-endpoint.js';
import { encodedAsset, STUDIO_ASSETS, STUDIO_ICON } from './assets.js';
import { sessionKey, TUS_CHUNK_BYTES } from './budget.js';
import { JSON_LIMIT_BYTES, makeKit, type StudioDeps } from './kit.js';
import { messagePage } from './pages/layout.js';
import { accountRoutes } from './routes/account.js';
import { galleryRoutes } from './routes/galleries.js';
import { mediaRoutes } from './routes/media.js';
import { proofingRoutes } from './routes/proofing.js';
import { adminRoutes } from './routes/admin.js';
import { accountAppRoutes } from './routes/apps.js';
import { collectionRoutes } from './routes/collections.js';
import { jobRoutes } from './routes/jobs.js';
import { signInRoutes } from './routes/signin.js';
import { styleRoutes } from './routes/styles.js';
import { uploadRoutes } from './routes/uploads.js';
import { watermarkRoutes } from './routes/watermarks.js';
import { websiteRoutes } from './routes/websites.js';

export type { StudioDeps } from './kit.js';

export function studioPlugin(deps: StudioDeps): FastifyPluginAsync {
  const kit = makeKit(deps);
  return async (f: FastifyInstance) => {
    // The screens' scripts send JSON; read as bytes (bounded) and parsed by kit.signedJson after the CSRF check.
    f.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: JSON_LIMIT_BYTES }, (_req, body, done) => done(null, body));
    // The one error handler of the studio: every refusal and failure is a studio page, never the API's XML.
    f.setErrorHandler((err, req, reply) => {
      closeAfterReply(req, reply);
      const viewer = kit.signedInOf(req)?.viewer;
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
        return kit.json(reply, status, { error, code: err instanceof ApiError ? err.code : undefined });
      }
      if (err instanceof ApiError) {
        if (err.extra.retryAfter) reply.header('retry-after', String(err.extra.retryAfter));
        if (err.status === 401 && req.method === 'GET') return kit.redirect(reply, '/studio/signin');
        const title = err.status === 404 ? 'Not found' : err.status === 429 ? 'Too many requests' : 'Request refused';
        return kit.send(reply, err.status, messagePage({ title, text: err.message, viewer }));
      }
      const status = (err as { statusCode?: number }).statusCode ?? 500;
      if (status >= 400 && status < 500) {
        const text = status === 413 ? 'The form is too large.' : 'The request could not be understood.';
        return kit.send(reply, status, messagePage({ title: 'Request refused', text, viewer }));
      }
      req.log.error({ reqId: req.id, method: req.method, route: req.routeOptions.url, err }, 'studio page failed');
      return kit.send(reply, 500, messagePage({ title: 'Something went wrong', text: `Please try again later (request ${req.id}).`, viewer }));
    });
    // Any other address under /studio/ is the studio's 404 page (the root's not-found handler is the API's).
    f.all('/studio/*', async (req, reply) => kit.send(reply, 404, messagePage({ title: 'Not found', text: 'There is no such page in the studio.', viewer: kit.signedInOf(req)?.viewer })));

    // Who is signed in, then the budget: the session's own (budget.ts; thumbnails take theirs in
    // their route, uploads by bytes and at once), else the API's for the address before sign-in.
    f.addHook('preHandler', async (req, reply) => {
      const url = req.routeOptions.url ?? '';
      if (url.startsWith('/studio/_assets/') || url === '/favicon.ico') return;
      const s = await kit.sessionOf(req);
      const budget = kit.deps.budget;
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
      if (!s && kit.deps.rateLimit) {
        const decision = await kit.deps.rateLimit.consume(`studio:addr:${req.ip}`);
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
      const s = kit.need(req);
      const turn = kit.deps.budget ? await kit.deps.budget.thumbnail(sessionKey(s.token)) : undefined;
      try {
        const uuid = (req.params as { uuid: string }).uuid;
        if (!/^[0-9a-f-]{36}$/i.test(uuid)) throw new ApiError('not_found', 'There is no such image.');
        const renditions = await kit.deps.media.renditionsOf(s.user, uuid.toLowerCase());
        const smallest = renditions.slice().sort((a, b) => a.width - b.width)[0];
        const shown = smallest && /^image\/(jpeg|png|webp|avif)$/.test(smallest.type) ? smallest : undefined;
        await turn?.sent(shown?.bytes ?? 0);
        const body = shown ? await kit.deps.storage.read(shown.key) : undefined;
        if (!shown || !body) throw new ApiError('not_found', 'This image has no preview yet.');
        // The turn lasts until the file is sent (or the connection is gone).
        if (turn) reply.raw.once('close', turn.release);
        return reply.header('content-type', shown.type).header('cache-control', 'private, max-age=300').header('x-content-type-options', 'nosniff').send(body);
      } catch (err) {
        turn?.release();
        throw err;
      }
    });

    f.get('/studio', (_req, reply) => kit.redirect(reply, '/studio/'));
    f.get('/studio/', (req, reply) => kit.redirect(reply, kit.signedInOf(req) ? '/studio/websites' : '/studio/signin'));

    signInRoutes(f, kit);
    accountRoutes(f, kit);
    websiteRoutes(f, kit);
    galleryRoutes(f, kit);
    mediaRoutes(f, kit);
    styleRoutes(f, kit);
    accountAppRoutes(f, kit);
    collectionRoutes(f, kit);
    jobRoutes(f, kit);
    adminRoutes(f, kit);
    uploadRoutes(f, kit);
    watermarkRoutes(f, kit);
    proofingRoutes(f, kit);
  };
}

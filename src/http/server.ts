// The HTTP server: Fastify with our body parsers, limits and timeouts, the
// signing / rate-limit / authentication hook, XML errors, and the routes the
// composition root (src/app.ts) hands it.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyHttpOptions, type FastifyInstance, type FastifyReply, type FastifyRequest, type onRequestHookHandler } from 'fastify';
import type { Config, TrustProxy } from '../config.js';
import type { Logger } from 'pino';
import type { AppKeys } from './app-keys.js';
import { redactPath } from './redact.js';
import type { Authentication, Identity, RateSubject } from './identity.js';
import type { AppRow } from '../database/schema.js';
import { ApiError, badRequest, codeForStatus, type ErrorCode } from '../core/errors.js';
import type { RateDecision, RateLimit } from './rate-limit.js';
import { closeAfterReply } from './lingering-close.js';
import { errorBody, sendError, XML_CONTENT_TYPE } from './reply.js';
import { type ApiRouter, type AuthLevel, FORM_LIMIT_BYTES } from './router.js';
import { renderReply } from './xml.js';

declare module 'fastify' {
  interface FastifyRequest {
    app?: AppRow;
    identity?: Identity;
  }
  interface FastifyContextConfig {
    auth?: AuthLevel;
  }
}

/** Longest path segment the router matches (a UUID or urlname is far shorter). */
const MAX_PARAM_LENGTH = 300;

/** A whole HTTP response, for the refusals Node makes before a request exists (no Fastify reply to write to). */
function rawXmlError(code: ErrorCode, message?: string): string {
  const err = new ApiError(code, message);
  const body = renderReply(errorBody(err));
  const reason = STATUS_CODES[err.status] ?? 'Error';
  return `HTTP/1.1 ${err.status} ${reason}\r\nContent-Type: ${XML_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * TRUST_PROXY as Fastify takes it. A hop count becomes proxy-addr's own rule
 * for one (hop 0 is the connection's address): the client is the address that
 * many hops from the right, whatever the client wrote further left.
 */
function trustProxyOption(trust: TrustProxy): false | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false || Array.isArray(trust)) return trust;
  return (_address, hop) => hop < trust;
}

/** What Fastify refuses before any route or hook runs, as our errors. */
function frameworkError(err: { code?: string; message?: string; statusCode?: number }, requestId: string): ApiError {
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      return badRequest('the path is not valid percent-encoded UTF-8', 'bad_encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('uri_too_long', `a path segment is longer than ${MAX_PARAM_LENGTH} characters`);
    default:
      // FST_ERR_ASYNC_CONSTRAINT and whatever comes later: a client's fault only when Fastify says so.
      if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) return new ApiError(codeForStatus(err.statusCode), err.message);
      return new ApiError('internal', `internal error; quote request id ${requestId}`);
  }
}

/** What the HTTP layer is built from: the composition root (src/app.ts) provides it. */
export interface HttpDeps {
  config: Config;
  log: Logger;
  appKeys: AppKeys;
  authenticator: Authentication;
  rateLimit: RateLimit | null;
  /** Every route of the service, declared by the features. */
  router: ApiRouter;
  /** Plain routes outside the API (no signature, no XML): e.g. /files/<key>. Each registers itself. */
  plainRoutes?: ReadonlyArray<(fastify: FastifyInstance) => void>;
  /** Installed before the API's routes: routes outside the API (health, metrics) and response hooks. */
  extensions?: ReadonlyArray<(fastify: FastifyInstance) => void>;
}

export interface HttpServer {
  fastify: FastifyInstance;
  /** Stops accepting connections and finishes the requests in flight. */
  close(): Promise<void>;
}

/**
 * The logger Fastify hands every request: ours, whose child is itself. A pino child per request
 * costs more than the rest of a cached GET, and a custom `childLoggerFactory` (the way it was
 * skipped before) is validated on every request (fastify 5.12: seven method checks, two arrays);
 * Fastify's default factory is not. Our log lines carry the request id themselves.
 */
function oneLoggerForAll(log: Logger): FastifyBaseLogger {
  return Object.create(log, {
    child: {
      value(this: FastifyBaseLogger) {
        return this;
      },
    },
  }) as FastifyBaseLogger;
}

/** Fastify's and Node's options: our logging, the body and parameter bounds, the connections' deadlines, framework and client errors in XML. */
function serverOptions(config: Config): FastifyHttpOptions<Server> {
  const limits = config.connections;
  return {
    // Our own onResponse line replaces Fastify's two per-request lines.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    bodyLimit: FORM_LIMIT_BYTES,
    trustProxy: trustProxyOption(config.trustProxy),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (err, req, reply) => {
      closeAfterReply(req, reply);
      sendError(req, reply, frameworkError(err, req.id));
    },
    // Our onRequest hook answers the 503 instead, in XML.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Between requests; during one, the idle timeout below applies.
    keepAliveTimeout: 65_000,
    // Slow or stalled clients must not hold connections (docs/conventions.md "Connections"):
    // nothing received or sent for connectionTimeout during a request, or the
    // headers / the whole request not in by their deadline, closes the connection.
    connectionTimeout: limits.idleTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Node enforces both deadlines on this tick (30 s by default, as long as our headers timeout).
      connectionsCheckingInterval: Math.max(250, Math.min(30_000, Math.floor(limits.headersTimeoutMs / 4))),
      // Node would answer a missing Host with a bare 400; our onRequest hook answers it in XML.
      requireHostHeader: false,
    },
    clientErrorHandler: (err: NodeJS.ErrnoException, socket: Socket) => {
      // Nothing more can be written after a reply that has started (Node's own rule).
      const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
      if (!socket.writable || err.code === 'ECONNRESET' || inFlight?.headersSent) return socket.destroy();
      const code = err.code ?? '';
      const reply =
        code === 'HPE_HEADER_OVERFLOW'
          ? rawXmlError('headers_too_large')
          : code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? rawXmlError('request_timeout')
            : rawXmlError('bad_request', `malformed HTTP request (${code || 'parse error'})`);
      // Closed once written: a client that neither reads nor closes must not keep the socket.
      socket.end(reply, () => socket.destroy());
    },
  };
}

/**
 * The onRequest hooks: `any` on every request (the request id, the drain, the Host header), then
 * `signed(level)` on each signed route (the signature, the claim, the rate budget and the
 * identity). Callback hooks, not async ones: Fastify then waits for no promise when every step
 * answers at once (all cached, the budget in memory).
 */
function admission(
  appKeys: AppKeys,
  authenticator: Authentication,
  rateLimit: RateLimit | null,
  closing: () => boolean,
): { any: onRequestHookHandler; signed(auth: AuthLevel): onRequestHookHandler } {
  const servedBefore = new WeakSet<object>();
  const applyDecision = (decision: RateDecision, reply: FastifyReply): void => {
    for (const k in decision.headers) reply.header(k, decision.headers[k]);
    if (decision.error) throw decision.error;
  };
  // The in-memory budget answers at once (the hook stays synchronous); a shared one (Redis) with a promise.
  const takeBudget = (limit: RateLimit, key: string, reply: FastifyReply): void | Promise<void> => {
    const decision = limit.consume(key);
    if (decision instanceof Promise) return decision.then((d) => applyDecision(d, reply));
    applyDecision(decision, reply);
  };

  // Order matters: the budget is taken after the cheap checks and reads, before
  // any password hash or database write, so a refused request costs nothing.
  // Each step answers at once when what it needs is cached: the common request
  // then runs the whole hook synchronously (no promise, no microtask tick).
  // Every request, every route (and none): the request id, the drain, the Host header.
  const admitAny = (req: FastifyRequest, reply: FastifyReply): void => {
    reply.header('X-Request-Id', req.id);
    // A further request on a keep-alive connection while the service drains is refused (Fastify adds
    // `Connection: close`); the first request of a connection accepted before the listener closed is
    // served: its client (a balancer's one-request connection) had no chance to go elsewhere.
    if (closing() && servedBefore.has(req.raw.socket)) throw new ApiError('service_unavailable', 'the service is shutting down: send the request again', { retryAfter: 1 });
    servedBefore.add(req.raw.socket);
    if (req.headers.host === undefined) throw badRequest('the Host header is required (HTTP/1.1)');
  };

  // A signed route's own hook, after admitAny: its level is fixed when the route is added, so no
  // request reads it from `req.routeOptions` (a getter that builds an object of 12 fields each time).
  const admitSigned = (req: FastifyRequest, reply: FastifyReply, auth: AuthLevel): void | Promise<void> => {
    let verified: AppRow | Promise<AppRow>;
    try {
      verified = appKeys.verify(req);
    } catch (err) {
      if (!rateLimit) throw err;
      return refuseAfterBudget(rateLimit, req, reply, err);
    }
    if (verified instanceof Promise) {
      return verified.then(
        (app) => afterApp(req, reply, auth, app),
        (err: unknown) => (rateLimit ? refuseAfterBudget(rateLimit, req, reply, err) : Promise.reject(err)),
      );
    }
    return afterApp(req, reply, auth, verified);
  };

  const refuseAfterBudget = (rateLimit: RateLimit, req: FastifyRequest, reply: FastifyReply, err: unknown): Promise<never> => {
    const taken = takeBudget(rateLimit, `addr:${req.ip}`, reply);
    if (taken) {
      return taken.then(() => {
        throw err;
      });
    }
    throw err;
  };

  const afterApp = (req: FastifyRequest, reply: FastifyReply, auth: AuthLevel, app: AppRow): void | Promise<void> => {
    req.app = app;
    const claimed = authenticator.claim(req.headers.cookie, req.headers.authorization);
    if (claimed instanceof Promise) return claimed.then((claim) => afterClaim(req, reply, auth, app, claim));
    return afterClaim(req, reply, auth, app, claimed);
  };

  const afterClaim = (req: FastifyRequest, reply: FastifyReply, auth: AuthLevel, app: AppRow, claim: RateSubject): void | Promise<void> => {
    if (rateLimit) {
      const taken = takeBudget(rateLimit, claim.rateUser ? `${app.api_key}:user:${claim.rateUser.id}` : `${app.api_key}:addr:${req.ip}`, reply);
      if (taken) return taken.then(() => afterAdmission(req, reply, auth, app, claim));
    }
    return afterAdmission(req, reply, auth, app, claim);
  };

  const afterAdmission = (req: FastifyRequest, reply: FastifyReply, auth: AuthLevel, app: AppRow, claim: RateSubject): void | Promise<void> => {
    const identified = authenticator.identify(claim, req.ip, app.owner_id);
    if (identified instanceof Promise) return identified.then((identity) => admitIdentity(req, reply, auth, identity));
    admitIdentity(req, reply, auth, identified);
  };

  const admitIdentity = (req: FastifyRequest, reply: FastifyReply, auth: AuthLevel, identity: Identity): void => {
    req.identity = identity;
    if (identity.setCookie) reply.header('set-cookie', identity.setCookie);
    if (auth === 'user' && !identity.user) {
      throw new ApiError('authentication_required',
        identity.staleSession ? 'session expired or unknown: log in again with HTTP Basic' : 'authentication required: send HTTP Basic credentials',
        { authMethod: 'basic' },
      );
    }
  };

  return {
    any: (req, reply, done) => {
      try {
        admitAny(req, reply);
      } catch (err) {
        return done(err as Error);
      }
      done();
    },
    signed: (auth) => (req, reply, done) => {
      let pending: void | Promise<void>;
      try {
        pending = admitSigned(req, reply, auth);
      } catch (err) {
        return done(err as Error);
      }
      if (pending) pending.then(() => done(), (err: Error) => done(err));
      else done();
    },
  };
}

export function createHttpServer(deps: HttpDeps): HttpServer {
  const { config, appKeys, authenticator, rateLimit, router } = deps;
  const limits = config.connections;
  let closing = false;
  const fastify = Fastify({ loggerInstance: oneLoggerForAll(deps.log), ...serverOptions(config) });
  // Beyond this, Node closes new connections as they are accepted; open ones are served as usual.
  fastify.server.maxConnections = limits.maxConnections;
  // An Expect other than 100-continue: Node's own reply would be a bare 417.
  fastify.server.on('checkExpectation', (req, res) => {
    const body = renderReply({ error: `the service cannot meet Expect: ${String(req.headers.expect).slice(0, 100)}`, 'error-code': 'expectation_failed' });
    res.writeHead(417, { 'content-type': XML_CONTENT_TYPE, 'content-length': Buffer.byteLength(body), 'x-request-id': randomUUID(), connection: 'close' }).end(body);
  });

  // Bodies: urlencoded forms are read (bounded) and decoded by the router;
  // multipart and anything else stay streams for the route to consume.
  fastify.removeAllContentTypeParsers();
  // The body limit is the route's (ApiRouter sets it).
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  fastify.addContentTypeParser('*', (_req, _payload, done) => done(null));

  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  const admit = admission(appKeys, authenticator, rateLimit, () => closing);
  fastify.addHook('onRequest', admit.any);
  // Signed routes (the API's, `config.auth` set by ApiRouter) get the signature, claim, budget and identity hook of their level.
  fastify.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (auth === undefined || auth === 'none') return;
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [...own, admit.signed(auth)];
  });

  // Refusals are logged here, on the error path only: a per-response hook would tax every request.
  fastify.setErrorHandler((err, req, reply) => {
    closeAfterReply(req, reply);
    if (err instanceof ApiError) {
      req.log.info({ reqId: req.id, method: req.method, path: redactPath((req.raw.url ?? '').split('?')[0]), status: err.status, code: err.code }, 'request refused');
      return sendError(req, reply, err);
    }
    const e = err as { statusCode?: number; code?: string; message?: string };
    const status = e.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const message = status === 413 ? `request body is larger than ${req.routeOptions.bodyLimit ?? FORM_LIMIT_BYTES} bytes` : e.message;
      return sendError(req, reply, new ApiError(codeForStatus(status), message));
    }
    req.log.error({ reqId: req.id, method: req.method, path: redactPath((req.raw.url ?? '').split('?')[0]), err }, 'unhandled error');
    return sendError(req, reply, new ApiError('internal', `internal error; quote request id ${req.id}`));
  });

  fastify.setNotFoundHandler((req, reply) => {
    sendError(req, reply, new ApiError('not_found', `no such endpoint: ${req.method} ${(req.raw.url ?? '').split('?')[0]}`));
  });

  for (const extend of deps.extensions ?? []) extend(fastify);
  router.install(fastify, config.maxUploadBytes);
  for (const register of deps.plainRoutes ?? []) register(fastify);

  let closed = false;
  return {
    fastify,
    async close() {
      if (closed) return;
      closed = true;
      // Keep-alive connections go idle as their last request ends: close them
      // then, not after keepAliveTimeout.
      const sweep = setInterval(() => fastify.server.closeIdleConnections(), 100);
      try {
        await fastify.close();
      } finally {
        clearInterval(sweep);
      }
    },
  };
}

// Declares API routes and runs one request through them: body decoding,
// `_method` override, parameter whitelist, the handler, the XML reply.
import busboy from 'busboy';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpMethod, RequestContext, Services, UploadedFile } from './context.js';
import { ApiError, badRequest } from './errors.js';
import { compileParamPatterns, Params } from './params.js';
import { sendXml } from './reply.js';
import type { XmlObject } from './xml.js';

export type AuthLevel = 'user' | 'app' | 'none';

export interface RouteSpec {
  method: HttpMethod;
  /** Fastify path, e.g. `/websites/:urlname/galleries/:uuid.xml`. */
  path: string;
  /** user: signed + logged in (default); app: signed only; none: unsigned (upload targets). */
  auth?: AuthLevel;
  /** Accepted parameter names; `*` matches one bracket segment. Anything else is a 400. */
  params?: readonly string[];
  /** Multipart file parts the route accepts (field names), or true for any name. */
  files?: boolean | readonly string[];
  /** The route reads a raw (non-form) request body itself from ctx.req.raw. */
  rawBody?: boolean;
  /** Refuse application/x-www-form-urlencoded bodies with a 415. */
  multipartOnly?: boolean;
  handler(ctx: RequestContext): Promise<XmlObject>;
}

interface CompiledRoute extends RouteSpec {
  patterns: RegExp[];
}

const AUTH_RANK: Record<AuthLevel, number> = { none: 0, app: 1, user: 2 };
export const FORM_LIMIT_BYTES = 4 * 1024 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export class ApiRouter {
  private readonly byPath = new Map<string, Map<HttpMethod, CompiledRoute>>();

  add(spec: RouteSpec): void {
    let methods = this.byPath.get(spec.path);
    if (!methods) this.byPath.set(spec.path, (methods = new Map()));
    if (methods.has(spec.method)) throw new Error(`route ${spec.method} ${spec.path} declared twice`);
    methods.set(spec.method, { ...spec, patterns: compileParamPatterns(spec.params ?? []) });
  }

  /** Every declared route, for tools that walk the whole API (the fuzz test). */
  specs(): RouteSpec[] {
    return [...this.byPath.values()].flatMap((methods) => [...methods.values()]);
  }

  install(fastify: FastifyInstance, services: Services): void {
    for (const [path, methods] of this.byPath) {
      const wire = new Set<HttpMethod>();
      for (const m of methods.keys()) {
        wire.add(m);
        // Clients that cannot send PUT/DELETE send POST with _method (client-compat).
        if (m === 'PUT' || m === 'DELETE') wire.add('POST');
      }
      for (const method of wire) {
        const candidates = method === 'POST' ? [...methods.values()].filter((r) => r.method !== 'GET') : [methods.get(method)!];
        const auth = candidates.reduce<AuthLevel>((a, r) => (AUTH_RANK[r.auth ?? 'user'] > AUTH_RANK[a] ? (r.auth ?? 'user') : a), 'none');
        fastify.route({
          method,
          url: path,
          config: { auth },
          handler: (req, reply) => this.dispatch(req, reply, methods, services),
        });
      }
    }
  }

  private async dispatch(req: FastifyRequest, reply: FastifyReply, methods: Map<HttpMethod, CompiledRoute>, services: Services): Promise<void> {
    const url = req.raw.url ?? '';
    const q = url.indexOf('?');
    const params = Params.parse(q < 0 ? '' : url.slice(q + 1));
    const wire = req.method as HttpMethod;
    const contentType = (req.headers['content-type'] ?? '').toLowerCase();
    let file: UploadedFile | undefined;
    let multipart = false;
    let form = false;
    if (wire !== 'GET') {
      if (contentType.startsWith('application/x-www-form-urlencoded')) {
        form = true;
        const body = req.body as Buffer | undefined;
        if (body && body.length > 0) {
          let text: string;
          try {
            text = utf8.decode(body);
          } catch {
            throw badRequest('the form body is not valid UTF-8', 'bad_encoding');
          }
          params.addEncoded(text, 'the form body');
        }
      } else if (contentType.startsWith('multipart/form-data')) {
        multipart = true;
        file = await readMultipart(req, params);
      }
    }
    try {
      const override = wire === 'POST' ? params.str('_method')?.toUpperCase() : undefined;
      const method = (override ?? wire) as HttpMethod;
      if (override && override !== 'PUT' && override !== 'DELETE' && override !== 'POST') {
        throw badRequest(`_method must be PUT or DELETE, got ${params.str('_method')}`);
      }
      const route = methods.get(method);
      if (!route) throw new ApiError(405, 'method_not_allowed', `${method} is not allowed on ${url.split('?')[0]}`);
      if (route.multipartOnly && form) {
        throw new ApiError(415, 'unsupported_media_type', `${method} ${url.split('?')[0]} accepts only multipart/form-data`);
      }
      if (!form && !multipart && wire !== 'GET' && !route.rawBody && hasBody(req)) {
        throw new ApiError(415, 'unsupported_media_type', `unsupported content type ${contentType || '(none)'}: send application/x-www-form-urlencoded or multipart/form-data`);
      }
      if (file && !(route.files === true || (Array.isArray(route.files) && route.files.includes(file.field)))) {
        throw new ApiError(400, 'unknown_parameter', `unexpected file in field ${file.field}`);
      }
      params.checkAllowed(route.patterns);
      const ctx: RequestContext = {
        services,
        method,
        params,
        path: req.params as Record<string, string>,
        app: req.app,
        user: req.identity?.user,
        file,
        req,
        reply,
        status: 200,
      };
      const body = await route.handler(ctx);
      sendXml(req, reply, ctx.status, body);
    } finally {
      // An unread file part must still be drained so the connection can be reused.
      if (file && !file.stream.readableEnded) file.stream.resume();
    }
  }
}

function hasBody(req: FastifyRequest): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Reads multipart fields into params until the first file part (or the end),
 * and hands that file part over as a stream: the body is never buffered whole.
 */
function readMultipart(req: FastifyRequest, params: Params): Promise<UploadedFile | undefined> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { fields: 2000, fieldSize: FORM_LIMIT_BYTES, files: 1, parts: 2100, fieldNameSize: 200 },
      });
    } catch (err) {
      reject(badRequest(`malformed multipart request: ${(err as Error).message}`));
      return;
    }
    let settled = false;
    const settle = (fn: () => void) => {
      if (!settled) {
        settled = true;
        fn();
      }
    };
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) {
        settle(() => reject(new ApiError(413, 'payload_too_large', `field ${name} is larger than ${FORM_LIMIT_BYTES} bytes`)));
        return;
      }
      params.add(name, value);
    });
    bb.on('file', (field, stream, info) => {
      if (settled) {
        stream.resume();
        return;
      }
      settle(() => resolve({ field, fileName: info.filename ?? '', mimeType: info.mimeType, stream }));
    });
    bb.on('filesLimit', () => settle(() => reject(badRequest('only one file part is accepted per request'))));
    bb.on('fieldsLimit', () => settle(() => reject(new ApiError(413, 'payload_too_large', 'too many form fields'))));
    bb.on('close', () => settle(() => resolve(undefined)));
    bb.on('error', (err: Error) => settle(() => reject(badRequest(`malformed multipart body: ${err.message}`))));
    req.raw.on('error', (err) => settle(() => reject(badRequest(`request body aborted: ${err.message}`))));
    req.raw.pipe(bb);
  });
}

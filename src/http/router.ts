// Declares API routes and runs one request through them: body decoding,
// `_method` override, parameter whitelist, the route's input, the handler,
// the XML reply.
import busboy from 'busboy';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HttpMethod, RequestContext, UploadedFile } from './context.js';
import { ApiError, badRequest } from '../core/errors.js';
import { closeAfterReply } from './lingering-close.js';
import { NO_INPUT, type Input } from './input.js';
import { compileParamPatterns, Params } from './params.js';
import { sendXml } from './reply.js';
import type { XmlObject } from './xml.js';

export type AuthLevel = 'user' | 'app' | 'none';

export interface RouteSpec<T = unknown> {
  method: HttpMethod;
  /** Fastify path, e.g. `/websites/:urlname/galleries/:uuid.xml`. */
  path: string;
  /** user: signed + logged in (default); app: signed only; none: unsigned (upload targets). */
  auth?: AuthLevel;
  /** The parameters the route accepts and reads (src/http/input.ts); none when absent. Any other name is a 400. */
  input?: Input<T>;
  /**
   * Looks up what the path names (`:urlname`, `:uuid`) and throws its 404. Asked only when the
   * input is refused with a 422: a request naming a missing resource is a 404 whatever its
   * parameters, and a request whose input is fine costs nothing more. Required when the path
   * names a resource and the route takes parameters.
   */
  found?(ctx: RequestContext): Promise<unknown>;
  /** Multipart file parts the route accepts (field names), or true for any name. */
  files?: boolean | readonly string[];
  /** The route reads a raw (non-form) request body itself from ctx.req.raw. */
  rawBody?: boolean;
  /** Refuse application/x-www-form-urlencoded bodies with a 415. */
  multipartOnly?: boolean;
  /** Bytes of all form fields of one request, names included (default FORM_LIMIT_BYTES). */
  formLimitBytes?: number;
  handler(ctx: RequestContext, input: T): Promise<XmlObject>;
}

/** A route with its input's type inferred from its declaration (for the `RouteSpec[]` tables). */
export function route<T>(spec: RouteSpec<T>): RouteSpec {
  return spec as RouteSpec;
}

interface CompiledRoute extends RouteSpec {
  input: Input<unknown>;
  patterns: RegExp[];
}

/** What one path and wire method accepts, over every route a `_method` may pick. */
interface WireLimits {
  /** Every route takes the raw bytes of a file: a form body is not even parsed. */
  rawOnly: boolean;
  formBytes: number;
  /** The most a Content-Length may announce: larger bodies are refused before any byte is read. */
  bodyBytes: number;
}

const AUTH_RANK: Record<AuthLevel, number> = { none: 0, app: 1, user: 2 };
export const FORM_LIMIT_BYTES = 4 * 1024 * 1024;
/** Room for boundaries and part headers around the fields and the file of a multipart body. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

export class ApiRouter {
  private readonly byPath = new Map<string, Map<HttpMethod, CompiledRoute>>();

  add(spec: RouteSpec): void {
    let methods = this.byPath.get(spec.path);
    if (!methods) this.byPath.set(spec.path, (methods = new Map()));
    if (methods.has(spec.method)) throw new Error(`route ${spec.method} ${spec.path} declared twice`);
    const input = spec.input ?? NO_INPUT;
    if (spec.path.includes('/:') && input.names.length > 0 && !spec.found) {
      throw new Error(`route ${spec.method} ${spec.path} takes parameters but does not say how to find what its path names (found)`);
    }
    methods.set(spec.method, { ...spec, input, patterns: compileParamPatterns(input.names) });
  }

  install(fastify: FastifyInstance, maxUploadBytes: number): void {
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
        const limits = wireLimits(candidates, maxUploadBytes);
        fastify.route({
          method,
          url: path,
          config: { auth },
          // Fastify reads urlencoded bodies itself: the same bound applies there.
          bodyLimit: limits.formBytes,
          handler: (req, reply) => this.dispatch(req, reply, methods, limits),
        });
      }
    }
  }

  private async dispatch(req: FastifyRequest, reply: FastifyReply, methods: Map<HttpMethod, CompiledRoute>, limits: WireLimits): Promise<void> {
    const url = req.raw.url ?? '';
    const q = url.indexOf('?');
    const params = Params.parse(q < 0 ? '' : url.slice(q + 1));
    const wire = req.method as HttpMethod;
    const contentType = (req.headers['content-type'] ?? '').toLowerCase();
    const announced = Number(req.headers['content-length']);
    if (announced > limits.bodyBytes) {
      throw new ApiError('payload_too_large', `the request body announces ${announced} bytes; this endpoint takes at most ${limits.bodyBytes}`);
    }
    let file: UploadedFile | undefined;
    let parser: MultipartParser | undefined;
    let form = false;
    try {
      if (limits.rawOnly && FORM_TYPES.some((t) => contentType.startsWith(t))) {
        throw new ApiError('unsupported_media_type', `${wire} ${url.split('?')[0]} takes the raw bytes of the file, not a form`);
      }
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
          parser = new MultipartParser(req, params, limits.formBytes);
          file = await parser.read();
        }
      }
      const override = wire === 'POST' ? params.str('_method')?.toUpperCase() : undefined;
      const method = (override ?? wire) as HttpMethod;
      if (override && override !== 'PUT' && override !== 'DELETE' && override !== 'POST') {
        throw badRequest(`_method must be PUT or DELETE, got ${params.str('_method')}`);
      }
      const route = methods.get(method);
      if (!route) throw new ApiError('method_not_allowed', `${method} is not allowed on ${url.split('?')[0]}`);
      if (route.multipartOnly && form) {
        throw new ApiError('unsupported_media_type', `${method} ${url.split('?')[0]} accepts only multipart/form-data`);
      }
      if (route.rawBody && (form || parser)) {
        throw new ApiError('unsupported_media_type', `${method} ${url.split('?')[0]} takes the raw bytes of the file, not a form`);
      }
      if (!form && !parser && wire !== 'GET' && !route.rawBody && hasBody(req)) {
        throw new ApiError('unsupported_media_type', `unsupported content type ${contentType || '(none)'}: send application/x-www-form-urlencoded or multipart/form-data`);
      }
      if (file && !(route.files === true || (Array.isArray(route.files) && route.files.includes(file.field)))) {
        throw new ApiError('unknown_parameter', `unexpected file in field ${file.field}`);
      }
      params.checkAllowed(route.patterns);
      const path = req.params as Record<string, string>;
      // for…in, not Object.values: the latter is a runtime call on every request.
      for (const name in path) {
        if (path[name].includes('\0')) throw badRequest('a path segment contains a NUL character', 'bad_encoding');
      }
      const ctx: RequestContext = {
        method,
        path,
        app: req.app,
        user: req.identity?.user,
        file,
        req,
        reply,
        status: 200,
      };
      let input: unknown;
      try {
        input = route.input.read(params, file);
      } catch (err) {
        // 404 before 422, the same on every route: a refused input is reported only for a resource that exists.
        if (route.found && err instanceof ApiError && err.status === 422) await route.found(ctx);
        throw err;
      }
      const body = await route.handler(ctx, input);
      // Whatever follows the part the handler used is not read: the connection ends with the reply.
      if (parser && !req.raw.complete) {
        parser.stop();
        closeAfterReply(req, reply);
      }
      // A route that answered itself (a CSV file) has sent its reply.
      if (!reply.sent) sendXml(req, reply, ctx.status, body);
    } catch (err) {
      // A refused body is not read further (the error handler closes the connection).
      parser?.stop();
      throw err;
    }
  }
}

function wireLimits(routes: readonly RouteSpec[], maxUploadBytes: number): WireLimits {
  const formBytes = Math.max(...routes.map((r) => r.formLimitBytes ?? FORM_LIMIT_BYTES));
  const bodyBytes = Math.max(
    ...routes.map((r) => (r.files ? maxUploadBytes + formBytes + MULTIPART_OVERHEAD_BYTES : r.rawBody ? maxUploadBytes : formBytes + MULTIPART_OVERHEAD_BYTES)),
  );
  return { rawOnly: routes.every((r) => r.rawBody), formBytes, bodyBytes };
}

function hasBody(req: FastifyRequest): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

// busboy decodes text without failing: bytes that are not valid in the part's
// charset (UTF-8 unless the part names another) become U+FFFD, or, for UTF-16,
// lone surrogates. A decoded U+FFFD cannot be told from one the client meant,
// so multipart text never carries one (urlencoded bodies are decoded strictly).
const NOT_CLEANLY_DECODED = /\uFFFD|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function checkDecoded(v: unknown, what: string): string {
  // An unknown charset leaves busboy with no text at all.
  if (typeof v !== 'string' || NOT_CLEANLY_DECODED.test(v)) throw badRequest(`${what} is not valid UTF-8`, 'bad_encoding');
  return v;
}

/**
 * Reads multipart fields into params until the first file part (or the end),
 * and hands that file part over as a stream: the body is never buffered whole,
 * and the fields of one request hold at most `limitBytes` in all.
 */
class MultipartParser {
  private bb?: busboy.Busboy;
  private settled = false;
  private formBytes = 0;

  constructor(
    private readonly req: FastifyRequest,
    private readonly params: Params,
    private readonly limitBytes: number,
  ) {}

  read(): Promise<UploadedFile | undefined> {
    return new Promise((resolve, reject) => {
      const settle = (fn: () => void) => {
        if (!this.settled) {
          this.settled = true;
          fn();
        }
      };
      // Once the file is handed over, whatever follows it is not used: a refusal then only stops the parse.
      const refuse = (err: ApiError) => {
        settle(() => reject(err));
        this.stop();
      };
      let bb: busboy.Busboy;
      try {
        bb = this.bb = busboy({
          headers: this.req.headers,
          defParamCharset: 'utf8',
          // No field can be larger than all of them together: busboy holds one field in memory until it ends.
          limits: { fields: 2000, fieldSize: this.limitBytes, files: 1, parts: 2100 },
        });
      } catch (err) {
        reject(badRequest(`malformed multipart request: ${(err as Error).message}`));
        return;
      }
      const tooLarge = () => new ApiError('payload_too_large', `the form fields are larger than ${this.limitBytes} bytes in all`);
      bb.on('field', (name, value, info) => {
        if (this.settled) return;
        try {
          if (info.valueTruncated) throw tooLarge();
          this.formBytes += Buffer.byteLength(name ?? '') + Buffer.byteLength(typeof value === 'string' ? value : '');
          if (this.formBytes > this.limitBytes) throw tooLarge();
          if (!name) throw badRequest('a multipart part has no name');
          this.params.add(checkDecoded(name, 'a multipart part name'), checkDecoded(value, `the value of ${name}`));
        } catch (err) {
          refuse(err as ApiError);
        }
      });
      bb.on('file', (field, stream, info) => {
        // Every stream busboy hands out gets a listener: an 'error' without one ends the process.
        stream.on('error', () => undefined);
        if (this.settled) {
          stream.resume();
          return;
        }
        try {
          if (!field) throw badRequest('a multipart file part has no name');
          const fileName = info.filename === undefined ? '' : checkDecoded(info.filename, `the file name of ${field}`);
          const file = { field: checkDecoded(field, 'a multipart part name'), fileName, mimeType: info.mimeType, stream };
          settle(() => resolve(file));
        } catch (err) {
          stream.resume();
          refuse(err as ApiError);
        }
      });
      bb.on('filesLimit', () => refuse(badRequest('only one file part is accepted per request')));
      bb.on('fieldsLimit', () => refuse(new ApiError('payload_too_large', 'too many form fields')));
      bb.on('partsLimit', () => refuse(new ApiError('payload_too_large', 'too many multipart parts')));
      bb.on('close', () => settle(() => resolve(undefined)));
      bb.on('error', (err: Error) => settle(() => reject(badRequest(`malformed multipart body: ${err.message}`))));
      this.req.raw.on('error', (err) => settle(() => reject(badRequest(`request body aborted: ${err.message}`))));
      this.req.raw.pipe(bb);
    });
  }

  /** Stops reading the body: nothing more is parsed or buffered. */
  stop(): void {
    const bb = this.bb;
    if (!bb || bb.destroyed) return;
    this.req.raw.unpipe(bb);
    bb.destroy();
  }
}

// The OpenAPI 3.1 description of the XML API, generated from the route tables and their
// declared inputs (src/http/input.ts), so it cannot drift from what the router accepts.
// Served at GET /openapi.json; a copy is kept in docs/openapi.json (npm run openapi).
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES } from '../core/errors.js';
import { docsOf, NO_INPUT, type ParamDoc } from './input.js';
import { OPENAPI_PAGE_CSP, OPENAPI_PAGE_PATH, openApiPage } from './openapi-page.js';
import type { AuthLevel, RouteSpec } from './router.js';

type Json = Record<string, unknown>;

export const OPENAPI_PATH = '/openapi.json';
const SIGNED = { signature: [] };
const SECURITY: Record<AuthLevel, Json[]> = {
  none: [],
  app: [SIGNED],
  user: [{ ...SIGNED, basic: [] }, { ...SIGNED, session: [] }],
};

/** `/websites/:urlname/galleries/:uuid.xml` → `/websites/{urlname}/galleries/{uuid}.xml`. */
export function templateOf(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/** A path template as a pattern a concrete path (URL-encoded segments) is matched against. */
export function templatePattern(template: string): RegExp {
  const parts = template.split(/\{[^}]+\}/).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]+')}$`);
}

/** A declared name as a pattern (`*` stands for one bracket segment), as the router matches it. */
export function namePattern(name: string): RegExp {
  return new RegExp(`^${name.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^\\[\\]]+')}$`);
}

function schemaOf(d: ParamDoc): Json {
  const s: Json = (() => {
    switch (d.kind) {
      case 'int':
      case 'page':
        return { type: 'integer', ...(d.min !== undefined && { minimum: d.min }), ...(d.max !== undefined && { maximum: d.max }) };
      case 'flag':
        return { type: 'string', enum: ['0', '1', 'true', 'false'] };
      case 'yesNo':
        return { type: 'string', enum: ['yes', 'no', '0', '1', 'true', 'false'] };
      case 'uuid':
        return { type: 'string', format: 'uuid' };
      case 'instant':
        return { type: 'string', format: 'date-time' };
      case 'oneOf':
        return { type: 'string', ...(d.allowed && { enum: [...d.allowed] }) };
      case 'list':
        return { type: 'string', description: 'a comma-separated list (or the name repeated)', ...(d.max !== undefined && { 'x-max-items': d.max }) };
      default:
        return { type: 'string', ...(d.kind === 'text' && d.max !== undefined && { maxLength: d.max }), ...(d.allowed && { enum: [...d.allowed] }) };
    }
  })();
  if (d.default !== undefined) s.default = d.default;
  if (d.kind === 'undeclared' || d.kind === 'custom') s['x-kind'] = d.kind;
  return s;
}

function operationOf(route: RouteSpec): Json {
  const docs = docsOf(route.input ?? NO_INPUT);
  const pathParams = [...route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const op: Json = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/\.(xml|csv)$/, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    security: SECURITY[route.auth ?? 'user'],
  };
  if (route.input && route.input !== NO_INPUT && !route.input.docs) op['x-parameters'] = 'undeclared';
  const exact = docs.filter((d) => !d.name.includes('*'));
  const patterned = docs.filter((d) => d.name.includes('*'));
  if (route.method === 'GET') {
    op.parameters = [...pathParams, ...exact.map((d) => ({ name: d.name, in: 'query', ...(d.required && { required: true }), schema: schemaOf(d) }))];
    if (patterned.length > 0) op['x-query-patterns'] = Object.fromEntries(patterned.map((d) => [d.name, schemaOf(d)]));
  } else {
    op.parameters = pathParams;
    op.requestBody = requestBodyOf(route, exact, patterned);
  }
  op.responses = responsesOf(route);
  return op;
}

function requestBodyOf(route: RouteSpec, exact: readonly ParamDoc[], patterned: readonly ParamDoc[]): Json {
  if (route.rawBody) return { required: true, content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } };
  const properties: Json = Object.fromEntries(exact.map((d) => [d.name, schemaOf(d)]));
  const files: readonly string[] = Array.isArray(route.files) ? route.files : [];
  for (const f of files) properties[f] = { type: 'string', contentMediaType: 'application/octet-stream' };
  const required = exact.filter((d) => d.required).map((d) => d.name);
  const schema: Json = {
    type: 'object',
    properties,
    ...(required.length > 0 && { required }),
    ...(patterned.length > 0 && { patternProperties: Object.fromEntries(patterned.map((d) => [namePattern(d.name).source, schemaOf(d)])) }),
    ...(route.input?.docs && route.files !== true ? { additionalProperties: false } : {}),
  };
  const content: Json = { 'multipart/form-data': { schema } };
  if (!route.multipartOnly) content['application/x-www-form-urlencoded'] = { schema };
  return { content };
}

function responsesOf(route: RouteSpec): Json {
  const ok = route.path.endsWith('.csv') ? { 'text/csv': { schema: { type: 'string' } } } : { 'application/xml': { schema: { $ref: '#/components/schemas/Reply' } } };
  const statuses = [...new Set(ERROR_CODES.map((e) => e.status))].filter((s) => s < 500 && (route.auth !== 'none' || s !== 401));
  const errors = Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/Error${s}` }]));
  return { '200': { description: 'the reply', content: ok }, ...errors, default: { $ref: '#/components/responses/Error' } };
}

const SIGNATURE_TEXT = [
  'Every request carries `X-Service-Authorization: <API_KEY>:<SIGNATURE>` and `X-Service-Timestamp` (RFC 2822; POSIX or ISO 8601 UTC also accepted, within 30 minutes of the service time).',
  'SIGNATURE is the lower-case hex SHA-1 (or MD5) of five lines, each ending with a line feed: the HTTP method, the path including `.xml`,',
  'the query string without `?` (empty line if none), the API secret, the exact timestamp header value.',
].join(' ');

function components(): Json {
  const errorSchema = {
    type: 'object',
    xml: { name: 'reply' },
    required: ['error', 'error-code', 'request'],
    properties: {
      error: { type: 'string', description: 'what went wrong, naming the failing parameter' },
      'error-code': { type: 'string', enum: ERROR_CODES.map((e) => e.code) },
      'auth-method': { type: 'string', enum: ['basic', 'basic:password+otp'] },
      'stop-with-error': { type: 'boolean' },
      request: { type: 'string' },
      'query-string': { type: 'string' },
    },
  };
  const responses: Json = { Error: { description: 'an error document', content: { 'application/xml': { schema: { $ref: '#/components/schemas/Error' } } } } };
  for (const status of [...new Set(ERROR_CODES.map((e) => e.status))].filter((s) => s < 500)) {
    const codes = ERROR_CODES.filter((e) => e.status === status).map((e) => e.code);
    responses[`Error${status}`] = { description: `an error document: ${codes.join(', ')}`, content: { 'application/xml': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return {
    securitySchemes: {
      signature: { type: 'apiKey', in: 'header', name: 'X-Service-Authorization', description: SIGNATURE_TEXT },
      basic: { type: 'http', scheme: 'basic', description: 'The user login and password; a two-factor user sends PASSWORD+CODE.' },
      session: { type: 'apiKey', in: 'cookie', name: '_ficelle_session', description: 'The session cookie set by the first authenticated reply.' },
    },
    schemas: {
      Reply: {
        type: 'object',
        xml: { name: 'reply' },
        description: 'Every reply is a <reply> element: lower-case dashed children, nil="true" for null, type="array" containers, then <request> and <query-string>.',
        properties: { message: { type: 'string' }, location: { type: 'string' }, request: { type: 'string' }, 'query-string': { type: 'string' } },
        additionalProperties: true,
      },
      Error: errorSchema,
    },
    responses,
  };
}

/** The description of `routes`, in their declaration order (a stable text for docs/openapi.json). */
export function openApiDocument(routes: readonly RouteSpec[]): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) (paths[templateOf(route.path)] ??= {})[route.method.toLowerCase()] = operationOf(route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Media Portfolio Service XML API',
      version: '1',
      description:
        'Generated from the route declarations (src/http/openapi.ts). Replies are XML (application/xml) under a <reply> root. ' +
        'PUT and DELETE may also be sent as POST with `_method`. `x-parameters: undeclared` marks a route whose parameters are read by hand; `x-kind: undeclared` a name whose kind is not declared.',
    },
    paths,
    components: components(),
  };
}

/** GET /openapi.json and /openapi.html: unsigned, cacheable, revalidated by an ETag; built on the first request (tens of ms). */
export function installOpenApiRoute(fastify: FastifyInstance, routes: readonly RouteSpec[]): void {
  let built: { json: string; html: string; etag: string } | undefined;
  const served = () => {
    if (built) return built;
    const doc = openApiDocument(routes);
    const json = `${JSON.stringify(doc, null, 2)}\n`;
    return (built = { json, html: openApiPage(doc), etag: createHash('sha256').update(json).digest('base64url').slice(0, 27) });
  };
  const send = (type: string, pick: (b: NonNullable<typeof built>) => string, prefix: string) => (req: FastifyRequest, reply: FastifyReply) => {
    const b = served();
    const etag = `"${prefix}${b.etag}"`;
    reply.header('etag', etag).header('cache-control', 'public, max-age=300, must-revalidate');
    if (type.startsWith('text/html')) reply.header('content-security-policy', OPENAPI_PAGE_CSP);
    if (req.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type(type).send(pick(b));
  };
  fastify.get(OPENAPI_PATH, send('application/json; charset=utf-8', (b) => b.json, 'j'));
  fastify.get(OPENAPI_PAGE_PATH, send('text/html; charset=utf-8', (b) => b.html, 'h'));
}

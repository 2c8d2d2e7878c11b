// Writes XML replies, successes and errors alike, with the envelope every
// reply carries: `<request>` and `<query-string>` last.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { renderReply, type XmlObject } from './xml.js';

export const XML_CONTENT_TYPE = 'application/xml; charset=utf-8';

function envelope(req: FastifyRequest, body: XmlObject): XmlObject {
  const url = req.raw.url ?? '';
  const q = url.indexOf('?');
  body.request = `${req.method} ${q < 0 ? url : url.slice(0, q)}`;
  if (q >= 0 && q < url.length - 1) body['query-string'] = url.slice(q + 1);
  return body;
}

export function sendXml(req: FastifyRequest, reply: FastifyReply, status: number, body: XmlObject): void {
  reply.code(status).header('content-type', XML_CONTENT_TYPE).send(renderReply(envelope(req, body)));
}

export function errorBody(err: ApiError): XmlObject {
  const body: XmlObject = { error: err.message, 'error-code': err.code };
  if (err.extra.authMethod) body['auth-method'] = err.extra.authMethod;
  if (err.extra.stopWithError !== undefined) body['stop-with-error'] = err.extra.stopWithError;
  if (err.extra.fields) Object.assign(body, err.extra.fields);
  return body;
}

export function sendError(req: FastifyRequest, reply: FastifyReply, err: ApiError): void {
  // Errors Fastify raises itself come before the onRequest hook that sets it on every other reply.
  reply.header('X-Request-Id', req.id);
  if (err.extra.retryAfter !== undefined) reply.header('Retry-After', String(Math.min(120, Math.max(1, Math.ceil(err.extra.retryAfter)))));
  sendXml(req, reply, err.status, errorBody(err));
}

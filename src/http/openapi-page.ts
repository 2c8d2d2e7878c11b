// GET /openapi.html (served by openapi.ts): the OpenAPI description as a plain server-rendered page (operations and
// their parameters), no script, no third-party resource, under a CSP that allows none.

type Json = Record<string, any>;
export const OPENAPI_PAGE_PATH = '/openapi.html';
export const OPENAPI_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => ESC[c]);

const STYLE = `body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d1d1f;background:#fafaf8}
main{max-width:60rem;margin:0 auto;padding:1rem}h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.05rem;margin:0;word-break:break-all}
section{background:#fff;border:1px solid #d8d8d4;border-radius:8px;padding:.75rem 1rem;margin:.75rem 0}
.m{display:inline-block;min-width:4.2em;font-weight:700;color:#0b5394}code{font-size:.92em;word-break:break-all}
ul{padding-left:1.2rem;margin:.4rem 0}li{margin:.15rem 0}.k{color:#4a4a4a}p{margin:.4rem 0}a{color:#0b5394}`;

/** The description's `code` spans as <code>, the rest escaped. */
const codeSpans = (text: string) => esc(text).replace(/`([^`]+)`/g, '<code>$1</code>');

function kindOf(schema: Json | undefined): string {
  if (!schema) return 'string';
  const parts = [schema['x-kind'] === 'undeclared' ? 'kind not declared' : schema.format ?? schema.type ?? 'string'];
  if (schema.enum) parts.push(`one of ${schema.enum.join(', ')}`);
  if (schema.minimum !== undefined && schema.maximum !== undefined) parts.push(`${schema.minimum} to ${schema.maximum}`);
  else if (schema.minimum !== undefined) parts.push(`at least ${schema.minimum}`);
  else if (schema.maximum !== undefined) parts.push(`at most ${schema.maximum}`);
  if (schema.maxLength !== undefined) parts.push(`at most ${schema.maxLength} characters`);
  if (schema.default !== undefined) parts.push(`default ${schema.default}`);
  return parts.join('; ');
}

function paramsOf(op: Json): Array<{ name: string; where: string; required: boolean; schema: Json }> {
  const out = (op.parameters ?? []).map((p: Json) => ({ name: p.name, where: p.in, required: !!p.required, schema: p.schema }));
  const content = op.requestBody?.content ?? {};
  const body = (content['multipart/form-data'] ?? content['application/octet-stream'])?.schema ?? {};
  if (content['application/octet-stream']) out.push({ name: '(the file’s bytes)', where: 'body', required: true, schema: {} });
  const required = new Set<string>(body.required ?? []);
  for (const [name, s] of Object.entries<Json>(body.properties ?? {})) out.push({ name, where: 'form', required: required.has(name), schema: s });
  for (const [name, s] of Object.entries<Json>({ ...(body.patternProperties ?? {}), ...(op['x-query-patterns'] ?? {}) })) {
    out.push({ name: name.replace(/^\^|\$$/g, '').replace(/\\/g, '').replace(/\[\^\[\]\]\+/g, '*'), where: 'form', required: false, schema: s });
  }
  return out;
}

function operationHtml(path: string, method: string, op: Json): string {
  const auth = op.security.length === 0 ? 'unsigned' : op.security.some((s: Json) => 'basic' in s) ? 'signed, user' : 'signed';
  const params = paramsOf(op);
  const list = params.length === 0 ? '<p class="k">No parameters.</p>' : `<ul>${params.map((p) => `<li><code>${esc(p.name)}</code> <span class="k">(${esc(p.where)}${p.required ? ', required' : ''}): ${esc(kindOf(p.schema))}</span></li>`).join('')}</ul>`;
  const note = op['x-parameters'] === 'undeclared' ? '<p class="k">Parameters read by hand: names exact, kinds not declared.</p>' : '';
  return `<section id="${esc(op.operationId)}"><h2><span class="m">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h2><p class="k">${auth}</p>${note}${list}</section>`;
}

export function openApiPage(doc: Json): string {
  const ops = Object.entries<Json>(doc.paths).flatMap(([path, methods]) => Object.entries<Json>(methods).map(([m, op]) => operationHtml(path, m, op)));
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)}: reference</title><style>${STYLE}</style></head><body><main>
<h1>${esc(doc.info.title)}</h1>
<p>Every operation of the signed XML API with the parameters it accepts, generated from the route declarations. The same as OpenAPI 3.1: <a href="/openapi.json">openapi.json</a>. Replies are XML under a <code>&lt;reply&gt;</code> root; errors carry <code>&lt;error&gt;</code> and <code>&lt;error-code&gt;</code>.</p>
<p>Signing: ${codeSpans(doc.components.securitySchemes.signature.description)}</p>
${ops.join('\n')}
</main></body></html>
`;
}

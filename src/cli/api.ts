// Command-line face of the client SDK: signs and sends one request and prints the reply body
// (`npm run --silent api -- GET /websites.xml view=details`; --json, --multipart, --method-override,
// --follow for the change feed). Exit status 0, 1 on a reply status >= 400 (body still printed), 2 on
// usage or transport errors; the client loads once the arguments are read (docs/api.md, first section;
// the server is found as `npm start` listens: MPS_URL, else HOST and PORT).
import { openAsBlob } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { parseArgs as parseArgv } from 'node:util';
import type { ApiResponse, FilePart, Params } from '../client/index.js';
import { quietWhenReaderGone } from './closed-output.js';
import { isMain } from './entry.js';
import { causeOf, MIME, unreachable, type CliIo, type Env } from './connect.js';

export { serverUrl, sessionFilePath, type CliIo, type Env } from './connect.js';

const USAGE = `usage: npm run --silent api -- [flags] METHOD PATH [name=value ...]
  flags: --multipart          send a multipart/form-data body
         --method-override    send PUT/DELETE as POST with _method
         --file field=path    attach a file (implies --multipart); path may end in ;type=MIME
         --include, -i        print the status line and headers to stderr
         --json               print the reply as JSON (docs/api.md, "Replies as JSON")
         --format xml|json    the same choice spelled out (xml: the reply as sent, the default)
         --follow             with GET /changes.xml: every page until caught up, one line per change
                              (ACTION KIND UUID), then "next-cursor CURSOR" (docs/integrations.md)
         --help, -h           this text
  environment (or ./.env): MPS_URL (default http://HOST:PORT, as npm start listens),
         MPS_API_KEY, MPS_API_SECRET, MPS_LOGIN, MPS_PASSWORD, MPS_OTP,
         MPS_SESSION_FILE (default DATA_DIR/.api-session), HOST, PORT, DATA_DIR
  repeat a name to send an array (name[]=a&name[]=b).`;

interface Args {
  method: string;
  path: string;
  params: Params;
  multipart: boolean;
  methodOverride: boolean;
  include: boolean;
  json: boolean;
  follow: boolean;
  file?: { field: string; path: string; type?: string };
}

class UsageError extends Error {}
/** --help: the usage on stdout, exit 0. */
class HelpWanted extends Error {}

const FLAGS = {
  multipart: { type: 'boolean' },
  'method-override': { type: 'boolean' },
  include: { type: 'boolean', short: 'i' },
  file: { type: 'string' },
  json: { type: 'boolean' },
  format: { type: 'string' },
  follow: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseArgs(argv: readonly string[]): Args {
  let parsed;
  try {
    parsed = parseArgv({ args: [...argv], options: FLAGS, allowPositionals: true, strict: true });
  } catch (e) {
    // Node's message names the flag ("Unknown option '--x'", "Option '--file <value>' argument missing").
    throw new UsageError((e as Error).message.split('\n')[0]);
  }
  const { values, positionals } = parsed;
  if (values.help) throw new HelpWanted();
  let file: Args['file'];
  if (values.file !== undefined) {
    const spec = values.file;
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new UsageError('--file wants field=path');
    const [path, type] = spec.slice(eq + 1).split(';type=');
    file = { field: spec.slice(0, eq), path, type };
  }
  if (values.format !== undefined && values.format !== 'xml' && values.format !== 'json') throw new UsageError('--format is xml or json');
  if (values.json && values.format === 'xml') throw new UsageError('--json and --format xml contradict each other');
  const [method, path, ...pairs] = positionals;
  if (!method || !path) throw new UsageError('METHOD and PATH are required');
  if (values.follow && (method.toUpperCase() !== 'GET' || path !== '/changes.xml')) throw new UsageError('--follow follows GET /changes.xml only');

  // Repeating a name makes an array; a single value stays a plain value.
  const params: Params = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`parameter "${pair}" is not name=value`);
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const previous = params[name];
    if (previous === undefined) params[name] = value;
    else params[name] = [...(Array.isArray(previous) ? previous : [previous as string]), value];
  }
  return {
    method: method.toUpperCase(),
    path,
    params,
    multipart: values.multipart ?? false,
    methodOverride: values['method-override'] ?? false,
    include: values.include ?? false,
    json: values.json === true || values.format === 'json',
    follow: values.follow ?? false,
    file,
  };
}

async function filePart(spec: NonNullable<Args['file']>, cwd: string): Promise<FilePart> {
  const path = resolve(cwd, spec.path);
  const contentType = spec.type ?? MIME[extname(path).toLowerCase()] ?? 'application/octet-stream';
  // A file-backed Blob: the file is streamed, not loaded, and can be re-sent.
  return { field: spec.field, fileName: basename(path), contentType, data: await openAsBlob(path, { type: contentType }) };
}

function writeHead(io: CliIo, status: number, statusText: string, headers: Headers): void {
  const lines = [`HTTP ${status} ${statusText}`.trimEnd()];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  io.stderr.write(lines.join('\n') + '\n\n');
}

/** Runs one invocation; returns the exit status. */
export async function runCli(argv: readonly string[], rawEnv: Env, io: CliIo, cwd = process.cwd()): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch (e) {
    if (e instanceof HelpWanted) {
      io.stdout.write(USAGE + '\n');
      return 0;
    }
    if (!(e instanceof UsageError)) throw e;
    io.stderr.write((e.message ? `api: ${e.message}\n` : '') + USAGE + '\n');
    return 2;
  }
  const [{ ApiRequestError, parseXml, xmlToJson }, { connectFromEnv }] = await Promise.all([import('../client/index.js'), import('./connect.js')]);
  const connected = await connectFromEnv(rawEnv, io, cwd);
  if ('problem' in connected) {
    io.stderr.write(`api: ${connected.problem}\n`);
    return 2;
  }
  const { client, baseUrl } = connected;

  let reply: Pick<ApiResponse, 'status' | 'statusText' | 'headers' | 'body'>;
  let failed = false;
  try {
    if (args.follow) return await followFeed(client, args, io);
    const file = args.file ? await filePart(args.file, cwd) : undefined;
    reply = await client.request(args.method, args.path, args.params, {
      multipart: args.multipart,
      methodOverride: args.methodOverride,
      file,
    });
  } catch (e) {
    if (!(e instanceof ApiRequestError)) {
      const code = unreachable(e);
      if (code !== undefined) {
        io.stderr.write(`api: cannot reach the server at ${baseUrl} (${code}): is it running? It is looked for at MPS_URL, else HOST and PORT, from the environment or ./.env\n`);
      } else {
        io.stderr.write(`api: ${e instanceof Error ? e.message : String(e)}${causeOf(e)}\n`);
      }
      return 2;
    }
    failed = true;
    reply = { status: e.status, statusText: e.statusText, headers: e.headers ?? new Headers(), body: e.body };
    if (!args.include) io.stderr.write(`api: HTTP ${e.status} (${e.kind}) ${e.message}\n`);
  }
  if (args.include) writeHead(io, reply.status, reply.statusText, reply.headers);
  if (!args.json) {
    io.stdout.write(reply.body);
    return failed ? 1 : 0;
  }
  // A refusal is XML too (its <error>, <error-code>): printed as JSON like any reply.
  let json: string;
  try {
    json = JSON.stringify(xmlToJson(parseXml(reply.body)), null, 2);
  } catch (e) {
    io.stderr.write(`api: the reply (HTTP ${reply.status}) is not XML, so there is no JSON to print: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  io.stdout.write(json + '\n');
  return failed ? 1 : 0;
}

/** --follow: the change feed from `since` (0 without it) until caught up; the cursor to keep last. */
async function followFeed(client: import('../client/index.js').MediaPortfolioClient, args: Args, io: CliIo): Promise<number> {
  const since = typeof args.params.since === 'string' ? args.params.since : '0';
  const perPage = args.params.per_page === undefined ? undefined : Number(args.params.per_page);
  const all: Array<{ kind: string; uuid: string; action: string }> = [];
  const next = await client.followChanges(since, (changes) => {
    if (args.json) all.push(...changes);
    else for (const c of changes) io.stdout.write(`${c.action} ${c.kind} ${c.uuid}\n`);
  }, { perPage });
  io.stdout.write(args.json ? JSON.stringify({ changes: all, next_cursor: next }, null, 2) + '\n' : `next-cursor ${next}\n`);
  return 0;
}

if (isMain(import.meta.url)) {
  quietWhenReaderGone(process.stdout, process.stderr);
  const status = await runCli(process.argv.slice(2), process.env, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
  process.exitCode = status;
}

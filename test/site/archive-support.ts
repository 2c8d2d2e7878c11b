// For the archive tests (and the bench): a request whose body is kept as bytes
// (or streamed into a file), and a ZIP read back by standard tools: Python's
// zipfile (which reads ZIP64) tests every entry's CRC and lists the entries,
// and Debian's unzip tests it too when it is installed.
import { execFile } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Fetched {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** Starts a GET; the response as it arrives (the caller reads or destroys it). */
export function open(url: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<IncomingMessage> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method, headers }, resolve);
    req.on('error', reject);
    req.end();
  });
}

/** A whole response, body as bytes. */
export async function fetchBytes(url: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Fetched> {
  const res = await open(url, path, headers, method);
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) };
}

/** A response's body streamed into `file` (for archives too large to hold). */
export async function fetchToFile(url: string, path: string, file: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingMessage['headers'] }> {
  const res = await open(url, path, headers);
  await pipeline(res, createWriteStream(file));
  return { status: res.statusCode ?? 0, headers: res.headers };
}

export interface ZipEntry {
  name: string;
  size: number;
  compressed: number;
  method: number;
}

const LIST = `
import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
bad = z.testzip()
if bad is not None:
    sys.exit('bad entry: ' + bad)
print(json.dumps([{'name': i.filename, 'size': i.file_size, 'compressed': i.compress_size, 'method': i.compress_type} for i in z.infolist()]))
`;

/**
 * An archive file checked by Python's zipfile (every CRC) and by `unzip -t` when installed: its
 * entries in archive order. Throws when either tool finds it bad.
 */
export async function checkZipFile(file: string): Promise<ZipEntry[]> {
  const { stdout } = await run('python3', ['-c', LIST, file], { maxBuffer: 64 * 1024 * 1024 });
  if (existsSync('/usr/bin/unzip')) await run('/usr/bin/unzip', ['-tqq', file], { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout) as ZipEntry[];
}

/** An archive held in memory: checked as above, and each entry's bytes (extracted by Python). */
export async function readZip(bytes: Buffer): Promise<{ entries: ZipEntry[]; files: Map<string, Buffer> }> {
  const dir = await mkdtemp(join(tmpdir(), 'mps-zip-'));
  try {
    const file = join(dir, 'a.zip');
    await writeFile(file, bytes);
    const entries = await checkZipFile(file);
    const out = join(dir, 'out');
    await run('python3', ['-m', 'zipfile', '-e', file, out]);
    const files = new Map<string, Buffer>();
    for (const e of entries) if (!e.name.endsWith('/')) files.set(e.name, await readFile(join(out, e.name)));
    return { entries, files };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

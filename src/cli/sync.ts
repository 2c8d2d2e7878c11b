// `mps sync <folder> --gallery A/B`: mirrors a folder tree into a gallery tree through the three-step
// upload (docs/integrations.md, "Folder sync"). Exit status 0 all done, 1 some files failed, 2 usage,
// configuration or connection errors. The server is reached as by the api command (./connect.ts).
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs as parseArgv } from 'node:util';
import type { MediaPortfolioClient } from '../client/index.js';
import { quietWhenReaderGone } from './closed-output.js';
import { isMain } from './entry.js';
import { causeOf, unreachable, type CliIo, type Env } from './connect.js';
import { barProgress, plainProgress, type Progress } from './sync-progress.js';
import { hashOf, loadState, stateWriter, walk, type LocalFile, type SyncState } from './sync-state.js';

const USAGE = `usage: mps sync FOLDER --gallery PATH [flags]
  PATH: gallery names under the website's root, separated by /, created when missing
        (sub-folders become sub-galleries)
  flags: --website URLNAME   the website (needed when you have several)
         --dry-run           say what would be done, change nothing
         --delete            delete the medias whose files are gone from the folder
         --concurrency N     files sent at once (default 4, at most 32)
         --json              one JSON summary on stdout
         --help, -h          this text
  environment (or ./.env): MPS_URL, MPS_API_KEY, MPS_API_SECRET, MPS_LOGIN, MPS_PASSWORD, MPS_OTP
  exit status: 0 done, 1 some files failed, 2 usage, configuration or connection error`;

interface SyncArgs {
  folder: string;
  gallery: string[];
  website?: string;
  dryRun: boolean;
  delete: boolean;
  concurrency: number;
  json: boolean;
}

class UsageError extends Error {}

export function parseSyncArgs(argv: readonly string[]): SyncArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgv({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        gallery: { type: 'string' },
        website: { type: 'string' },
        'dry-run': { type: 'boolean' },
        delete: { type: 'boolean' },
        concurrency: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0]);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1) throw new UsageError('one FOLDER is required');
  const gallery = (values.gallery ?? '').split('/').map((s) => s.trim()).filter(Boolean);
  if (gallery.length === 0) throw new UsageError('--gallery PATH is required (names under the website root, e.g. Clients/Smith)');
  if (gallery.some((n) => n.length > 255)) throw new UsageError('--gallery: a name is at most 255 characters');
  const concurrency = values.concurrency === undefined ? 4 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32) throw new UsageError('--concurrency is a whole number from 1 to 32');
  return { folder: positionals[0], gallery, website: values.website, dryRun: values['dry-run'] ?? false, delete: values.delete ?? false, concurrency, json: values.json ?? false };
}

type Action = 'uploaded' | 'replaced' | 'unchanged' | 'adopted' | 'failed' | 'deleted' | 'missing';

export interface SyncSummary {
  dry_run: boolean;
  website: string;
  gallery: string;
  galleries_created: string[];
  counts: Record<Action, number>;
  bytes_sent: number;
  files: Array<{ path: string; action: Action; media?: string; error?: string }>;
}

class ConfigError extends Error {}

/** Runs one invocation; returns the exit status. */
export async function runSync(argv: readonly string[], rawEnv: Env, io: CliIo, cwd = process.cwd()): Promise<number> {
  let args: SyncArgs | 'help';
  try {
    args = parseSyncArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr.write(`mps sync: ${e.message}\n${USAGE}\n`);
    return 2;
  }
  if (args === 'help') {
    io.stdout.write(USAGE + '\n');
    return 0;
  }
  const root = resolve(cwd, args.folder);
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    io.stderr.write(`mps sync: ${root} is not a folder\n`);
    return 2;
  }
  const { connectFromEnv } = await import('./connect.js');
  const connected = await connectFromEnv(rawEnv, io, cwd);
  if ('problem' in connected) {
    io.stderr.write(`mps sync: ${connected.problem}\n`);
    return 2;
  }
  const { ApiRequestError } = await import('../client/index.js');
  try {
    const summary = await syncFolder(connected.client, connected.baseUrl, root, args, io);
    if (args.json) io.stdout.write(JSON.stringify(summary) + '\n');
    else {
      const c = summary.counts;
      io.stdout.write(`${args.dryRun ? 'dry run: would send' : 'synced:'} ${c.uploaded} new, ${c.replaced} changed, ${c.unchanged + c.adopted} unchanged, ${c.failed} failed, ${c.deleted} deleted, ${c.missing} gone locally (kept)\n`);
    }
    return summary.counts.failed > 0 ? 1 : 0;
  } catch (e) {
    const code = unreachable(e);
    if (code) io.stderr.write(`mps sync: cannot reach the server at ${connected.baseUrl} (${code})\n`);
    else if (e instanceof ApiRequestError || e instanceof ConfigError) io.stderr.write(`mps sync: ${e.message}\n`);
    else io.stderr.write(`mps sync: ${e instanceof Error ? e.message : String(e)}${causeOf(e)}\n`);
    return 2;
  }
}

/** The website's urlname and root gallery: the one named, or the user's only one. */
async function websiteOf(client: MediaPortfolioClient, wanted: string | undefined): Promise<{ urlname: string; root: string }> {
  const { text } = await import('../client/index.js');
  const sites = [];
  for await (const w of client.paginate('/websites.xml', { view: 'details', per_page: 100 }, 'websites/website')) sites.push({ urlname: text(w, 'urlname') ?? '', root: text(w, 'root-gallery-uuid') ?? '' });
  const site = wanted ? sites.find((s) => s.urlname === wanted) : sites.length === 1 ? sites[0] : undefined;
  if (!site) throw new ConfigError(wanted ? `no website "${wanted}" among yours` : sites.length === 0 ? 'you have no website' : `you have ${sites.length} websites: name one with --website (${sites.map((s) => s.urlname).join(', ')})`);
  return site;
}

/**
 * The gallery for each folder ('' the top one), found by name under its parent or created (not in a
 * dry run: undefined there, and everything below it is new).
 */
async function galleriesFor(client: MediaPortfolioClient, site: { urlname: string; root: string }, top: string[], dirs: string[], dryRun: boolean, created: string[]): Promise<Map<string, string | undefined>> {
  const { text, child } = await import('../client/index.js');
  const byParent = new Map<string, Map<string, string>>();
  for await (const g of client.paginate(`/websites/${encodeURIComponent(site.urlname)}/galleries.xml`, { view: 'list', per_page: 500 }, 'galleries/gallery')) {
    const parent = text(g, 'parent-uuid') ?? '';
    if (!byParent.has(parent)) byParent.set(parent, new Map());
    const names = byParent.get(parent)!;
    const name = text(g, 'name') ?? '';
    if (!names.has(name)) names.set(name, text(g, 'uuid')!);
  }
  const ensure = async (parent: string | undefined, name: string, shown: string): Promise<string | undefined> => {
    const found = parent ? byParent.get(parent)?.get(name) : undefined;
    if (found) return found;
    created.push(shown);
    if (dryRun || !parent) return undefined;
    const reply = await client.createGallery(site.urlname, { name, parent });
    const uuid = text(child(reply.doc, 'gallery')!, 'uuid')!;
    if (!byParent.has(parent)) byParent.set(parent, new Map());
    byParent.get(parent)!.set(name, uuid);
    return uuid;
  };
  let topUuid: string | undefined = site.root;
  for (let i = 0; i < top.length; i++) topUuid = await ensure(topUuid, top[i], top.slice(0, i + 1).join('/'));
  const out = new Map<string, string | undefined>([['', topUuid]]);
  for (const dir of [...new Set(dirs)].sort()) {
    const parts = dir.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const rel = parts.slice(0, i).join('/');
      if (out.has(rel)) continue;
      out.set(rel, await ensure(out.get(parts.slice(0, i - 1).join('/')), parts[i - 1], [...top, ...parts.slice(0, i)].join('/')));
    }
  }
  return out;
}

/** Live medias published in a gallery: uuid → file name and size (the server's truth). */
async function liveMedias(client: MediaPortfolioClient, gallery: string | undefined): Promise<Map<string, { name: string; size: number }>> {
  const { text } = await import('../client/index.js');
  const out = new Map<string, { name: string; size: number }>();
  if (!gallery) return out;
  for await (const m of client.paginate('/medias.xml', { gallery_id: gallery, view: 'base', per_page: 500 }, 'medias/media')) {
    out.set(text(m, 'uuid')!, { name: text(m, 'file-name') ?? '', size: Number(text(m, 'file-size') ?? -1) });
  }
  return out;
}

interface Job {
  file: LocalFile;
  sha256: string;
  gallery?: string;
  /** Replace this media's file (changed, or a pending upload restarted). */
  media?: string;
  action: 'uploaded' | 'replaced';
}

async function syncFolder(client: MediaPortfolioClient, server: string, root: string, args: SyncArgs, io: CliIo): Promise<SyncSummary> {
  const site = await websiteOf(client, args.website);
  const state = await loadState(root, { server, website: site.urlname, gallery: args.gallery.join('/') });
  const files = await walk(root);
  const summary: SyncSummary = { dry_run: args.dryRun, website: site.urlname, gallery: args.gallery.join('/'), galleries_created: [], counts: { uploaded: 0, replaced: 0, unchanged: 0, adopted: 0, failed: 0, deleted: 0, missing: 0 }, bytes_sent: 0, files: [] };
  const galleries = await galleriesFor(client, site, args.gallery, files.map((f) => f.dir).filter(Boolean), args.dryRun, summary.galleries_created);
  const save = args.dryRun ? async () => {} : stateWriter(root, state);
  const plain = plainProgress(io.stdout, args.json);
  for (const g of summary.galleries_created) plain.line(`${args.dryRun ? 'would create' : 'created'} gallery ${g}`);
  const record = (path: string, action: Action, extra: { media?: string; error?: string } = {}) => {
    summary.counts[action]++;
    if (action !== 'unchanged') summary.files.push({ path, action, ...extra });
  };

  // What the server holds decides what is unchanged: a media deleted there is sent again.
  const live = new Map<string, Map<string, { name: string; size: number }>>();
  for (const [dir, uuid] of galleries) live.set(dir, await liveMedias(client, uuid));
  const claimed = new Set(Object.values(state.files).map((e) => e.media).filter(Boolean));
  const jobs: Job[] = [];
  for (const file of files) {
    const entry = state.files[file.rel];
    const sha256 = await hashOf(file, entry);
    const here = live.get(file.dir)!;
    const job: Job = { file, sha256, gallery: galleries.get(file.dir), action: 'uploaded' };
    if (entry?.media && here.has(entry.media)) {
      if (entry.sha256 === sha256) {
        // Unchanged, or sent by a run killed before it wrote down step 3's answer.
        if (!entry.done) record(file.rel, 'adopted', { media: entry.media });
        else record(file.rel, 'unchanged');
        state.files[file.rel] = { ...entry, sha256, size: file.size, mtimeMs: file.mtimeMs, done: true };
        continue;
      }
      Object.assign(job, { media: entry.media, action: 'replaced' });
    } else if (entry?.media && !entry.done) {
      job.media = entry.media; // a pending upload: its media gets the file, no second media
    } else if (!entry) {
      // Sent by a run killed between step 3 and its state write: the same name and size, not claimed.
      const match = [...here].find(([uuid, m]) => !claimed.has(uuid) && m.name === file.name && m.size === file.size);
      if (match) {
        claimed.add(match[0]);
        state.files[file.rel] = { sha256, size: file.size, mtimeMs: file.mtimeMs, media: match[0], done: true };
        record(file.rel, 'adopted', { media: match[0] });
        continue;
      }
    }
    jobs.push(job);
  }
  await save();
  await sendAll(client, jobs, args, state, save, summary, record, io);
  await propagateDeletions(client, files, args, state, save, record, plain);
  return summary;
}

async function sendAll(client: MediaPortfolioClient, jobs: Job[], args: SyncArgs, state: SyncState, save: () => Promise<void>, summary: SyncSummary, record: (path: string, action: Action, extra?: { media?: string; error?: string }) => void, io: CliIo): Promise<void> {
  const useBars = !args.json && !args.dryRun && (io.stderr as { isTTY?: boolean }).isTTY === true && jobs.length > 0;
  const progress: Progress = useBars ? await barProgress(io.stderr, jobs.reduce((a, j) => a + j.file.size, 0)) : plainProgress(io.stdout, args.json);
  if (args.dryRun) {
    for (const j of jobs) {
      progress.line(`would ${j.action === 'replaced' ? 'replace' : 'upload'} ${j.file.rel}`);
      record(j.file.rel, j.action, j.media ? { media: j.media } : {});
    }
    return;
  }
  const { uploadFile } = await import('../client/index.js');
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      const { file } = job;
      progress.start(file.rel, file.size);
      try {
        const uuid = await uploadFile(client, { path: file.path, name: file.name, size: file.size, mimeType: file.mimeType }, {
          galleryUuid: job.gallery,
          mediaUuid: job.media,
          onMedia: async (media) => {
            state.files[file.rel] = { sha256: job.sha256, size: file.size, mtimeMs: file.mtimeMs, media, done: false };
            await save();
          },
          onBytes: (sent) => progress.bytes(file.rel, sent),
        });
        state.files[file.rel] = { sha256: job.sha256, size: file.size, mtimeMs: file.mtimeMs, media: uuid, done: true };
        await save();
        summary.bytes_sent += file.size;
        record(file.rel, job.action, { media: uuid });
        progress.line(`${job.action} ${file.rel}`);
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        record(file.rel, 'failed', { error });
        progress.line(`failed ${file.rel}: ${error}`);
      } finally {
        progress.finish(file.rel, file.size);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(args.concurrency, jobs.length) }, worker));
  } finally {
    progress.stop();
  }
}

/** Files in the state that left the folder: their medias deleted with --delete, else only counted. */
async function propagateDeletions(client: MediaPortfolioClient, files: LocalFile[], args: SyncArgs, state: SyncState, save: () => Promise<void>, record: (path: string, action: Action, extra?: { media?: string; error?: string }) => void, out: Progress): Promise<void> {
  const { ApiRequestError } = await import('../client/index.js');
  const present = new Set(files.map((f) => f.rel));
  for (const [rel, entry] of Object.entries(state.files)) {
    if (present.has(rel)) continue;
    if (!args.delete || !entry.media) {
      record(rel, 'missing', { media: entry.media });
      continue;
    }
    if (args.dryRun) {
      out.line(`would delete ${rel}`);
      record(rel, 'deleted', { media: entry.media });
      continue;
    }
    try {
      await client.request('DELETE', `/medias/${encodeURIComponent(entry.media)}.xml`);
    } catch (e) {
      // Already gone on the server: what was wanted.
      if (!(e instanceof ApiRequestError && e.status === 404)) {
        record(rel, 'failed', { media: entry.media, error: e instanceof Error ? e.message : String(e) });
        continue;
      }
    }
    delete state.files[rel];
    await save();
    record(rel, 'deleted', { media: entry.media });
    out.line(`deleted ${rel}`);
  }
}

if (isMain(import.meta.url)) {
  quietWhenReaderGone(process.stdout, process.stderr);
  process.exitCode = await runSync(process.argv.slice(2), process.env, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
}

// `mps sync`'s view of the folder: the media files of the tree (hidden names skipped), their content
// hashes, and the state file `.mps-sync.json` kept in the folder, rewritten atomically (a temporary
// file renamed over it) after each file, so a killed run loses at most the file it was sending.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { MIME } from './connect.js';

export const STATE_FILE = '.mps-sync.json';

export interface FileEntry {
  sha256: string;
  size: number;
  mtimeMs: number;
  /** The media this file went to; `done` once step 3 answered. */
  media?: string;
  done: boolean;
}

export interface SyncState {
  version: 1;
  server: string;
  website: string;
  gallery: string;
  /** Relative path (`/`-separated) → what was sent. */
  files: Record<string, FileEntry>;
}

export interface LocalFile {
  rel: string;
  /** The folder part of `rel` ('' for the top). */
  dir: string;
  path: string;
  name: string;
  size: number;
  mtimeMs: number;
  mimeType: string;
}

/** Every file with a media extension below `root`, in a stable order; hidden files and folders are skipped. */
export async function walk(root: string): Promise<LocalFile[]> {
  const out: LocalFile[] = [];
  const visit = async (dir: string, relDir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const path = join(dir, e.name);
      const rel = relDir ? `${relDir}/${e.name}` : e.name;
      if (e.isDirectory()) await visit(path, rel);
      else if (e.isFile()) {
        const mimeType = MIME[extname(e.name).toLowerCase()];
        if (!mimeType || mimeType.startsWith('text/') || mimeType === 'application/xml') continue;
        const s = await stat(path);
        out.push({ rel, dir: relDir, path, name: e.name, size: s.size, mtimeMs: s.mtimeMs, mimeType });
      }
    }
  };
  await visit(root, '');
  return out;
}

export function sha256Of(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (d) => h.update(d))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

/** The stored hash while size and modification time are unchanged, else the content's own. */
export function hashOf(file: LocalFile, entry: FileEntry | undefined): Promise<string> {
  if (entry && entry.size === file.size && entry.mtimeMs === file.mtimeMs) return Promise.resolve(entry.sha256);
  return sha256Of(file.path);
}

/** The folder's state for this server, website and gallery; a state of another target counts as none. */
export async function loadState(root: string, target: Omit<SyncState, 'version' | 'files'>): Promise<SyncState> {
  const fresh: SyncState = { version: 1, ...target, files: {} };
  let raw: string;
  try {
    raw = await readFile(join(root, STATE_FILE), 'utf8');
  } catch {
    return fresh;
  }
  try {
    const s = JSON.parse(raw) as SyncState;
    if (s.version !== 1 || s.server !== target.server || s.website !== target.website || s.gallery !== target.gallery || typeof s.files !== 'object') return fresh;
    return s;
  } catch {
    return fresh;
  }
}

/** Writes the state atomically, one write at a time, the latest state winning. */
export function stateWriter(root: string, state: SyncState): () => Promise<void> {
  let chain = Promise.resolve();
  const file = join(root, STATE_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  return () => {
    chain = chain.then(async () => {
      await writeFile(tmp, JSON.stringify(state));
      await rename(tmp, file);
    });
    return chain;
  };
}


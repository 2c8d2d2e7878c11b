// Everything the service keeps under DATA_DIR is private to its user: the
// database holds API and TOTP secrets, the media belong to their owners.
// Folders 0700, files 0600; older, wider modes of what we own are tightened.
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Takes group and other bits away from a file or folder we own; a missing one is left alone. */
function tighten(path: string): void {
  let info;
  try {
    info = statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  // Someone else's folder (a shared mount point…) is theirs to set.
  if (process.getuid && info.uid !== process.getuid()) return;
  if ((info.mode & 0o077) !== 0) chmodSync(path, info.mode & 0o700);
}

/** Creates a folder (and missing parents) 0700, or tightens an existing one. */
export function ensurePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  tighten(path);
}

/** Creates an empty file 0600 when missing (before anything else opens it), or tightens an existing one. */
export function ensurePrivateFile(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  tighten(path);
}

/** Tightens a file if it exists (companions such as SQLite's -wal and -shm). */
export function tightenIfPresent(path: string): void {
  tighten(path);
}

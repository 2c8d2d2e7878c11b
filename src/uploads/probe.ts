// A file's content probe, by which the studio's uploads recognise a file already in the library:
// `w:` + SHA-256 of the whole file up to 32 MiB, else `s:` + SHA-256 of its size, first and last
// 8 MiB (the browser cannot hash a large file cheaply). The server computes it again from the bytes
// it received; a sampled match is only a candidate (wholeDigest). Why and the browser's twin
// (src/studio/browser/uploads.js): docs/studio.md, Uploads, "Duplicates".
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';

export const PROBE_WHOLE_BYTES = 32 * 1024 * 1024;
export const PROBE_SAMPLE_BYTES = 8 * 1024 * 1024;
export const PROBE_PATTERN = /^[ws]:[0-9a-f]{64}$/;

/** Whether `probe` hashed every byte of its file (`w:`): only then does a match prove the same file. */
export const isWholeProbe = (probe: string): boolean => probe.startsWith('w:');

/** Reads bytes `start` to `end` (inclusive) of the file. */
export type RangeReader = (start: number, end: number) => Promise<Readable>;

async function feed(hash: ReturnType<typeof createHash>, stream: Readable): Promise<void> {
  for await (const chunk of stream) hash.update(chunk as Buffer);
}

export async function contentProbe(size: number, read: RangeReader): Promise<string> {
  const hash = createHash('sha256');
  if (size <= PROBE_WHOLE_BYTES) {
    if (size > 0) await feed(hash, await read(0, size - 1));
    return `w:${hash.digest('hex')}`;
  }
  hash.update(`${size}\n`);
  await feed(hash, await read(0, PROBE_SAMPLE_BYTES - 1));
  await feed(hash, await read(size - PROBE_SAMPLE_BYTES, size - 1));
  return `s:${hash.digest('hex')}`;
}

/** SHA-256 of every byte of a file of `size` bytes (hex): what a sampled probe's match is confirmed by. */
export async function wholeDigest(size: number, read: RangeReader): Promise<string> {
  const hash = createHash('sha256');
  if (size > 0) await feed(hash, await read(0, size - 1));
  return hash.digest('hex');
}

// ffmpeg for video poster frames: which binary (FFMPEG_PATH, else the system's, else the bundled 2018
// build as a last resort), and how it runs on a client's file: its demuxer forced from the accepted
// type (never guessed), the `file` protocol only, one thread, CPU time and address space capped by the
// kernel, a timeout, diagnostics capped (docs/renditions.md, "Videos and documents"; docs/security.md).
import { execFile, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';

/** Where Debian (and most distributions) install the maintained ffmpeg. */
const SYSTEM_FFMPEG = '/usr/bin/ffmpeg';

export interface FfmpegBinary {
  path: string;
  /** How it was chosen: FFMPEG_PATH, the system's, or the bundled fallback. */
  source: 'configured' | 'system' | 'bundled' | 'none';
}

export interface FfmpegLimits {
  /** Wall-clock time of one run; the process is killed (SIGKILL) after it. */
  timeoutMs: number;
  /** CPU seconds of one run (`ulimit -t`): the kernel stops a decoder spinning on crafted input. */
  cpuSeconds: number;
  /** Address space of one run in KiB (`ulimit -v`): a declared-huge frame cannot take the machine's memory. */
  memoryKiB: number;
}

export const FFMPEG_LIMITS: FfmpegLimits = { timeoutMs: 30_000, cpuSeconds: 20, memoryKiB: 1024 * 1024 };

/** ffmpeg's diagnostics kept for the log, at most. */
const FFMPEG_STDERR_BYTES = 4096;

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** FFMPEG_PATH when set (used as given: a wrong one fails the videos, it is not silently replaced), else the system's, else the bundled one. */
export function chooseFfmpeg(configured: string | undefined): FfmpegBinary {
  if (configured) return { path: configured, source: 'configured' };
  if (executable(SYSTEM_FFMPEG)) return { path: SYSTEM_FFMPEG, source: 'system' };
  try {
    const bundled = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;
    if (executable(bundled)) return { path: bundled, source: 'bundled' };
  } catch {
    // No bundled build for this platform.
  }
  return { path: SYSTEM_FFMPEG, source: 'none' };
}

/** The first line of `ffmpeg -version` ("ffmpeg version 5.1.9-0+deb12u1 …"), or undefined when it does not run. */
export function ffmpegVersion(binary: FfmpegBinary): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(binary.path, ['-hide_banner', '-version'], { timeout: 10_000, maxBuffer: 64 * 1024 }, (err, stdout) => {
      resolve(err ? undefined : String(stdout).split('\n')[0]?.trim().slice(0, 200) || undefined);
    });
  });
}

/**
 * The demuxer for a stored video type (`-f`), from the type its bytes were
 * accepted as; undefined for a type ffmpeg must not be given. `head` tells
 * an MPEG program stream from an elementary video stream (both video/mpeg).
 */
export function demuxerFor(mimeType: string, head: Uint8Array): string | undefined {
  switch (mimeType) {
    case 'video/mp4':
    case 'video/quicktime':
    case 'video/x-m4v':
    case 'video/3gpp':
      return 'mov';
    case 'video/vnd.avi':
      return 'avi';
    case 'video/matroska':
    case 'video/webm':
      return 'matroska';
    case 'video/mp2t':
      return 'mpegts';
    case 'video/mpeg':
      return head[3] === 0xb3 ? 'mpegvideo' : 'mpeg';
    default:
      return undefined;
  }
}

export type FfmpegOutcome = { kind: 'exited'; code: number | null } | { kind: 'killed'; signal: string } | { kind: 'unavailable' };

/**
 * Runs ffmpeg on `input` (a local path) read with `demuxer`: the input
 * options come first, then `output` (the arguments after the input). The
 * limits are set by `sh` (`ulimit`) just before it becomes ffmpeg (`exec`),
 * so they bind ffmpeg and every thread it starts. The caller looks at what
 * was written; `stderr` receives ffmpeg's diagnostics, capped.
 */
export function runFfmpeg(binary: FfmpegBinary, demuxer: string, input: string, inputOptions: string[], output: string[], limits: FfmpegLimits = FFMPEG_LIMITS): Promise<FfmpegOutcome & { stderr: string }> {
  const args = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-nostdin',
    '-threads',
    '1',
    '-protocol_whitelist',
    'file',
    '-f',
    demuxer,
    ...inputOptions,
    // `file:` so that a name is never read as another protocol's address.
    '-i',
    `file:${input}`,
    ...output,
  ];
  const script = `ulimit -t ${limits.cpuSeconds} && ulimit -v ${limits.memoryKiB} && exec "$0" "$@"`;
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn('/bin/sh', ['-c', script, binary.path, ...args], { stdio: ['ignore', 'ignore', 'pipe'], timeout: limits.timeoutMs, killSignal: 'SIGKILL' });
    } catch {
      resolve({ kind: 'unavailable', stderr: '' });
      return;
    }
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < FFMPEG_STDERR_BYTES) stderr += chunk.toString('utf8').slice(0, FFMPEG_STDERR_BYTES - stderr.length);
    });
    child.on('error', () => resolve({ kind: 'unavailable', stderr }));
    // 126/127: sh could not run the binary (not executable, not found).
    child.on('close', (code, signal) =>
      resolve(signal ? { kind: 'killed', signal, stderr } : code === 126 || code === 127 ? { kind: 'unavailable', stderr } : { kind: 'exited', code, stderr }),
    );
  });
}

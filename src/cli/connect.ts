// How a command reaches the service, the one way for every command (`api`, `mps sync`): the address
// as `npm start` listens (MPS_URL, else HOST and PORT), the application key and secret and the user's
// credentials from the environment or ./.env, the session kept in a file. The client loads lazily.
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import type { MediaPortfolioClient } from '../client/index.js';

export type Env = Record<string, string | undefined>;

export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable & { isTTY?: boolean };
}

/**
 * Where the server listens, found as `npm start` decides it (src/config.ts):
 * HOST (default 127.0.0.1) and PORT (default 8080). A wildcard HOST is reached
 * on loopback. MPS_URL, when set, wins (a server elsewhere, or behind a proxy).
 */
export function serverUrl(env: Env): string {
  if (env.MPS_URL) return env.MPS_URL.replace(/\/+$/, '');
  let host = (env.HOST || '127.0.0.1').trim();
  if (host === '0.0.0.0' || host === '') host = '127.0.0.1';
  else if (host === '::' || host === '[::]') host = '::1';
  if (host.includes(':') && !host.startsWith('[')) host = `[${host}]`;
  return `http://${host}:${env.PORT || '8080'}`;
}

export function sessionFilePath(cwd: string, env: Env): string {
  if (env.MPS_SESSION_FILE) return resolve(cwd, env.MPS_SESSION_FILE);
  return resolve(cwd, env.DATA_DIR || './data', '.api-session');
}

export const MIME: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.heic': 'image/heic',
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.xml': 'application/xml',
};

function otpSource(env: Env, io: CliIo): (() => Promise<string>) | undefined {
  if (env.MPS_OTP) return async () => env.MPS_OTP as string;
  if (!io.stdin.isTTY) return undefined;
  return async () => {
    const rl = createInterface({ input: io.stdin, output: io.stderr });
    try {
      return (await rl.question('One-time code: ')).trim();
    } finally {
      rl.close();
    }
  };
}

/** The client for the environment (or ./.env), or what is missing. */
export async function connectFromEnv(rawEnv: Env, io: CliIo, cwd: string): Promise<{ client: MediaPortfolioClient; baseUrl: string } | { problem: string }> {
  const [{ FileSessionStore, MediaPortfolioClient }, { loadEnv }] = await Promise.all([import('../client/index.js'), import('../config.js')]);
  const env = loadEnv(rawEnv, cwd);
  const apiKey = env.MPS_API_KEY;
  const apiSecret = env.MPS_API_SECRET;
  if (!apiKey || !apiSecret) return { problem: 'MPS_API_KEY and MPS_API_SECRET must be set (environment or ./.env)' };
  const baseUrl = serverUrl(env);
  const login = env.MPS_LOGIN || undefined;
  const client = new MediaPortfolioClient({
    baseUrl,
    apiKey,
    apiSecret,
    login,
    password: env.MPS_PASSWORD,
    otp: otpSource(env, io),
    session: new FileSessionStore(sessionFilePath(cwd, env), { baseUrl, login }),
  });
  return { client, baseUrl };
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET']);

/** The system's word for a server that could not be reached (fetch puts it in the cause), or undefined. */
export function unreachable(e: unknown): string | undefined {
  let cause = e instanceof Error ? (e.cause as { code?: string; errors?: Array<{ code?: string }> } | undefined) : undefined;
  // Several addresses tried (happy eyeballs): an AggregateError of the same errors.
  if (cause && !cause.code && cause.errors?.[0]?.code) cause = cause.errors[0];
  return cause?.code && UNREACHABLE.has(cause.code) ? cause.code : undefined;
}

/** fetch hides the useful part ("ECONNREFUSED") in the cause. */
export function causeOf(e: unknown): string {
  const cause = e instanceof Error ? (e.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause ? ` (${cause.code ?? cause.message ?? ''})` : '';
}

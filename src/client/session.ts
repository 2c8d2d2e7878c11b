// The user session (spec 5.2): only the `_ficelle_session` cookie matters,
// so instead of a general cookie jar the client keeps that one value, in a
// pluggable store so a command-line tool can keep it between runs.
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export const SESSION_COOKIE = '_ficelle_session';

export interface SessionStore {
  load(): Promise<string | undefined> | string | undefined;
  save(cookie: string | undefined): Promise<void> | void;
}

export class MemorySessionStore implements SessionStore {
  constructor(private cookie?: string) {}
  load(): string | undefined {
    return this.cookie;
  }
  save(cookie: string | undefined): void {
    this.cookie = cookie;
  }
}

interface SessionFile {
  baseUrl: string;
  login?: string;
  cookie: string;
}

/**
 * Keeps the cookie in a JSON file (mode 0600: it is a credential). The file
 * remembers which service and login it belongs to, so switching either
 * starts a fresh session instead of acting as someone else.
 */
export class FileSessionStore implements SessionStore {
  constructor(
    readonly path: string,
    private readonly scope: { baseUrl: string; login?: string },
  ) {}

  async load(): Promise<string | undefined> {
    let raw: string;
    try {
      raw = await readFile(this.path, 'utf8');
    } catch {
      return undefined;
    }
    try {
      const data = JSON.parse(raw) as Partial<SessionFile>;
      const sameScope = data.baseUrl === this.scope.baseUrl && (data.login ?? undefined) === this.scope.login;
      return sameScope && typeof data.cookie === 'string' && data.cookie !== '' ? data.cookie : undefined;
    } catch {
      return undefined; // a damaged file just means logging in again
    }
  }

  async save(cookie: string | undefined): Promise<void> {
    if (cookie === undefined) {
      await rm(this.path, { force: true });
      return;
    }
    const data: SessionFile = { baseUrl: this.scope.baseUrl, login: this.scope.login, cookie };
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    // Write then rename so a concurrent run never reads half a file.
    const tmp = `${this.path}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(data) + '\n', { mode: 0o600 });
    await chmod(tmp, 0o600);
    await rename(tmp, this.path);
  }
}

/**
 * The session cookie as set by one reply: a string when set, null when the
 * server deleted it, undefined when the reply did not mention it.
 */
export function sessionFromSetCookie(setCookies: readonly string[], now = Date.now()): string | null | undefined {
  let result: string | null | undefined;
  for (const header of setCookies) {
    const [pair, ...attributes] = header.split(';');
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    let value: string | null = pair.slice(eq + 1).trim();
    for (const attribute of attributes) {
      const [rawKey, ...rest] = attribute.split('=');
      const key = rawKey.trim().toLowerCase();
      const attrValue = rest.join('=').trim();
      if (key === 'max-age' && Number(attrValue) <= 0) value = null;
      if (key === 'expires') {
        const t = Date.parse(attrValue);
        if (!Number.isNaN(t) && t <= now) value = null;
      }
    }
    result = value === '' ? null : value;
  }
  return result;
}

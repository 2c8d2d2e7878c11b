// A browser's part in the studio, over HTTP: a cookie jar, the pages' CSRF tokens, forms
// posted as a browser posts them (Origin and Sec-Fetch-Site of the studio's own address).
import type { TestService, TestUser } from '../support/service.js';
import type { Page } from 'playwright-core';

export interface Answer {
  status: number;
  headers: Headers;
  body: string;
  setCookies: string[];
}

export class StudioBrowser {
  readonly jar = new Map<string, string>();

  constructor(readonly svc: TestService) {}

  private cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: Response): string[] {
    const set = res.headers.getSetCookie();
    for (const c of set) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || /max-age=0/i.test(c)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return set;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await fetch(this.svc.url + path, { redirect: 'manual', headers: { cookie: this.cookieHeader(), ...headers } });
    const setCookies = this.keep(res);
    return { status: res.status, headers: res.headers, body: await res.text(), setCookies };
  }

  /** Posts a form; `origin: null` sends no Origin nor Sec-Fetch-Site (a client that is not a browser). */
  async post(path: string, fields: Record<string, string>, opts: { origin?: string | null; site?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader(), ...opts.headers };
    if (opts.origin !== null) {
      headers.origin = opts.origin ?? this.svc.url;
      headers['sec-fetch-site'] = opts.site ?? 'same-origin';
    }
    const res = await fetch(this.svc.url + path, { method: 'POST', redirect: 'manual', headers, body: new URLSearchParams(fields).toString() });
    const setCookies = this.keep(res);
    return { status: res.status, headers: res.headers, body: await res.text(), setCookies };
  }

  /** The CSRF token of a page's forms. */
  static csrf(page: Answer): string {
    const m = /name="csrf" value="([^"]+)"/.exec(page.body);
    if (!m) throw new Error(`no csrf field in the page (${page.status}): ${page.body.slice(0, 300)}`);
    return m[1];
  }

  /** Sign-in's first step: the form, then e-mail and password. */
  async signInWith(email: string, password: string, headers: Record<string, string> = {}): Promise<Answer> {
    const form = await this.get('/studio/signin', headers);
    return this.post('/studio/signin', { csrf: StudioBrowser.csrf(form), email, password }, { headers });
  }

  /** Signs in a user without a second factor; throws unless the studio answered the session. */
  async signIn(user: Pick<TestUser, 'email' | 'password'>): Promise<this> {
    const res = await this.signInWith(user.email, user.password);
    if (res.status !== 303) throw new Error(`sign-in answered ${res.status}: ${res.body.slice(0, 300)}`);
    return this;
  }

  /** Loads a page and posts its form (the first one with that action) with `fields` on top of its token. */
  async submit(pagePath: string, action: string, fields: Record<string, string>, opts: { origin?: string | null; site?: string } = {}): Promise<Answer> {
    const page = await this.get(pagePath);
    if (page.status !== 200) throw new Error(`${pagePath} answered ${page.status}`);
    return this.post(action, { csrf: StudioBrowser.csrf(page), ...fields }, opts);
  }
}

/** The visible text of an error next to a field. */
export function fieldError(body: string, field: string): string | undefined {
  const m = new RegExp(`id="${field}-error"[^>]*>([^<]*)<`).exec(body);
  return m?.[1];
}

/**
 * The studio's navigation, its sections in view: on a phone they sit behind the header's Menu
 * button (a disclosure), which this opens first; on a wider screen they are listed already.
 */
export async function studioNav(page: import('playwright-core').Page): Promise<import('playwright-core').Locator> {
  // The menu's script runs before DOMContentLoaded (a module): until then the sections are listed.
  await page.waitForLoadState('domcontentloaded');
  const menu = page.getByRole('button', { name: 'Menu', exact: true });
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
  return page.getByRole('navigation', { name: 'Studio' });
}

/** Signs a user in through the studio's sign-in form in a real browser page, and waits for the websites screen. */
export async function signInBrowser(page: Page, baseUrl: string, user: Pick<TestUser, 'email' | 'password'>): Promise<void> {
  await page.goto(`${baseUrl}/studio/signin`);
  await page.getByLabel('E-mail address').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/studio/websites');
}

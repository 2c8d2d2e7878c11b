// The usual starting point of an API test: a running service, an application,
// a user with a website, and that user's logged-in SDK client.
import { expect } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { isApiRequestError, type ApiRequestError } from '../../src/client/errors.js';
import { basicAuth, sessionCookieOf, TestService, type DbKind, type TestApp, type TestUser } from './service.js';

export interface World {
  svc: TestService;
  app: TestApp;
  user: TestUser;
  urlname: string;
  rootUuid: string;
  client: MediaPortfolioClient;
}

export async function startWorld(kind: DbKind, env: Record<string, string> = {}): Promise<World> {
  return worldOn(await TestService.start(kind, env));
}

/** A new user with a website and a client, on a running service. */
export async function worldOn(svc: TestService): Promise<World> {
  const app = await svc.app();
  const user = await svc.user();
  const site = await svc.website(user);
  return { svc, app, user, urlname: site.urlname, rootUuid: site.rootGalleryUuid, client: svc.client(app, user) };
}

/** The typed error of a call that must fail with an error reply. */
export async function rejection(call: Promise<unknown>): Promise<ApiRequestError> {
  try {
    await call;
  } catch (e) {
    if (isApiRequestError(e)) return e;
    throw e;
  }
  expect.fail('the call succeeded');
}

/** The status and message of a call that must fail. */
export async function failure(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  const e = await rejection(call);
  return { status: e.status, message: e.message };
}

/** A world whose user has logged in with Basic once: `cookie` is the session cookie to send. */
export async function signedInWorld(kind: DbKind, env: Record<string, string> = {}): Promise<World & { cookie: string; site: { urlname: string; rootGalleryUuid: string } }> {
  const w = await startWorld(kind, env);
  const res = await w.svc.raw(w.app, 'GET', '/ping.xml', { headers: { authorization: basicAuth(w.user.email, w.user.password) } });
  const cookie = sessionCookieOf(res);
  if (!cookie) throw new Error('login did not set a session cookie');
  return { ...w, cookie, site: { urlname: w.urlname, rootGalleryUuid: w.rootUuid } };
}

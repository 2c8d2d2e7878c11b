// Session and ping endpoints (spec 4.1). Logging in is the auth hook's
// (src/http/auth.ts); whoami answers from the user it found, with no query.
import type { RouteSpec } from '../http/router.js';
import { userOf } from '../http/context.js';
import { clearedSessionCookie, readSessionCookie, type SessionStore } from '../http/sessions.js';
import { whoamiXml } from './xml.js';

export interface SessionRoutesDeps {
  sessions: SessionStore;
  /** The service is reached over HTTPS: cookies carry Secure. */
  secureCookies: boolean;
}

export function sessionRoutes({ sessions, secureCookies }: SessionRoutesDeps): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/ping.xml',
      auth: 'app',
      params: ['text'],
      handler: async (ctx) => ({ message: 'OK', 'input-text': ctx.params.str('text') }),
    },
    {
      method: 'GET',
      path: '/ping_auth.xml',
      params: ['text'],
      handler: async (ctx) => ({ message: 'OK', 'input-text': ctx.params.str('text') }),
    },
    {
      method: 'GET',
      path: '/whoami.xml',
      handler: async (ctx) => whoamiXml(userOf(ctx)),
    },
    {
      method: 'GET',
      path: '/logout.xml',
      auth: 'app',
      handler: async (ctx) => {
        const token = ctx.req.identity?.sessionToken ?? readSessionCookie(ctx.req.headers.cookie);
        if (token) await sessions.destroy(token);
        ctx.reply.header('set-cookie', clearedSessionCookie(secureCookies));
        return { message: token ? 'logged out' : 'no session' };
      },
    },
  ];
}

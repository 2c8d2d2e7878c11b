// Session and ping endpoints (spec 4.1). Logging in is the auth hook's
// (src/users/auth.ts); whoami answers from the user it found, with no query.
import { userOf } from '../http/context.js';
import { text } from '../http/input.js';
import { route, type RouteSpec } from '../http/router.js';
import { clearedSessionCookie, readSessionCookie, type SessionStore } from './sessions.js';
import { whoamiXml } from './xml.js';

export interface SessionRoutesDeps {
  sessions: SessionStore;
  /** The service is reached over HTTPS: cookies carry Secure. */
  secureCookies: boolean;
}

export function sessionRoutes({ sessions, secureCookies }: SessionRoutesDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/ping.xml',
      auth: 'app',
      input: text('text'),
      handler: async (_ctx, text) => ({ message: 'OK', 'input-text': text }),
    }),
    route({
      method: 'GET',
      path: '/ping_auth.xml',
      input: text('text'),
      handler: async (_ctx, text) => ({ message: 'OK', 'input-text': text }),
    }),
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

// Session and ping endpoints (spec 4.1).
import type { RouteSpec } from '../http/router.js';
import { userOf } from '../http/context.js';
import { clearedSessionCookie, readSessionCookie } from '../http/sessions.js';

export function sessionRoutes(): RouteSpec[] {
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
      handler: async (ctx) => {
        const user = userOf(ctx);
        return {
          user: {
            uuid: user.uuid,
            login: user.email,
            email: user.email,
            firstname: user.first_name,
            lastname: user.last_name,
            'two-factor': user.otp_secret !== null,
          },
          message: 'session valid',
        };
      },
    },
    {
      method: 'GET',
      path: '/logout.xml',
      auth: 'app',
      handler: async (ctx) => {
        const token = ctx.req.identity?.sessionToken ?? readSessionCookie(ctx.req.headers.cookie);
        if (token) await ctx.services.sessions.destroy(token);
        ctx.reply.header('set-cookie', clearedSessionCookie(ctx.services.config.publicUrl.startsWith('https:')));
        return { message: token ? 'logged out' : 'no session' };
      },
    },
  ];
}

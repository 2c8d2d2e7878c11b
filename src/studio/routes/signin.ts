// Sign-in (e-mail and password, then a two-factor user's code), sign-out and sign-out
// everywhere. Through the API's login throttle (Authenticator) and its session store: a
// studio session is an API session in a cookie of its own.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import type { UserRow } from '../../database/schema.js';
import { DEVICE_MAX_AGE } from '../guard.js';
import { SMALL_FORM_BYTES, type StudioKit } from '../kit.js';
import { codePage, signInPage } from '../pages/signin.js';

export function signInRoutes(f: FastifyInstance, kit: StudioKit): void {
  // ---- sign-in: e-mail and password, then the code of a two-factor user
  // The token of the sign-in forms is kept while its cookie lives, so that two tabs' forms both work.
  const signInForm = (req: FastifyRequest, reply: FastifyReply, status: number, extra: { email?: string; error?: string } = {}) => {
    const token = kit.cookies.read(req, kit.cookies.signinToken) ?? kit.tokens.fresh();
    reply.header('set-cookie', kit.cookies.set(kit.cookies.signinToken, token, 3600));
    return kit.send(reply, status, signInPage({ token, ...extra }));
  };
  const codeForm = (req: FastifyRequest, reply: FastifyReply, status: number, error?: string) => {
    const token = kit.cookies.read(req, kit.cookies.signinToken) ?? kit.tokens.fresh();
    reply.header('set-cookie', kit.cookies.set(kit.cookies.signinToken, token, 3600));
    return kit.send(reply, status, codePage({ token, error }));
  };
  const startSession = async (reply: FastifyReply, user: UserRow) => {
    const token = await kit.deps.sessions.create(user.id);
    return reply
      .code(303)
      .header('set-cookie', [
        kit.cookies.sessionCookie(token),
        kit.cookies.set(kit.cookies.device, kit.deps.authenticator.throttle.mintDevice(user.id), DEVICE_MAX_AGE),
        kit.cookies.cleared(kit.cookies.pending),
        kit.cookies.cleared(kit.cookies.signinToken),
      ])
      .header('location', '/studio/websites')
      .header('cache-control', 'no-store')
      .send();
  };
  /** The browser's device cookie (the login throttle's, OWASP): a lockout strangers cause does not refuse it. */
  const deviceOf = (req: FastifyRequest) => kit.deps.authenticator.throttle.readDevice(kit.cookies.read(req, kit.cookies.device));
  /** A refusal of the login shown on its form; the throttle's 429 stays a 429 (with Retry-After). */
  const loginRefusal = (err: unknown): string | undefined => (err instanceof ApiError && (err.code === 'invalid_credentials' || err.code === 'invalid_parameter') ? err.message : undefined);

  f.get('/studio/signin', (req, reply) => (kit.signedInOf(req) ? kit.redirect(reply, '/studio/websites') : signInForm(req, reply, 200)));
  f.post('/studio/signin', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
    const form = kit.formOf(req);
    kit.checkPost(req, form, kit.cookies.read(req, kit.cookies.signinToken));
    const email = (form.str('email') ?? '').trim().slice(0, 254);
    const password = form.str('password') ?? '';
    try {
      const { user, otp } = await kit.deps.authenticator.checkPassword(email, password, req.ip, deviceOf(req));
      if (!otp) return await startSession(reply, user);
      const token = kit.cookies.read(req, kit.cookies.signinToken) ?? kit.tokens.fresh();
      reply.header('set-cookie', [kit.cookies.set(kit.cookies.pending, kit.tokens.pending(user.id, user.password_hash), 300), kit.cookies.set(kit.cookies.signinToken, token, 3600)]);
      return kit.send(reply, 200, codePage({ token }));
    } catch (err) {
      const message = loginRefusal(err);
      if (message === undefined) throw err;
      return signInForm(req, reply, 401, { email, error: 'The e-mail address or the password is not right.' });
    }
  });

  const pendingUser = async (req: FastifyRequest): Promise<UserRow | undefined> => {
    const value = kit.cookies.read(req, kit.cookies.pending);
    const id = kit.tokens.pendingUser(value);
    const user = id === undefined ? undefined : await kit.deps.users.byId(id);
    return user && user.otp_secret && kit.tokens.pendingValid(value!, user.id, user.password_hash) ? user : undefined;
  };
  f.get('/studio/signin/code', async (req, reply) => ((await pendingUser(req)) ? codeForm(req, reply, 200) : kit.redirect(reply, '/studio/signin')));
  f.post('/studio/signin/code', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
    const form = kit.formOf(req);
    kit.checkPost(req, form, kit.cookies.read(req, kit.cookies.signinToken));
    const user = await pendingUser(req);
    if (!user) return signInForm(req, reply, 401, { error: 'The sign-in took too long: start again.' });
    try {
      return await startSession(reply, await kit.deps.authenticator.checkCode(user, form.str('code') ?? '', req.ip, deviceOf(req)));
    } catch (err) {
      if (loginRefusal(err) === undefined) throw err;
      return codeForm(req, reply, 401, 'The code is not right: type the code your app shows now.');
    }
  });

  f.post('/studio/signout', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
    const { s } = kit.signedPost(req);
    await kit.deps.sessions.destroy(s.token);
    return reply.code(303).header('set-cookie', kit.cookies.cleared(kit.cookies.session)).header('location', '/studio/signin').send();
  });
  f.post('/studio/signout-everywhere', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
    const { s } = kit.signedPost(req);
    await kit.deps.sessions.destroyAllOf(s.user.id);
    return reply.code(303).header('set-cookie', kit.cookies.cleared(kit.cookies.session)).header('location', '/studio/signin').send();
  });
}

// Sign-in (e-mail and password, then a two-factor user's code), sign-out and sign-out
// everywhere. Through the API's login throttle (Authenticator) and its session store: a
// studio session is an API session in a cookie of its own.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import type { UserRow } from '../../database/schema.js';
import { DEVICE_MAX_AGE } from '../guard.js';
import { SMALL_FORM_BYTES, type StudioContext, type StudioRoute } from '../context.js';
import { codePage, signInPage } from '../pages/signin.js';

export const signInRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/signin', handler: signInScreen },
  { method: 'POST', path: '/studio/signin', bodyLimit: SMALL_FORM_BYTES, handler: signIn },
  { method: 'GET', path: '/studio/signin/code', handler: codeScreen },
  { method: 'POST', path: '/studio/signin/code', bodyLimit: SMALL_FORM_BYTES, handler: signInCode },
  { method: 'POST', path: '/studio/signout', bodyLimit: SMALL_FORM_BYTES, handler: signOut },
  { method: 'POST', path: '/studio/signout-everywhere', bodyLimit: SMALL_FORM_BYTES, handler: signOutEverywhere },
];

// ---- sign-in: e-mail and password, then the code of a two-factor user
// The token of the sign-in forms is kept while its cookie lives, so that two tabs' forms both work.
const signInForm = (ctx: StudioContext, req: FastifyRequest, reply: FastifyReply, status: number, extra: { email?: string; error?: string } = {}) => {
  const token = ctx.cookies.read(req, ctx.cookies.signinToken) ?? ctx.tokens.fresh();
  reply.header('set-cookie', ctx.cookies.set(ctx.cookies.signinToken, token, 3600));
  return ctx.send(reply, status, signInPage({ token, ...extra }));
};
const codeForm = (ctx: StudioContext, req: FastifyRequest, reply: FastifyReply, status: number, error?: string) => {
  const token = ctx.cookies.read(req, ctx.cookies.signinToken) ?? ctx.tokens.fresh();
  reply.header('set-cookie', ctx.cookies.set(ctx.cookies.signinToken, token, 3600));
  return ctx.send(reply, status, codePage({ token, error }));
};
const startSession = async (ctx: StudioContext, reply: FastifyReply, user: UserRow) => {
  const token = await ctx.deps.sessions.create(user.id);
  return reply
    .code(303)
    .header('set-cookie', [
      ctx.cookies.sessionCookie(token),
      ctx.cookies.set(ctx.cookies.device, ctx.deps.authenticator.throttle.mintDevice(user.id), DEVICE_MAX_AGE),
      ctx.cookies.cleared(ctx.cookies.pending),
      ctx.cookies.cleared(ctx.cookies.signinToken),
    ])
    .header('location', '/studio/websites')
    .header('cache-control', 'no-store')
    .send();
};
/** The browser's device cookie (the login throttle's, OWASP): a lockout strangers cause does not refuse it. */
const deviceOf = (ctx: StudioContext, req: FastifyRequest) => ctx.deps.authenticator.throttle.readDevice(ctx.cookies.read(req, ctx.cookies.device));
/** A refusal of the login shown on its form; the throttle's 429 stays a 429 (with Retry-After). */
const loginRefusal = (err: unknown): string | undefined => (err instanceof ApiError && (err.code === 'invalid_credentials' || err.code === 'invalid_parameter') ? err.message : undefined);

function signInScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  return ctx.signedInOf(req) ? ctx.redirect(reply, '/studio/websites') : signInForm(ctx, req, reply, 200);
}

async function signIn(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const form = ctx.formOf(req);
  ctx.checkPost(req, form, ctx.cookies.read(req, ctx.cookies.signinToken));
  const email = (form.str('email') ?? '').trim().slice(0, 254);
  const password = form.str('password') ?? '';
  try {
    const { user, otp } = await ctx.deps.authenticator.checkPassword(email, password, req.ip, deviceOf(ctx, req));
    if (!otp) return await startSession(ctx, reply, user);
    const token = ctx.cookies.read(req, ctx.cookies.signinToken) ?? ctx.tokens.fresh();
    reply.header('set-cookie', [ctx.cookies.set(ctx.cookies.pending, ctx.tokens.pending(user.id, user.password_hash), 300), ctx.cookies.set(ctx.cookies.signinToken, token, 3600)]);
    return ctx.send(reply, 200, codePage({ token }));
  } catch (err) {
    const message = loginRefusal(err);
    if (message === undefined) throw err;
    return signInForm(ctx, req, reply, 401, { email, error: 'The e-mail address or the password is not right.' });
  }
}

const pendingUser = async (ctx: StudioContext, req: FastifyRequest): Promise<UserRow | undefined> => {
  const value = ctx.cookies.read(req, ctx.cookies.pending);
  const id = ctx.tokens.pendingUser(value);
  const user = id === undefined ? undefined : await ctx.deps.users.byId(id);
  return user && user.otp_secret && ctx.tokens.pendingValid(value!, user.id, user.password_hash) ? user : undefined;
};
async function codeScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  return (await pendingUser(ctx, req)) ? codeForm(ctx, req, reply, 200) : ctx.redirect(reply, '/studio/signin');
}

async function signInCode(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const form = ctx.formOf(req);
  ctx.checkPost(req, form, ctx.cookies.read(req, ctx.cookies.signinToken));
  const user = await pendingUser(ctx, req);
  if (!user) return signInForm(ctx, req, reply, 401, { error: 'The sign-in took too long: start again.' });
  try {
    return await startSession(ctx, reply, await ctx.deps.authenticator.checkCode(user, form.str('code') ?? '', req.ip, deviceOf(ctx, req)));
  } catch (err) {
    if (loginRefusal(err) === undefined) throw err;
    return codeForm(ctx, req, reply, 401, 'The code is not right: type the code your app shows now.');
  }
}

async function signOut(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s } = ctx.signedPost(req);
  await ctx.deps.sessions.destroy(s.token);
  return reply.code(303).header('set-cookie', ctx.cookies.cleared(ctx.cookies.session)).header('location', '/studio/signin').send();
}
async function signOutEverywhere(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s } = ctx.signedPost(req);
  await ctx.deps.sessions.destroyAllOf(s.user.id);
  return reply.code(303).header('set-cookie', ctx.cookies.cleared(ctx.cookies.session)).header('location', '/studio/signin').send();
}

// The account: password change (other sessions end), two-factor enrolment with a QR code
// that takes effect only after a right code and the password, never over an active one, and
// turning it off with the password and a current code (other sessions end each time).
import type { FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import { ApiError, invalid } from '../../core/errors.js';
import { ALREADY_ON } from '../../users/service.js';
import { randomTotpSecret } from '../../users/totp.js';
import { SMALL_FORM_BYTES, type Signed, type StudioContext, type StudioRoute } from '../context.js';
import { accountPage, enrolPage } from '../pages/account.js';

export const accountRoutes: StudioRoute[] = [
  { method: 'GET', path: '/studio/account', handler: accountScreen },
  { method: 'POST', path: '/studio/account/password', bodyLimit: SMALL_FORM_BYTES, handler: changePassword },
  { method: 'GET', path: '/studio/account/two-factor', handler: twoFactorScreen },
  { method: 'POST', path: '/studio/account/two-factor', bodyLimit: SMALL_FORM_BYTES, handler: enableOtp },
  { method: 'POST', path: '/studio/account/two-factor/off', bodyLimit: SMALL_FORM_BYTES, handler: disableOtp },
];

// ---- account: password, two-factor
// Every "current password" here is checked on the login throttle (Authenticator.confirm).
const enrolScreen = async (s: Signed, secret: string, error?: string) => {
  const uri = `otpauth://totp/${encodeURIComponent(`Studio:${s.user.email}`)}?secret=${secret}&issuer=Studio&algorithm=SHA1&digits=6&period=30`;
  const qrSvg = await QRCode.toString(uri, { type: 'svg', margin: 1 });
  return enrolPage({ viewer: s.viewer, secret, qrSvg, error });
};

async function accountScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  const notice = { password: 'Your password was changed; your other sessions have ended.', 'otp-on': 'Two-factor sign-in is on.', 'otp-off': 'Two-factor sign-in is off.' }[(req.query as { done?: string }).done ?? ''];
  return ctx.send(reply, 200, accountPage({ viewer: s.viewer, otp: !!(await ctx.fresh(s)).otp_secret, notice }));
}

async function changePassword(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const user = await ctx.fresh(s);
  const next = form.str('next') ?? '';
  // The step that refuses names the field: the new password's rules, then the current password.
  let field = 'next';
  try {
    ctx.deps.users.checkNewPassword(next);
    field = 'current';
    await ctx.deps.authenticator.confirm(user, { password: form.str('current') ?? '' }, req.ip);
    field = 'next';
    await ctx.deps.users.changePassword(user, next);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    return ctx.send(reply, 422, accountPage({ viewer: s.viewer, otp: !!user.otp_secret, error: { field, message: err.message } }));
  }
  await ctx.deps.sessions.destroyAllOf(s.user.id, s.token);
  return ctx.redirect(reply, '/studio/account?done=password');
}

async function twoFactorScreen(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const s = ctx.need(req);
  if ((await ctx.fresh(s)).otp_secret) return ctx.redirect(reply, '/studio/account');
  const secret = randomTotpSecret();
  return ctx.send(reply, 200, await enrolScreen(s, secret));
}

async function enableOtp(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const secret = (form.str('secret') ?? '').slice(0, 128);
  const user = await ctx.fresh(s);
  try {
    // Never over an active one, whatever the password (ALREADY_ON); then the password, then the new code.
    if (user.otp_secret) throw invalid(ALREADY_ON);
    await ctx.deps.authenticator.confirm(user, { password: form.str('password') ?? '' }, req.ip);
    await ctx.deps.users.enableOtp(user, secret, form.str('code') ?? '');
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    if (user.otp_secret) return ctx.send(reply, 422, accountPage({ viewer: s.viewer, otp: true, error: { field: 'otp_password', message: err.message } }));
    if (!/^[A-Z2-7]{16,128}$/.test(secret)) throw err;
    return ctx.send(reply, 422, await enrolScreen(s, secret, err.message));
  }
  // A new second factor: whoever else holds a session signs in again with it.
  await ctx.deps.sessions.destroyAllOf(s.user.id, s.token);
  return ctx.redirect(reply, '/studio/account?done=otp-on');
}

async function disableOtp(ctx: StudioContext, req: FastifyRequest, reply: FastifyReply) {
  const { s, form } = ctx.signedPost(req);
  const user = await ctx.fresh(s);
  if (!user.otp_secret) return ctx.redirect(reply, '/studio/account');
  try {
    await ctx.deps.authenticator.confirm(user, { password: form.str('password') ?? '', code: form.str('code') ?? '' }, req.ip);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) throw err;
    return ctx.send(reply, 422, accountPage({ viewer: s.viewer, otp: true, error: { field: 'otp_password', message: err.message } }));
  }
  await ctx.deps.users.disableOtp(user);
  await ctx.deps.sessions.destroyAllOf(s.user.id, s.token);
  return ctx.redirect(reply, '/studio/account?done=otp-off');
}


// The account: password change (other sessions end), two-factor enrolment with a QR code
// that takes effect only after a right code, and turning it off with the password.
import type { FastifyInstance } from 'fastify';
import QRCode from 'qrcode';
import { ApiError } from '../../http/errors.js';
import { randomTotpSecret } from '../../users/totp.js';
import { SMALL_FORM_BYTES, type Signed, type StudioKit } from '../kit.js';
import { accountPage, enrolPage } from '../pages/account.js';

export function accountRoutes(f: FastifyInstance, kit: StudioKit): void {
  // ---- account: password, two-factor
  f.get('/studio/account', async (req, reply) => {
    const s = kit.need(req);
    const notice = { password: 'Your password was changed; your other sessions have ended.', 'otp-on': 'Two-factor sign-in is on.', 'otp-off': 'Two-factor sign-in is off.' }[(req.query as { done?: string }).done ?? ''];
    return kit.send(reply, 200, accountPage({ viewer: s.viewer, otp: !!(await kit.fresh(s)).otp_secret, notice }));
  });
  f.post('/studio/account/password', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
    const { s, form } = kit.signedPost(req);
    try {
      await kit.deps.users.changePassword(await kit.fresh(s), form.str('current') ?? '', form.str('next') ?? '');
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 422) throw err;
      const field = err.message.includes('current') ? 'current' : 'next';
      return kit.send(reply, 422, accountPage({ viewer: s.viewer, otp: !!(await kit.fresh(s)).otp_secret, error: { field, message: err.message } }));
    }
    await kit.deps.sessions.destroyAllOf(s.user.id, s.token);
    return kit.redirect(reply, '/studio/account?done=password');
  });
  f.get('/studio/account/two-factor', async (req, reply) => {
    const s = kit.need(req);
    if ((await kit.fresh(s)).otp_secret) return kit.redirect(reply, '/studio/account');
    const secret = randomTotpSecret();
    return kit.send(reply, 200, await enrolScreen(s, secret));
  });
  const enrolScreen = async (s: Signed, secret: string, error?: string) => {
    const uri = `otpauth://totp/${encodeURIComponent(`Studio:${s.user.email}`)}?secret=${secret}&issuer=Studio&algorithm=SHA1&digits=6&period=30`;
    const qrSvg = await QRCode.toString(uri, { type: 'svg', margin: 1 });
    return enrolPage({ viewer: s.viewer, secret, qrSvg, error });
  };
  f.post('/studio/account/two-factor', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
    const { s, form } = kit.signedPost(req);
    const secret = (form.str('secret') ?? '').slice(0, 128);
    try {
      await kit.deps.users.enableOtp(s.user, secret, form.str('code') ?? '');
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 422) throw err;
      if (!/^[A-Z2-7]{16,128}$/.test(secret)) throw err;
      return kit.send(reply, 422, await enrolScreen(s, secret, err.message));
    }
    return kit.redirect(reply, '/studio/account?done=otp-on');
  });
  f.post('/studio/account/two-factor/off', { bodyLimit: SMALL_FORM_BYTES }, async (req, reply) => {
    const { s, form } = kit.signedPost(req);
    try {
      await kit.deps.users.disableOtp(await kit.fresh(s), form.str('password') ?? '');
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 422) throw err;
      return kit.send(reply, 422, accountPage({ viewer: s.viewer, otp: true, error: { field: 'otp_password', message: err.message } }));
    }
    return kit.redirect(reply, '/studio/account?done=otp-off');
  });
}

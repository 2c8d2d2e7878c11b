// TOTP (RFC 6238: SHA-1, 6 digits, 30 s steps) with ±1 step of drift.
import * as OTPAuth from 'otpauth';

export const TOTP_PERIOD_SECONDS = 30;

function totpFor(secretBase32: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secretBase32), digits: 6, period: TOTP_PERIOD_SECONDS, algorithm: 'SHA1' });
}

export function isValidBase32Secret(secret: string): boolean {
  try {
    return /^[A-Z2-7]+=*$/i.test(secret) && OTPAuth.Secret.fromBase32(secret).bytes.length >= 10;
  } catch {
    return false;
  }
}

/** The time step a code belongs to, or undefined when it matches none of now-1 … now+1. */
export function matchTotpStep(secretBase32: string, code: string, now = Date.now()): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totpFor(secretBase32).validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return undefined;
  return Math.floor(now / 1000 / TOTP_PERIOD_SECONDS) + delta;
}

export function totpCode(secretBase32: string, now = Date.now()): string {
  return totpFor(secretBase32).generate({ timestamp: now });
}

export function randomTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

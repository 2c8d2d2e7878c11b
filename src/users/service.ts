// Accounts: creating one (with the default media library every user has) and
// finding one by its e-mail address. Sessions are sessions.ts's, logging in auth.ts's.
import { conflict, invalid } from '../http/errors.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { isValidBase32Secret, matchTotpStep } from './totp.js';
import type { UserRow } from '../store/schema.js';
import type { UsersRepository } from './repository.js';

export interface NewUser {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
  /** Base32; stored upper-case, without padding. */
  otpSecret?: string;
}

const normalEmail = (email: string) => email.trim().toLowerCase();

/** A new password's bounds: long enough to resist guessing, short enough to hash in bounded time. */
export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 200;

export class UsersService {
  constructor(private readonly repo: UsersRepository) {}

  byEmail(email: string): Promise<UserRow | undefined> {
    return this.repo.byEmail(email);
  }

  /** A new user and its default media library; a taken e-mail address (in any case) is a conflict. */
  async create(input: NewUser): Promise<{ user: UserRow; defaultArtistUuid: string }> {
    const email = normalEmail(input.email);
    if (await this.repo.byEmail(email)) throw conflict(`a user with e-mail ${email} exists already`);
    return this.repo.createWithDefaultArtist({
      email,
      passwordHash: await hashPassword(input.password),
      firstName: input.firstName ?? '',
      lastName: input.lastName ?? '',
      otpSecret: input.otpSecret ? input.otpSecret.toUpperCase().replace(/=+$/, '') : null,
    });
  }

  /**
   * Changes the user's password: the current one is required, the new one bounded (argon2id,
   * passwords.ts). Ending the user's other sessions is the caller's (sessions.ts), with its token.
   */
  async changePassword(user: Pick<UserRow, 'id' | 'password_hash'>, current: string, next: string): Promise<void> {
    if (!(await verifyPassword(user.password_hash, current))) throw invalid('the current password is not right');
    if ([...next].length < MIN_PASSWORD) throw invalid(`the new password must be at least ${MIN_PASSWORD} characters`);
    if ([...next].length > MAX_PASSWORD) throw invalid(`the new password must be at most ${MAX_PASSWORD} characters`);
    await this.repo.setPasswordHash(user.id, await hashPassword(next));
  }

  /** Turns two-factor sign-in on with `secret`, once a code it generates proves the user's app holds it. */
  async enableOtp(user: Pick<UserRow, 'id'>, secret: string, code: string): Promise<void> {
    if (!isValidBase32Secret(secret)) throw invalid('the two-factor secret is not valid: start again');
    const step = matchTotpStep(secret, code.trim());
    if (step === undefined) throw invalid('the code does not match: check the time on your phone and type the current code');
    await this.repo.setOtpSecret(user.id, secret.toUpperCase().replace(/=+$/, ''));
    // The code that proved the secret is spent.
    await this.repo.advanceOtpStep(user.id, step);
  }

  /** Turns two-factor sign-in off (the password is asked for again first). */
  async disableOtp(user: Pick<UserRow, 'id' | 'password_hash'>, password: string): Promise<void> {
    if (!(await verifyPassword(user.password_hash, password))) throw invalid('the password is not right');
    await this.repo.setOtpSecret(user.id, null);
  }

  byId(id: number): Promise<UserRow | undefined> {
    return this.repo.byId(id);
  }
}

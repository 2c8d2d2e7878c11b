// Accounts: creating one (with the default media library every user has) and
// finding one by its e-mail address. Sessions are sessions.ts's, logging in auth.ts's.
import { createHash, randomBytes } from 'node:crypto';
import { conflict, invalid, notFound } from '../core/errors.js';
import { hashPassword } from './passwords.js';
import { isValidBase32Secret, matchTotpStep } from './totp.js';
import type { UserRow } from '../database/schema.js';

/** The API's name of a user's address (spec: user[email]), which this service's refusals name; their field is `email`. */
export const USER_EMAIL = 'user[email]';
import type { AccountRow, UsersRepository } from './repository.js';

export interface NewUser {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
  /** Base32; stored upper-case, without padding. */
  otpSecret?: string;
}

const normalEmail = (email: string) => email.trim().toLowerCase();

/** An e-mail address as accounts are made with it (the admin command's rule). */
export const EMAIL = /^[^\s@"\\<>]+@[^\s@"\\<>]+\.[^\s@"\\<>]+$/;

/** How long an invitation link works. */
export const INVITATION_DAYS = 7;

const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');
/** An invitation token: 256 random bits, base64url; only its SHA-256 is stored. */
const INVITATION_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A new password's bounds: long enough to resist guessing, short enough to hash in bounded time. */
export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 200;

/** Why a second factor is not replaced in place. */
export const ALREADY_ON = 'two-factor sign-in is on already: turn it off first, with your password and a current code';

export class UsersService {
  private readonly disabledListeners: Array<(userId: number) => void> = [];

  constructor(private readonly repo: UsersRepository) {}

  /** Told of each account disabled or enabled here: this process's key cache forgets the account's own applications. */
  onDisabledChange(listener: (userId: number) => void): void {
    this.disabledListeners.push(listener);
  }

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

  /** A 422 for a new password out of bounds (argon2id, passwords.ts): checked before the current one costs an attempt. */
  checkNewPassword(next: string): void {
    if ([...next].length < MIN_PASSWORD) throw invalid(`the new password must be at least ${MIN_PASSWORD} characters`);
    if ([...next].length > MAX_PASSWORD) throw invalid(`the new password must be at most ${MAX_PASSWORD} characters`);
  }

  /**
   * Changes the user's password, the new one bounded. The current one is the caller's to check,
   * on the login throttle (Authenticator.confirm); ending the user's other sessions too (sessions.ts).
   */
  async changePassword(user: Pick<UserRow, 'id'>, next: string): Promise<void> {
    this.checkNewPassword(next);
    await this.repo.setPasswordHash(user.id, await hashPassword(next));
  }

  /**
   * Turns two-factor sign-in on with `secret`, once a code it generates proves the user's app holds it.
   * Never over an active one: that is turned off first (with the password and a current code). The
   * password is the caller's to check first (Authenticator.confirm); ending the other sessions too.
   */
  async enableOtp(user: Pick<UserRow, 'id' | 'otp_secret'>, secret: string, code: string): Promise<void> {
    if (user.otp_secret) throw invalid(ALREADY_ON);
    if (!isValidBase32Secret(secret)) throw invalid('the two-factor secret is not valid: start again');
    const step = matchTotpStep(secret, code.trim());
    if (step === undefined) throw invalid('the code does not match: check the time on your phone and type the current code');
    await this.repo.setOtpSecret(user.id, secret.toUpperCase().replace(/=+$/, ''));
    // The code that proved the secret is spent.
    await this.repo.advanceOtpStep(user.id, step);
  }

  /** Turns two-factor sign-in off: the caller checked the password and a current code first (Authenticator.confirm). */
  async disableOtp(user: Pick<UserRow, 'id'>): Promise<void> {
    await this.repo.setOtpSecret(user.id, null);
  }

  byId(id: number): Promise<UserRow | undefined> {
    return this.repo.byId(id);
  }

  // ---- instance administration (docs/studio.md "Administration")

  /** Grants or takes back the operators' role (the admin command `user grant-admin` / `user revoke-admin`). */
  async setAdmin(email: string, admin: boolean): Promise<UserRow> {
    const user = await this.repo.byEmail(normalEmail(email));
    if (!user) throw notFound(`user ${normalEmail(email)}`);
    await this.repo.setAdmin(user.id, admin);
    return (await this.repo.byId(user.id))!;
  }

  /** Sets an account's storage quota in bytes (docs/security.md, Storage quota); null: STORAGE_QUOTA_BYTES again. */
  async setQuota(email: string, bytes: number | null): Promise<UserRow> {
    const user = await this.repo.byEmail(normalEmail(email));
    if (!user) throw notFound(`user ${normalEmail(email)}`);
    await this.repo.setQuota(user.id, bytes);
    return (await this.repo.byId(user.id))!;
  }

  /**
   * Disables or enables an account by UUID: a disabled one signs in nowhere (auth.ts refuses it
   * once its password is right). Ending its sessions is the caller's (SessionStore.destroyAllOf).
   */
  async setDisabled(uuid: string, disabled: boolean): Promise<UserRow> {
    const user = await this.repo.byUuid(uuid);
    if (!user) throw notFound(`user ${uuid}`);
    await this.repo.setDisabled(user.id, disabled ? (user.disabled_at ?? new Date().toISOString()) : null);
    for (const l of this.disabledListeners) l(user.id);
    return (await this.repo.byId(user.id))!;
  }

  /**
   * Stops or lets go the mail the service sends on the account's behalf (invitations: the admin
   * command `user mail --off|--on`, the studio's administration). `who`: an e-mail address or a UUID.
   */
  async setMailStopped(who: { email: string } | { uuid: string }, stopped: boolean): Promise<UserRow> {
    const user = 'email' in who ? await this.repo.byEmail(normalEmail(who.email)) : await this.repo.byUuid(who.uuid);
    if (!user) throw notFound(`user ${'email' in who ? normalEmail(who.email) : who.uuid}`);
    await this.repo.setMailStopped(user.id, stopped ? (user.mail_stopped_at ?? new Date().toISOString()) : null);
    return (await this.repo.byId(user.id))!;
  }

  /** A page of the accounts with the storage each one's library takes, and how many in all. */
  async accounts(window: { limit: number; offset: number }): Promise<{ total: number; accounts: AccountRow[] }> {
    const [total, accounts] = await Promise.all([this.repo.countUsers(), this.repo.accounts(window.limit, window.offset)]);
    return { total, accounts };
  }

  /**
   * A new account that its owner opens with a link (mailed by the caller): a random password no
   * one knows until the link sets one; the link works once, for INVITATION_DAYS.
   */
  async invite(input: { email: string; firstName?: string; lastName?: string }): Promise<{ user: UserRow; token: string; expiresAt: Date }> {
    const email = normalEmail(input.email);
    if (!EMAIL.test(email) || email.length > 254) throw invalid(`${USER_EMAIL} must be an e-mail address`, 'email');
    const { user } = await this.create({ email, password: randomBytes(32).toString('base64url'), firstName: input.firstName?.trim().slice(0, 100), lastName: input.lastName?.trim().slice(0, 100) });
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + INVITATION_DAYS * 86_400_000);
    await this.repo.createInvitation(user.id, hashToken(token), expiresAt.toISOString());
    return { user, token, expiresAt };
  }

  /** The account a live invitation opens; undefined for one spent, expired or unknown. */
  async invitation(token: string): Promise<UserRow | undefined> {
    if (!INVITATION_TOKEN.test(token)) return undefined;
    const id = await this.repo.invitationUser(hashToken(token), new Date().toISOString());
    return id === undefined ? undefined : this.repo.byId(id);
  }

  /** Sets the password with a live invitation, which is then spent (once, even when raced); undefined when it is not live. */
  async acceptInvitation(token: string, password: string): Promise<UserRow | undefined> {
    if (!INVITATION_TOKEN.test(token)) return undefined;
    if ([...password].length < MIN_PASSWORD) throw invalid(`the new password must be at least ${MIN_PASSWORD} characters`);
    if ([...password].length > MAX_PASSWORD) throw invalid(`the new password must be at most ${MAX_PASSWORD} characters`);
    const id = await this.repo.acceptInvitation(hashToken(token), new Date().toISOString(), await hashPassword(password));
    return id === undefined ? undefined : this.repo.byId(id);
  }
}

// Accounts: creating one (with the default media library every user has) and
// finding one by its e-mail address. Sessions are sessions.ts's, logging in auth.ts's.
import { conflict } from '../http/errors.js';
import { hashPassword } from './passwords.js';
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
}

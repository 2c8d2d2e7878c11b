// Applications: the API keys and secrets clients sign requests with (spec 5.1).
// Looking a key up is src/http/app-keys.ts's, on every request. The operator makes
// them (`admin app create`, the studio's administration); a photographer may make
// their own for their scripts and plugins (the studio's account, an extension) and
// revoke them. A secret is shown once, to whoever created it; lists never carry it.
import { invalid, notFound } from '../core/errors.js';
import type { UserRow } from '../database/schema.js';

/** The API's name of an application's name, which this service's refusals name; their field is `name`. */
export const APP_NAME = 'app[name]';
import type { AppListRow, AppsRepository } from './repository.js';

export const MAX_APP_NAME = 100;
/** Applications one photographer may hold (revoked ones included): a bound on what a list shows. */
export const MAX_APPS_PER_USER = 50;

/** Who asks: a photographer (their own applications) or an operator (every one). */
export type AppActor = { user: Pick<UserRow, 'id'> } | { operator: true };

export class AppsService {
  private readonly revokedListeners: Array<(key: string) => void> = [];

  constructor(private readonly repo: AppsRepository) {}

  /** A new application; its secret is shown once, to whoever created it. */
  async create(name: string, owner?: Pick<UserRow, 'id'>): Promise<{ key: string; secret: string }> {
    const n = name.trim();
    if (n === '') throw invalid(`${APP_NAME} may not be blank`, 'name');
    if (/[\x00-\x1f\x7f]/.test(n) || [...n].length > MAX_APP_NAME) throw invalid(`${APP_NAME} must be one line of at most ${MAX_APP_NAME} characters`, 'name');
    if (owner && (await this.repo.count(owner.id)) >= MAX_APPS_PER_USER) throw invalid(`an account holds at most ${MAX_APPS_PER_USER} applications: revoke one first`);
    return this.repo.create(n, owner?.id ?? null);
  }

  /** A page of the actor's applications (every one for an operator), newest first, and how many in all. */
  async list(actor: AppActor, window: { limit: number; offset: number }): Promise<{ total: number; apps: AppListRow[] }> {
    const owner = 'user' in actor ? actor.user.id : undefined;
    const [total, apps] = await Promise.all([this.repo.count(owner), this.repo.list(owner, window.limit, window.offset)]);
    return { total, apps };
  }

  /** Revokes an application of the actor (any for an operator): it signs nothing from now on. 404 for one not theirs, or not live. */
  async revoke(actor: AppActor, apiKey: string): Promise<void> {
    if (!/^[0-9a-f]{32}$/.test(apiKey) || !(await this.repo.revoke(apiKey, 'user' in actor ? actor.user.id : undefined))) throw notFound(`application ${apiKey.slice(0, 32)}`);
    for (const l of this.revokedListeners) l(apiKey);
  }

  /** Told of each key revoked here: this process's key cache (http/app-keys.ts) forgets it at once. */
  onRevoked(listener: (key: string) => void): void {
    this.revokedListeners.push(listener);
  }
}

// Applications: the API keys and secrets clients sign requests with (spec 5.1).
// Looking a key up is src/http/app-keys.ts's, on every request.
import type { AppsRepository } from './repository.js';

export class AppsService {
  constructor(private readonly repo: AppsRepository) {}

  /** A new application; its secret is shown once, to whoever created it. */
  create(name: string): Promise<{ key: string; secret: string }> {
    return this.repo.create(name);
  }
}

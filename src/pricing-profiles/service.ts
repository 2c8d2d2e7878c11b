// Pricing profiles (spec 2.4): what medias are sold at; batch updates add
// and remove them (add_pricing_profiles[]). The admin command line creates them.
import type { UserRow } from '../store/schema.js';
import type { PricingProfilesRepository } from './repository.js';

export class PricingProfilesService {
  constructor(private readonly repo: PricingProfilesRepository) {}

  async create(owner: Pick<UserRow, 'id'>, name: string): Promise<{ uuid: string }> {
    return { uuid: await this.repo.create(owner.id, name) };
  }
}

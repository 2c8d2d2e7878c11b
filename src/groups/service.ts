// Collections and smart collections (docs/media-groups.md): listing, one
// group with or without its medias, create, update, delete (optionally with
// its medias). Which medias a group holds is the media feature's to tell.
import { randomUUID } from 'node:crypto';
import type { Access } from '../access/access.js';
import { conflict, invalid, notFound } from '../core/errors.js';
import type { FileLife } from '../media/file-life.js';
import type { MediaRecord, MediaService } from '../media/service.js';
import { groupScopeOf } from './smart-repository.js';
import { EMPTY_RULES } from './smart-rules.js';
import { nowIso } from '../database/db.js';
import type { UserRow } from '../database/schema.js';
import type { GroupRecord, GroupsRepository } from './repository.js';
import { COLLECTION, SMART, type GroupInput, type RulesInput } from './fields.js';

/** details_with_medias lists at most this many medias. */
export const GROUP_MEDIAS_CAP = 5000;
const MAX_NAME = 255;

export { COLLECTION, SMART } from './fields.js';

type User = Pick<UserRow, 'id'>;

export type { GroupInput } from './fields.js';

export interface GroupDetails {
  group: GroupRecord;
  mediasCount: number;
}

function readName(value: string | undefined, param: string): string | undefined {
  if (value === undefined) return undefined;
  const name = value.trim();
  const field = param.startsWith(SMART) ? 'smartName' : 'collectionName';
  if (name === '') throw invalid(`${param} must not be blank`, field);
  if (name.length > MAX_NAME) throw invalid(`${param} is longer than ${MAX_NAME} characters`, field);
  return name;
}

export class GroupsService {
  constructor(
    private readonly repo: GroupsRepository,
    private readonly media: MediaService,
    private readonly fileLife: FileLife,
    private readonly access: Access,
  ) {}

  /** A page of the user's groups, of one library when `artist` names one (404 when it is not the user's). */
  async list(user: User, artist: string | undefined, page: { limit: number; offset: number }, withCounts: boolean): Promise<{ total: number; groups: GroupRecord[]; counts: Map<number, number> }> {
    const artistId = artist ? await this.access.requireOne(user, 'artist', artist, { notFound: 'media library' }) : undefined;
    const { total, rows } = await this.repo.page(user.id, artistId, page);
    const counts = withCounts ? await this.media.countGroups(user, rows.map((r) => groupScopeOf(r))) : new Map<number, number>();
    return { total, groups: rows, counts };
  }

  /** One group of the user (404 otherwise), with its first GROUP_MEDIAS_CAP medias when asked. */
  async get(user: User, uuid: string, withMedias: boolean): Promise<GroupDetails & { medias?: MediaRecord[] }> {
    const details = await this.details(user, await this.owned(user, uuid));
    if (!withMedias) return details;
    const ids = await this.media.idsIn(user, { group: groupScopeOf(details.group) }, { limit: GROUP_MEDIAS_CAP, offset: 0 });
    return { ...details, medias: await this.media.records(ids) };
  }

  async create(user: User, input: GroupInput & { artist?: string }): Promise<GroupDetails> {
    const collectionName = readName(input.collectionName, `${COLLECTION}[name]`);
    const smartName = readName(input.smartName, `${SMART}[name]`);
    if (collectionName !== undefined && smartName !== undefined) throw invalid(`give either ${COLLECTION}[name] or ${SMART}[name], not both`);
    if (collectionName === undefined && smartName === undefined) throw invalid(`${COLLECTION}[name] or ${SMART}[name] is required`);
    const kind = smartName !== undefined ? 'smart' : 'collection';
    await this.checkRuleGalleries(user, input.rules);
    if (input.rules && kind !== 'smart') throw invalid(`${SMART}[rules] apply to smart collections only`);
    const artistId = input.artist ? await this.access.requireOne(user, 'artist', input.artist, { invalid: 'artist_id' }) : null;
    const id = await this.repo.create(
      {
        uuid: randomUUID(),
        ownerId: user.id,
        artistId,
        kind,
        name: (smartName ?? collectionName)!,
        rules: kind === 'smart' ? JSON.stringify(input.rules?.rules ?? EMPTY_RULES) : null,
      },
      nowIso(),
    );
    return this.details(user, id);
  }

  async update(user: User, uuid: string, input: GroupInput): Promise<GroupDetails> {
    const g = await this.repo.byId(await this.owned(user, uuid));
    if (!g) throw notFound(`medias group ${uuid}`);
    const smart = g.kind === 'smart';
    const [own, other] = smart ? [SMART, COLLECTION] : [COLLECTION, SMART];
    if ((smart ? input.collectionName : input.smartName) !== undefined) throw invalid(`${other}[name] does not apply to this group; use ${own}[name]`);
    const name = readName(smart ? input.smartName : input.collectionName, `${own}[name]`);
    await this.checkRuleGalleries(user, input.rules);
    if (input.rules && !smart) throw invalid(`${SMART}[rules] apply to smart collections only`);
    if (name !== undefined || input.rules !== undefined) {
      await this.repo.update(g.id, { ...(name !== undefined ? { name } : {}), ...(input.rules !== undefined ? { rules: JSON.stringify(input.rules.rules) } : {}) }, nowIso());
    }
    return this.details(user, g.id);
  }

  /**
   * Deletes a group, and with deleteMedias the medias it holds; with
   * expectedCount, only when the group holds that many (nothing is done otherwise).
   */
  async delete(user: User, uuid: string, opts: { deleteMedias: boolean; expectedCount?: number }): Promise<void> {
    const g = await this.repo.byId(await this.owned(user, uuid));
    if (!g) throw notFound(`medias group ${uuid}`);
    const scope = { group: groupScopeOf(g) };
    await this.repo.inTransaction(async (unit) => {
      if (opts.expectedCount !== undefined) {
        const actual = await this.media.count(user, scope, unit);
        if (actual !== opts.expectedCount) throw conflict(`medias_count is ${opts.expectedCount} but the group holds ${actual} medias: nothing was done`, 'count_mismatch');
      }
      // The owner of the files' life deletes the medias in this unit; their files are removed after its commit.
      if (opts.deleteMedias) await this.fileLife.deleteIn(unit, user.id, await this.media.idsIn(user, scope, undefined, unit));
      await this.repo.delete(unit.db, g.id);
    });
  }

  private owned(user: User, uuid: string): Promise<number> {
    return this.access.requireOne(user, 'group', uuid, { notFound: 'medias group' });
  }

  private async details(user: User, id: number): Promise<GroupDetails> {
    const group = await this.repo.byId(id);
    if (!group) throw notFound('medias group');
    const counts = await this.media.countGroups(user, [groupScopeOf(group)]);
    return { group, mediasCount: counts.get(group.id) ?? 0 };
  }

  /** A gallery a rule names must be one the user may use: 422 naming the rule's value otherwise. */
  private async checkRuleGalleries(user: User, rules: RulesInput | undefined): Promise<void> {
    for (const g of rules?.galleries ?? []) await this.access.requireOne(user, 'gallery', g.uuid, { invalid: g.param });
  }
}

// Whether the user's library already holds a file (docs/studio.md, Uploads): what the studio's
// uploads skip, by the file's size and content probe (src/uploads/probe.ts), a sampled probe's
// match confirmed by reading the stored file.
import type { UserRow } from '../database/schema.js';
import { isWholeProbe } from '../uploads/probe.js';
import type { MediaRepository } from './repository.js';

/** Probes per lookup of duplicates: under every database's bound-parameter limit. */
const PROBES_PER_QUERY = 500;

/** Stored files read to confirm a sampled probe's match (several medias of one file are rare). */
const DIGEST_CANDIDATES = 3;

export class SameFiles {
  constructor(
    private readonly repo: Pick<MediaRepository, 'byProbes'>,
    /** The SHA-256 of every byte of a stored file (UploadsService.digestOf); undefined when it is gone. */
    private readonly digestOf: (key: string, size: number) => Promise<string | undefined>,
  ) {}

  /**
   * The user's own live medias holding a file of this size and content probe: keyed
   * `${size}/${probe}`; the value is a media's UUID.
   */
  async duplicates(user: Pick<UserRow, 'id'>, files: ReadonlyArray<{ size: number; probe: string }>): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    // Only a whole-file probe proves a duplicate before the bytes are here (duplicateOf checks a sampled one).
    const probes = [...new Set(files.map((f) => f.probe).filter(isWholeProbe))];
    for (let i = 0; i < probes.length; i += PROBES_PER_QUERY) {
      for (const row of await this.repo.byProbes(user.id, probes.slice(i, i + PROBES_PER_QUERY))) {
        if (row.content_probe !== null && row.file_size !== null) found.set(`${Number(row.file_size)}/${row.content_probe}`, row.uuid);
      }
    }
    return found;
  }

  /**
   * The user's live media holding the same file as one received (its size and content probe), if
   * any: a whole-file probe's match is that file; a sampled one's (over 32 MiB: size, head and
   * tail) only when every byte is the same too, `digest` giving the received file's SHA-256
   * (asked once, and only on such a match). At most DIGEST_CANDIDATES stored files are read.
   */
  async duplicateOf(user: Pick<UserRow, 'id'>, file: { size: number; probe: string }, digest: () => Promise<string>): Promise<string | undefined> {
    const candidates = (await this.repo.byProbes(user.id, [file.probe])).filter((r) => r.file_size !== null && Number(r.file_size) === file.size);
    if (isWholeProbe(file.probe)) return candidates[0]?.uuid;
    let received: string | undefined;
    for (const c of candidates.slice(0, DIGEST_CANDIDATES)) {
      if (!c.storage_key) continue;
      received ??= await digest();
      if ((await this.digestOf(c.storage_key, file.size)) === received) return c.uuid;
    }
    return undefined;
  }
}

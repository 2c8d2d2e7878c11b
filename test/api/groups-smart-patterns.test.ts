// Smart-collection text rules (contains, starts_with, ends_with on keywords,
// file names, titles and MIME types) take `_`, `%` and `\` literally, not as
// LIKE wildcards or escapes (nor `!`, the escape character), on both databases — also on a PostgreSQL server
// with standard_conforming_strings=off, where a backslash in a string literal
// is an escape.
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { int, text } from '../../src/client/xml.js';
import type { Params } from '../../src/client/params.js';
import { createPgDatabase, eachDatabase, PG_URL, type DbKind } from '../support/service.js';
import { insertMedias, startMediaWorld, uuidsOf, type MediaWorld } from '../support/media.js';

/** A fresh PostgreSQL database whose sessions start with standard_conforming_strings=off. */
async function nonStandardStringsDatabase() {
  const db = await createPgDatabase();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`ALTER DATABASE ${new URL(db.url).pathname.slice(1)} SET standard_conforming_strings = off`);
  await admin.end();
  return db;
}

eachDatabase((kind) => {
  patternSuite(kind, false);
  if (kind === 'postgres') describe('standard_conforming_strings=off', () => patternSuite(kind, true));
});

function patternSuite(kind: DbKind, nonStandardStrings: boolean) {
  let w: MediaWorld;
  let extraDb: { url: string; drop(): Promise<void> } | undefined;
  let byUuid: Map<string, string>;
  // Each media carries its marker in its file name, its title and a keyword.
  const MARKERS = { under: 'a_b', plain: 'ab', other: 'axb', percent: '100%', digits: '1000', backslash: 'c\\d', noslash: 'cd', mixed: 'x%_\\y', bang: 'e!f' };
  beforeAll(async () => {
    extraDb = nonStandardStrings ? await nonStandardStringsDatabase() : undefined;
    w = await startMediaWorld(kind, extraDb ? { DATABASE_URL: extraDb.url } : {});
    if (nonStandardStrings) {
      const { rows } = await sql<{ standard_conforming_strings: string }>`SHOW standard_conforming_strings`.execute(w.svc.db);
      expect(rows[0].standard_conforming_strings).toBe('off');
    }
    const entries = Object.entries(MARKERS);
    const uuids = await insertMedias(
      w.svc.db,
      w.user,
      entries.map(([key, marker]) => ({
        file_name: `${marker}.jpg`,
        title: `Title ${marker} end`,
        keywords: [`kw ${marker}`],
        mime_type: key === 'mixed' ? 'image/x_y%\\z' : key === 'plain' ? 'image/xay' : 'image/jpeg',
      })),
    );
    byUuid = new Map(uuids.map((u, i) => [u, entries[i][0]]));
  });
  afterAll(async () => {
    await w?.svc.close();
    await extraDb?.drop();
  });

  async function members(field: string, operator: string, value: string): Promise<string[]> {
    const p: Params = {
      'medias_smart_collection[name]': 'Patterns',
      'medias_smart_collection[rules][0][field]': field,
      'medias_smart_collection[rules][0][operator]': operator,
      'medias_smart_collection[rules][0][value]': value,
    };
    const created = await w.client.request('POST', '/medias_groups.xml', p);
    const uuid = text(created.doc, 'medias-smart-collection-uuid')!;
    const listed = uuidsOf(await w.client.request('GET', '/medias.xml', { medias_group_id: uuid }));
    expect(int((await w.client.request('GET', `/medias_groups/${uuid}.xml`)).doc, 'medias-group/medias-count')).toBe(listed.length);
    return listed.map((u) => byUuid.get(u)!).sort();
  }

  it('keyword contains', async () => {
    expect(await members('keyword', 'contains', '_')).toEqual(['mixed', 'under']);
    expect(await members('keyword', 'contains', '%')).toEqual(['mixed', 'percent']);
    expect(await members('keyword', 'contains', '\\')).toEqual(['backslash', 'mixed']);
    expect(await members('keyword', 'contains', 'A_B')).toEqual(['under']);
    expect(await members('keyword', 'contains', '%_\\')).toEqual(['mixed']);
    expect(await members('keyword', 'contains', '!')).toEqual(['bang']);
    expect(await members('keyword', 'contains', '!f')).toEqual(['bang']);
    expect(await members('keyword', 'contains', '!_')).toEqual([]);
  });

  it('file_name contains, starts_with, ends_with', async () => {
    expect(await members('file_name', 'contains', '_')).toEqual(['mixed', 'under']);
    expect(await members('file_name', 'contains', '%')).toEqual(['mixed', 'percent']);
    expect(await members('file_name', 'contains', '\\')).toEqual(['backslash', 'mixed']);
    expect(await members('file_name', 'starts_with', 'a_')).toEqual(['under']);
    expect(await members('file_name', 'starts_with', '_')).toEqual([]);
    expect(await members('file_name', 'starts_with', 'c\\')).toEqual(['backslash']);
    expect(await members('file_name', 'ends_with', '0%.jpg')).toEqual(['percent']);
    expect(await members('file_name', 'ends_with', '\\y.jpg')).toEqual(['mixed']);
    expect(await members('file_name', 'ends_with', '%')).toEqual([]);
    expect(await members('file_name', 'is', 'a_b.jpg')).toEqual(['under']);
    expect(await members('file_name', 'starts_with', 'e!')).toEqual(['bang']);
    expect(await members('file_name', 'ends_with', '!f.jpg')).toEqual(['bang']);
  });

  it('title contains, starts_with, ends_with', async () => {
    expect(await members('title', 'contains', '_')).toEqual(['mixed', 'under']);
    expect(await members('title', 'contains', '%')).toEqual(['mixed', 'percent']);
    expect(await members('title', 'contains', '\\')).toEqual(['backslash', 'mixed']);
    expect(await members('title', 'starts_with', 'title c\\')).toEqual(['backslash']);
    expect(await members('title', 'starts_with', 'title _')).toEqual([]);
    expect(await members('title', 'ends_with', '% end')).toEqual(['percent']);
    expect(await members('title', 'ends_with', '\\ end')).toEqual([]);
    expect(await members('title', 'contains', 'e!f')).toEqual(['bang']);
  });

  it('mime_type starts_with', async () => {
    expect(await members('mime_type', 'starts_with', 'image/x_')).toEqual(['mixed']);
    expect(await members('mime_type', 'starts_with', 'image/x_y%\\')).toEqual(['mixed']);
    expect(await members('mime_type', 'starts_with', 'image/%')).toEqual([]);
  });
}

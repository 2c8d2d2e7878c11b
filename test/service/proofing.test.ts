// A gallery's proofing (LightboxesService.proofing / reopenIn, ActivityService.clientInGallery) on
// SQLite, and PostgreSQL with TEST_DATABASE_URL: that gallery's selections only, sent first and the
// latest first; the picks in order with their names; only the owner of the gallery's website (a
// member of the shared website, a stranger: 404); another gallery's selection a 404, read or reopened.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/app.js';
import type { UserRow } from '../../src/database/schema.js';
import type { Client, SelectionGallery } from '../../src/lightboxes/service.js';
import { withCore } from '../support/core.js';

const PG = process.env.TEST_DATABASE_URL;

async function refusal(p: Promise<unknown>): Promise<{ code: string; status: number }> {
  try {
    await p;
  } catch (e) {
    const err = e as { code: string; status: number };
    return { code: err.code, status: err.status };
  }
  throw new Error('expected a refusal');
}

const client = (name: string): Client => ({ key: `${name}@example.com`, email: `${name}@example.com`, name, verified: false });

for (const db of ['sqlite', ...(PG ? ['postgres'] : [])] as const) {
  describe(`proofing (${db})`, () => {
    const w = withCore(db === 'postgres' ? { postgresUrl: PG } : {});
    let core: Core;
    let owner: UserRow;
    let member: UserRow;
    let stranger: UserRow;
    let wedding: SelectionGallery & { uuid: string };
    let other: SelectionGallery & { uuid: string };
    const medias: number[] = [];

    const galleryOf = async (uuid: string, name: string) => {
      const g = await core.store.db.selectFrom('galleries').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow();
      return { id: g.id, uuid, ownerId: owner.id, name, pickLimit: null };
    };

    beforeAll(async () => {
      core = w.core;
      owner = await w.user('owner');
      member = await w.user('member');
      stranger = await w.user('stranger');
      wedding = await galleryOf((await core.websites.create(owner, { urlname: 'proof-wedding' })).rootGalleryUuid, 'Wedding');
      other = await galleryOf((await core.websites.create(owner, { urlname: 'proof-other' })).rootGalleryUuid, 'Other');
      await core.websites.share('proof-wedding', member);
      const artist = await core.store.db.selectFrom('artists').select('id').where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
      const now = new Date().toISOString();
      for (const name of ['DSC_0001.NEF', 'DSC_0002.jpg', 'DSC_0003.jpg']) {
        const row = await core.store.db
          .insertInto('medias')
          .values({ uuid: randomUUID(), owner_id: owner.id, artist_id: artist.id, status: 'live', file_name: name, title: null, created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        medias.push(row.id);
      }
      // Ann sent first, Bea later; Cid is still choosing; Dee chose in the other gallery.
      await core.lightboxes.pick(wedding, client('ann'), medias[2], 'Warmer');
      await core.lightboxes.pick(wedding, client('ann'), medias[0]);
      await core.lightboxes.send(wedding, client('ann'));
      await core.lightboxes.pick(wedding, client('bea'), medias[1]);
      await core.lightboxes.send(wedding, client('bea'));
      await core.lightboxes.pick(wedding, client('cid'), medias[1]);
      await core.lightboxes.pick(other, client('dee'), medias[0]);
      await core.store.db.updateTable('lightboxes').set({ sent_at: '2026-11-20T10:00:00.000Z' }).where('client_email', '=', 'ann@example.com').execute();
      await core.store.db.updateTable('lightboxes').set({ sent_at: '2026-11-21T10:00:00.000Z' }).where('client_email', '=', 'bea@example.com').execute();
    });

    it('lists the gallery’s selections only, sent ones first and the latest first, the first one chosen', async () => {
      const p = await core.lightboxes.proofing(owner, wedding.uuid.toUpperCase());
      expect(p.gallery).toMatchObject({ uuid: wedding.uuid, urlname: 'proof-wedding' });
      expect(p.selections.map((l) => [l.client_email, l.state, l.count])).toEqual([
        ['bea@example.com', 'sent', 1],
        ['ann@example.com', 'sent', 2],
        ['cid@example.com', 'open', 1],
      ]);
      expect(p.chosen?.lightbox.client_email).toBe('bea@example.com');
    });

    it('gives the chosen selection’s picks in the order made, with notes and the names’ lists', async () => {
      const ann = (await core.lightboxes.proofing(owner, wedding.uuid)).selections[1];
      const p = await core.lightboxes.proofing(owner, wedding.uuid, ann.uuid.toUpperCase());
      expect(p.chosen?.picks.map((m) => [m.file_name, m.note])).toEqual([
        ['DSC_0003.jpg', 'Warmer'],
        ['DSC_0001.NEF', null],
      ]);
      expect(p.chosen?.names).toEqual({ lightroom: 'DSC_0003, DSC_0001', captureOne: 'DSC_0003 DSC_0001', lines: 'DSC_0003.jpg\nDSC_0001.NEF', missing: 0 });
      // The client's picks and sending, with the photos' names.
      await core.activity.idle();
      const a = await core.activity.clientInGallery(owner, wedding.uuid, 'ANN@example.com', 30);
      expect(a.events.map((e) => [e.kind, e.media_file_name])).toEqual([
        ['sent', null],
        ['pick', 'DSC_0001.NEF'],
        ['pick', 'DSC_0003.jpg'],
      ]);
      expect(a.kinds.map((k) => [k.kind, k.count])).toEqual([
        ['pick', 2],
        ['sent', 1],
      ]);
    });

    it('answers 404 to anyone but the owner of the gallery’s website, and for a selection of another gallery', async () => {
      for (const who of [member, stranger]) expect(await refusal(core.lightboxes.proofing(who, wedding.uuid))).toEqual({ code: 'not_found', status: 404 });
      const dee = (await core.lightboxes.proofing(owner, other.uuid)).selections[0];
      expect(await refusal(core.lightboxes.proofing(owner, wedding.uuid, dee.uuid))).toEqual({ code: 'not_found', status: 404 });
      expect(await refusal(core.lightboxes.proofing(owner, wedding.uuid, 'not-a-uuid'))).toEqual({ code: 'not_found', status: 404 });
      expect(await refusal(core.lightboxes.proofing(owner, 'not-a-uuid'))).toEqual({ code: 'not_found', status: 404 });
      expect(await refusal(core.lightboxes.reopenIn(owner, wedding.uuid, dee.uuid))).toEqual({ code: 'not_found', status: 404 });
    });

    it('reopens a sent selection for its owner only; the client may pick again', async () => {
      const bea = (await core.lightboxes.proofing(owner, wedding.uuid)).selections[0];
      for (const who of [member, stranger]) expect(await refusal(core.lightboxes.reopenIn(who, wedding.uuid, bea.uuid))).toEqual({ code: 'not_found', status: 404 });
      expect((await core.lightboxes.proofing(owner, wedding.uuid, bea.uuid)).chosen?.lightbox.state).toBe('sent');
      expect(await refusal(core.lightboxes.pick(wedding, client('bea'), medias[0]))).toEqual({ code: 'conflict', status: 409 });
      expect((await core.lightboxes.reopenIn(owner, wedding.uuid, bea.uuid)).state).toBe('open');
      expect((await core.lightboxes.pick(wedding, client('bea'), medias[0])).count).toBe(2);
    });
  });
}

// The media operations behind the routes: create (upload step 1 or direct
// upload), update (metadata, publication, upload steps), delete. Upload
// mechanics live in uploads.ts; this module decides what happens around them.
import { randomUUID } from 'node:crypto';
import { userOf, type RequestContext } from '../http/context.js';
import { invalid, notFound } from '../http/errors.js';
import type { XmlObject } from '../http/xml.js';
import { nowIso, type Db } from '../store/db.js';
import { applyMediaChanges } from './apply.js';
import { isEmptyChange, readMediaChanges, type MediaChanges } from './metadata.js';
import { dropFilesOfDeletedMedias } from './pending-uploads.js';
import { findOwnedMedia, loadMediaRecords, loadMediaRelations, NO_RELATIONS, type MediaRow } from './queries.js';
import { defaultArtistId, ownedArtistId } from './targets.js';
import { beginUpload, completeUpload, deleteStoredFiles, isUploadCompletion, isUploadRequest, storeDirectUpload } from './uploads.js';
import { mediaLocation, mediaXml, type MediaView } from './xml.js';
import { sanitizeFileName } from './file-names.js';

/** The file part that is the media itself on a direct upload. */
export const CONTENT_FIELD = 'media[content]';

/** One media as `<media>` (relations loaded). */
export async function mediaElement(db: Db, id: number, view: MediaView = 'details'): Promise<XmlObject> {
  const [record] = await loadMediaRecords(db, [id]);
  if (!record) throw notFound('media');
  const rel = view === 'list' ? NO_RELATIONS : ((await loadMediaRelations(db, [id])).get(id) ?? NO_RELATIONS);
  return mediaXml(record, rel, view);
}

async function reload(db: Db, id: number): Promise<MediaRow> {
  return db.selectFrom('medias').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

function applyInTransaction(ctx: RequestContext, ownerId: number, id: number, changes: MediaChanges) {
  const { db, store } = ctx.services;
  return db.transaction().execute((trx) => applyMediaChanges(trx, store.dialect, ownerId, [id], changes, nowIso()));
}

/** POST /medias.xml: upload step 1 (or a direct upload), with metadata and placements. */
export async function createMedia(ctx: RequestContext): Promise<XmlObject> {
  const user = userOf(ctx);
  const { db } = ctx.services;
  const p = ctx.params;
  const file = ctx.file?.field === CONTENT_FIELD ? ctx.file : undefined;
  if (!file && !isUploadRequest(p)) {
    throw invalid('media[content][upload_location] must be REQUEST (upload step 1), or media[content] must be the file (direct upload)');
  }
  const givenName = (p.str('media[content][file_name]') ?? file?.fileName ?? '').trim();
  if (givenName === '') throw invalid('media[content][file_name] is required');
  // The name as it is stored and handed back, so media[replace] finds what an earlier upload stored.
  const fileName = sanitizeFileName(givenName);

  // Everything is validated before anything is created.
  const changes = await readMediaChanges(db, user.id, p, 'media', 'single');
  const topArtist = p.str('artist_id');
  const artistId = changes.columns.artist_id ?? (topArtist ? await ownedArtistId(db, user.id, topArtist, 'artist_id') : await defaultArtistId(db, user.id));
  changes.columns.artist_id = artistId;
  const replace = p.flag('media[replace]') === true;

  const existing = replace
    ? await db
        .selectFrom('medias')
        .selectAll()
        .where('owner_id', '=', user.id)
        .where('artist_id', '=', artistId)
        .where('file_name', '=', fileName)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst()
    : undefined;

  let media: MediaRow;
  let uploadFields: XmlObject;
  if (existing) {
    // Replacing: the media keeps its UUID; the upload is checked first, then the metadata applied.
    uploadFields = file ? await storeDirectUpload(ctx, existing, file) : await beginUpload(ctx, existing, p);
    await applyInTransaction(ctx, user.id, existing.id, changes);
    media = existing;
  } else {
    const now = nowIso();
    media = await db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('medias')
        .values({ uuid: randomUUID(), owner_id: user.id, artist_id: artistId, status: 'pending', file_name: fileName, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      await applyMediaChanges(trx, ctx.services.store.dialect, user.id, [row.id], changes, now);
      return reload(trx, row.id);
    });
    try {
      uploadFields = file ? await storeDirectUpload(ctx, media, file) : await beginUpload(ctx, media, p);
    } catch (err) {
      // The upload was refused: the media must not exist (its relations go with it).
      await db
        .deleteFrom('medias')
        .where('id', '=', media.id)
        .execute()
        .catch((e) => ctx.services.log.error({ err: e, media: media.uuid }, 'could not remove the media of a refused upload'));
      throw err;
    }
  }
  const element = { ...(await mediaElement(db, media.id)), ...uploadFields };
  return {
    media: element,
    'media-uuid': media.uuid,
    location: mediaLocation(media),
    message: file ? 'media uploaded' : existing ? 'upload the new file as instructed, then complete it with PUT' : 'media created: upload the file as instructed, then complete it with PUT',
  };
}

/** PUT /medias/<uuid>.xml: metadata and publication, and any upload step. */
export async function updateMedia(ctx: RequestContext): Promise<XmlObject> {
  const user = userOf(ctx);
  const { db } = ctx.services;
  const p = ctx.params;
  const media = await findOwnedMedia(db, user.id, ctx.path.uuid);
  if (!media) throw notFound(`media ${ctx.path.uuid}`);
  const changes = await readMediaChanges(db, user.id, p, 'media', 'single');
  // Clients replace a file by sending the step 1 parameters here (spec 4.7): the top-level
  // artist_id then names the library, and media[replace] is implied.
  const topArtist = p.str('artist_id');
  if (changes.columns.artist_id === undefined && topArtist) changes.columns.artist_id = await ownedArtistId(db, user.id, topArtist, 'artist_id');

  let uploadFields: XmlObject = {};
  let message = 'media updated';
  if (isUploadRequest(p)) {
    uploadFields = await beginUpload(ctx, media, p);
    message = 'upload the new file as instructed, then complete it with PUT';
  } else if (isUploadCompletion(p)) {
    uploadFields = await completeUpload(ctx, media, p);
    message = 'upload complete';
  }
  const file = ctx.file?.field === CONTENT_FIELD ? ctx.file : undefined;
  if (file) {
    uploadFields = { ...uploadFields, ...(await storeDirectUpload(ctx, await reload(db, media.id), file)) };
    message = 'media uploaded';
  }
  if (!isEmptyChange(changes)) await applyInTransaction(ctx, user.id, media.id, changes);
  return {
    media: { ...(await mediaElement(db, media.id)), ...uploadFields },
    location: mediaLocation(media),
    message,
  };
}

/** DELETE /medias/<uuid>.xml: the row, its relations and its pending upload; its files recorded for deletion, then removed. */
export async function deleteMedia(ctx: RequestContext): Promise<XmlObject> {
  const user = userOf(ctx);
  const { db, store } = ctx.services;
  const media = await findOwnedMedia(db, user.id, ctx.path.uuid);
  if (!media) throw notFound(`media ${ctx.path.uuid}`);
  const keys = await db.transaction().execute(async (trx) => {
    const r = await applyMediaChanges(trx, store.dialect, user.id, [media.id], { columns: {}, delete: true }, nowIso());
    return dropFilesOfDeletedMedias(trx, r.affectedIds, r.deletedStorageKeys);
  });
  await removeStoredFiles(ctx, keys);
  return { message: 'media deleted', 'media-uuid': media.uuid };
}

/**
 * Files of deleted medias, after the commit of the transaction that recorded
 * them (dropFilesOfDeletedMedias); a failure leaves them recorded for the
 * cleanup sweep, never fails the request.
 */
export async function removeStoredFiles(ctx: Pick<RequestContext, 'services'>, keys: string[]): Promise<void> {
  await deleteStoredFiles(ctx, keys);
}

// Left only for the files of other features that still import it
// (src/media/targets.ts, src/galleries/routes.ts) while they move to
// src/access (Access.website, Access.require): delete it with their last
// import. Websites' own SQL is in ./repository.ts.
import type { Db } from '../store/db.js';
import { prepared } from '../store/prepared.js';

/** Ids of the websites a user owns or was given access to: the only ones they may see. */
export function accessibleWebsites(db: Db, userId: number) {
  return db
    .selectFrom('websites')
    .where((eb) =>
      eb.or([
        eb('websites.owner_id', '=', userId),
        eb('websites.id', 'in', eb.selectFrom('website_members').select('website_id').where('user_id', '=', userId)),
      ]),
    );
}

export const findAccessibleWebsite = prepared((db: Db, userId: number, urlname: string) =>
  accessibleWebsites(db, userId).selectAll('websites').where('websites.urlname', '=', urlname),
);

// What a visitor of the public website may do with a gallery: the one check
// every visitor-facing read of a gallery goes through. Restrictions inherit:
// a gallery is only as open as its most restricted ancestor.
import type { Db } from '../store/db.js';
import { verifyPassword } from '../http/passwords.js';
import { DEFAULT_ACL_EMAIL, loadAcls } from './acl.js';
import { ancestorsOf } from './queries.js';

export interface VisitorAccess {
  /** The visitor may see the gallery and its medias. */
  read: boolean;
  compDownload: boolean;
  hiresDownload: boolean;
  /** Read is refused only for want of the right gallery password: ask for it. */
  passwordRequired: boolean;
  /** Shown in the website's navigation (no hidden gallery on the way); a hidden gallery is still reachable by its address. */
  listed: boolean;
  /** Search engines may index it: indexing is 2 (always), or 1 (auto) when listed and open to anyone. */
  indexable: boolean;
}

const NONE: VisitorAccess = { read: false, compDownload: false, hiresDownload: false, passwordRequired: false, listed: false, indexable: false };

/**
 * Rights of a visitor (identified by e-mail, or anonymous) on a gallery.
 * Along the chain root → gallery: every gallery with an access list
 * contributes the visitor's entry (or the DEFAULT entry) and rights are
 * and-ed; without any access list anyone may read and nobody may download.
 * A password on any gallery of the chain must be given (one password that
 * opens them all); downloads need read.
 */
export async function visitorAccess(db: Db, galleryId: number, email: string | null, password?: string): Promise<VisitorAccess> {
  const gallery = await db.selectFrom('galleries').selectAll().where('id', '=', galleryId).executeTakeFirst();
  if (!gallery) return NONE;
  const chain = [...(await ancestorsOf(db, gallery)), gallery];
  const acls = await loadAcls(
    db,
    chain.map((g) => g.id),
  );
  const who = email?.trim().toLowerCase() || null;

  let restricted = false;
  let read = true;
  let comp = true;
  let hires = true;
  for (const g of chain) {
    const list = acls.get(g.id);
    if (!list || list.length === 0) continue;
    restricted = true;
    const entry = (who && list.find((e) => e.email === who)) || list.find((e) => e.email === DEFAULT_ACL_EMAIL);
    read &&= entry?.read ?? false;
    comp &&= entry?.compDownload ?? false;
    hires &&= entry?.hiresDownload ?? false;
  }
  if (!restricted) {
    comp = false;
    hires = false;
  }

  let passwordOk = true;
  for (const g of chain) {
    if (g.password_hash === null) continue;
    if (password === undefined || password === '' || !(await verifyPassword(g.password_hash, password))) {
      passwordOk = false;
      break;
    }
  }
  const passwordRequired = read && !passwordOk;
  read &&= passwordOk;
  const listed = chain.every((g) => g.hidden === 0);
  const openToAnyone = !restricted || chain.every((g) => acls.get(g.id)?.find((e) => e.email === DEFAULT_ACL_EMAIL)?.read !== false);
  const anyPassword = chain.some((g) => g.password_hash !== null);
  const indexable = read && gallery.indexing !== 0 && (gallery.indexing === 2 || (listed && openToAnyone && !anyPassword));
  return { read, compDownload: read && comp, hiresDownload: read && hires, passwordRequired, listed, indexable };
}

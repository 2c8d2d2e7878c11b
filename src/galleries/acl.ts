// Gallery access lists (spec 2.3): gallery[acl][n][email|read|comp_download|hires_download]
// on create. n = 0 is the DEFAULT entry (what any visitor may do); n >= 1 are
// client entries, numbered by the client; their rights replace the default
// for that e-mail address. Stored by repository.ts.
import { invalid } from '../core/errors.js';
import type { Params } from '../http/params.js';

export const DEFAULT_ACL_EMAIL = 'DEFAULT';
const ENTRY = /^gallery\[acl\]\[([^\]]*)\]\[(email|read|comp_download|hires_download)\]$/;
// Addresses end up in client code between quotes: no quotes, backslashes, spaces or line breaks.
const EMAIL = /^[^\s@"\\<>,;]+@[^\s@"\\<>,;]+\.[^\s@"\\<>,;]+$/;
export const MAX_ACL_ENTRIES = 1000;
const MAX_EMAIL_LENGTH = 254;

/** A client's address as access lists store it (trimmed, lower-cased); undefined when it is not one. */
export function clientEmail(raw: string | undefined): string | undefined {
  const email = (raw ?? '').trim();
  return email.length <= MAX_EMAIL_LENGTH && EMAIL.test(email) ? email.toLowerCase() : undefined;
}

export interface AclEntryInput {
  position: number;
  /** Lower-cased address, or DEFAULT for position 0. */
  email: string;
  read: boolean;
  compDownload: boolean;
  hiresDownload: boolean;
}

/** The access list sent with a create, validated; undefined when none was sent. */
export function readAcl(p: Params): AclEntryInput[] | undefined {
  const byPosition = new Map<number, string>();
  for (const name of p.namesUnder('gallery[acl]')) {
    const m = ENTRY.exec(name);
    if (!m) continue; // the router has refused any other name already
    if (!/^\d{1,9}$/.test(m[1])) throw invalid(`gallery[acl][${m[1]}]: the entry number must be 0 (DEFAULT) or a client entry id (1, 2, 3…)`);
    byPosition.set(Number(m[1]), m[1]);
  }
  if (byPosition.size === 0) return undefined;
  if (byPosition.size > MAX_ACL_ENTRIES) throw invalid(`gallery[acl] may hold at most ${MAX_ACL_ENTRIES} entries`);
  if (!byPosition.has(0)) throw invalid('gallery[acl][0] must be the DEFAULT entry and come first');

  const entries: AclEntryInput[] = [];
  const emails = new Set<string>();
  for (const position of [...byPosition.keys()].sort((a, b) => a - b)) {
    const prefix = `gallery[acl][${byPosition.get(position)}]`;
    const rawEmail = (p.str(`${prefix}[email]`) ?? '').trim();
    let email: string;
    if (position === 0) {
      if (rawEmail.toUpperCase() !== DEFAULT_ACL_EMAIL) throw invalid(`${prefix}[email] must be the word DEFAULT`);
      email = DEFAULT_ACL_EMAIL;
    } else {
      if (rawEmail === '') throw invalid(`${prefix}[email] is required`);
      if (clientEmail(rawEmail) === undefined) throw invalid(`${prefix}[email] must be an e-mail address, got ${JSON.stringify(rawEmail)}`);
      email = rawEmail.toLowerCase();
      if (emails.has(email)) throw invalid(`${prefix}[email]: ${email} appears twice in the access list`);
      emails.add(email);
    }
    entries.push({
      position,
      email,
      read: p.flag(`${prefix}[read]`) ?? true,
      compDownload: p.flag(`${prefix}[comp_download]`) ?? false,
      hiresDownload: p.flag(`${prefix}[hires_download]`) ?? false,
    });
  }
  return entries;
}

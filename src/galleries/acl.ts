// Gallery access lists (spec 2.3): gallery[acl][n][email|read|comp_download|hires_download]
// on create. n = 0 is the DEFAULT entry (what any visitor may do); n >= 1 are
// client entries, numbered by the client; their rights replace the default
// for that e-mail address. Stored by repository.ts.
import { entries, refuse, type At, type Entry } from '../core/fields.js';
import type { Params } from '../http/params.js';

export const DEFAULT_ACL_EMAIL = 'DEFAULT';
export const ACL_SUBS = ['email', 'read', 'comp_download', 'hires_download'] as const;
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

function entryFlag(e: Entry, at: At, prefix: string, sub: string, fallback: boolean): boolean {
  const v = e.value(sub);
  if (v === undefined) return fallback;
  const t = v.trim().toLowerCase();
  if (t === '1' || t === 'true') return true;
  if (t === '0' || t === 'false') return false;
  throw refuse(at, `parameter ${prefix}[${sub}] must be 0 or 1, got ${JSON.stringify(v)}`);
}

/** The access list's entries, validated (at.name: the face's name of the list, `gallery[acl]`); undefined when none was sent. */
export function readAclEntries(list: Entry[], at: At): AclEntryInput[] | undefined {
  const byPosition = new Map<number, Entry>();
  for (const e of list) {
    if (!/^\d{1,9}$/.test(e.id)) throw refuse(at, `${at.name}[${e.id}]: the entry number must be 0 (DEFAULT) or a client entry id (1, 2, 3…)`);
    byPosition.set(Number(e.id), e);
  }
  if (byPosition.size === 0) return undefined;
  if (byPosition.size > MAX_ACL_ENTRIES) throw refuse(at, `${at.name} may hold at most ${MAX_ACL_ENTRIES} entries`);
  if (!byPosition.has(0)) throw refuse(at, `${at.name}[0] must be the DEFAULT entry and come first`);

  const out: AclEntryInput[] = [];
  const emails = new Set<string>();
  for (const position of [...byPosition.keys()].sort((a, b) => a - b)) {
    const e = byPosition.get(position)!;
    const prefix = `${at.name}[${e.id}]`;
    const rawEmail = (e.value('email') ?? '').trim();
    let email: string;
    if (position === 0) {
      if (rawEmail.toUpperCase() !== DEFAULT_ACL_EMAIL) throw refuse(at, `${prefix}[email] must be the word DEFAULT`);
      email = DEFAULT_ACL_EMAIL;
    } else {
      if (rawEmail === '') throw refuse(at, `${prefix}[email] is required`);
      if (clientEmail(rawEmail) === undefined) throw refuse(at, `${prefix}[email] must be an e-mail address, got ${JSON.stringify(rawEmail)}`);
      email = rawEmail.toLowerCase();
      if (emails.has(email)) throw refuse(at, `${prefix}[email]: ${email} appears twice in the access list`);
      emails.add(email);
    }
    out.push({
      position,
      email,
      read: entryFlag(e, at, prefix, 'read', true),
      compDownload: entryFlag(e, at, prefix, 'comp_download', false),
      hiresDownload: entryFlag(e, at, prefix, 'hires_download', false),
    });
  }
  return out;
}

/** The access list as a field of a spec (create only in galleries, the whole list when set on its own). */
export const aclField = (only?: Parameters<typeof entries>[2]) => entries(ACL_SUBS, readAclEntries, only);

/** The access list sent as API parameters (`gallery[acl][n][…]`); undefined when none was sent. Kept for the studio's form reader. */
export function readAcl(p: Params): AclEntryInput[] | undefined {
  const ids = new Set<string>();
  for (const n of p.namesUnder('gallery[acl][')) {
    const m = /^gallery\[acl\]\[([^\]]*)\]\[(email|read|comp_download|hires_download)\]$/.exec(n);
    if (m) ids.add(m[1]);
  }
  const list = [...ids].map((id): Entry => ({ id, value: (sub) => p.str(`gallery[acl][${id}][${sub}]`) }));
  return readAclEntries(list, { key: 'acl', name: 'gallery[acl]', mode: 'create', naming: (k) => `gallery[${k}]` });
}

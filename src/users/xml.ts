// Reply shapes of the session endpoints (spec 4.1).
import { renderFragment, type XmlFragment, type XmlObject } from '../http/xml.js';
import type { UserRow } from '../database/schema.js';

// whoami's <user>, rendered once per row read: a cached session hands the same row to every
// request until it is read again (a new object), so an edit is shown as soon as the row is.
const userFragments = new WeakMap<UserRow, XmlFragment>();

export function whoamiXml(user: UserRow): XmlObject {
  let fragment = userFragments.get(user);
  if (fragment === undefined) {
    fragment = renderFragment({
      uuid: user.uuid,
      login: user.email,
      email: user.email,
      firstname: user.first_name,
      lastname: user.last_name,
      'two-factor': user.otp_secret !== null,
    });
    userFragments.set(user, fragment);
  }
  return { user: fragment, message: 'session valid' };
}

// Reply shapes of the session endpoints (spec 4.1).
import type { XmlObject } from '../http/xml.js';
import type { UserRow } from '../database/schema.js';

export function whoamiXml(user: UserRow): XmlObject {
  return {
    user: {
      uuid: user.uuid,
      login: user.email,
      email: user.email,
      firstname: user.first_name,
      lastname: user.last_name,
      'two-factor': user.otp_secret !== null,
    },
    message: 'session valid',
  };
}

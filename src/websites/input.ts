// What a website's names may be.

/** A DNS label: lower-case letters, digits and inner dashes, at most 63. */
export function isValidUrlname(urlname: string): boolean {
  return /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(urlname);
}

/**
 * A host name, with an optional port: DNS labels (letters, digits, inner dashes, at most 63
 * each) joined by dots, at most 253 in all. The one rule of a website's host name: the admin
 * command, the API (`website[hostname]`) and the studio all ask it.
 */
export function isValidHostname(hostname: string): boolean {
  const m = /^([a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(hostname);
  if (!m || m[1].length > 253) return false;
  if (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65535)) return false;
  return m[1].split('.').every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(label));
}

// What a website's names may be.

/** A DNS label: lower-case letters, digits and inner dashes, at most 63. */
export function isValidUrlname(urlname: string): boolean {
  return /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(urlname);
}

/** A host name, with an optional port. */
export function isValidHostname(hostname: string): boolean {
  return /^[a-z0-9.-]+(:\d+)?$/i.test(hostname);
}

// What a request's address may show in the log: never a bearer token carried in its path.

/** A path as the log shows it: a share link's token (a bearer credential) replaced, never shown in full. */
export function redactPath(path: string): string {
  return path.replace(/\/_share\/[^/]+/g, '/_share/[token]');
}

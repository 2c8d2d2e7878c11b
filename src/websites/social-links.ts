// A website's social links as the `websites.social_links` column keeps them: a
// JSON array of addresses, or null for none. Written by the service, read by
// the API's reply, the website's footer and the studio's form: one codec.

/** The column's value for these links (null for none). */
export function socialLinksColumn(links: readonly string[]): string | null {
  return links.length === 0 ? null : JSON.stringify(links);
}

/** The links a column holds; a value that is not an array of strings reads as none. */
export function socialLinksOf(column: string | null | undefined): string[] {
  if (!column) return [];
  try {
    const links: unknown = JSON.parse(column);
    return Array.isArray(links) ? links.filter((l): l is string => typeof l === 'string') : [];
  } catch {
    return [];
  }
}

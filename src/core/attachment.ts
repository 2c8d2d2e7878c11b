// The Content-Disposition of a download, for every face that sends one (the website's files and
// archives, an order's files, the CSV exports and print sheets of the API and the studio).

/** A download's name: an ASCII fallback (no quote or backslash to break the header) and the UTF-8 original (RFC 6266). */
export function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

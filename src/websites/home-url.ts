// Where a website is seen: the API announces it as a website's `home-url`
// (xml.ts) and the website (src/site/address.ts) builds every address on it.
// It lives with websites so that the API's features never import the website.

/** Its own host name, else its place on the service. */
export function homeUrl(publicUrl: string, w: { urlname: string; hostname: string | null }): string {
  return w.hostname ? `https://${w.hostname}` : `${publicUrl}/sites/${w.urlname}`;
}

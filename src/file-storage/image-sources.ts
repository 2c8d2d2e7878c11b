// Where the HTML pages' images come from, for a Content-Security-Policy's img-src: this
// service, and the object store when files are there (the website's and the studio's policies).
export function imageSources(storageUrl: string | undefined): string[] {
  const img = ["'self'"];
  if (storageUrl?.startsWith('s3:')) {
    try {
      const endpoint = new URL(storageUrl).searchParams.get('endpoint');
      img.push(endpoint ? new URL(endpoint).origin : 'https://*.amazonaws.com');
    } catch {
      /* a bad STORAGE_URL stops the service elsewhere */
    }
  }
  return img;
}

// What is known of a picture, under it on the media page: its credit line
// (author, copyright notice, licence), when and where it was taken. The same
// facts go into the page's JSON-LD (src/site/pages/share.ts); the viewer's caption
// reads the credit from the page model (MediaItem.credit).
import type { VNode } from 'preact';
import type { MediaView } from '../service.js';

// Written out here rather than by Intl, whose wording changes with Node's ICU ("6 May 2024 at 05:08").
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** `6 May 2024, 05:08 UTC`: the capture time is kept in UTC (the camera's own zone is not known). */
export function captureTimeText(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso.slice(0, 10);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`;
}

/** `48.39167° N, 4.48333° W` */
export function positionText(p: { latitude: number; longitude: number }): string {
  const part = (v: number, pos: string, neg: string) => `${Math.abs(v).toFixed(5)}° ${v >= 0 ? pos : neg}`;
  return `${part(p.latitude, 'N', 'S')}, ${part(p.longitude, 'E', 'W')}`;
}

/** A Creative Commons deed by its usual name (`CC BY-NC 4.0`, `CC0 1.0`); any other licence by its address without the scheme. */
export function licenseLabel(url: string): string {
  const cc = /^https?:\/\/(?:www\.)?creativecommons\.org\/(?:licenses\/([a-z-]+)|publicdomain\/(zero|mark))\/(\d+(?:\.\d+)?)\/?/i.exec(url);
  if (cc) return cc[1] ? `CC ${cc[1].toUpperCase()} ${cc[3]}` : cc[2].toLowerCase() === 'zero' ? `CC0 ${cc[3]}` : `Public Domain Mark ${cc[3]}`;
  return url.replace(/^https?:\/\//i, '').replace(/\/$/, '');
}

export function MediaFacts(props: { view: Pick<MediaView, 'credit' | 'shotAt' | 'location' | 'position'> }): VNode | null {
  const { credit, shotAt, location, position } = props.view;
  if (!credit && !shotAt && !location && !position) return null;
  return (
    <dl class="meta">
      {credit?.author ? (
        <>
          <dt>Photographer</dt>
          <dd>{credit.author}</dd>
        </>
      ) : null}
      {credit?.copyright ? (
        <>
          <dt>Copyright</dt>
          <dd>{credit.copyright}</dd>
        </>
      ) : null}
      {credit?.license ? (
        <>
          <dt>Licence</dt>
          <dd>
            <a href={credit.license} rel="license noopener" referrerpolicy="no-referrer">
              {licenseLabel(credit.license)}
            </a>
          </dd>
        </>
      ) : null}
      {shotAt ? (
        <>
          <dt>Taken</dt>
          <dd>
            <time datetime={shotAt}>{captureTimeText(shotAt)}</time>
          </dd>
        </>
      ) : null}
      {location ? (
        <>
          <dt>Place</dt>
          <dd>{location}</dd>
        </>
      ) : null}
      {position ? (
        <>
          <dt>Position</dt>
          <dd>
            <a
              href={`https://www.openstreetmap.org/?mlat=${position.latitude}&mlon=${position.longitude}#map=15/${position.latitude}/${position.longitude}`}
              rel="noopener nofollow"
              referrerpolicy="no-referrer"
            >
              {positionText(position)}
            </a>
          </dd>
        </>
      ) : null}
    </dl>
  );
}

// The sign-in mail: plain text and a simple HTML part, the website's title
// escaped by the JSX renderer.
import { renderToString } from 'preact-render-to-string';

export interface SignInMail {
  to: string;
  siteTitle: string;
  /** `<home>/_signin/<token>`. */
  url: string;
  /** Minutes the link stays valid. */
  minutes: number;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** A title fit for a header line: no control characters, bounded. */
function oneLine(s: string): string {
  return s.replace(/[\x00-\x1f\x7f]+/g, ' ').trim().slice(0, 200);
}

export function signInMessage(m: SignInMail): MailMessage {
  const title = oneLine(m.siteTitle);
  const validity = m.minutes === 1 ? '1 minute' : `${m.minutes} minutes`;
  const text = [
    `To sign in to ${title}, open this link:`,
    '',
    m.url,
    '',
    `It works once, within ${validity}.`,
    'If you did not ask for it, ignore this mail: nothing happens without the link.',
    '',
  ].join('\n');
  const html =
    '<!doctype html>' +
    renderToString(
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <title>Sign in to {title}</title>
        </head>
        <body>
          <p>
            To sign in to <strong>{title}</strong>, open this link:
          </p>
          <p>
            <a href={m.url}>Sign in to {title}</a>
          </p>
          <p>It works once, within {validity}.</p>
          <p>If you did not ask for it, ignore this mail: nothing happens without the link.</p>
        </body>
      </html>,
    );
  return { to: m.to, subject: `Sign in to ${title}`, text, html };
}

export interface InvitationMailContent {
  to: string;
  siteTitle: string;
  galleryName: string;
  url: string;
  days: number;
  /** The photographer's words, plain text: each line a line of the mail, escaped in its HTML. */
  message: string | undefined;
}

/** An invitation (docs/delivery.md "Invitations"): the photographer's message, then the gallery's sign-in link. */
export function invitationMessage(m: InvitationMailContent): MailMessage {
  const title = oneLine(m.siteTitle);
  const gallery = oneLine(m.galleryName);
  const validity = m.days === 1 ? '1 day' : `${m.days} days`;
  const lines = m.message ? m.message.split('\n') : [];
  const text = [
    ...(lines.length ? [...lines, '', '---', ''] : []),
    `You are invited to see "${gallery}" on ${title}. Open this link to sign in:`,
    '',
    m.url,
    '',
    `It works once, within ${validity}; afterwards you may ask the website for a new link with this address.`,
    '',
  ].join('\n');
  const html =
    '<!doctype html>' +
    renderToString(
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <title>
            {gallery} on {title}
          </title>
        </head>
        <body>
          {lines.length > 0 && (
            <p>
              {lines.map((line, i) => (
                <>
                  {i > 0 && <br />}
                  {line}
                </>
              ))}
            </p>
          )}
          <p>
            You are invited to see <strong>{gallery}</strong> on <strong>{title}</strong>.
          </p>
          <p>
            <a href={m.url}>Open {gallery}</a>
          </p>
          <p>It works once, within {validity}; afterwards you may ask the website for a new link with this address.</p>
        </body>
      </html>,
    );
  return { to: m.to, subject: `${title}: ${gallery}`, text, html };
}

/** A client sent their selection: the mail to the photographer (docs/delivery.md). */
export interface SelectionMail {
  to: string;
  siteTitle: string;
  galleryName: string;
  clientName: string | null;
  clientEmail: string;
  /** false: the client typed the address, no sign-in link proved it. */
  verified: boolean;
  count: number;
  /** The lightbox's UUID: `GET /lightboxes/<uuid>.xml`, `GET /medias.xml?lightbox_id=<uuid>`. */
  lightboxUuid: string;
  /** Where the photographer reads it (the API's address of the lightbox). */
  url: string;
}

export function selectionMessage(m: SelectionMail): MailMessage {
  const site = oneLine(m.siteTitle);
  const gallery = oneLine(m.galleryName);
  const who = oneLine(m.clientName ? `${m.clientName} <${m.clientEmail}>` : m.clientEmail) + (m.verified ? '' : ' (address not verified)');
  const photos = m.count === 1 ? '1 photo' : `${m.count} photos`;
  const text = [
    `${who} sent their selection of ${photos} from the gallery ${gallery} on ${site}.`,
    '',
    `Lightbox ${m.lightboxUuid}:`,
    m.url,
    '',
    'The selection is now read-only for the client; reopen it (lightbox[state]=open) to let them change it.',
    '',
  ].join('\n');
  const html =
    '<!doctype html>' +
    renderToString(
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <title>Selection from {gallery}</title>
        </head>
        <body>
          <p>
            <strong>{who}</strong> sent their selection of {photos} from the gallery <strong>{gallery}</strong> on {site}.
          </p>
          <p>
            Lightbox <a href={m.url}>{m.lightboxUuid}</a>
          </p>
          <p>The selection is now read-only for the client; reopen it (lightbox[state]=open) to let them change it.</p>
        </body>
      </html>,
    );
  return { to: m.to, subject: oneLine(`Selection of ${photos} from ${gallery}`), text, html };
}

// The invitation of a new photographer: plain text and a simple HTML part, every value
// escaped by the JSX renderer.
import { renderToString } from 'preact-render-to-string';
import type { StudioMail } from '../kit.js';

export function invitationMessage(m: { to: string; url: string; days: number; service: string }): StudioMail {
  const text = [
    `An account of the studio at ${m.service} was opened for you.`,
    '',
    'To choose your password, open this link:',
    '',
    m.url,
    '',
    `It works once, within ${m.days} days. Then sign in with this e-mail address and your password.`,
    '',
  ].join('\n');
  const html =
    '<!doctype html>' +
    renderToString(
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <title>Your studio account</title>
        </head>
        <body>
          <p>An account of the studio at {m.service} was opened for you.</p>
          <p>
            <a href={m.url}>Choose your password</a>
          </p>
          <p>
            It works once, within {m.days} days. Then sign in with this e-mail address and your password.
          </p>
        </body>
      </html>,
    );
  return { to: m.to, subject: 'Your studio account', text, html };
}

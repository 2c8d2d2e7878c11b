// The sign-in pages, deliberately plain: the website's layout (src/site)
// dresses them. JSX escapes every text and attribute.
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

function Page(props: { title: string; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{props.title}</title>
      </head>
      <body>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

const html = (node: VNode) => '<!doctype html>' + renderToString(node);

export interface SignInFormProps {
  siteTitle: string;
  /** Where the form posts: `<home path>/_signin`. */
  action: string;
  back: string;
  email?: string;
  error?: string;
}

export function signInFormPage(p: SignInFormProps): string {
  return html(
    <Page title={`Sign in – ${p.siteTitle}`}>
      <h1>Sign in to {p.siteTitle}</h1>
      <p>Some galleries are open to invited visitors only. Enter the e-mail address you were invited with: we will send you a link that signs you in.</p>
      {p.error ? (
        <p role="alert" id="signin-error">
          {p.error}
        </p>
      ) : null}
      <form method="post" action={p.action}>
        <input type="hidden" name="back" value={p.back} />
        <label for="signin-email">E-mail address</label>{' '}
        <input
          id="signin-email"
          type="email"
          name="email"
          required
          autocomplete="email"
          maxLength={254}
          value={p.email ?? ''}
          aria-describedby={p.error ? 'signin-error' : undefined}
        />{' '}
        <button type="submit">Send me a link</button>
      </form>
    </Page>,
  );
}

export function checkMailPage(p: { siteTitle: string; minutes: number; back: string }): string {
  return html(
    <Page title={`Check your mail – ${p.siteTitle}`}>
      <h1>Check your mail</h1>
      <p>
        If this address has been invited to {p.siteTitle}, a sign-in link is on its way. It works once, within {p.minutes} minutes.
      </p>
      <p>
        <a href={p.back}>Back to the website</a>
      </p>
    </Page>,
  );
}

/** A dead end with a way on: a used or expired link, a refusal, an error. */
export function messagePage(p: { title: string; text: string; link?: { href: string; text: string } }): string {
  return html(
    <Page title={p.title}>
      <h1>{p.title}</h1>
      <p>{p.text}</p>
      {p.link ? (
        <p>
          <a href={p.link.href}>{p.link.text}</a>
        </p>
      ) : null}
    </Page>,
  );
}

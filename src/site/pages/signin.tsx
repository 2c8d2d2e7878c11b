// The sign-in pages, in the website's own frame (src/site/pages/layout.tsx:
// its stylesheet, its name linking home), so a visitor does not seem to leave
// the website to sign in. JSX escapes every text and attribute.
import type { ComponentChildren, VNode } from 'preact';
import type { SiteBrand } from '../look/brand.js';
import type { LockedGallery } from '../service.js';
import { Layout, render } from './layout.js';
import { LockedCard, LockedHeading } from './messages.js';

/** The website a page belongs to; absent when the request named none we know. */
export interface SiteFrame {
  siteTitle: string;
  homeHref: string;
  /** The website's brand (header, navigation, theme, footer). */
  brand?: SiteBrand;
}

const NO_SITE: SiteFrame = { siteTitle: 'Not found', homeHref: '/' };

function Page(props: { frame: SiteFrame | undefined; title: string; children: ComponentChildren }): VNode {
  return (
    <Layout {...(props.frame ?? NO_SITE)} title={props.title} indexable={false}>
      {props.children}
    </Layout>
  );
}

const html = (node: VNode) => render(node);

export interface SignInFormProps {
  frame: SiteFrame;
  /** Where the form posts: `<home path>/_signin`. */
  action: string;
  back: string;
  email?: string;
  error?: string;
  /** The gallery the form returns to, when the visitor is asked to sign in for it: its name, date and public cover. */
  locked?: LockedGallery;
}

export function signInFormPage(p: SignInFormProps): string {
  return html(
    <Page frame={p.frame} title="Sign in">
      <LockedCard locked={p.locked}>
      {p.locked ? (
        <>
          <LockedHeading name={p.locked.name} date={p.locked.date} />
          <h2>Sign in to {p.frame.siteTitle}</h2>
        </>
      ) : (
        <h1>Sign in to {p.frame.siteTitle}</h1>
      )}
      <p>Some galleries are open to invited visitors only. Enter the e-mail address you were invited with: we will send you a link that signs you in.</p>
      {p.error ? (
        <p role="alert" id="signin-error">
          {p.error}
        </p>
      ) : null}
      <form class="pw" method="post" action={p.action}>
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
      </LockedCard>
    </Page>,
  );
}

export function checkMailPage(p: { frame: SiteFrame; minutes: number; back: string }): string {
  return html(
    <Page frame={p.frame} title="Check your mail">
      <h1>Check your mail</h1>
      <p>
        If this address has been invited to {p.frame.siteTitle}, a sign-in link is on its way. It works once, within {p.minutes} minutes.
      </p>
      <p>
        <a href={p.back}>Back to the website</a>
      </p>
    </Page>,
  );
}

/** A dead end with a way on: a used or expired link, a refusal, an error. */
export function messagePage(p: { frame: SiteFrame | undefined; title: string; text: string; link?: { href: string; text: string } }): string {
  return html(
    <Page frame={p.frame} title={p.title}>
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

/** A share link's password (docs/integrations.md "Share links"): asked once per visit, the token already out of the address bar. */
export function sharePasswordPage(p: { frame: SiteFrame; action: string; wrong?: boolean }): string {
  return html(
    <Page frame={p.frame} title="Password">
      <h1>This link is protected</h1>
      <p>Enter the password you were given with the link.</p>
      {p.wrong ? (
        <p role="alert" id="share-error">
          That password is not the right one.
        </p>
      ) : null}
      <form class="pw" method="post" action={p.action}>
        <label for="share-password">Password</label>{' '}
        <input id="share-password" type="password" name="password" required autocomplete="current-password" maxLength={200} aria-describedby={p.wrong ? 'share-error' : undefined} />{' '}
        <button type="submit">Open</button>
      </form>
    </Page>,
  );
}

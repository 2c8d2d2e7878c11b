// The pages that stand in for a gallery: its password form, the sign-in it
// needs, not found, too many requests, and an error on our side.
import type { VNode } from 'preact';
import type { Crumb } from '../service.js';
import { Layout, type Frame } from './layout.js';

type Base = Omit<Frame, 'title' | 'indexable' | 'crumbs' | 'script'>;

export function PasswordPage(props: { frame: Base; action: string; gallery: string; galleryName: string; back: string; wrong: boolean; crumbs: Crumb[] }): VNode {
  return (
    <Layout {...props.frame} title={props.galleryName} indexable={false} crumbs={props.crumbs}>
      <h1>{props.galleryName}</h1>
      <p>This gallery is protected by a password.</p>
      {props.wrong ? (
        <p class="error" role="alert">
          That password is not right.
        </p>
      ) : null}
      <form class="pw" method="post" action={props.action}>
        <input type="hidden" name="gallery" value={props.gallery} />
        <input type="hidden" name="back" value={props.back} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Open the gallery</button>
      </form>
    </Layout>
  );
}

export function SigninPage(props: { frame: Base; signinHref: string; crumbs: Crumb[] }): VNode {
  return (
    <Layout {...props.frame} title="Sign in to see this gallery" indexable={false} crumbs={props.crumbs}>
      <h1>Sign in to see this gallery</h1>
      <p>This gallery is open to invited visitors only.</p>
      <p>
        <a href={props.signinHref}>Sign in with your e-mail address</a>
      </p>
    </Layout>
  );
}

export function MessagePage(props: { frame: Base; title: string; text: string }): VNode {
  return (
    <Layout {...props.frame} title={props.title} indexable={false}>
      <h1>{props.title}</h1>
      <p>{props.text}</p>
      <p>
        <a href={props.frame.homeHref}>Go to the home page</a>
      </p>
    </Layout>
  );
}

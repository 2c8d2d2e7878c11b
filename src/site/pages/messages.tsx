// The pages that stand in for a gallery: its password form, the sign-in it
// needs, not found, too many requests, and an error on our side. A locked
// gallery shows its name, its date and the public cover its photographer chose.
import type { ComponentChildren, VNode } from 'preact';
import type { Crumb, LockedGallery } from '../service.js';
import { Layout, type Frame } from './layout.js';
import { Img, LockIcon } from './picture.js';

type Base = Omit<Frame, 'title' | 'indexable' | 'crumbs' | 'script'>;

/** The gallery behind the lock: its public cover (when chosen), a lock, its name and date. */
export function LockedCard(props: { locked?: LockedGallery; children: ComponentChildren }): VNode {
  const l = props.locked;
  return (
    <section class="locked">
      {l?.cover ? (
        <figure class="locked-cover">
          <Img picture={{ ...l.cover, alt: '' }} sizes="(min-width: 900px) 440px, calc(100vw - 2rem)" eager />
        </figure>
      ) : null}
      <div class="locked-text">{props.children}</div>
    </section>
  );
}

export function LockedHeading(props: { name: string; date?: string }): VNode {
  return (
    <>
      <h1>
        <LockIcon /> {props.name}
      </h1>
      {props.date ? (
        <p class="date">
          <time datetime={props.date}>{formatDate(props.date)}</time>
        </p>
      ) : null}
    </>
  );
}

/** "12 March 2026": the gallery's date as people write it (UTC, English like the rest of the pages). */
export function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso.slice(0, 10);
  return d.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}

export function PasswordPage(props: { frame: Base; action: string; gallery: string; galleryName: string; back: string; wrong: boolean; crumbs: Crumb[]; locked?: LockedGallery }): VNode {
  return (
    <Layout {...props.frame} title={props.galleryName} indexable={false} crumbs={props.crumbs}>
      <LockedCard locked={props.locked}>
        <LockedHeading name={props.locked?.name ?? props.galleryName} date={props.locked?.date} />
        <p>This gallery is protected by a password.</p>
        {props.wrong ? (
          <p class="error" role="alert">
            That password is not right.
          </p>
        ) : (
          <></>
        )}
        <form class="pw" method="post" action={props.action}>
          <input type="hidden" name="gallery" value={props.gallery} />
          <input type="hidden" name="back" value={props.back} />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit">Open the gallery</button>
        </form>
      </LockedCard>
    </Layout>
  );
}

export function SigninPage(props: { frame: Base; signinHref: string; crumbs: Crumb[]; locked?: LockedGallery }): VNode {
  return (
    <Layout {...props.frame} title={props.locked ? props.locked.name : 'Sign in to see this gallery'} indexable={false} crumbs={props.crumbs}>
      <LockedCard locked={props.locked}>
        {props.locked ? <LockedHeading name={props.locked.name} date={props.locked.date} /> : <h1>Sign in to see this gallery</h1>}
        <p>This gallery is open to invited visitors only.</p>
        <p>
          <a class="button" href={props.signinHref}>
            Sign in with your e-mail address
          </a>
        </p>
      </LockedCard>
    </Layout>
  );
}

/**
 * A gallery past its expiry (docs/website.md "Expiry"): closed to every visitor, with the way
 * to reach the photographer when the website gives a contact address.
 */
export function ClosedPage(props: { frame: Base; galleryName?: string; crumbs?: Crumb[] }): VNode {
  const email = props.frame.brand?.email;
  return (
    <Layout {...props.frame} title={props.galleryName ?? 'This gallery has closed'} indexable={false} crumbs={props.crumbs}>
      <section class="closed">
        {props.galleryName ? <h1>{props.galleryName}</h1> : null}
        {props.galleryName ? <p class="closed-lead">This gallery has closed.</p> : <h1>This gallery has closed</h1>}
        <p>Its photos are no longer available here.</p>
        {email ? (
          <p>
            To see them again, please write to the photographer at <a href={`mailto:${email}`}>{email}</a>.
          </p>
        ) : (
          <p>To see them again, please contact the photographer.</p>
        )}
        <p>
          <a href={props.frame.homeHref}>Go to the home page</a>
        </p>
      </section>
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

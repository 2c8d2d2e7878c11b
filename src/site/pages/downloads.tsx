// The download controls' pages (docs/delivery.md "Download controls"): the PIN asked before a
// download, and the friendly page when a client's download limit is reached. In the website's
// brand, as the password page; small enough to read as a dialog on a phone.
import type { VNode } from 'preact';
import type { Crumb } from '../service.js';
import { Layout, type Frame } from './layout.js';

type Base = Omit<Frame, 'title' | 'indexable' | 'crumbs' | 'script'>;

export function PinPage(props: { frame: Base; action: string; gallery: string; galleryName: string; back: string; cancel: string; wrong: boolean; crumbs: Crumb[] }): VNode {
  return (
    <Layout {...props.frame} title={`Download PIN · ${props.galleryName}`} indexable={false} crumbs={props.crumbs}>
      <section class="ask pin-dialog" aria-labelledby="pin-title">
        <h1 id="pin-title">Enter the download PIN</h1>
        <p>The photographer gave a PIN for downloads from {props.galleryName}. You are asked once: this browser remembers it.</p>
        {props.wrong ? (
          <p class="error" role="alert">
            That PIN is not right.
          </p>
        ) : (
          <></>
        )}
        <form class="pw" method="post" action={props.action}>
          <input type="hidden" name="gallery" value={props.gallery} />
          <input type="hidden" name="back" value={props.back} />
          <label for="pin">PIN (4 to 8 digits)</label>
          <input id="pin" name="pin" type="password" inputmode="numeric" pattern="[0-9]{4,8}" minlength={4} maxlength={8} autocomplete="off" required autofocus />
          <button type="submit">Download</button>
        </form>
        <p>
          <a href={props.cancel}>Back to the gallery</a>
        </p>
      </section>
    </Layout>
  );
}

export function LimitPage(props: { frame: Base; galleryName: string; limit: number; back: string; crumbs: Crumb[]; contact?: string }): VNode {
  return (
    <Layout {...props.frame} title={`Download limit reached · ${props.galleryName}`} indexable={false} crumbs={props.crumbs}>
      <section class="ask limit-page" aria-labelledby="limit-title">
        <h1 id="limit-title">You have reached this gallery’s download limit</h1>
        <p>
          {props.galleryName} allows {props.limit} {props.limit === 1 ? 'photo' : 'photos'} to be downloaded per client, and you have downloaded them all. Photos you downloaded before can be downloaded again, one by one.
        </p>
        <p>
          For more, please ask the photographer{props.contact ? <> at <a href={`mailto:${props.contact}`}>{props.contact}</a></> : null}.
        </p>
        <p>
          <a class="button" href={props.back}>
            Back to the gallery
          </a>
        </p>
      </section>
    </Layout>
  );
}

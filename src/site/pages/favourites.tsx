// Favourites (docs/delivery.md): who is choosing (a name and an address, or a
// sign-in), a client's selection of one gallery with its notes and the button
// that sends it, the confirmation of that, and the list of a visitor's
// selections on the website. Every form posts to `<home>/_favourites/…`
// (routes checked for the website's own origin); JSX escapes every text.
import type { VNode } from 'preact';
import type { Crumb, FavouriteItem } from '../service.js';
import { Layout, type Frame } from './layout.js';
import { formatDate } from './messages.js';
import { Img } from './picture.js';

type Base = Omit<Frame, 'title' | 'indexable' | 'crumbs' | 'script'>;

/** Who is choosing, as the pages say it. */
export interface ClientLabel {
  name: string | null;
  email: string;
  verified: boolean;
}

export function Chooser(props: { client: ClientLabel }): VNode {
  const c = props.client;
  return (
    <p class="chooser">
      Choosing as <strong>{c.name ? `${c.name} <${c.email}>` : c.email}</strong>
      {c.verified ? null : <span class="unverified"> (address not verified)</span>}
    </p>
  );
}

/** What a gallery or media page shows of the visitor's favourites there (routes.ts favouritesOf). */
export interface FavouritesBar {
  /** `<home>/_favourites/pick`. */
  action: string;
  gallery: string;
  /** The page: where a form without the script comes back to. */
  back: string;
  /** The selection's page. */
  href: string;
  /** The visitor said who they are (else a heart asks first). */
  identified: boolean;
  /** Picked media UUIDs with their notes. */
  picked: Map<string, string>;
  count: number;
  limit: number | null;
  /** Sent: read-only. */
  sent: boolean;
  /** The gallery's named lists with the visitor's counts in each; none: []. */
  lists: ListCount[];
  /** The lists each picked photo is in, by media UUID. */
  pickLists: Map<string, string[]>;
  /** `<home>/_favourites/list`. */
  listAction: string;
}

export interface ListCount {
  name: string;
  count: number;
}

/** "Album: 3 · Prints: 1": the visitor's count in each of the gallery's lists. */
export function ListCounts(props: { lists: readonly ListCount[] }): VNode | null {
  if (props.lists.length === 0) return null;
  return (
    <p class="list-counts" data-list-counts>
      {props.lists.map((l, i) => (
        <span key={l.name}>
          {i > 0 ? ' · ' : ''}
          {l.name}: <strong>{l.count}</strong>
        </span>
      ))}
    </p>
  );
}

/**
 * A photo's named lists as toggles: one small form per list (no script needed), a pressed button
 * for each list it is in. Putting a photo in a list picks it too; taking it out keeps the pick.
 */
export function ListToggles(props: { action: string; gallery: string; back: string; uuid: string; title: string; lists: readonly ListCount[]; inLists: readonly string[] }): VNode | null {
  if (props.lists.length === 0) return null;
  return (
    <div class="list-toggles" role="group" aria-label={`Lists for ${props.title}`}>
      {props.lists.map((l) => {
        const on = props.inLists.includes(l.name);
        return (
          <form key={l.name} method="post" action={props.action}>
            <input type="hidden" name="gallery" value={props.gallery} />
            <input type="hidden" name="back" value={props.back} />
            <input type="hidden" name="media" value={props.uuid} />
            <input type="hidden" name="list" value={l.name} />
            <input type="hidden" name="on" value={on ? '0' : '1'} />
            <button type="submit" class="list-chip" aria-pressed={on ? 'true' : 'false'}>
              {l.name}
            </button>
          </form>
        );
      })}
    </div>
  );
}

/** The gallery page's one favourites form: every heart is a submit button of it (`form="fav"`), naming its photo. */
export function FavouritesForm(props: { bar: FavouritesBar }): VNode {
  const b = props.bar;
  return (
    <form id="fav" method="post" action={b.action} hidden>
      <input type="hidden" name="gallery" value={b.gallery} />
      <input type="hidden" name="back" value={b.back} />
    </form>
  );
}

/** The counter and the way to the selection ("3 of 30 chosen · My favourites"), or the limit before anything is chosen. */
export function FavouritesCounter(props: { bar: FavouritesBar }): VNode | null {
  const b = props.bar;
  if (!b.identified) {
    return b.limit === null ? null : (
      <p class="favbar">
        <span data-fav-count>Choose up to {b.limit} favourites</span>
      </p>
    );
  }
  return (
    <p class="favbar">
      <span data-fav-count data-limit={b.limit ?? undefined} role="status">
        {counterText(b.count, b.limit)}
      </span>
      {b.sent ? ' · sent' : null} · <a href={b.href}>My favourites</a>
    </p>
  );
}

/**
 * A photo's heart: a submit button of the page's favourites form. Empty: the stylesheet draws
 * the heart (`.fav::before`), so 60 photos a page cost a few bytes each.
 */
export function Heart(props: { bar: FavouritesBar; uuid: string; title: string }): VNode {
  const picked = props.bar.picked.has(props.uuid);
  return (
    <button
      type="submit"
      form="fav"
      class="fav"
      name={picked ? 'unpick' : 'pick'}
      value={props.uuid}
      aria-pressed={picked ? 'true' : 'false'}
      aria-label={`Favourite: ${props.title}`}
      disabled={props.bar.sent}
    />
  );
}

/** "3 of 30 chosen", or "3 chosen" without a limit. */
export function counterText(count: number, limit: number | null): string {
  return limit === null ? `${count} chosen` : `${count} of ${limit} chosen`;
}

export function IdentifyPage(props: {
  frame: Base;
  action: string;
  signinHref: string;
  back: string;
  /** A pick to make once identified (the heart that brought the visitor here). */
  pending?: { gallery: string; pick: string };
  name?: string;
  email?: string;
  error?: string;
}): VNode {
  return (
    <Layout {...props.frame} title="Who is choosing?" indexable={false}>
      <h1>Who is choosing?</h1>
      <p>To mark photos as favourites, tell the photographer who you are.</p>
      {props.error ? (
        <p class="error" role="alert">
          {props.error}
        </p>
      ) : null}
      <form class="pw" method="post" action={props.action}>
        <input type="hidden" name="back" value={props.back} />
        {props.pending ? <input type="hidden" name="gallery" value={props.pending.gallery} /> : null}
        {props.pending ? <input type="hidden" name="pick" value={props.pending.pick} /> : null}
        <label for="fav-name">Your name</label>
        <input id="fav-name" name="name" autocomplete="name" maxlength={100} required value={props.name} />
        <label for="fav-email">Your e-mail address</label>
        <input id="fav-email" name="email" type="email" autocomplete="email" maxlength={254} required value={props.email} />
        <p class="hint">Your address is not verified: the photographer sees it marked so.</p>
        <button type="submit">Start choosing</button>
      </form>
      <p>
        Invited by the photographer? <a href={props.signinHref}>Sign in with your e-mail address</a> instead.
      </p>
    </Layout>
  );
}

export interface SelectionPageProps {
  frame: Base;
  client: ClientLabel;
  gallery: { uuid: string; title: string; href: string; crumbs: Crumb[] };
  state: 'open' | 'sent';
  count: number;
  limit: number | null;
  items: Array<FavouriteItem & { note: string | null; lists: string[] }>;
  /** The gallery's named lists with the client's counts in each. */
  lists: ListCount[];
  listAction: string;
  pickAction: string;
  sendAction: string;
  /** This page's address: where the forms come back to. */
  here: string;
  /** The picks as one ZIP, when the visitor may download in this gallery and has picked something. */
  archiveHref?: string;
}

export function SelectionPage(props: SelectionPageProps): VNode {
  const g = props.gallery;
  const open = props.state === 'open';
  return (
    <Layout {...props.frame} title={`Favourites: ${g.title}`} indexable={false} crumbs={[...g.crumbs, { name: 'Favourites', href: props.here }]}>
      <h1>Your favourites in {g.title}</h1>
      <Chooser client={props.client} />
      <p class="counter" role="status">
        {counterText(props.count, props.limit)}
      </p>
      <ListCounts lists={props.lists} />
      {open ? null : <p class="sent">You have sent this selection: it can no longer be changed. Ask the photographer to reopen it.</p>}
      {props.archiveHref && props.items.length > 0 ? (
        <p class="play archive">
          <a class="button" href={props.archiveHref} download>
            Download my favourites (ZIP)
          </a>
        </p>
      ) : null}
      {props.items.length === 0 ? (
        <p>
          Nothing chosen yet. <a href={g.href}>Back to the gallery</a>
        </p>
      ) : (
        <ul class="picks">
          {props.items.map((m) => (
            <li key={m.uuid}>
              <a href={m.href} class="pick-photo">
                <Img picture={m.picture} sizes="(min-width: 700px) 240px, 40vw" auto={false} />
              </a>
              <div class="pick-text">
                <a href={m.href}>{m.title || m.picture.alt}</a>
                {open ? (
                  <form method="post" action={props.pickAction} class="note">
                    <input type="hidden" name="gallery" value={g.uuid} />
                    <input type="hidden" name="back" value={props.here} />
                    <input type="hidden" name="pick" value={m.uuid} />
                    <label for={`note-${m.uuid}`}>Note</label>
                    <textarea id={`note-${m.uuid}`} name="note" maxlength={500} rows={2} value={m.note ?? ''} />
                    <span class="actions">
                      <button type="submit">Save the note</button>
                      <button type="submit" name="unpick" value={m.uuid} class="quiet">
                        Remove
                      </button>
                    </span>
                  </form>
                ) : m.note ? (
                  <p class="note-text">{m.note}</p>
                ) : null}
                {open ? (
                  <ListToggles action={props.listAction} gallery={g.uuid} back={props.here} uuid={m.uuid} title={m.title || m.picture.alt} lists={props.lists} inLists={m.lists} />
                ) : m.lists.length ? (
                  <p class="note-text">In: {m.lists.join(', ')}</p>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      )}
      {open && props.count > 0 ? (
        <form method="post" action={props.sendAction} class="send">
          <input type="hidden" name="gallery" value={g.uuid} />
          <button type="submit">Send my selection</button>
        </form>
      ) : null}
      <p>
        <a href={g.href}>Back to the gallery</a>
      </p>
    </Layout>
  );
}

export function ConfirmSendPage(props: { frame: Base; gallery: { uuid: string; title: string }; count: number; action: string; back: string }): VNode {
  return (
    <Layout {...props.frame} title="Send your selection?" indexable={false}>
      <h1>Send your selection?</h1>
      <p>
        You are sending {props.count === 1 ? '1 photo' : `${props.count} photos`} from {props.gallery.title} to the photographer. After that, your selection can no longer be
        changed unless the photographer reopens it.
      </p>
      <form method="post" action={props.action} class="send">
        <input type="hidden" name="gallery" value={props.gallery.uuid} />
        <input type="hidden" name="confirm" value="yes" />
        <button type="submit">Yes, send it</button>
      </form>
      <p>
        <a href={props.back}>Not yet</a>
      </p>
    </Layout>
  );
}

export function SelectionsPage(props: {
  frame: Base;
  client: ClientLabel;
  selections: Array<{ title: string; href: string; count: number; limit: number | null; state: 'open' | 'sent'; sentAt: string | null }>;
}): VNode {
  return (
    <Layout {...props.frame} title="My favourites" indexable={false}>
      <h1>My favourites</h1>
      <Chooser client={props.client} />
      {props.selections.length === 0 ? (
        <p>You have not chosen any photos on this website yet.</p>
      ) : (
        <ul class="selections">
          {props.selections.map((s) => (
            <li key={s.href}>
              <a href={s.href}>{s.title}</a> — {counterText(s.count, s.limit)}
              {s.state === 'sent' ? ` · sent${s.sentAt ? ` on ${formatDate(s.sentAt)}` : ''}` : ''}
            </li>
          ))}
        </ul>
      )}
    </Layout>
  );
}

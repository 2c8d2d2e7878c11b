// A media inside its gallery: the large image, what is known of it, the way
// to the previous and next one, and the downloads the visitor is allowed.
import type { VNode } from 'preact';
import type { MediaView } from '../service.js';
import { Layout, type Frame } from './layout.js';
import { MediaFacts } from './media-facts.js';
import { Img } from './picture.js';
import { FavouritesCounter, ListCounts, ListToggles, type FavouritesBar } from './favourites.js';
import { Offer, type OfferProps } from './shop.js';

/** A photo's heart and note on its own page: one form, without script. */
function Favourite(props: { bar: FavouritesBar; uuid: string }): VNode {
  const b = props.bar;
  const note = b.picked.get(props.uuid);
  const picked = note !== undefined;
  return (
    <section aria-labelledby="fav-h" class="fav-media">
      <h2 id="fav-h">Favourite</h2>
      <FavouritesCounter bar={b} />
      {b.sent ? (
        <p>{picked ? `In your selection${note ? `: ${note}` : ''}.` : 'Not in your selection.'}</p>
      ) : (
        <form method="post" action={b.action} class="note">
          <input type="hidden" name="gallery" value={b.gallery} />
          <input type="hidden" name="back" value={b.back} />
          {b.identified ? (
            <>
              <label for="fav-note">Note for the photographer</label>
              <textarea id="fav-note" name="note" maxlength={500} rows={2} value={note ?? ''} />
            </>
          ) : null}
          <span class="actions">
            <button type="submit" name="pick" value={props.uuid}>
              {picked ? 'Save the note' : 'Add to my favourites'}
            </button>
            {picked ? (
              <button type="submit" name="unpick" value={props.uuid} class="quiet">
                Remove from my favourites
              </button>
            ) : null}
          </span>
        </form>
      )}
      {b.identified ? <ListCounts lists={b.lists} /> : null}
      {b.identified && !b.sent ? <ListToggles action={b.listAction} gallery={b.gallery} back={b.back} uuid={props.uuid} title="this photo" lists={b.lists} inLists={b.pickLists.get(props.uuid) ?? []} /> : null}
    </section>
  );
}

export function MediaPage(props: { view: MediaView; favourites?: FavouritesBar; offer?: OfferProps; frame: Omit<Frame, 'title' | 'indexable' | 'crumbs' | 'script'> }): VNode {
  const v = props.view;
  return (
    <Layout {...props.frame} title={v.label} indexable={v.indexable} crumbs={v.crumbs}>
      <article>
        {v.title ? <h1>{v.title}</h1> : <h1 class="sr">{v.label}</h1>}
        <figure class="photo">
          <Img picture={v.picture} sizes={`min(100vw - 1rem, ${((85 * v.picture.width) / Math.max(1, v.picture.height)).toFixed(1)}vh, 1400px)`} eager />
        </figure>
        <nav class="step" aria-label="Photos">
          {v.prev ? (
            <a href={v.prev} rel="prev">
              Previous photo
            </a>
          ) : (
            <span />
          )}
          <a href={v.galleryHref}>Back to the gallery</a>
          {v.next ? (
            <a href={v.next} rel="next">
              Next photo
            </a>
          ) : (
            <span />
          )}
        </nav>
        {props.offer ? <Offer {...props.offer} /> : null}
        {props.favourites ? <Favourite bar={props.favourites} uuid={v.uuid} /> : null}
        {v.description ? <p class="desc">{v.description}</p> : null}
        <MediaFacts view={v} />
        {v.keywords.length > 0 ? (
          <section aria-labelledby="kw">
            <h2 id="kw">Keywords</h2>
            <ul class="kw">
              {v.keywords.map((k) => (
                <li key={k}>{k}</li>
              ))}
            </ul>
          </section>
        ) : null}
        {v.downloads.length > 0 ? (
          <section aria-labelledby="dl">
            <h2 id="dl">Downloads</h2>
            <ul>
              {v.downloads.map((d) => (
                <li key={d.href}>
                  {/* Through the download route, a page may come first (the PIN, the limit): no download attribute there. */}
                  <a href={d.href} download={d.href.includes('/_download/') ? undefined : true}>
                    {d.label}
                  </a>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
      </article>
    </Layout>
  );
}

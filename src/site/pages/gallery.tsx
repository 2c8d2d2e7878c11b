// A gallery: its sub-galleries with their covers, then its medias in the
// layout of its display style, a page at a time.
import type { VNode } from 'preact';
import { aspectClass } from '../assets.js';
import type { GalleryView, Layout as LayoutName, MediaItem } from '../service.js';
import { Img, Layout, type Frame } from './layout.js';

const LIST_CLASS: Record<LayoutName, string> = { grid: 'grid', masonry: 'rows', slideshow: 'slides', filmstrip: 'strip' };
// On phones thumbnails are declared a little smaller than they show (about 2.7 pixels per
// CSS pixel on a 3x screen, not 3): the 320 size rather than the 640 keeps the first view
// of a large gallery under 1.5 MB (test/site/site-browser.test.ts).
const SIZES: Record<LayoutName, string> = {
  grid: '(min-width: 700px) 220px, 26vw',
  masonry: '(min-width: 700px) 330px, 27vw',
  slideshow: '(min-width: 1400px) 1400px, 100vw',
  filmstrip: '300px',
};
/** Images loaded at once: the ones a first screen shows; the others wait for scrolling. */
const EAGER: Record<LayoutName, number> = { grid: 4, masonry: 3, slideshow: 1, filmstrip: 3 };

function Item(props: { m: MediaItem; layout: LayoutName; index: number }): VNode {
  const { m, layout } = props;
  return (
    <li class={layout === 'masonry' ? aspectClass(m.picture.width, m.picture.height) : undefined}>
      <a href={m.href} data-lb={m.large?.src ?? ''} data-title={m.title}>
        <Img picture={m.picture} sizes={SIZES[layout]} eager={props.index < EAGER[layout]} />
      </a>
    </li>
  );
}

export function GalleryPage(props: { view: GalleryView; frame: Omit<Frame, 'title' | 'indexable' | 'crumbs' | 'script'> }): VNode {
  const v = props.view;
  const pageHref = (n: number) => (n === 1 ? v.href : `${v.href}?page=${n}`);
  return (
    <Layout {...props.frame} title={v.page > 1 ? `${v.title} (page ${v.page})` : v.title} indexable={v.indexable} crumbs={v.crumbs} script={v.medias.length > 0}>
      <h1>{v.title}</h1>
      {v.description ? <p class="desc">{v.description}</p> : null}
      {v.children.length > 0 ? (
        <section aria-labelledby="subs">
          <h2 id="subs">Galleries</h2>
          <ul class="subs">
            {v.children.map((c) => (
              <li key={c.href}>
                <a href={c.href}>
                  {c.cover ? <Img picture={{ ...c.cover, alt: '' }} sizes="(min-width: 700px) 220px, 50vw" /> : <Img picture={{ alt: '', width: 4, height: 3 }} sizes="" />}
                  <span>
                    {c.name}
                    {c.locked ? ' (protected)' : ''}
                  </span>
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {v.medias.length > 0 ? (
        <section aria-labelledby="photos">
          <h2 id="photos">Photos</h2>
          <ul class={`media ${LIST_CLASS[v.layout]}`} data-layout={v.layout}>
            {v.medias.map((m, i) => (
              <Item key={m.uuid} m={m} layout={v.layout} index={i} />
            ))}
          </ul>
        </section>
      ) : v.children.length === 0 ? (
        <p>Nothing here yet.</p>
      ) : null}
      {v.pages > 1 ? (
        <nav class="pages" aria-label="Pages">
          {v.page > 1 ? (
            <a href={pageHref(v.page - 1)} rel="prev">
              Previous page
            </a>
          ) : null}
          <span>
            Page {v.page} of {v.pages}
          </span>
          {v.page < v.pages ? (
            <a href={pageHref(v.page + 1)} rel="next">
              Next page
            </a>
          ) : null}
        </nav>
      ) : null}
    </Layout>
  );
}

// A gallery: its sub-galleries with their covers, then its medias in the
// layout of its display style, a page at a time. Every photo is a link to its
// media page (the page without JavaScript); the viewer (look/assets.ts) reads the
// data attributes of these links and opens PhotoSwipe over the page instead.
import { GallerySale, type GallerySaleProps } from './shop.js';
import type { VNode } from 'preact';
import { ratioClass } from '../look/assets.js';
import type { ChildItem, GalleryView, Layout as LayoutName, MediaItem } from '../service.js';
import type { Credit } from './share.js';
import { Layout, type Frame } from './layout.js';
import { formatDate } from './messages.js';
import { Img, LockIcon } from './picture.js';
import { Hero } from './hero.js';
import { FavouritesCounter, FavouritesForm, Heart, type FavouritesBar } from './favourites.js';

/**
 * What each layout draws a photo at, for `sizes` (the browser then picks the smallest rendition
 * at least that many device pixels wide). `r` is the photo's width / height. These match the
 * CSS of look/assets.ts: justified rows of about 300 CSS px (250 on phones, where a landscape photo
 * is alone on its row, full width), masonry columns of at most 440 px, square grid cells that
 * a cropped photo covers (so its long side is drawn beyond the cell), a filmstrip 120 px high,
 * and slides of at most the screen's height (less the page's head) × the width.
 */
function sizesOf(layout: LayoutName, r: number): string {
  const px = (n: number) => `${Math.ceil(n)}px`;
  switch (layout) {
    case 'justified':
      return `(min-width: 700px) ${px(r * 340)}, ${r >= 1.2 ? 'calc(100vw - 1rem)' : px(r * 280)}`;
    case 'masonry':
      return '(min-width: 1400px) 440px, (min-width: 700px) calc((100vw - 3rem) / 3), calc((100vw - 1.5rem) / 2)';
    case 'grid':
      // A cover crop draws the short side at the cell's size, the long side beyond it.
      return `(min-width: 700px) ${px(240 * Math.max(r, 1 / r))}, calc((100vw - 1.5rem) / 2 * ${Math.max(r, 1 / r).toFixed(2)})`;
    case 'filmstrip':
      return px(120 * r);
    case 'slideshow':
      // At most the screen's height less the page's head (look/assets.ts), so its progress shows below it.
      return `min(100vw, ${(r * 100).toFixed(1)}vh)`;
  }
}

/** Images loaded at once: the ones a first screen shows; the others wait for scrolling. */
const EAGER: Record<LayoutName, number> = { justified: 0, grid: 0, masonry: 0, slideshow: 1, filmstrip: 0 };
/**
 * Images the browser loads by itself (lazily): the first three (a phone's first screen shows
 * two or three). The others wait until the visitor
 * scrolls near them (the script's loader, within a quarter of a screen), since a browser's own
 * lazy loading fetches everything within 1250 px or more: on a phone with a 3x screen, where a
 * landscape photo is full width and needs the 1280 size, that would be twice the first view's
 * weight budget. Without JavaScript, the <noscript> image shows (CSS hides the placeholder).
 */
const NATIVE = 3;

function Item(props: { m: MediaItem; layout: LayoutName; index: number; total: number; captions: boolean; favourites?: FavouritesBar; forSale?: boolean }): VNode {
  const { m, layout } = props;
  const r = m.picture.width / Math.max(1, m.picture.height);
  const eager = props.index < EAGER[layout];
  const cls = layout === 'justified' ? ratioClass(m.picture.width, m.picture.height) : undefined;
  return (
    <li class={cls}>
      <a
        href={m.href}
        data-uuid={m.uuid}
        data-title={m.title}
        data-credit={creditLine(m.credit)}
        data-download={m.download}
        data-buy={props.forSale ? `${m.href}#buy-h` : undefined}
        data-width={m.large?.width}
        data-height={m.large?.height}
      >
        {/* A grid cell crops only when the style says so (the grid layout is chosen only then). */}
        {props.index >= NATIVE && m.picture.src ? (
          <>
            <svg class="ph lazy" viewBox={`0 0 ${m.picture.width} ${m.picture.height}`} width={m.picture.width} height={m.picture.height} role="img" aria-label={m.picture.alt}>
              <rect width="100%" height="100%" />
            </svg>
            <noscript>
              <Img picture={m.picture} sizes={sizesOf(layout, r)} auto={layout !== 'grid'} />
            </noscript>
          </>
        ) : (
          <Img picture={m.picture} sizes={sizesOf(layout, r)} eager={eager} auto={layout !== 'grid'} />
        )}
        {props.captions && m.title ? <span class="cap">{m.title}</span> : null}
      </a>
      {props.favourites ? <Heart bar={props.favourites} uuid={m.uuid} title={m.title || m.picture.alt} /> : null}
      {layout === 'slideshow' ? (
        <p class="progress">
          <progress max={props.total} value={props.index + 1} aria-label="Photo" /> {props.index + 1} / {props.total}
        </p>
      ) : null}
    </li>
  );
}

/** The viewer caption's credit line: "© copyright · author", without repeating a name the copyright holds. */
export function creditLine(c: Credit | undefined): string | undefined {
  if (!c) return undefined;
  const author = c.author ?? '';
  const copyright = c.copyright ?? '';
  const parts: string[] = [];
  if (copyright) parts.push(/^(©|\(c\)|copyright)/i.test(copyright) ? copyright : `© ${copyright}`);
  if (author && !copyright.includes(author)) parts.push(author);
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

function Child(props: { c: ChildItem }): VNode {
  const c = props.c;
  return (
    <li>
      <a href={c.href}>
        {c.cover ? <Img picture={{ ...c.cover, alt: '' }} sizes="(min-width: 700px) 340px, calc((100vw - 1.75rem) / 2)" class="cover" auto={false} /> : <span class="cover none" />}
        <span class="name">
          {c.locked ? <LockIcon /> : null}
          {c.name}
          {c.locked ? <span class="sr"> (protected)</span> : null}
        </span>
        {c.locked ? <span class="date">{formatDate(c.date)}</span> : null}
        {c.count ? <span class="count">{c.count === 1 ? '1 photo' : `${c.count.toLocaleString('en')} photos`}</span> : null}
      </a>
    </li>
  );
}

export function GalleryPage(props: {
  view: GalleryView;
  favourites?: FavouritesBar;
  /** The medias the viewer offers to buy (their page's offer). */ forSale?: Set<string>;
  /** The gallery sold whole (docs/shop.md "Whole galleries"). */ sale?: GallerySaleProps;
  frame: Omit<Frame, 'title' | 'indexable' | 'crumbs' | 'script'>;
}): VNode {
  const v = props.view;
  const p = v.presentation;
  const pageHref = (n: number) => (n === 1 ? v.href : `${v.href}?page=${n}`);
  return (
    <Layout
      {...props.frame}
      title={v.page > 1 ? `${v.title} (page ${v.page})` : v.title}
      indexable={v.indexable}
      crumbs={v.crumbs}
      script={v.medias.length > 0 || (v.hero?.slides.length ?? 0) > 1}
      hero={v.hero ? <Hero hero={v.hero} label={v.hero.headline ?? (v.hero.slides.length > 1 ? 'Featured photos' : 'Featured photo')} /> : undefined}
    >
      <h1>{v.title}</h1>
      {v.description ? <p class="desc">{v.description}</p> : null}
      {props.favourites && v.medias.length > 0 ? (
        <>
          <FavouritesForm bar={props.favourites} />
          <FavouritesCounter bar={props.favourites} />
        </>
      ) : null}
      {v.archive ? (
        <p class="play archive">
          <a class="button" href={v.archive.href} download={v.archive.asks ? undefined : true}>
            Download all (ZIP)
          </a>
          {v.archive.withFolders ? (
            <>
              {' '}
              <a class="button" href={v.archive.withFolders} download={v.archive.asks ? undefined : true}>
                Download all, with sub-galleries as folders
              </a>
            </>
          ) : null}
        </p>
      ) : null}
      {props.sale ? <GallerySale {...props.sale} /> : null}
      {v.children.length > 0 ? (
        <section aria-labelledby="subs">
          <h2 id="subs">Galleries</h2>
          <ul class={v.featured ? 'subs featured' : 'subs'}>
            {v.children.map((c) => (
              <Child key={c.href} c={c} />
            ))}
          </ul>
        </section>
      ) : null}
      {v.medias.length > 0 ? (
        <section aria-labelledby="photos">
          <h2 id="photos" class={v.children.length > 0 ? undefined : 'sr'}>
            Photos
          </h2>
          {v.layout === 'slideshow' ? (
            <p class="play">
              <button type="button" data-play hidden>
                Play the slideshow
              </button>
            </p>
          ) : null}
          <ul class={`media ${v.layout} sp-${p.spacing}${p.captions ? ' captions' : ''}`} data-layout={v.layout}>
            {v.medias.map((m, i) => (
              <Item key={m.uuid} m={m} layout={v.layout} index={i} total={v.medias.length} captions={p.captions} favourites={props.favourites} forSale={props.forSale?.has(m.uuid.toLowerCase())} />
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

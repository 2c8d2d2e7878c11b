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
 * at least that many device pixels wide). `r` is the photo's width / height; `phone`, for justified
 * rows, what the row it falls on at a phone's width makes of it (`phoneRows`). These match the CSS
 * of look/assets.ts: justified rows of about 260 CSS px from 700 px wide, masonry columns of at
 * most 440 px, square grid cells that a cropped photo covers (so its long side is drawn beyond the
 * cell), a filmstrip 120 px high, and slides of at most the screen's height (less the page's head)
 * × the width.
 */
function sizesOf(layout: LayoutName, r: number, phone?: string): string {
  const px = (n: number) => `${Math.ceil(n)}px`;
  switch (layout) {
    case 'justified':
      return `(min-width: 700px) ${px(r * 340)}, ${phone ?? 'calc(100vw - 1rem)'}`;
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

/** The gap between justified photos at each spacing (look/assets.ts, `.sp-*`). */
const GAP: Record<string, number> = { none: 0, tight: 3, normal: 8, wide: 20 };
/** A phone's justified rows: 250 px high (look/assets.ts), in a 390 px screen less main's padding. */
const PHONE_ROW = 250;
const PHONE_WIDTH = 374;

/**
 * The width each photo of justified rows is drawn at on a phone, as `sizes` says it: the rows
 * break as flexbox breaks them (each photo's basis its ratio × 250 px; a row takes photos while
 * they fit), then every row but the last grows to the full width in proportion to the ratios (a
 * landscape photo, or a portrait between two landscapes, alone and full width; two portraits
 * share a row), and the last row keeps its bases. Rows break alike on every phone from 360 to
 * 430 px wide for the usual ratios; Chromium measures the box itself (`sizes="auto"`).
 */
function phoneRows(ratios: readonly number[], gap: number): string[] {
  const rows: number[][] = [];
  let row: number[] = [];
  let used = 0;
  for (const [i, r] of ratios.entries()) {
    const basis = r * PHONE_ROW;
    if (row.length > 0 && used + gap + basis > PHONE_WIDTH) {
      rows.push(row);
      row = [];
      used = 0;
    }
    used += (row.length > 0 ? gap : 0) + basis;
    row.push(i);
  }
  if (row.length > 0) rows.push(row);
  const out: string[] = [];
  for (const [n, items] of rows.entries()) {
    const sum = items.reduce((a, i) => a + ratios[i]!, 0);
    for (const i of items) {
      const r = ratios[i]!;
      if (n === rows.length - 1) out[i] = r * PHONE_ROW >= PHONE_WIDTH ? 'calc(100vw - 1rem)' : `${Math.ceil(r * PHONE_ROW)}px`;
      else if (items.length === 1) out[i] = 'calc(100vw - 1rem)';
      else out[i] = `calc((100vw - 1rem - ${(items.length - 1) * gap}px) * ${(r / sum).toFixed(3)})`;
    }
  }
  return out;
}

/**
 * Photos loaded at once, the first with fetchpriority=high: the one every first screen shows (a
 * phone's shows two or three, a desktop's a row or more, which the server cannot tell apart).
 * The others wait in a <noscript> behind a placeholder of their shape for the script's loader,
 * which shows those on the screen at once and, once the visitor scrolls, those within a screen
 * below: a browser's own lazy loading would fetch everything within 1250 px or more before
 * anyone scrolls, on a phone three or four more full-width photos. Without JavaScript, the
 * <noscript> images show (CSS hides the placeholders), lazily.
 */
const EAGER = 1;

function Item(props: { m: MediaItem; layout: LayoutName; index: number; total: number; captions: boolean; phone?: string; favourites?: FavouritesBar; forSale?: boolean }): VNode {
  const { m, layout } = props;
  const r = m.picture.width / Math.max(1, m.picture.height);
  const eager = props.index < EAGER;
  const sizes = sizesOf(layout, r, props.phone);
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
        {!eager && m.picture.src ? (
          <>
            <svg class="ph lazy" viewBox={`0 0 ${m.picture.width} ${m.picture.height}`} width={m.picture.width} height={m.picture.height} role="img" aria-label={m.picture.alt}>
              <rect width="100%" height="100%" />
            </svg>
            <noscript>
              <Img picture={m.picture} sizes={sizes} auto={layout !== 'grid'} />
            </noscript>
          </>
        ) : (
          <Img picture={m.picture} sizes={sizes} eager={eager} priority={eager} auto={layout !== 'grid'} />
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
  const phone = v.layout === 'justified' ? phoneRows(v.medias.map((m) => m.picture.width / Math.max(1, m.picture.height)), GAP[p.spacing] ?? 8) : [];
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
              <Item key={m.uuid} m={m} layout={v.layout} index={i} total={v.medias.length} captions={p.captions} phone={phone[i]} favourites={props.favourites} forSale={props.forSale?.has(m.uuid.toLowerCase())} />
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

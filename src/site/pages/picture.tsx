// Images of the pages: an <img> with its rendition ladder as srcset and the
// sizes its layout draws it at, width and height so the space is held before
// it loads (no layout shift), or a placeholder of its shape while it has no
// renditions; and the lock drawn beside protected galleries.
import type { VNode } from 'preact';
import type { Picture } from '../service.js';

/**
 * `sizes`: what the layout draws the image at. Lazy images put `auto` first: a browser that knows
 * it (Chromium) takes the width the layout gave the image, so the rendition fits exactly;
 * others read the list after it.
 */
export function Img(props: { picture: Picture; sizes: string; eager?: boolean; /** fetchpriority=high: the first screen's main photo. */ priority?: boolean; class?: string; /** false: the drawn size is not the box's (a cropped cover). */ auto?: boolean }): VNode {
  const p = props.picture;
  if (!p.src) {
    return (
      <svg
        class={props.class ? `ph ${props.class}` : 'ph'}
        viewBox={`0 0 ${p.width} ${p.height}`}
        width={p.width}
        height={p.height}
        {...(p.alt ? { role: 'img', 'aria-label': p.alt } : { 'aria-hidden': 'true' })}
      >
        <rect width="100%" height="100%" />
      </svg>
    );
  }
  const sizes = props.eager || props.auto === false ? props.sizes : `auto, ${props.sizes}`;
  const img = (
    <img
      class={props.class}
      src={p.src}
      srcset={p.srcset}
      sizes={sizes}
      width={p.width}
      height={p.height}
      alt={p.alt}
      loading={props.eager ? 'eager' : 'lazy'}
      fetchpriority={props.priority ? 'high' : undefined}
      decoding="async"
    />
  );
  // AVIF for the browsers that ask for it (the <source>), WebP or JPEG for the others: each file
  // keeps one address and one type, so caches and CDNs need no Vary (docs/renditions.md).
  if (!p.avifSrcset) return img;
  return (
    <picture>
      <source type="image/avif" srcset={p.avifSrcset} sizes={sizes} />
      {img}
    </picture>
  );
}

export function LockIcon(): VNode {
  return (
    <svg class="lock" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
      <path d="M4 7V5a4 4 0 1 1 8 0v2h1v8H3V7h1zm2 0h4V5a2 2 0 1 0-4 0v2z" />
    </svg>
  );
}

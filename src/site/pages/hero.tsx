// The home page's hero: the photographer's photo, or several as a slideshow (crossfading, with a
// pause button; still under prefers-reduced-motion: look/assets.ts), full-bleed, the headline and
// tagline over a scrim. The first image is the page's largest paint: eager, high priority; the
// others lazy. Without the script only the first shows.
import type { VNode } from 'preact';
import type { HeroView } from '../service.js';

export function Hero(props: { hero: HeroView; label: string }): VNode {
  const h = props.hero;
  const many = h.slides.length > 1;
  const words = h.headline || h.tagline;
  return (
    <section
      class={`hero ${h.fit}${words ? ' worded' : ''}`}
      aria-label={props.label}
      aria-roledescription={many ? 'carousel' : undefined}
      data-hero={many ? '' : undefined}
    >
      {many ? (
        <button type="button" class="hero-pause" data-hero-pause hidden>
          Pause slideshow
        </button>
      ) : null}
      <div class="slides" aria-live={many ? 'off' : undefined}>
        {h.slides.map((p, i) => (
          <div
            key={p.src}
            class={i === 0 ? 'slide on' : 'slide'}
            role={many ? 'group' : undefined}
            aria-roledescription={many ? 'slide' : undefined}
            aria-label={many ? `${i + 1} of ${h.slides.length}` : undefined}
            aria-hidden={many && i > 0 ? 'true' : undefined}
          >
            <img
              src={p.src}
              srcset={p.srcset}
              sizes="100vw"
              width={p.width}
              height={p.height}
              alt={p.alt}
              loading={i === 0 ? 'eager' : 'lazy'}
              fetchpriority={i === 0 ? 'high' : 'low'}
              decoding={i === 0 ? 'sync' : 'async'}
            />
          </div>
        ))}
      </div>
      {words ? (
        <div class="words">
          {h.headline ? <p class="headline">{h.headline}</p> : null}
          {h.tagline ? <p class="hero-tag">{h.tagline}</p> : null}
        </div>
      ) : null}
    </section>
  );
}

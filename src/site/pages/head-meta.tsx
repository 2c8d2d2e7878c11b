// The head tags of sharing and finding (src/site/pages/share.ts decides what they
// say): Open Graph and Twitter card tags, and the schema.org JSON-LD. The
// canonical link is the layout's own. The JSON-LD is a data block, not a
// script: the browser never runs it, so the strict CSP (no inline script)
// stands, and crawlers read it from the HTML.
import type { VNode } from 'preact';
import { jsonForScript, type PageMeta } from './share.js';

export function HeadMeta(props: { meta?: PageMeta }): VNode | null {
  const meta = props.meta;
  if (!meta?.card) return null;
  const { card } = meta;
  const image = card.image;
  return (
    <>
      <meta property="og:type" content="website" />
      <meta property="og:site_name" content={card.siteName} />
      <meta property="og:title" content={card.title} />
      {card.description ? <meta property="og:description" content={card.description} /> : null}
      <meta property="og:url" content={meta.canonical} />
      {image ? (
        <>
          <meta property="og:image" content={image.url} />
          <meta property="og:image:type" content={image.type} />
          <meta property="og:image:width" content={String(image.width)} />
          <meta property="og:image:height" content={String(image.height)} />
          <meta property="og:image:alt" content={image.alt} />
        </>
      ) : null}
      <meta name="twitter:card" content={image ? 'summary_large_image' : 'summary'} />
      <meta name="twitter:title" content={card.title} />
      {card.description ? <meta name="twitter:description" content={card.description} /> : null}
      {image ? <meta name="twitter:image" content={image.url} /> : null}
      {image ? <meta name="twitter:image:alt" content={image.alt} /> : null}
      {meta.structured ? <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: jsonForScript(meta.structured) }} /> : null}
    </>
  );
}

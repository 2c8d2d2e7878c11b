// The website's stylesheet and scripts, served at addresses named by their
// content hash (/_site/<hash>.css|.js) so they are cached for ever and a new
// version gets a new address. Ours are kept as strings (no build step); the
// viewer's library, PhotoSwipe 5, is read from its package as published. The
// CSP forbids inline styles and scripts, so everything lives here.
import { createHash } from 'node:crypto';
import { Encoded, type Coding } from '../../core/content-coding.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** PhotoSwipe 5's core (ES module) and stylesheet, served as they are published. */
const PSWP_DIST = dirname(createRequire(import.meta.url).resolve('photoswipe'));
const PSWP_CSS = readFileSync(join(PSWP_DIST, 'photoswipe.css'), 'utf8');
const PSWP_MODULE = asset('js', readFileSync(join(PSWP_DIST, 'photoswipe.esm.min.js'), 'utf8').replace(/\n\/\/# sourceMappingURL=.*$/, ''), 'text/javascript; charset=utf-8');

// Justified rows at each photo's true aspect ratio: an item's flex-basis is its ratio × the row
// height and it grows in proportion to its ratio, so the items of a row keep one height whatever
// the width (rows fill the width, nothing is cropped). The ratio is a class per hundredth (the
// CSP forbids style attributes), which sets --r (the item's own rule must not set it: it would win).
// The grow factors are scaled by 100: factors summing below 1 (a portrait alone on a phone's row)
// would take only that share of the free space.
const ratioClasses = Array.from({ length: 376 }, (_, i) => `.r${i + 25}{--r:${(i + 25) / 100}}`).join('');

const CSS = `*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
picture{display:contents}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;background:#fff}
a{color:#0b57d0}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid #f29900;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:10}
.skip:focus{left:0}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
header.site{padding:.75rem 1rem;border-bottom:1px solid #e4e4e4;background:#fff}
header.site a{color:inherit;text-decoration:none;font-weight:600;letter-spacing:.02em}
main{padding:.5rem;max-width:1400px;margin:0 auto}
h1{font-size:1.6rem;font-weight:600;margin:.5rem 0;line-height:1.25}
h2{font-size:1.15rem;font-weight:600;margin:1.5rem 0 .5rem}
.crumbs{padding:.5rem .5rem 0;max-width:1400px;margin:0 auto}
.crumbs ol{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem;font-size:.9rem}
.crumbs li+li::before{content:"/";margin-right:.25rem;color:#767676}
.desc{max-width:70ch;white-space:pre-line;color:#444}
.lock{width:.9em;height:.9em;fill:currentColor;vertical-align:-.05em;margin-right:.3em}
.subs{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(2,1fr);gap:.75rem}
.subs a{display:block;text-decoration:none;color:inherit}
.subs .cover{display:block;width:100%;height:auto;aspect-ratio:3/2;object-fit:cover;background:#ececec}
.subs .name{display:block;padding:.35rem 0 0;font-weight:600}
.subs .date{display:block;font-size:.85rem;color:#595959}
.subs .count{display:block;font-size:.85rem;color:#595959}
.hero{position:relative;background:#111;color:#fff;overflow:hidden;height:70vh;min-height:18rem;max-height:56rem}
.hero .slides,.hero .slide{position:absolute;inset:0}
.hero .slide{opacity:0;transition:opacity 1.2s ease-in-out}
.hero .slide.on{opacity:1}
.hero img{display:block;width:100%;height:100%;object-fit:cover;object-position:50% 50%}
.hero.fit img{object-fit:contain}
.hero.worded::after{content:"";position:absolute;inset:0;background:linear-gradient(to top,rgba(0,0,0,.72) 0,rgba(0,0,0,.35) 40%,rgba(0,0,0,0) 70%);pointer-events:none}
.hero .words{position:absolute;left:0;right:0;bottom:0;z-index:1;padding:1.25rem 1rem 1.5rem;max-width:1400px;margin:0 auto;text-shadow:0 1px 3px rgba(0,0,0,.6)}
.hero .headline{margin:0;font-size:clamp(1.75rem,5vw,3.5rem);font-weight:600;line-height:1.1;color:#fff}
.hero .hero-tag{margin:.4rem 0 0;font-size:clamp(1rem,2vw,1.35rem);color:#fff}
.hero-pause{position:absolute;top:.75rem;right:.75rem;z-index:2;min-height:44px;padding:.4rem .9rem;border:1px solid rgba(255,255,255,.8);border-radius:999px;background:rgba(0,0,0,.55);color:#fff;font:inherit;cursor:pointer}
.media{list-style:none;margin:0;padding:0;--gap:8px}
.sp-none{--gap:0px}.sp-tight{--gap:3px}.sp-wide{--gap:20px}
.media a{display:block;color:inherit;text-decoration:none}
.media img,.media .ph{display:block;width:100%;height:auto;background:#ececec}
.media .cap{display:block;font-size:.85rem;padding:.25rem 0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.justified{--h:250px;display:flex;flex-wrap:wrap;gap:var(--gap)}
.justified li{flex-grow:calc(var(--r,1.5)*100);flex-shrink:1;flex-basis:calc(var(--h)*var(--r,1.5));min-width:0}
.justified::after{content:"";flex:1000000 1 0px}
${ratioClasses}
.masonry{columns:2;column-gap:var(--gap)}
.masonry li{break-inside:avoid;margin-bottom:var(--gap)}
.grid{display:grid;grid-template-columns:repeat(2,1fr);gap:var(--gap)}
.grid img,.grid .ph{aspect-ratio:1;object-fit:cover}
.filmstrip{display:flex;overflow-x:auto;gap:var(--gap);padding-bottom:.5rem;scroll-snap-type:x proximity}
.filmstrip li{flex:0 0 auto;scroll-snap-align:start}
.filmstrip img,.filmstrip .ph{height:120px;width:auto}
.slideshow{display:flex;overflow-x:auto;scroll-snap-type:x mandatory;gap:var(--gap)}
.slideshow li{flex:0 0 100%;scroll-snap-align:center;display:flex;flex-direction:column;align-items:center}
.slideshow img,.slideshow .ph{width:auto;height:auto;max-width:100%;max-height:max(40vh,calc(100vh - 16rem))}
.progress{display:flex;align-items:center;gap:.6rem;margin:.5rem 0;font-size:.9rem;color:#595959}
.progress progress{width:10rem;height:.4rem}
.play{margin:0 0 .5rem}
.ph{fill:#ddd}
@media (scripting:none){.media .lazy{display:none}}
.pages{display:flex;gap:1rem;margin:1.5rem 0;flex-wrap:wrap;align-items:center}
.photo{margin:0}
.photo img,.photo .ph{display:block;max-width:100%;height:auto;max-height:85vh;width:auto;margin:0 auto;background:#ececec}
.credit{color:#595959;font-size:.9rem;text-align:center}
.meta dt{font-weight:600}
.meta dd{margin:0 0 .5rem}
.kw{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.4rem}
.kw li{background:#eee;border-radius:1rem;padding:0 .6rem}
nav.step{display:flex;justify-content:space-between;margin:1rem 0;gap:1rem}
.locked{display:grid;gap:1.25rem;max-width:60rem;margin:1rem auto}
.locked-cover{margin:0}
.ask{max-width:34rem;margin:1.5rem auto}
.locked-cover img{display:block;width:100%;height:auto;background:#ececec}
.locked .date{color:#595959;margin:0 0 1rem}
form.pw{display:flex;flex-direction:column;gap:.5rem;max-width:22rem}
input,button{font:inherit;padding:.5rem .75rem}
button,.button{background:#1b1b1b;color:#fff;border:0;border-radius:4px;cursor:pointer;text-decoration:none;display:inline-block;padding:.5rem .9rem}
.error{color:#b00020}
.media li{position:relative}
.media .fav{position:absolute;top:.35rem;right:.35rem;width:2.5rem;height:2.5rem;padding:0;border-radius:50%;background:rgba(0,0,0,.55);display:flex;align-items:center;justify-content:center;font-size:1.35rem;line-height:1;color:#fff}
.media .fav::before{content:"\\2661"}
.media .fav[aria-pressed=true]::before{content:"\\2665";color:#ff5c8a}
.pswp__button--fav svg{width:26px;height:26px;fill:none;stroke:#fff;stroke-width:2}
.pswp__button--fav[aria-pressed=true] svg{fill:#ff5c8a;stroke:#ff5c8a}
.fav:disabled{opacity:.6;cursor:default}
.pswp__button--fav{display:flex;align-items:center;justify-content:center}
.pswp__button--fav[hidden]{display:none}
.favbar{margin:.25rem 0 .75rem;font-weight:600}
.chooser .unverified,.unverified{color:#8a4b00;font-weight:400}
.hint{font-size:.9rem;color:#595959;margin:0}
.picks{list-style:none;padding:0;margin:1rem 0;display:grid;gap:1.25rem}
.picks li{display:grid;grid-template-columns:minmax(0,9rem) minmax(0,1fr);gap:.75rem;align-items:start}
.picks img,.picks .ph{display:block;width:100%;height:auto;background:#ececec}
.pick-text{display:flex;flex-direction:column;gap:.35rem}
form.note{display:flex;flex-direction:column;gap:.35rem;max-width:32rem}
textarea{font:inherit;padding:.5rem;width:100%}
.actions{display:flex;gap:.5rem;flex-wrap:wrap}
button.quiet{background:#fff;color:#1b1b1b;border:1px solid #595959}
.note-text{white-space:pre-line;color:#444;margin:0}
.list-toggles{display:flex;flex-wrap:wrap;gap:.5rem;margin:.25rem 0}
.list-toggles form{margin:0}
.list-chip{min-height:2.75rem;border-radius:999px;background:#fff;color:#1b1b1b;border:1px solid #595959;padding:.4rem 1rem}
.list-chip[aria-pressed=true]{background:var(--accent,#1b1b1b);color:var(--on-accent,#fff);border-color:var(--accent,#1b1b1b)}
.list-chip[aria-pressed=true]::before{content:"\\2713\\00a0"}
.list-counts{margin:.75rem 0 .25rem;font-weight:400;color:#444}
.sent{background:#f4f4f4;padding:.5rem .75rem;border-left:4px solid #1b1b1b}
.selections{padding-left:1.2rem}
.offer{max-width:40rem;margin:1.5rem 0}
.offer fieldset{border:1px solid #d0d0d0;border-radius:6px;padding:.75rem 1rem;margin:0 0 .75rem}
.offer legend{font-weight:600;padding:0 .25rem}
.offer label{display:flex;justify-content:space-between;gap:1rem;padding:.35rem 0;cursor:pointer}
.offer .actions{align-items:center;gap:1rem}
.offer .price,.cart .price{font-variant-numeric:tabular-nums;white-space:nowrap}
.cart{list-style:none;padding:0;margin:1rem 0;display:grid;gap:1rem;max-width:48rem}
.cart li{display:grid;grid-template-columns:minmax(0,6rem) minmax(0,1fr) auto;gap:.75rem;align-items:start;border-bottom:1px solid #e4e4e4;padding-bottom:1rem}
.cart img,.cart .ph{display:block;width:100%;height:auto;background:#ececec}
.cart form{display:flex;gap:.4rem;align-items:center;flex-wrap:wrap;margin-top:.35rem}
.cart input[type=number]{width:4.5rem}
.totals{max-width:48rem;display:grid;grid-template-columns:1fr auto;gap:.25rem 1rem;margin:1rem 0}
.totals dt{margin:0}.totals dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
.totals .total{font-weight:700;font-size:1.15rem}
form.shop{display:flex;flex-direction:column;gap:.5rem;max-width:32rem;margin:1rem 0}
form.shop fieldset{border:1px solid #d0d0d0;border-radius:6px;padding:.75rem 1rem;display:flex;flex-direction:column;gap:.35rem}
form.inline{display:flex;gap:.5rem;flex-wrap:wrap;align-items:flex-end;max-width:32rem}
form.coupon-off{margin:.5rem 0 0}label.accept{display:flex;gap:.6rem;align-items:center;min-height:2.75rem}label.accept input{width:1.25rem;height:1.25rem;margin:0;flex:none}
.notice{background:#f4f4f4;padding:.75rem 1rem;border-left:4px solid #1b1b1b;max-width:48rem;white-space:pre-line}
.pswp__caption{position:absolute;left:0;right:0;bottom:0;padding:.75rem 1rem 1rem;color:#eee;background:linear-gradient(transparent,rgba(0,0,0,.6));text-align:center;font-size:.95rem}
.pswp__caption small{display:block;color:#ccc;font-size:.8rem}
.pswp__caption:empty{display:none}
.pswp__progress{position:absolute;left:0;right:0;top:0;height:3px;background:rgba(255,255,255,.15)}
.pswp__progress span{display:block;height:100%;width:0;background:#fff;transition:width .3s}
.pswp__button--buy,.pswp__button--download,.pswp__button--play,.pswp__button--fs{display:flex;align-items:center;justify-content:center}
.pswp__button--buy svg,.pswp__button--download svg,.pswp__button--play svg,.pswp__button--fs svg{width:24px;height:24px;fill:#fff}
.pswp__button--download[hidden]{display:none}
.pswp__top-bar .pswp__button--buy{display:flex;align-items:center;justify-content:center}
.pswp__top-bar .pswp__button--buy[hidden]{display:none}
.pswp-none{color:#ccc;display:flex;height:100%;align-items:center;justify-content:center}
@media (min-width:700px){main,.crumbs{padding-left:1rem;padding-right:1rem}.justified{--h:260px}.masonry{columns:3}.grid{grid-template-columns:repeat(auto-fill,minmax(240px,1fr))}.subs{grid-template-columns:repeat(auto-fill,minmax(260px,1fr))}.locked{grid-template-columns:minmax(0,1.2fr) minmax(0,1fr);align-items:center}h1{font-size:2rem}}
@media (prefers-reduced-motion:reduce){*{scroll-behavior:auto!important}.hero .slide{transition:none}}
@media (scripting:none){.hero .slide:first-child{opacity:1}}
.menu-toggle{display:none}
@media (max-width:699px){header.site .menu-toggle:not([hidden]){display:inline-flex;align-items:center;min-height:44px;padding:.4rem 1rem;border:1px solid currentColor;border-radius:6px;background:none;color:inherit;font:inherit;cursor:pointer}nav.site-nav ul.shut{display:none}nav.site-nav:has(.menu-toggle:not([hidden])) ul{flex-direction:column;gap:0;padding-top:.5rem}nav.site-nav:has(.menu-toggle:not([hidden])) ul a{padding:.6rem 0;min-height:44px}header.site:has([data-menu][aria-expanded=true]) nav.site-nav{width:100%}}
@media (min-width:700px){.hero{height:min(82vh,62vw)}.hero .words{padding:2rem 2rem 2.5rem}}
` + PSWP_CSS;

// The viewer: PhotoSwipe 5 (its own hashed asset, PSWP_MODULE below, loaded on first use) over
// the gallery's links. Each photo has an address (#photo=<uuid>): opening one adds a history
// entry, so the back button closes the viewer, and a shared address opens that photo. The
// slides take the thumbnail's srcset (every size of the ladder); PhotoSwipe sets their sizes
// to the drawn width, so zooming in loads a larger size. Captions carry the credit line; the
// download button shows where the visitor may download (a signed address with a file name).
// Without this script the links open the media pages.
const JS = `const links = Array.prototype.slice.call(document.querySelectorAll("ul.media a[data-uuid]"));
const MODULE = "/_site/${PSWP_MODULE.name}";
const ICONS = {
  download: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M11 3h2v10.2l3.6-3.6 1.4 1.4-6 6-6-6 1.4-1.4 3.6 3.6zM4 19h16v2H4z"/></svg>',
  buy: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M7 18a2 2 0 1 0 0 4 2 2 0 0 0 0-4zm10 0a2 2 0 1 0 0 4 2 2 0 0 0 0-4zM1 2v2h2l3.6 7.6-1.4 2.4c-.6 1.3.4 3 1.8 3h12v-2H7l1.1-2h7.5c.8 0 1.4-.4 1.7-1l3.6-6.5A1 1 0 0 0 20 4H5.2l-.9-2z"/></svg>',
  play: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M7 4.5v15l12.5-7.5z"/></svg>',
  pause: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 4h4v16H6zM14 4h4v16h-4z"/></svg>',
  fs: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M3 3h7v2H5v5H3zm11 0h7v7h-2V5h-5zM3 14h2v5h5v2H3zm16 0h2v7h-7v-2h5z"/></svg>'
};
const SLIDESHOW_MS = 4000;
let pswp = null;
let pushed = false;
let byBack = false;
let timer = 0;

function photoOfAddress() {
  const m = /^#photo=([0-9a-f-]{36})$/.exec(location.hash);
  return m ? m[1] : null;
}
function indexOf(uuid) {
  for (let i = 0; i < links.length; i++) if (links[i].getAttribute("data-uuid") === uuid) return i;
  return -1;
}
// The image of a link: shown, or still waiting in its <noscript> (the loader below).
function imageOf(a) {
  const img = a.querySelector("img");
  if (img) return img;
  const ns = a.querySelector("noscript");
  if (!ns) return null;
  const t = document.createElement("template");
  t.innerHTML = ns.textContent;
  return t.content.querySelector("img");
}
function slide(a) {
  const img = imageOf(a);
  const w = Number(a.getAttribute("data-width")), h = Number(a.getAttribute("data-height"));
  if (!img || !w || !h) return { html: '<div class="pswp-none">This photo is not ready yet.</div>', element: a };
  // A browser that showed the AVIF of a <picture> gets the AVIF ladder in the viewer too.
  const source = img.parentNode && img.parentNode.nodeName === "PICTURE" ? img.parentNode.querySelector("source[type='image/avif']") : null;
  const srcset = source && /[.]avif([?]|$)/.test(img.currentSrc) ? source.srcset : img.srcset;
  return { src: img.currentSrc || img.src, srcset: srcset, msrc: img.currentSrc || img.src, width: w, height: h, alt: img.alt, element: a };
}
function addressOf(a) {
  return location.pathname + location.search + "#photo=" + a.getAttribute("data-uuid");
}
function stopPlay(button) {
  if (timer) clearInterval(timer);
  timer = 0;
  if (button) { button.innerHTML = ICONS.play; button.setAttribute("aria-label", "Play the slideshow"); button.title = "Play the slideshow"; }
}
function open(index, fromAddress, play) {
  if (pswp) return;
  import(MODULE).then(function (mod) {
    const PhotoSwipe = mod.default;
    let playButton = null;
    pswp = new PhotoSwipe({
      dataSource: links.map(slide),
      index: index,
      bgOpacity: 1,
      showHideAnimationType: "fade",
      preload: [1, 2],
      closeTitle: "Close (Esc)",
      zoomTitle: "Zoom",
      arrowPrevTitle: "Previous photo",
      arrowNextTitle: "Next photo",
      errorMsg: "This photo cannot be loaded."
    });
    // PhotoSwipe makes its root a dialog without a name (axe's aria-dialog-name); it is a modal one.
    pswp.on("firstUpdate", function () {
      pswp.element.setAttribute("aria-label", "Photo viewer");
      pswp.element.setAttribute("aria-modal", "true");
    });
    pswp.on("uiRegister", function () {
      pswp.ui.registerElement({ name: "progress", order: 1, appendTo: "root", onInit: function (el, p) {
        const bar = document.createElement("span");
        el.appendChild(bar);
        p.on("change", function () { bar.style.width = ((p.currIndex + 1) / p.getNumItems()) * 100 + "%"; });
      } });
      pswp.ui.registerElement({ name: "caption", order: 9, appendTo: "root", onInit: function (el, p) {
        el.setAttribute("aria-live", "polite");
        p.on("change", function () {
          const a = links[p.currIndex];
          el.textContent = a.getAttribute("data-title") || "";
          const credit = a.getAttribute("data-credit");
          if (credit) { const s = document.createElement("small"); s.textContent = credit; el.appendChild(s); }
        });
      } });
      pswp.ui.registerElement({ name: "download", order: 8, isButton: true, tagName: "a", title: "Download", html: ICONS.download, onInit: function (el, p) {
        el.setAttribute("aria-label", "Download");
        el.setAttribute("download", "");
        p.on("change", function () {
          const href = links[p.currIndex].getAttribute("data-download");
          if (href) { el.href = href; el.hidden = false; } else { el.removeAttribute("href"); el.hidden = true; }
          // A gallery with download controls asks first (a PIN, the limit's page): a page to open, not a file to save.
          if (href && href.indexOf("/_download/") >= 0) el.removeAttribute("download"); else el.setAttribute("download", "");
        });
      } });
      // The shop (docs/shop.md "On the website"): a photo for sale links to its page's offer.
      pswp.ui.registerElement({ name: "buy", order: 8, isButton: true, tagName: "a", title: "Buy this photo", html: ICONS.buy, onInit: function (el, p) {
        el.setAttribute("aria-label", "Buy this photo");
        p.on("change", function () {
          const href = links[p.currIndex].getAttribute("data-buy");
          if (href) { el.href = href; el.hidden = false; } else { el.removeAttribute("href"); el.hidden = true; }
        });
      } });
      pswp.ui.registerElement({ name: "play", order: 7, isButton: true, title: "Play the slideshow", html: ICONS.play, onInit: function (el) {
        playButton = el;
        el.setAttribute("aria-label", "Play the slideshow");
      }, onClick: function (e, el, p) {
        if (timer) return stopPlay(el);
        timer = setInterval(function () { p.next(); }, SLIDESHOW_MS);
        el.innerHTML = ICONS.pause; el.setAttribute("aria-label", "Pause the slideshow"); el.title = "Pause the slideshow";
      } });
      if (favForm) pswp.ui.registerElement({ name: "fav", order: 8, isButton: true, title: "Favourite", html: HEART, onInit: function (el, p) {
        viewerHeart = el;
        p.on("change", syncViewerHeart);
      }, onClick: function (e, el, p) {
        const b = heartOf(links[p.currIndex].getAttribute("data-uuid"));
        if (b && !b.disabled) b.click();
      } });
      if (document.fullscreenEnabled) pswp.ui.registerElement({ name: "fs", order: 9, isButton: true, title: "Full screen", html: ICONS.fs, onInit: function (el) {
        el.setAttribute("aria-label", "Full screen");
      }, onClick: function () {
        if (document.fullscreenElement) document.exitFullscreen(); else document.documentElement.requestFullscreen().catch(function () {});
      } });
    });
    pswp.on("change", function () {
      const a = links[pswp.currIndex];
      history.replaceState(history.state, "", addressOf(a));
      document.documentElement.setAttribute("data-viewer", a.getAttribute("data-uuid"));
    });
    // PhotoSwipe listens to the keyboard once it has opened: marked, for whoever waits for it (the tests).
    pswp.on("openingAnimationEnd", function () { if (pswp) pswp.element.classList.add("pswp--ready"); });
    // Stepping with the arrow keys takes over from the slideshow.
    pswp.on("keydown", function (e) { if (/^Arrow/.test(e.originalEvent.key)) stopPlay(playButton); });
    pswp.on("close", function () {
      viewerHeart = null;
      stopPlay(playButton);
      if (document.fullscreenElement) document.exitFullscreen().catch(function () {});
      document.documentElement.removeAttribute("data-viewer");
      pswp = null;
      if (byBack) byBack = false;
      else if (pushed) history.back();
      else history.replaceState(history.state, "", location.pathname + location.search);
      pushed = false;
    });
    if (!fromAddress) { history.pushState({ viewer: true }, "", addressOf(links[index])); pushed = true; }
    pswp.init();
    if (play && playButton) playButton.click();
  });
}

// Favourites (docs/delivery.md): each photo's heart is a submit button of the page's one form
// (#fav). Here it posts with fetch (JSON back: the state, the count), so picking does not reload
// the page; the viewer has the same heart. A visitor who has not said who they are yet, or a
// failed request, gets the form's own post (the page asking who they are, or the refusal).
const favForm = document.getElementById("fav");
const favCount = document.querySelector("[data-fav-count]");
const HEART = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 21s-7.5-4.6-10-9.2C.4 8.6 2.3 4.5 6.2 4.5c2.3 0 3.9 1.4 4.8 2.8.9-1.4 2.5-2.8 4.8-2.8 3.9 0 5.8 4.1 4.2 7.3C19.5 16.4 12 21 12 21z"/></svg>';
let viewerHeart = null;
let favBusy = false;
let favMessage = null;
function heartOf(uuid) {
  const all = document.querySelectorAll("button.fav");
  for (let i = 0; i < all.length; i++) if (all[i].value === uuid) return all[i];
  return null;
}
function syncViewerHeart() {
  if (!viewerHeart || !pswp) return;
  const b = heartOf(links[pswp.currIndex].getAttribute("data-uuid"));
  viewerHeart.hidden = !b;
  viewerHeart.setAttribute("aria-pressed", b ? b.getAttribute("aria-pressed") : "false");
  viewerHeart.setAttribute("aria-label", b ? b.getAttribute("aria-label") : "Favourite");
}
function say(text) {
  if (!favMessage) {
    favMessage = document.createElement("p");
    favMessage.className = "error";
    favMessage.setAttribute("role", "alert");
    favForm.after(favMessage);
  }
  favMessage.textContent = text;
  if (pswp) pswp.close();
}
function plainSubmit(b) {
  favForm.setAttribute("data-plain", "");
  favForm.requestSubmit(b);
}
if (favForm) favForm.addEventListener("submit", function (e) {
  const b = e.submitter;
  if (!b || !b.classList.contains("fav") || favForm.hasAttribute("data-plain")) return;
  e.preventDefault();
  if (favBusy) return;
  favBusy = true;
  const body = new URLSearchParams(new FormData(favForm));
  body.set(b.name, b.value);
  fetch(favForm.action, { method: "POST", body: body, headers: { accept: "application/json" }, credentials: "same-origin" })
    .then(function (r) { return r.json().then(function (j) { return { status: r.status, j: j }; }); })
    .then(function (res) {
      favBusy = false;
      if (res.j && res.j.identify) return plainSubmit(b);
      if (res.status !== 200) return say((res.j && res.j.error) || "That did not work, please try again.");
      if (favMessage) favMessage.textContent = "";
      b.name = res.j.picked ? "unpick" : "pick";
      b.setAttribute("aria-pressed", res.j.picked ? "true" : "false");
      if (favCount) favCount.textContent = res.j.limit === null ? res.j.count + " chosen" : res.j.count + " of " + res.j.limit + " chosen";
      syncViewerHeart();
    })
    .catch(function () { favBusy = false; plainSubmit(b); });
});

// The loader: an image waiting in a <noscript> after its placeholder (gallery.tsx) takes the
// placeholder's place when it is on the screen; once the visitor scrolls (the page or a strip),
// when it comes within a screen below it, so the next photos are there before they are seen. A
// visitor who does not scroll gets only what the first screen shows (issue 31).
function reveal(ph) {
  const ns = ph.nextElementSibling;
  if (!ns || ns.tagName !== "NOSCRIPT") return;
  const t = document.createElement("template");
  t.innerHTML = ns.textContent;
  // The <picture> when there is one (its AVIF source), else the image.
  const img = t.content.querySelector("picture") || t.content.querySelector("img");
  if (!img) return;
  ph.replaceWith(img);
  ns.remove();
}
const waiting = document.querySelectorAll("svg.lazy");
if (waiting.length > 0) {
  if ("IntersectionObserver" in window) {
    const watch = function (margin, root, list) {
      const io = new IntersectionObserver(function (entries) {
        entries.forEach(function (e) { if (e.isIntersecting) { io.unobserve(e.target); reveal(e.target); } });
      }, { rootMargin: margin, root: root || null });
      list.forEach(function (ph) { if (ph.isConnected) io.observe(ph); });
      return io;
    };
    const first = watch("0px", null, waiting);
    document.addEventListener("scroll", function () {
      first.disconnect();
      watch("0px 0px 100% 0px", null, waiting);
      // A slideshow's or filmstrip's strip clips its photos: ahead by a strip's width within it.
      document.querySelectorAll("ul.slideshow, ul.filmstrip").forEach(function (strip) {
        watch("0px 100% 0px 0px", strip, strip.querySelectorAll("svg.lazy"));
      });
    }, { capture: true, passive: true, once: true });
  } else waiting.forEach(reveal);
}

if (links.length > 0) {
  links.forEach(function (a, i) {
    a.addEventListener("click", function (e) {
      if (e.ctrlKey || e.metaKey || e.shiftKey || e.altKey || e.button) return;
      e.preventDefault();
      open(i, false, false);
    });
  });
  window.addEventListener("popstate", function () {
    const uuid = photoOfAddress();
    if (pswp && !uuid) { byBack = true; pswp.close(); }
    else if (!pswp && uuid && indexOf(uuid) >= 0) open(indexOf(uuid), true, false);
  });
  const play = document.querySelector("button[data-play]");
  if (play) { play.hidden = false; play.addEventListener("click", function () { open(0, false, true); }); }
  const shared = photoOfAddress();
  if (shared && indexOf(shared) >= 0) open(indexOf(shared), true, false);
}

// The navigation's Menu button on a phone (brand-frame.tsx): the list folds behind it, Escape
// closes it and gives the focus back to the button; on a wider screen the list is always open.
const menu = document.querySelector("[data-menu]");
if (menu) {
  const list = document.getElementById(menu.getAttribute("aria-controls"));
  const phone = window.matchMedia("(max-width: 699px)");
  function setMenu(open) {
    menu.setAttribute("aria-expanded", open || !phone.matches ? "true" : "false");
    list.classList.toggle("shut", !open && phone.matches);
  }
  menu.hidden = false;
  setMenu(false);
  menu.addEventListener("click", function () { setMenu(menu.getAttribute("aria-expanded") !== "true"); });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && phone.matches && menu.getAttribute("aria-expanded") === "true") { setMenu(false); menu.focus(); }
  });
  phone.addEventListener("change", function () { setMenu(false); });
}

// The hero's slideshow (pages/hero.tsx): a crossfade every HERO_MS, the pause button shown; still
// under prefers-reduced-motion (the visitor may play it), paused while the tab is hidden.
const HERO_MS = 6000;
const hero = document.querySelector("[data-hero]");
if (hero) {
  const slides = Array.prototype.slice.call(hero.querySelectorAll(".slide"));
  const pause = hero.querySelector("[data-hero-pause]");
  let at = 0;
  let timer = 0;
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  function show(n) {
    slides[at].classList.remove("on");
    slides[at].setAttribute("aria-hidden", "true");
    at = n % slides.length;
    const img = slides[at].querySelector("img");
    if (img) img.loading = "eager";
    slides[at].classList.add("on");
    slides[at].removeAttribute("aria-hidden");
  }
  function playing() { return timer !== 0; }
  function play(on) {
    if (timer) { clearInterval(timer); timer = 0; }
    if (on) timer = setInterval(function () { if (!document.hidden) show(at + 1); }, HERO_MS);
    pause.textContent = on ? "Pause slideshow" : "Play slideshow";
  }
  pause.hidden = false;
  pause.addEventListener("click", function () { play(!playing()); });
  // The next photo is fetched ahead of its turn.
  const next = slides[1] && slides[1].querySelector("img");
  if (next) next.loading = "eager";
  play(!still);
}
`;

export interface Asset {
  name: string;
  body: Buffer;
  type: string;
}

// A plain frame, so browsers do not ask for /favicon.ico.
const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="1" y="3" width="14" height="10" rx="1" fill="#444"/><circle cx="8" cy="8" r="3" fill="#ddd"/></svg>';

function asset(ext: 'css' | 'js' | 'svg', text: string, type: string): Asset {
  const body = Buffer.from(text);
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  return { name: `${hash}.${ext}`, body, type };
}

export const STYLESHEET = asset('css', CSS, 'text/css; charset=utf-8');
export const SCRIPT = asset('js', JS, 'text/javascript; charset=utf-8');
export const ICON_ASSET = asset('svg', ICON, 'image/svg+xml');
export const ASSETS = new Map([STYLESHEET, SCRIPT, PSWP_MODULE, ICON_ASSET].map((a) => [a.name, a]));

/** Each text asset compressed once, on its first request (a phone's first view: issue 31); fonts are compressed already. */
const compressed = new WeakMap<Asset, Encoded>();

/** What to send for `accept-encoding`: the asset's brotli or gzip bytes when the browser takes them, else the asset as it is. */
export function encodedAsset(a: Asset, acceptEncoding: string | undefined): { body: Buffer; encoding?: Coding; varies: boolean } {
  if (!/^(text\/|image\/svg)/.test(a.type)) return { body: a.body, varies: false };
  let c = compressed.get(a);
  if (!c) compressed.set(a, (c = new Encoded(a.body, 'asset')));
  const { body, coding } = c.for(acceptEncoding);
  return { body, encoding: coding, varies: true };
}

/** The ratio class of a width × height for justified rows (hundredths, 0.25 … 4; a wider panorama is drawn a little lower than its row). */
export function ratioClass(width: number, height: number): string {
  const r = Math.round((width / Math.max(1, height)) * 100);
  return `r${Math.min(400, Math.max(25, r))}`;
}

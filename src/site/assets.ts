// The website's one stylesheet and one script, served at addresses named by
// their content hash (/_site/<hash>.css|.js) so they are cached for ever and
// a new version gets a new address. Kept as strings: no build step, and the
// CSP forbids inline styles and scripts, so everything lives here.
import { createHash } from 'node:crypto';

// Justified rows: each item grows with its aspect ratio (a class per tenth,
// since the CSP forbids style attributes).
const aspectClasses = Array.from({ length: 28 }, (_, i) => {
  const r = i + 3; // 0.3 … 3.0
  return `.rows .a${r}{flex-grow:${r};flex-basis:calc(var(--row)*${r / 10})}`;
}).join('\n');

const CSS = `*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;background:#fafafa}
a{color:#0b57d0}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid #f29900;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:10}
.skip:focus{left:0}
header.site{padding:.75rem 1rem;border-bottom:1px solid #ddd;background:#fff}
header.site a{color:inherit;text-decoration:none;font-weight:600}
main{padding:1rem;max-width:1400px;margin:0 auto}
h1{font-size:1.6rem;margin:.5rem 0}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
.crumbs{padding:.5rem 1rem 0;max-width:1400px;margin:0 auto}
.crumbs ol{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem;font-size:.9rem}
.crumbs li+li::before{content:"/";margin-right:.25rem;color:#777}
.desc{max-width:70ch;white-space:pre-line}
.subs{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:.75rem}
.subs a{display:block;text-decoration:none;color:inherit}
.subs img,.subs .ph{width:100%;height:auto;aspect-ratio:4/3;object-fit:cover;display:block;background:#e6e6e6}
.subs span{display:block;padding:.25rem 0}
.media{list-style:none;margin:0;padding:0}
.media a{display:block}
.media img,.media .ph{display:block;width:100%;height:auto;background:#e6e6e6}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(100px,1fr));gap:.5rem}
.grid img,.grid .ph{aspect-ratio:1;object-fit:cover}
.rows{--row:120px;display:flex;flex-wrap:wrap;gap:.5rem}
.rows li{flex-grow:13;flex-basis:calc(var(--row)*1.3)}
.rows::after{content:"";flex-grow:999}
.rows img,.rows .ph{height:var(--row);object-fit:cover}
${aspectClasses}
.slides{display:flex;overflow-x:auto;scroll-snap-type:x mandatory;gap:1rem}
.slides li{flex:0 0 100%;scroll-snap-align:center}
.slides img,.slides .ph{max-height:75vh;object-fit:contain}
.strip{display:flex;overflow-x:auto;gap:.5rem;padding-bottom:.5rem}
.strip li{flex:0 0 auto}
.strip img,.strip .ph{height:180px;width:auto}
.ph{fill:#ddd}
.pages{display:flex;gap:1rem;margin:1.5rem 0;flex-wrap:wrap}
.photo{margin:0}
.photo img,.photo .ph{display:block;max-width:100%;height:auto;max-height:80vh;width:auto;margin:0 auto;background:#e6e6e6}
.meta dt{font-weight:600}
.meta dd{margin:0 0 .5rem}
.kw{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.4rem}
.kw li{background:#eee;border-radius:1rem;padding:0 .6rem}
nav.step{display:flex;justify-content:space-between;margin:1rem 0}
form.pw{display:flex;flex-direction:column;gap:.5rem;max-width:22rem}
input,button{font:inherit;padding:.5rem}
.error{color:#b00020}
dialog.lb{border:0;padding:0;max-width:100vw;max-height:100vh;width:100vw;height:100vh;background:rgba(0,0,0,.92);color:#fff}
dialog.lb::backdrop{background:rgba(0,0,0,.92)}
.lb figure{margin:0;height:100%;display:flex;flex-direction:column;align-items:center;justify-content:center}
.lb img{max-width:100%;max-height:85vh;object-fit:contain}
.lb button{position:absolute;background:rgba(0,0,0,.6);color:#fff;border:1px solid #888;border-radius:4px;cursor:pointer}
.lb .close{top:1rem;right:1rem}
.lb .prev{left:1rem;top:50%}
.lb .next{right:1rem;top:50%}
@media (min-width:700px){.grid{grid-template-columns:repeat(auto-fill,minmax(200px,1fr))}.rows{--row:220px}}
@media (prefers-reduced-motion:reduce){*{scroll-behavior:auto!important}}
`;

// The lightbox: a link of the media list (data-lb) opens its large image in a
// modal dialog; arrows step, Escape closes, Tab stays inside, and focus goes
// back to the link it came from. Without the script the links open media pages.
const JS = `(function(){
"use strict";
var items=[].slice.call(document.querySelectorAll("a[data-lb]"));
if(!items.length||typeof HTMLDialogElement!=="function")return;
var d=document.createElement("dialog");d.className="lb";d.setAttribute("aria-label","Photo viewer");
var fig=document.createElement("figure");var img=document.createElement("img");var cap=document.createElement("figcaption");
fig.appendChild(img);fig.appendChild(cap);
function btn(cls,label,text){var b=document.createElement("button");b.type="button";b.className=cls;b.setAttribute("aria-label",label);b.textContent=text;d.appendChild(b);return b;}
d.appendChild(fig);
var closeB=btn("close","Close","\\u2715"),prevB=btn("prev","Previous","\\u2039"),nextB=btn("next","Next","\\u203A");
document.body.appendChild(d);
var at=-1,opener=null;
function show(i){at=(i+items.length)%items.length;var a=items[at];var src=a.getAttribute("data-lb");
if(src){img.src=src;img.hidden=false;}else{img.removeAttribute("src");img.hidden=true;}
img.alt=a.getAttribute("data-title")||"";cap.textContent=(a.getAttribute("data-title")||"")+" ("+(at+1)+" / "+items.length+")";d.setAttribute("data-index",String(at));}
function open(i){opener=items[i];show(i);d.showModal();closeB.focus();}
function close(){if(d.open)d.close();}
d.addEventListener("close",function(){if(opener)opener.focus();});
closeB.addEventListener("click",close);prevB.addEventListener("click",function(){show(at-1);});nextB.addEventListener("click",function(){show(at+1);});
d.addEventListener("keydown",function(e){
if(e.key==="ArrowRight"){e.preventDefault();show(at+1);}
else if(e.key==="ArrowLeft"){e.preventDefault();show(at-1);}
else if(e.key==="Escape"){e.preventDefault();close();}
else if(e.key==="Tab"){var f=[closeB,prevB,nextB];var k=f.indexOf(document.activeElement);e.preventDefault();f[(k+(e.shiftKey?f.length-1:1))%f.length].focus();}
});
items.forEach(function(a,i){a.addEventListener("click",function(e){if(e.ctrlKey||e.metaKey||e.shiftKey||e.button)return;e.preventDefault();open(i);});});
})();
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
export const ASSETS = new Map([STYLESHEET, SCRIPT, ICON_ASSET].map((a) => [a.name, a]));

/** The aspect class of a width × height for justified rows. */
export function aspectClass(width: number, height: number): string {
  const r = Math.round((width / Math.max(1, height)) * 10);
  return `a${Math.min(30, Math.max(3, r))}`;
}

// The studio's stylesheet and scripts, served at addresses named by their content hash
// (/studio/_assets/<hash>.css|.js) and cached for ever; the CSP forbids inline styles and scripts,
// so all of it lives here. Screens work as forms first; a screen's script (browser/<name>.js, after
// browser/common.js) adds what forms cannot do. Libraries come from their packages, read once at
// start (docs/studio.md, "Pages, assets and errors").
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Encoded, type Coding } from '../core/content-coding.js';
import { PROOFING_CSS } from './pages/proofing-styles.js';
import { SHOP_CSS } from './pages/shop-styles.js';

const CSS = `*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;background:#f6f6f4}
a{color:#0b57d0}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid #f29900;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:10}
.skip:focus{left:0}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
header.bar{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem;padding:.6rem 1rem;background:#1f2937;color:#fff}
header.bar a{color:#fff}
header.bar .name{font-weight:700;text-decoration:none;margin-right:auto}
header.bar nav ul{display:flex;gap:1rem;list-style:none;margin:0;padding:0;align-items:center}
header.bar form{margin:0}
header.bar button{background:none;border:1px solid #9ca3af;color:#fff;border-radius:4px;padding:.2rem .6rem;font:inherit;cursor:pointer}
main{max-width:52rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem;line-height:1.25}
h2{font-size:1.15rem;margin:1.75rem 0 .5rem}
.card{background:#fff;border:1px solid #e2e2de;border-radius:8px;padding:1rem;margin:0 0 1rem}
.field{display:flex;flex-direction:column;gap:.25rem;margin:0 0 1rem}
.field label,.field legend{font-weight:600}
.field .hint{font-size:.875rem;color:#555}
.field .error{color:#b3261e;font-weight:600;font-size:.9rem}
input[type=text],input[type=email],input[type=password],input[type=url],input[type=color],input[type=datetime-local],select,textarea{font:inherit;padding:.45rem .55rem;border:1px solid #8a8a85;border-radius:4px;background:#fff;color:inherit;max-width:100%}
input[type=color]{padding:0;height:2.4rem;width:4rem}
input[type=datetime-local]{width:16rem}
textarea{min-height:8rem;width:100%}
.invalid{border-color:#b3261e;border-width:2px}
button,.button{font:inherit;background:#0b57d0;color:#fff;border:0;border-radius:4px;padding:.5rem 1rem;cursor:pointer;text-decoration:none;display:inline-block}
button.quiet{background:#fff;color:#0b57d0;border:1px solid #0b57d0}
button.danger{background:#b3261e}
.row{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center}
.notice{background:#e6f4ea;border:1px solid #8bc49a;border-radius:6px;padding:.6rem .8rem;margin:0 0 1rem}
.alert{background:#fdecea;border:1px solid #e3a19a;border-radius:6px;padding:.6rem .8rem;margin:0 0 1rem}
.list{list-style:none;margin:0;padding:0}
.list li{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem;padding:.6rem 0;border-bottom:1px solid #e2e2de}
.list li:last-child{border-bottom:0}
.pick{display:grid;grid-template-columns:repeat(auto-fill,minmax(6.5rem,1fr));gap:.5rem;border:0;padding:0;margin:0}
.pick label{display:flex;flex-direction:column;align-items:center;gap:.2rem;font-weight:400;font-size:.8rem;border:1px solid #e2e2de;border-radius:6px;padding:.3rem;background:#fff;cursor:pointer;min-width:0;overflow-wrap:anywhere;text-align:center}
/* A cell no wider than its track and a name broken anywhere (cameras name files without spaces): an
   unbroken name stuck out over the next cell and widened the page past a phone's screen, which then
   moved sideways under the finger (test/studio/studio-settings-phone-browser.test.ts). A fieldset is
   as wide as its content's min-content by default: not these. */
fieldset.field{min-width:0}
.pick img{width:100%;height:4.5rem;object-fit:contain;background:#ececec}
.pick .none{display:flex;align-items:center;justify-content:center;height:4.5rem;width:100%;background:#ececec;color:#555}
.qr{width:12rem;height:12rem;background:#fff;padding:.5rem}
.qr svg{width:100%;height:100%}
code.secret{word-break:break-all;font-size:1rem;user-select:all;-webkit-user-select:all}
.notice.warn{background:#fef7e0;border-color:#e0b84c}
.muted{color:#555}
@media (max-width:40rem){main{padding:.75rem}header.bar{padding:.5rem .75rem}}
/* galleries (task E): the tree, its drag and drop marks, a gallery's settings */
.crumbs{margin:0;font-size:.9rem}
h2.first{margin-top:0}
.create .row{align-items:flex-end}
.create .field{margin:0}
.tree,.tree ul{list-style:none;margin:0;padding:0}
.tree ul{margin-left:1.4rem;border-left:1px dashed #c9c9c4;padding-left:.4rem}
.tree .item{display:flex;flex-wrap:wrap;align-items:center;gap:.35rem .6rem;padding:.45rem .5rem;border-radius:6px;border:2px solid transparent}
.tree .item[draggable=true]{cursor:grab}
.tree .item:hover{background:#f1f3f7}
.tree .grip{color:#8a8a85;font-size:1.1rem;line-height:1}
.tree .gname{font-weight:600;text-decoration:none}
.tree .gname:hover{text-decoration:underline}
.tree .count{color:#555;font-size:.875rem}
.tree .badge{font-size:.75rem;background:#eef2ff;color:#1e3a8a;border-radius:999px;padding:0 .5rem}
.tree .actions{margin-left:auto;display:flex;gap:.5rem;align-items:center;font-size:.9rem}
.tree button.icon{background:#fff;color:#0b57d0;border:1px solid #c9c9c4;padding:.1rem .55rem;min-width:2.25rem;min-height:2.25rem}
.tree button.icon:disabled{color:#9ca3af;cursor:default}
.tree .dragging>.item{opacity:.45}
.tree .drop-inside{border-color:#0b57d0;background:#e8f0fe}
.tree .drop-before{border-top-color:#0b57d0;border-radius:0}
.tree .drop-after{border-bottom-color:#0b57d0;border-radius:0}
.links{gap:1rem}
.check,.field .check{display:inline-flex;align-items:center;gap:.35rem;font-weight:400}
.rights{display:flex;flex-wrap:wrap;gap:.35rem 1rem;margin:.25rem 0 .75rem}
fieldset.acl{border:1px solid #e2e2de;border-radius:6px;margin:0 0 .75rem;padding:.5rem .75rem}
fieldset.acl legend{font-weight:600;padding:0 .25rem;word-break:break-all}
form.then{margin-top:.75rem}
.deliveries pre{white-space:pre-wrap;word-break:break-all;max-height:12rem;overflow:auto;font-size:.85rem}
.deliveries details{overflow-wrap:anywhere}
input[type=number]{font:inherit;padding:.45rem .55rem;border:1px solid #8a8a85;border-radius:4px;background:#fff;color:inherit;width:8rem;max-width:100%}
.pick.covers{grid-template-columns:repeat(auto-fill,minmax(9rem,1fr))}
.pick.covers img,.pick.covers .none{height:7rem;object-fit:cover}
@media (max-width:40rem){.tree .actions{margin-left:0;width:100%}.tree ul{margin-left:.6rem}}
/* a website's home page (pages/website-home.tsx): chosen hero photos with their order, the featured galleries */
.search-row{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin:0 0 1rem}
.search-row label{font-weight:600;width:100%}
.search-row input[type=search]{font:inherit;padding:.45rem .55rem;border:1px solid #8a8a85;border-radius:4px;flex:1 1 12rem;min-width:0}
.pick.chosen{grid-template-columns:repeat(auto-fill,minmax(8rem,1fr))}
.pick-item{display:flex;flex-direction:column;gap:.25rem;min-width:0}
.pick-item label{height:100%}
.order{display:flex;align-items:center;gap:.35rem;font-size:.85rem;font-weight:400}
.order input[type=number]{width:4.5rem;padding:.25rem .4rem}
.feature-list{list-style:none;margin:0;padding:0}
.feature-list li{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.25rem .75rem;padding:.4rem 0;border-bottom:1px solid #eeeeea}
.feature-list label{font-weight:400;min-width:0;overflow-wrap:anywhere}
.feature-list .depth-1{padding-left:1.25rem}.feature-list .depth-2{padding-left:2.5rem}.feature-list .depth-3,.feature-list .depth-4{padding-left:3.75rem}
/* media (the library grid, batch edit: pages/media.tsx, browser/media.js) */
main.wide{max-width:90rem}
#grid-wrap [hidden]{display:none}
.media-head h1{margin-bottom:.25rem}
.js-only{display:none}
.js-only.on{display:inline-flex;gap:.5rem}
label.inline{display:inline-flex;align-items:center;gap:.35rem;font-weight:400;margin-right:.75rem}
.batch{padding:.6rem .8rem;position:sticky;top:0;z-index:2}
.batch-bar{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem}
.batch-bar output{font-weight:700;min-width:7rem}
.batch-fields summary{cursor:pointer;margin:.5rem 0;color:#0b57d0}
.batch-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:0 1rem}
.batch-grid .wide{grid-column:1/-1}
.batch-grid textarea{min-height:3.5rem}
.batch-grid fieldset{border:0;padding:0}
.danger-row{margin-top:.5rem}
.batch-message{margin:.25rem 0 0;min-height:1.5rem;color:#374151}
.job progress{width:min(30rem,100%);height:1rem;vertical-align:middle}
.mgrid{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(10rem,1fr));gap:.5rem}
.mgrid .cell{background:#fff;border:1px solid #e2e2de;border-radius:6px;padding:.35rem;display:flex;flex-direction:column;gap:.25rem}
.mgrid label{display:block;position:relative;cursor:pointer}
.mgrid label input{position:absolute;top:.35rem;left:.35rem;width:1.2rem;height:1.2rem}
.mgrid img,.nothumb{display:block;width:100%;height:9rem;object-fit:cover;background:#e5e5e2;border-radius:4px}
.nothumb.big{height:14rem;display:flex;align-items:center;justify-content:center;color:#555}
.mgrid .cap,.vcell .cap{font-size:.8rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.mgrid .note,.vcell .note{font-size:.75rem;line-height:1.2;color:#5b3a00;overflow:hidden;display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical}
.scope-line{margin-top:.25rem}
.moves{display:flex;gap:.25rem}
.moves form{margin:0}
button.small{padding:.1rem .5rem}
p.delivery{margin:.35rem 0;font-size:.9rem}
p.delivery.ok{color:#1e6b34}
p.delivery.bad{color:#b3261e}
.mail-kinds ul{display:flex;flex-wrap:wrap;gap:.5rem 1rem;list-style:none;margin:0 0 1rem;padding:0}
.mail-kinds a[aria-current=page]{font-weight:700;text-decoration:none;border-bottom:3px solid #0b57d0}
.mail-frames{display:flex;flex-wrap:wrap;gap:1.5rem;align-items:flex-start}
.mail-frames figure{margin:0;max-width:100%;overflow-x:auto}
.mail-frames figcaption{font-weight:600;margin:0 0 .35rem}
.mail-frames iframe{display:block;border:1px solid #d1d5db;border-radius:6px;background:#fff;max-width:none}
pre.mail-text{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #d1d5db;border-radius:6px;padding:.75rem;max-width:38rem}
.pager{display:flex;gap:1rem;justify-content:center;margin:1rem 0}
.vgrid{position:relative;height:calc(100vh - 12rem);min-height:18rem;overflow-y:auto;background:#fff;border:1px solid #e2e2de;border-radius:8px;contain:strict}
.vgrid-space{width:1px}
.vcell{position:absolute;top:0;left:0;padding:6px;display:flex;flex-direction:column;gap:2px;cursor:pointer;border-radius:6px;user-select:none}
.vcell img{width:100%;object-fit:cover;background:#e5e5e2;border-radius:4px}
.vcell[aria-selected=true]{background:#d3e3fd;box-shadow:inset 0 0 0 3px #0b57d0}
.vcell:focus{outline:3px solid #f29900;outline-offset:-3px}
.vcell[draggable=true]{cursor:grab}
.media-one{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}
.media-one img{max-width:min(24rem,100%);border-radius:6px}
.media-one dt{font-weight:600}
.media-one dd{margin:0 0 .5rem;overflow-wrap:anywhere}
.media-one>img{flex:1 1 18rem}
.media-side{flex:1 1 20rem;min-width:0;display:grid;gap:1rem}
.media-side .card{margin:0}
.media-edit textarea,.media-edit input[type=text]{width:100%;box-sizing:border-box}
input[type=text].pin{width:8rem;letter-spacing:.15em}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
.facts dd{margin:0}
.in-galleries{margin:0;padding-left:1.2rem}
@media (max-width:40rem){.vgrid{height:calc(100vh - 9rem)}.batch{position:static}}
/* area F: website extras, collections, jobs, administration */
/* More sections than a narrow window's width: the header's navigation wraps inside its dark bar.
   On a phone it stays one row beside the name and scrolls sideways (its right edge fades to say
   there is more), so every screen starts under one line of header instead of three. */
header.bar nav ul{flex-wrap:wrap;gap:.35rem 1rem}
@media (max-width:40rem){header.bar{gap:.25rem .75rem;padding:.45rem .75rem .5rem}header.bar nav{flex-basis:100%}header.bar nav ul{gap:.15rem .5rem;font-size:.95rem}header.bar nav a{display:inline-block;padding:.3rem .15rem;min-height:24px}}
.card>h2:first-child,section.card>h2:first-of-type{margin-top:0}
.list.card{padding:0 1rem}
.subnav ul{list-style:none;margin:0 0 .5rem;padding:0}
.subnav a[aria-current=page]{font-weight:700;text-decoration:none;color:#1b1b1b}
.table-wrap{overflow-x:auto;padding:0}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.55rem .75rem;border-bottom:1px solid #e2e2de;vertical-align:middle}
tbody tr:last-child td{border-bottom:0}
th{font-size:.85rem;color:#444;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
td form{margin:0}
.tag{display:inline-block;margin-left:.4rem;padding:0 .45rem;border-radius:999px;background:#e8eefc;color:#0b3c91;font-size:.8rem}
.tag.off{background:#fdecea;color:#8c1d18}
.created{border-color:#8bc49a;background:#f3faf5}
.created dt{font-weight:600;margin-top:.5rem}
.created dd{margin:0}
.style-fields{display:grid;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr));gap:0 1rem}
progress{vertical-align:middle;width:8rem}
.rule{display:grid;grid-template-columns:repeat(auto-fill,minmax(10rem,1fr));gap:0 1rem;border:1px solid #e2e2de;border-radius:6px;margin:0 0 .75rem;padding:.5rem .75rem}
.rule legend{font-weight:600;padding:0 .25rem}
/* A phone: a table's rows become stacked cards, nothing scrolls sideways. */
@media (max-width:40rem){.table-wrap table,.table-wrap tbody,.table-wrap tr,.table-wrap td{display:block;width:auto}.table-wrap thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}.table-wrap tr{padding:.5rem .75rem;border-bottom:1px solid #e2e2de}.table-wrap tbody tr:last-child{border-bottom:0}.table-wrap td{border:0;padding:.15rem 0;text-align:left}.table-wrap td.num{text-align:left}}
/* uploads (D1): the drop zone, the pickers, the list of files with their progress */
.up-drop{border:2px dashed #8a8a85;border-radius:10px;padding:2rem 1rem;text-align:center;background:#fafaf8}
.up-drop.up-over{border-color:#0b57d0;background:#eef3fd}
.up-drop-text{font-size:1.15rem;font-weight:600;margin:0 0 1rem}
.up-pickers{justify-content:center;margin:0 0 .75rem}
.up-input{position:absolute;width:1px;height:1px;opacity:0;overflow:hidden}
.up-input:focus-visible+label{outline:3px solid #f29900;outline-offset:2px}
.button.up-quiet{background:#fff;color:#0b57d0;border:1px solid #0b57d0}
.up-hint{font-size:.875rem;margin:0}
.up-overall{display:grid;grid-template-columns:auto 1fr;gap:.25rem .75rem;align-items:center;margin:0 0 .75rem}
.up-overall #up-summary{grid-column:1/-1}
progress{width:100%;height:.75rem;accent-color:#0b57d0}
.up-queue{list-style:none;margin:0;padding:0;max-height:60vh;overflow:auto}
.up-queue li{display:grid;grid-template-columns:3rem 1fr auto;gap:.15rem .75rem;padding:.5rem 0;border-bottom:1px solid #e2e2de}
.up-thumb{grid-row:1/span 3;width:3rem;height:3rem;border-radius:4px;background:#e8e8e4;display:block}
.up-queue li:last-child{border-bottom:0}
.up-name{overflow-wrap:anywhere}
.up-queue progress{grid-column:2/-1}
.up-status{grid-column:2/-1;font-size:.875rem;color:#444}
.up-queue li[data-state=done] .up-status{color:#1e6b34}
.up-queue li[data-state=duplicate] .up-status{color:#555}
.up-queue li[data-state=refused] .up-status,.up-queue li[data-state=offline] .up-status{color:#b3261e;font-weight:600}
@media (pointer:coarse) and (max-width:40rem){.up-folder-pick{display:none}}
/* Analytics (routes/analytics.ts): four cards of weekly bars, then the top lists; one column on a phone */
.an-cards{list-style:none;margin:0 0 1rem;padding:0;display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,20rem),1fr))}
.an-card{margin:0}
.an-card h2{margin:0;font-size:1.05rem}
.an-hint{margin:0 0 .5rem;font-size:.8125rem}
.an-total{margin:0;font-size:1.75rem;line-height:1.2}
.an-total .muted{font-size:.875rem}
.an-now-text{margin:0 0 .5rem;font-size:.875rem}
.an-chart{display:block;width:100%;height:5rem}
.an-bar{fill:#a8c1ee}
.an-bar.an-now{fill:#0b57d0}
.an-axis{stroke:#c7c7c2;stroke-width:1}
.an-range{display:flex;justify-content:space-between;font-size:.75rem;margin:.25rem 0 0}
.an-lists{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,20rem),1fr));margin:0 0 1rem}
.an-lists .card{margin:0}
.an-rank{margin:0;padding-left:1.5rem}
.an-rank li{padding:.3rem 0}
.an-photos{list-style:none;margin:0;padding:0;display:grid;gap:.6rem}
.an-photos a{display:flex;align-items:center;gap:.75rem;overflow-wrap:anywhere}
.an-photos img{width:4rem;height:4rem;object-fit:cover;border-radius:4px;background:#e8e8e4;flex:none}
.an-photos li>.muted{display:block;margin:.15rem 0 0 4.75rem;font-size:.875rem}
/* Watermarks (routes/watermarks.ts): each one shown on a photo, its actions beside it; one column on a phone */
.wm-list{list-style:none;margin:0 0 1rem;padding:0;display:grid;gap:1rem}
.wm-item{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,1fr);gap:1rem;align-items:start}
.wm-preview{width:100%;height:auto;aspect-ratio:3/2;object-fit:contain;background:#eee;border-radius:6px;display:block}
.wm-about p{margin:0 0 .5rem}
.wm-about .danger-row{display:flex;align-items:center;gap:.75rem;flex-wrap:wrap}
.wm-new{display:grid;grid-template-columns:1fr 1fr;gap:1.5rem;border-top:1px solid #e2e2de;padding-top:1rem}
.wm-new h3{margin:0 0 .75rem}
/* The look (strength, position, tile): side by side where they fit, stacked on a phone */
.wm-look{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:0 1rem}
.wm-look .field{margin-bottom:.75rem}
.wm-look .field:last-child{grid-column:1/-1}
.wm-edit{margin:0 0 .75rem;padding:.75rem 0;border-top:1px solid #e2e2de;border-bottom:1px solid #e2e2de}
@media (max-width:700px){.wm-item,.wm-new{grid-template-columns:1fr}}
/* The look (docs/studio.md "The studio's look"): covers as thumbnails in the websites list and the
   gallery tree, a calmer header, headings that stand apart from the cards under them. */
h1{font-size:1.65rem;letter-spacing:-.01em;margin:.75rem 0 1.25rem}
h2{color:#27272a}
.card{box-shadow:0 1px 2px rgba(0,0,0,.04)}
header.bar nav a{text-decoration:none}
header.bar nav a:hover,header.bar nav a[aria-current=page]{text-decoration:underline;text-underline-offset:.3em}
img.thumb,span.thumb{flex:none;display:block;object-fit:cover;background:#e5e5e2;border-radius:4px}
.tree .thumb{width:3rem;height:3rem}
.sites li{align-items:center;justify-content:flex-start;gap:.5rem 1rem;padding:.75rem 0}
.sites .thumb{width:6rem;height:4rem;border-radius:6px}
.sites .site-name{flex:1 1 10rem;min-width:0;overflow-wrap:anywhere}
.sites .site-name>a{font-weight:600;font-size:1.1rem}
/* The galleries' overview (pages/galleries.tsx gridPage): cards with large covers, under a search,
   sort and state form (one row on a desktop, stacked on a phone); the state of each as a coloured
   pill; a grid/tree switch under the heading. */
.head-row{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem 1rem;margin:0 0 .5rem}
.head-row h1{margin:0}
.views ul{display:flex;gap:.25rem;list-style:none;margin:0 0 1rem;padding:.2rem;background:#e9e9e5;border-radius:8px;width:max-content;max-width:100%}
.views a{display:block;padding:.3rem .9rem;border-radius:6px;text-decoration:none;color:#1b1b1b;min-height:2rem}
.views a[aria-current=page]{background:#fff;font-weight:600;box-shadow:0 1px 2px rgba(0,0,0,.12)}
.ggrid{list-style:none;margin:0;padding:0;display:grid;gap:1.25rem;grid-template-columns:repeat(auto-fill,minmax(min(100%,15rem),1fr))}
.gcard{background:#fff;border:1px solid #e2e2de;border-radius:10px;overflow:hidden;display:flex;flex-direction:column;box-shadow:0 1px 2px rgba(0,0,0,.04)}
.gcard:hover{box-shadow:0 4px 14px rgba(0,0,0,.08)}
.gcover{display:block}
.gcover .thumb{width:100%;height:auto;aspect-ratio:4/3;border-radius:0}
.gbody{padding:.7rem .9rem .85rem;display:flex;flex-direction:column;gap:.3rem;min-width:0}
.gbody p{margin:0}
.gparent{font-size:.8rem;color:#555;overflow-wrap:anywhere}
h2.gtitle{margin:0;font-size:1.05rem;line-height:1.3;overflow-wrap:anywhere}
.gtitle a{color:#1b1b1b;text-decoration:none}
.gtitle a:hover{text-decoration:underline}
.gmeta{font-size:.875rem;color:#555}
.gstates{display:flex;flex-wrap:wrap;gap:.3rem;list-style:none;margin:0;padding:0}
.state{font-size:.75rem;font-weight:600;border-radius:999px;padding:.05rem .55rem;background:#e6f4ea;color:#1e6b34}
.state.locked{background:#fef3c7;color:#7a4b00}
.state.acl{background:#e8eefc;color:#0b3c91}
.state.closed{background:#fdecea;color:#8c1d18}
.state.hidden{background:#eeeeea;color:#444}
.state[title]{max-width:100%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.glinks{display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.875rem;margin-top:.2rem!important}
.gfilters{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-start;padding-bottom:0}
.gfilters .field{flex:0 1 12rem;min-width:0}
.gfilters .field:first-child{flex:1 1 18rem}
.gfilters input[type=search]{font:inherit;padding:.45rem .55rem;border:1px solid #8a8a85;border-radius:4px;background:#fff;color:inherit}
.gfilters input,.gfilters select{width:100%;min-height:2.6rem}
/* Level with the fields' boxes, under their labels, whether a message follows a field or not. */
.gfilter-buttons{display:flex;gap:.75rem;align-items:center;margin:calc(1.5em + .25rem) 0 1rem}
.gfilter-buttons button{min-height:2.6rem}
.gcount{margin:0 0 .75rem}
@media (max-width:40rem){.gfilters .field,.gfilters .field:first-child{flex:1 1 100%}.gfilter-buttons{flex:1 1 100%;margin-top:0}.gfilter-buttons button{flex:1 1 auto}}
@media (max-width:40rem){.ggrid{gap:.75rem;grid-template-columns:repeat(2,minmax(0,1fr))}.gbody{padding:.5rem .6rem .65rem}h2.gtitle{font-size:.95rem}.glinks{gap:.1rem .75rem}.glinks a{padding:.2rem 0}}
/* Hierarchy: one filled button per screen (its primary action); other actions outlined; quick links
   to a screen's neighbours as quiet chips; one spacing step between cards. */
.quick{display:flex;flex-wrap:wrap;gap:.4rem .5rem;margin:0 0 1.25rem;padding:0}
.sites .quick{margin:.4rem 0 0;font-size:.875rem}
.quick a{display:inline-block;padding:.3rem .75rem;border:1px solid #c9c9c4;border-radius:999px;background:#fff;color:#1f2937;text-decoration:none;min-height:2rem}
.quick a:hover{border-color:#0b57d0;color:#0b57d0}
.secondary-cards button[type=submit]:not(.danger):not(.icon):not(.small){background:#fff;color:#0b57d0;border:1px solid #0b57d0}
button.danger.quiet{background:#fff;color:#b3261e;border:1px solid #b3261e}
.sites .site-name>a{display:inline-block}
.media-head .head-row{margin-bottom:.25rem}
/* The phone's header (browser/nav.js): one bar, the Studio name, the current section and a Menu
   button; the sections open under it as a list of full-width rows. Wider screens list the sections
   and show neither the button nor the section's name. */
header.bar .menu,header.bar .here{display:none}
@media (max-width:40rem){
header.bar.js-menu{flex-wrap:wrap;gap:0 .75rem}
header.bar.js-menu .name{margin-right:0}
header.bar.js-menu .here{display:block;flex:1 1 auto;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;color:#e5e7eb}
header.bar.js-menu .menu{display:inline-flex;align-items:center;gap:.4rem;min-height:2.75rem;padding:.3rem .8rem;border-color:#d1d5db}
header.bar.js-menu .menu::before{content:"";width:1rem;height:.7rem;border-top:2px solid;border-bottom:2px solid;background:linear-gradient(currentColor,currentColor) center/100% 2px no-repeat}
header.bar.js-menu .menu[aria-expanded=true]{background:#374151}
header.bar.js-menu nav{display:none;flex-basis:100%}
header.bar.js-menu.menu-open nav{display:block;margin-top:.4rem;border-top:1px solid #4b5563}
header.bar.js-menu nav ul{flex-direction:column;align-items:stretch;gap:0;font-size:1rem}
header.bar.js-menu nav li{border-bottom:1px solid #374151}
header.bar.js-menu nav a{display:block;padding:.7rem .25rem;min-height:2.75rem}
header.bar.js-menu nav a[aria-current=page]{font-weight:700;text-decoration:none;box-shadow:inset 3px 0 0 #93c5fd;padding-left:.6rem}
header.bar.js-menu nav form{padding:.6rem 0}
}
@media (max-width:40rem){h1{font-size:1.4rem;margin:.5rem 0 1rem}.tree .thumb{width:2.5rem;height:2.5rem}.sites .thumb{width:4.5rem;height:3rem}}
`;

export interface StudioAsset {
  name: string;
  type: string;
  body: string;
}

/** Each asset compressed once, on its first request (brotli, else gzip): the studio's first screen stays within its weight. */
const compressed = new Map<string, Encoded>();

/** What to send for `accept-encoding`: the asset's brotli or gzip bytes when the browser takes them, else its bytes. */
export function encodedAsset(a: StudioAsset, acceptEncoding: string | undefined): { body: Buffer; encoding?: Coding } {
  let c = compressed.get(a.name);
  if (!c) compressed.set(a.name, (c = new Encoded(Buffer.from(a.body, 'utf8'), 'asset')));
  const { body, coding } = c.for(acceptEncoding);
  return { body, encoding: coding };
}

function asset(ext: string, body: string, type: string): StudioAsset {
  return { name: `${createHash('sha256').update(body).digest('base64url').slice(0, 16)}.${ext}`, type, body };
}

export const STUDIO_CSS = asset('css', CSS + PROOFING_CSS + SHOP_CSS, 'text/css; charset=utf-8');
/** The studio's icon (a frame with a lens, in the header's colours): named by every page, and the answer to /favicon.ico. */
export const STUDIO_ICON = asset(
  'svg',
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f2937"/><rect x="5" y="9" width="22" height="16" rx="2" fill="none" stroke="#fff" stroke-width="2"/><circle cx="16" cy="17" r="4.5" fill="none" stroke="#fff" stroke-width="2"/><rect x="11" y="6" width="10" height="3" rx="1" fill="#fff"/></svg>',
  'image/svg+xml',
);
export const STUDIO_ASSETS = new Map([
  [STUDIO_CSS.name, STUDIO_CSS],
  [STUDIO_ICON.name, STUDIO_ICON],
]);

/** The screens' scripts, in the sources (src/studio/browser) whether this runs from dist/ or from src/. */
const BROWSER_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'studio', 'browser');
const JS = 'text/javascript; charset=utf-8';

function register(a: StudioAsset): StudioAsset {
  STUDIO_ASSETS.set(a.name, a);
  return a;
}

/** A screen's script: browser/common.js then browser/<name>.js, as one module (hashed names cannot import each other). */
export function studioScript(name: string): StudioAsset {
  const read = (file: string) => readFileSync(join(BROWSER_DIR, file), 'utf8');
  return register(asset('js', `${read('common.js')}\n${read(`${name}.js`)}`, JS));
}

/** The header's Menu button on a phone (browser/nav.js): on every signed-in page, standing alone (no common.js). */
export const NAV_SCRIPT = register(asset('js', readFileSync(join(BROWSER_DIR, 'nav.js'), 'utf8'), JS));

/** tus-js-client's browser build as published (it defines `window.tus`); load it before a script that uploads. */
export const TUS_CLIENT = register(
  asset('js', readFileSync(join(dirname(createRequire(import.meta.url).resolve('tus-js-client/package.json')), 'dist', 'tus.min.js'), 'utf8').replace(/\n\/\/# sourceMappingURL=.*$/, ''), JS),
);

// The studio's stylesheet and scripts, served at addresses named by their content hash
// (/studio/_assets/<hash>.css|.js), cached for ever: a new version gets a new address.
// The CSP forbids inline styles and scripts, so everything lives here. Every screen works
// as forms first; a screen's script (browser/<name>.js, plain ES modules read as they are,
// with browser/common.js put in front of each) adds what forms cannot do: drag and drop,
// resumable uploads, a virtualised grid. Libraries come from their packages as published
// (tus-js-client's browser build), read once at start: nothing from a third party at run time.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
input[type=text],input[type=email],input[type=password],input[type=url],input[type=color],select,textarea{font:inherit;padding:.45rem .55rem;border:1px solid #8a8a85;border-radius:4px;background:#fff;color:inherit;max-width:100%}
input[type=color]{padding:0;height:2.4rem;width:4rem}
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
.pick label{display:flex;flex-direction:column;align-items:center;gap:.2rem;font-weight:400;font-size:.8rem;border:1px solid #e2e2de;border-radius:6px;padding:.3rem;background:#fff;cursor:pointer}
.pick img{width:100%;height:4.5rem;object-fit:contain;background:#ececec}
.pick .none{display:flex;align-items:center;justify-content:center;height:4.5rem;width:100%;background:#ececec;color:#555}
.qr{width:12rem;height:12rem;background:#fff;padding:.5rem}
.qr svg{width:100%;height:100%}
code.secret{word-break:break-all;font-size:1rem}
.muted{color:#555}
@media (max-width:40rem){main{padding:.75rem}header.bar{padding:.5rem .75rem}}
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
.up-queue li{display:grid;grid-template-columns:1fr auto;gap:.15rem .75rem;padding:.5rem 0;border-bottom:1px solid #e2e2de}
.up-queue li:last-child{border-bottom:0}
.up-name{overflow-wrap:anywhere}
.up-queue progress{grid-column:1/-1}
.up-status{grid-column:1/-1;font-size:.875rem;color:#444}
.up-queue li[data-state=done] .up-status{color:#1e6b34}
.up-queue li[data-state=duplicate] .up-status{color:#555}
.up-queue li[data-state=refused] .up-status,.up-queue li[data-state=offline] .up-status{color:#b3261e;font-weight:600}
@media (pointer:coarse) and (max-width:40rem){.up-folder-pick{display:none}}
`;

export interface StudioAsset {
  name: string;
  type: string;
  body: string;
}

function asset(ext: string, body: string, type: string): StudioAsset {
  return { name: `${createHash('sha256').update(body).digest('base64url').slice(0, 16)}.${ext}`, type, body };
}

export const STUDIO_CSS = asset('css', CSS, 'text/css; charset=utf-8');
export const STUDIO_ASSETS = new Map([[STUDIO_CSS.name, STUDIO_CSS]]);

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

/** tus-js-client's browser build as published (it defines `window.tus`); load it before a script that uploads. */
export const TUS_CLIENT = register(
  asset('js', readFileSync(join(dirname(createRequire(import.meta.url).resolve('tus-js-client/package.json')), 'dist', 'tus.min.js'), 'utf8').replace(/\n\/\/# sourceMappingURL=.*$/, ''), JS),
);

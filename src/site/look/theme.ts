// The website's theme stylesheets and self-hosted web fonts: one small stylesheet of custom
// properties per (theme, colour scheme, accent) over the base stylesheet (assets.ts). Its address
// names all it is made of and the hash of its content, so any process makes it again from the
// address alone and an old address is a 404. Themes, fonts, contrast: docs/website.md, "Themes,
// colours and fonts".
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { MemoryCache } from '../../ops/cache.js';
import { COLOR_SCHEMES, THEMES, type ColorScheme, type Theme } from '../../websites/brand.js';
import type { Asset } from './assets.js';

/** The latin subset, as @fontsource declares it. */
const LATIN =
  'U+0000-00FF,U+0131,U+0152-0153,U+02BB-02BC,U+02C6,U+02DA,U+02DC,U+0304,U+0308,U+0329,U+2000-206F,U+20AC,U+2122,U+2191,U+2193,U+2212,U+2215,U+FEFF,U+FFFD';

interface FontFile {
  family: string;
  pkg: string;
  file: string;
  /** `100 900` for a variable font. */
  weight: string;
  variable: boolean;
}

const FONTS = {
  inter: { family: 'Inter Variable', pkg: '@fontsource-variable/inter', file: 'inter-latin-wght-normal.woff2', weight: '100 900', variable: true },
  playfair: { family: 'Playfair Display Variable', pkg: '@fontsource-variable/playfair-display', file: 'playfair-display-latin-wght-normal.woff2', weight: '400 900', variable: true },
  sourceSans: { family: 'Source Sans 3 Variable', pkg: '@fontsource-variable/source-sans-3', file: 'source-sans-3-latin-wght-normal.woff2', weight: '200 900', variable: true },
  cormorant: { family: 'Cormorant Garamond', pkg: '@fontsource/cormorant-garamond', file: 'cormorant-garamond-latin-600-normal.woff2', weight: '600', variable: false },
} satisfies Record<string, FontFile>;
type FontName = keyof typeof FONTS;

const SYSTEM_SANS = 'system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif';
const SERIF = 'Georgia,"Times New Roman",serif';

interface ThemeSpec {
  body: FontName | null;
  head: FontName | null;
  bodyStack: string;
  headStack: string;
  /** Headings' weight and letter spacing. */
  headWeight: number;
  headTracking: string;
  /** The site's name in the header. */
  brandSize: string;
}

const THEME_SPECS: Record<Theme, ThemeSpec> = {
  modern: { body: 'inter', head: 'inter', bodyStack: `"Inter Variable",${SYSTEM_SANS}`, headStack: `"Inter Variable",${SYSTEM_SANS}`, headWeight: 650, headTracking: '-0.015em', brandSize: '1.2rem' },
  editorial: {
    body: 'sourceSans',
    head: 'playfair',
    bodyStack: `"Source Sans 3 Variable",${SYSTEM_SANS}`,
    headStack: `"Playfair Display Variable",${SERIF}`,
    headWeight: 600,
    headTracking: '0',
    brandSize: '1.45rem',
  },
  classic: {
    body: 'sourceSans',
    head: 'cormorant',
    bodyStack: `"Source Sans 3 Variable",${SYSTEM_SANS}`,
    headStack: `"Cormorant Garamond",${SERIF}`,
    headWeight: 600,
    headTracking: '0.01em',
    brandSize: '1.6rem',
  },
  system: { body: null, head: null, bodyStack: SYSTEM_SANS, headStack: SYSTEM_SANS, headWeight: 600, headTracking: '0', brandSize: '1.15rem' },
};

// ---- fonts: read once, when a theme first needs them (the admin command line never does).

let fontAssets: Map<FontName, Asset> | undefined;
const require = createRequire(import.meta.url);

function fonts(): Map<FontName, Asset> {
  if (!fontAssets) {
    fontAssets = new Map();
    for (const [name, f] of Object.entries(FONTS) as Array<[FontName, FontFile]>) {
      const body = readFileSync(join(dirname(require.resolve(`${f.pkg}/package.json`)), 'files', f.file));
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
      fontAssets.set(name, { name: `${hash}.woff2`, body, type: 'font/woff2' });
    }
  }
  return fontAssets;
}

/** The font file of a theme's body text, to preload. */
export function bodyFont(theme: Theme): string | undefined {
  const f = THEME_SPECS[theme].body;
  return f ? `/_site/${fonts().get(f)!.name}` : undefined;
}

// ---- colours

type Rgb = [number, number, number];

function rgb(hex: string): Rgb {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as Rgb;
}

function hex(c: Rgb): string {
  return '#' + c.map((v) => Math.round(Math.min(255, Math.max(0, v))).toString(16).padStart(2, '0')).join('');
}

/** WCAG 2 relative luminance. */
function luminance(c: Rgb): number {
  const [r, g, b] = c.map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio, 1 to 21. */
export function contrast(a: string, b: string): number {
  const [x, y] = [luminance(rgb(a)), luminance(rgb(b))].sort((m, n) => n - m);
  return (x + 0.05) / (y + 0.05);
}

/** Black or white, whichever reads better on `background`: always at least 4.58:1. */
export function textOn(background: string): string {
  return contrast('#ffffff', background) >= contrast('#000000', background) ? '#ffffff' : '#000000';
}

/**
 * The accent as a text colour on `background`: the accent itself when it reads at 4.5:1 (WCAG AA),
 * else mixed step by step toward black or white (whichever the background needs) until it does.
 */
export function readableOn(accent: string, background: string): string {
  const towards = rgb(textOn(background));
  const from = rgb(accent);
  for (let step = 0; step <= 20; step++) {
    const t = step / 20;
    const c = hex(from.map((v, i) => v + (towards[i] - v) * t) as Rgb);
    if (contrast(c, background) >= 4.5) return c;
  }
  return hex(towards);
}

export const DEFAULT_ACCENT = '#2f5fd0';

interface Palette {
  bg: string;
  fg: string;
  muted: string;
  line: string;
  surface: string;
}

const LIGHT: Palette = { bg: '#ffffff', fg: '#1a1a1a', muted: '#595959', line: '#e4e4e4', surface: '#f1f1f1' };
const DARK: Palette = { bg: '#111213', fg: '#ececec', muted: '#a9a9a9', line: '#2c2d2f', surface: '#1e1f21' };

function variables(p: Palette, accent: string, dark: boolean): string {
  return [
    `color-scheme:${dark ? 'dark' : 'light'}`,
    `--bg:${p.bg}`,
    `--fg:${p.fg}`,
    `--muted:${p.muted}`,
    `--line:${p.line}`,
    `--surface:${p.surface}`,
    `--accent:${accent}`,
    `--on-accent:${textOn(accent)}`,
    `--link:${readableOn(accent, p.bg)}`,
  ].join(';');
}

// ---- the stylesheet

function fontFace(f: FontFile, asset: Asset): string {
  return `@font-face{font-family:"${f.family}";font-style:normal;font-display:swap;font-weight:${f.weight};src:url(${asset.name}) format("${f.variable ? 'woff2-variations' : 'woff2'}"),url(${asset.name}) format("woff2");unicode-range:${LATIN}}`;
}

/** Rules over the base stylesheet: same selectors, loaded after it, so these win. */
const RULES = `:root{--edge:max(1rem,calc((100% - 1400px) / 2 + 1rem))}
body{font-family:var(--font-body);color:var(--fg);background:var(--bg);line-height:1.55;-webkit-font-smoothing:antialiased}
a{color:var(--link)}
h1,h2,h3,h4{font-family:var(--font-head);font-weight:var(--head-weight);letter-spacing:var(--head-tracking);line-height:1.2}
h1{font-size:clamp(1.6rem,1.2rem + 1.6vw,2.4rem);margin:.75rem 0 1rem}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
header.site,footer.site{padding-left:var(--edge);padding-right:var(--edge)}
header.site{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.75rem 2rem;padding-top:1.1rem;padding-bottom:1rem;border-bottom:1px solid var(--line);background:var(--bg)}
header.site .brand{display:flex;flex-direction:column;align-items:flex-start;gap:.35rem;color:var(--fg);text-decoration:none;min-width:0}
header.site .brand img{display:block;height:48px;width:auto;max-width:60vw}
.brand-name{display:flex;flex-direction:column;min-width:0}
.brand-title{font-family:var(--font-head);font-weight:var(--head-weight);letter-spacing:var(--head-tracking);font-size:var(--brand-size);line-height:1.15}
.tagline{color:var(--muted);font-size:.9rem;line-height:1.3}
nav.site-nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1.25rem}
nav.site-nav a{color:var(--fg);text-decoration:none;font-size:.95rem;padding:.35rem 0;display:inline-block;border-bottom:2px solid transparent}
nav.site-nav a:hover,nav.site-nav a[aria-current=page]{border-bottom-color:var(--accent)}
.skip{background:var(--bg);color:var(--fg)}
.crumbs li+li::before{color:var(--muted)}
.subs a{color:var(--fg)}
.kw li{background:var(--surface)}
.ph{fill:var(--surface)}
.subs img,.subs .ph,.media img,.media .ph,.photo img,.photo .ph{background:var(--surface)}
main form button{background:var(--accent);color:var(--on-accent);border:0;border-radius:4px;padding:.55rem 1.1rem;cursor:pointer}
main form input{background:var(--bg);color:var(--fg);border:1px solid var(--muted);border-radius:4px}
.error{color:var(--link)}
.prose{max-width:68ch;font-size:1.05rem}
.prose h2{font-size:1.5rem;margin:2rem 0 .75rem}
.prose h3{font-size:1.2rem;margin:1.5rem 0 .5rem}
.prose blockquote{margin:1.5rem 0;padding:.25rem 1.25rem;border-left:3px solid var(--accent);color:var(--muted)}
.prose code{background:var(--surface);padding:.1rem .3rem;border-radius:3px;font-size:.92em}
.prose pre{background:var(--surface);padding:1rem;overflow-x:auto}
.prose pre code{padding:0}
.prose hr{border:0;border-top:1px solid var(--line);margin:2rem 0}
.prose table{border-collapse:collapse}
.prose th,.prose td{border:1px solid var(--line);padding:.4rem .7rem;text-align:left}
footer.site{margin-top:3rem;padding-top:2rem;padding-bottom:2rem;border-top:1px solid var(--line);color:var(--muted);font-size:.9rem;display:flex;flex-wrap:wrap;justify-content:space-between;gap:1rem 2rem}
footer.site p{margin:0}
footer.site a{color:var(--muted)}
footer.site a:hover{color:var(--link)}
footer.site ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
`;

function themeCss(theme: Theme, scheme: ColorScheme, accent: string): string {
  const spec = THEME_SPECS[theme];
  const files = fonts();
  const faces = [...new Set([spec.body, spec.head].filter((f): f is FontName => f !== null))].map((f) => fontFace(FONTS[f], files.get(f)!));
  const type = `--font-body:${spec.bodyStack};--font-head:${spec.headStack};--head-weight:${spec.headWeight};--head-tracking:${spec.headTracking};--brand-size:${spec.brandSize}`;
  const light = variables(LIGHT, accent, false);
  const dark = variables(DARK, accent, true);
  const colours =
    scheme === 'light' ? `:root{${light};${type}}` : scheme === 'dark' ? `:root{${dark};${type}}` : `:root{${light};${type}}\n@media (prefers-color-scheme:dark){:root{${dark}}}`;
  return [...faces, colours, RULES].join('\n');
}

const THEME_NAME = new RegExp(`^theme-(${THEMES.join('|')})-(${COLOR_SCHEMES.join('|')})-([0-9a-f]{6})-([0-9a-f]{16})\\.css$`);

/** Made stylesheets, by address: a few hundred bytes to a few kB each, bounded. */
const made = new MemoryCache<string, Asset>({ entries: 256, ttlMs: Infinity });

function themeAsset(theme: Theme, scheme: ColorScheme, accent: string): Asset {
  const css = themeCss(theme, scheme, accent);
  const body = Buffer.from(css);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  const asset = { name: `theme-${theme}-${scheme}-${accent.slice(1)}-${hash}.css`, body, type: 'text/css; charset=utf-8' };
  made.set(asset.name, asset);
  return asset;
}

/** The stylesheet's address for a website's settings (unknown values fall back to the defaults). */
export function themeHref(theme: string, scheme: string, accent: string | null): string {
  const t = (THEMES as readonly string[]).includes(theme) ? (theme as Theme) : 'modern';
  const s = (COLOR_SCHEMES as readonly string[]).includes(scheme) ? (scheme as ColorScheme) : 'light';
  const a = accent && /^#[0-9a-f]{6}$/.test(accent) ? accent : DEFAULT_ACCENT;
  const key = `${t}\n${s}\n${a}`;
  let name = hrefs.get(key);
  if (!name) hrefs.set(key, (name = themeAsset(t, s, a).name));
  return `/_site/${name}`;
}
const hrefs = new MemoryCache<string, string>({ entries: 256, ttlMs: Infinity });

/** A theme stylesheet or a font by its address, made again from the address when needed; undefined: 404. */
export function brandAsset(name: string): Asset | undefined {
  if (name.endsWith('.woff2')) return [...fonts().values()].find((f) => f.name === name);
  const hit = made.get(name);
  if (hit) return hit;
  const m = THEME_NAME.exec(name);
  if (!m) return undefined;
  const asset = themeAsset(m[1] as Theme, m[2] as ColorScheme, `#${m[3]}`);
  return asset.name === name ? asset : undefined;
}

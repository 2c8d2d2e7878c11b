// The HTML of every mail: the website's brand (title, logo, accent) for clients and buyers, the
// service's neutral look for the photographer. Tables and inline styles, 600 px at most, one
// column: what Gmail, Apple Mail and Outlook all draw alike. Every value is escaped by the renderer.
import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** A website as its mails show it (the composition root reads it: src/site/service.ts mailBrand). */
export interface MailBrand {
  title: string;
  /** `#rrggbb`, or null: the service's own dark grey. */
  accent: string | null;
  /** An absolute address of the logo's small rendition (remote, not attached: see docs/delivery.md "Mails"). */
  logo: { src: string; width: number; height: number } | null;
  /** The website's home (absolute), the logo's and the footer's link. */
  home: string | null;
}

/** The main link of a mail, drawn as a button. */
export interface MailButton {
  href: string;
  label: string;
}

const NEUTRAL = '#1f2937';
const HEX = /^#[0-9a-f]{6}$/i;

/** White or near-black on the accent, whichever reads better (WCAG relative luminance). */
export function onAccent(hex: string): string {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  const l = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  return (1.05 / (l + 0.05) >= (l + 0.05) / 0.05) ? '#ffffff' : '#111111';
}

/** The accent a mail uses: the website's when it is a colour, else the neutral one. */
export function accentOf(brand: MailBrand | undefined): string {
  return brand?.accent && HEX.test(brand.accent) ? brand.accent.toLowerCase() : NEUTRAL;
}

// Old attributes Outlook still reads (the JSX types know them not).
const TABLE = { role: 'presentation', cellpadding: '0', cellspacing: '0', border: '0' } as Record<string, string>;
const bg = (colour: string) => ({ bgcolor: colour }) as Record<string, string>;

const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

/** A "bulletproof" button: a table cell with the colour (Outlook ignores a link's padding and background). */
export function Button({ button, accent }: { button: MailButton; accent: string }) {
  const fg = onAccent(accent);
  return (
    <table {...TABLE} style="margin:24px 0">
      <tr>
        <td {...bg(accent)} style={`background:${accent};border-radius:6px`}>
          <a href={button.href} style={`display:inline-block;padding:12px 24px;font:600 16px/1.2 ${FONT};color:${fg};text-decoration:none;border-radius:6px`}>
            {button.label}
          </a>
        </td>
      </tr>
    </table>
  );
}

/** The whole HTML part: a header (logo or title), the body, a footer with the website's name. */
export function renderMail(o: { title: ComponentChildren; brand?: MailBrand; body: ComponentChildren }): string {
  const accent = accentOf(o.brand);
  const name = o.brand?.title;
  const header = o.brand ? (
    <tr>
      <td style={`padding:24px 32px;border-bottom:3px solid ${accent}`}>
        {o.brand.logo ? (
          <a href={o.brand.home ?? undefined} style="text-decoration:none">
            <img src={o.brand.logo.src} width={o.brand.logo.width} height={o.brand.logo.height} alt={name} style={`display:block;border:0;height:${o.brand.logo.height}px;width:${o.brand.logo.width}px;max-width:100%;font:600 20px ${FONT};color:#111111`} />
          </a>
        ) : (
          <div style={`font:600 22px/1.3 ${FONT};color:#111111`}>{name}</div>
        )}
      </td>
    </tr>
  ) : null;
  const doc = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        {/* Light and dark both declared: a client's dark mode may invert, never leaves dark text on dark. */}
        <meta name="color-scheme" content="light dark" />
        <meta name="supported-color-schemes" content="light dark" />
        <title>{o.title}</title>
      </head>
      <body style="margin:0;padding:0;background:#f3f4f6">
        <table {...TABLE} width="100%" {...bg('#f3f4f6')} style="background:#f3f4f6">
          <tr>
            <td align="center" style="padding:24px 12px">
              <table {...TABLE} width="100%" {...bg('#ffffff')} style="max-width:600px;background:#ffffff;border-radius:8px">
                {header}
                <tr>
                  <td style={`padding:24px 32px;font:16px/1.55 ${FONT};color:#1f2937`}>
                    {o.body}
                  </td>
                </tr>
                {name && (
                  <tr>
                    <td style={`padding:16px 32px 24px;font:13px/1.5 ${FONT};color:#4b5563;border-top:1px solid #e5e7eb`}>
                      {o.brand?.home ? (
                        <a href={o.brand.home} style="color:#4b5563">
                          {name}
                        </a>
                      ) : (
                        name
                      )}
                    </td>
                  </tr>
                )}
              </table>
            </td>
          </tr>
        </table>
      </body>
    </html>
  );
  return '<!doctype html>' + renderToString(doc);
}

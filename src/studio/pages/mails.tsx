// "Preview the mails" (docs/studio.md): each mail a client or buyer gets, in the website's brand,
// drawn in sandboxed frames at a desktop mail program's width (600 px) and a phone's (375 px).
import { html, Layout, type Viewer } from './layout.js';

export interface MailPreviewProps {
  viewer: Viewer;
  urlname: string;
  siteTitle: string;
  kinds: Array<{ kind: string; label: string }>;
  kind: string;
  label: string;
  subject: string;
  text: string;
}

export function mailPreviewPage(p: MailPreviewProps): string {
  const src = `/studio/websites/${p.urlname}/mails/${p.kind}`;
  return html(
    <Layout title={`Mails of ${p.siteTitle}`} viewer={p.viewer} wide>
      <h1>Mails of {p.siteTitle}</h1>
      <p class="row">
        <a href={`/studio/websites/${p.urlname}`}>Website settings</a>
      </p>
      <p class="muted">What your clients and buyers receive, in your website’s title, logo and accent colour, with sample values. Mails to you stay in the service’s plain look.</p>
      <nav aria-label="Mails" class="mail-kinds">
        <ul>
          {p.kinds.map((k) => (
            <li>
              <a href={`/studio/websites/${p.urlname}/mails?kind=${k.kind}`} aria-current={k.kind === p.kind ? 'page' : undefined}>
                {k.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <h2>{p.label}</h2>
      <p>
        Subject: <strong>{p.subject}</strong>
      </p>
      <div class="mail-frames">
        <figure class="mail-desktop" tabIndex={0}>
          <figcaption>Desktop (600 px)</figcaption>
          <iframe src={src} sandbox="" title={`${p.label}, at desktop width`} width="600" height="720" loading="lazy"></iframe>
        </figure>
        <figure class="mail-phone" tabIndex={0}>
          <figcaption>Phone (375 px)</figcaption>
          <iframe src={src} sandbox="" title={`${p.label}, at phone width`} width="375" height="720" loading="lazy"></iframe>
        </figure>
      </div>
      <h2>Plain-text part</h2>
      <pre class="mail-text">{p.text}</pre>
    </Layout>,
  );
}

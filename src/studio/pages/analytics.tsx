// The photographer's analytics at a glance (docs/studio.md, "Analytics"): visits, downloads,
// favourites and selections per week as bar charts (SVG drawn on the server: no script, no
// third party), the most visited galleries and the photos clients chose most.
import type { Analytics, WeekFigures } from '../../activity/service.js';
import { html, Layout, type Viewer } from './layout.js';

type Measure = Exclude<keyof WeekFigures, 'start'>;
const MEASURES: Array<{ key: Measure; label: string; hint: string }> = [
  { key: 'visits', label: 'Visits', hint: 'gallery views, by clients and anonymous visitors' },
  { key: 'downloads', label: 'Downloads', hint: 'photos and whole galleries downloaded' },
  { key: 'favourites', label: 'Favourites', hint: 'photos clients marked as favourites' },
  { key: 'selections', label: 'Selections', hint: 'selections clients sent you' },
];
const W = 240;
const H = 72;

const shortDay = (day: string) => new Date(`${day}T00:00:00.000Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const number = (n: number) => n.toLocaleString('en-GB');

function Chart(p: { weeks: WeekFigures[]; measure: Measure; label: string }) {
  const values = p.weeks.map((w) => w[p.measure]);
  const max = Math.max(1, ...values);
  const step = W / values.length;
  const summary = p.weeks.map((w) => `week of ${shortDay(w.start)}: ${number(w[p.measure])}`).join('; ');
  return (
    <svg class="an-chart" viewBox={`0 0 ${W} ${H + 2}`} role="img" aria-label={`${p.label} per week: ${summary}`} preserveAspectRatio="none">
      <line class="an-axis" x1="0" y1={H + 1} x2={W} y2={H + 1} />
      {values.map((v, i) => {
        const h = v === 0 ? 0 : Math.max(2, Math.round((v / max) * H));
        return (
          <rect class={i === values.length - 1 ? 'an-bar an-now' : 'an-bar'} x={(i * step + step * 0.15).toFixed(1)} y={H - h} width={(step * 0.7).toFixed(1)} height={h}>
            <title>{`Week of ${shortDay(p.weeks[i]!.start)}: ${number(v)}`}</title>
          </rect>
        );
      })}
    </svg>
  );
}

export function analyticsPage(p: { viewer: Viewer; analytics: Analytics }): string {
  const { weeks, galleries, medias } = p.analytics;
  const first = weeks[0]!;
  const last = weeks[weeks.length - 1]!;
  return html(
    <Layout title="Analytics" viewer={p.viewer}>
      <h1>Analytics</h1>
      <p class="muted">
        The last {weeks.length} weeks on your websites, from {shortDay(first.start)}, counted from what your clients and visitors did. No cookies, nothing sent
        to anyone else.
      </p>
      <ul class="an-cards">
        {MEASURES.map((m) => {
          const total = weeks.reduce((n, w) => n + w[m.key], 0);
          return (
            <li class="card an-card">
              <h2>{m.label}</h2>
              <p class="an-hint muted">{m.hint}</p>
              <p class="an-total">
                <strong>{number(total)}</strong> <span class="muted">in {weeks.length} weeks</span>
              </p>
              <p class="an-now-text">
                This week: <strong>{number(last[m.key])}</strong>
              </p>
              <Chart weeks={weeks} measure={m.key} label={m.label} />
              <p class="an-range muted" aria-hidden="true">
                <span>{shortDay(first.start)}</span> <span>this week</span>
              </p>
            </li>
          );
        })}
      </ul>
      <div class="an-lists">
        <section class="card" aria-labelledby="an-galleries">
          <h2 id="an-galleries">Most visited galleries</h2>
          {galleries.length === 0 ? (
            <p class="muted">No visits yet in these weeks.</p>
          ) : (
            <ol class="an-rank">
              {galleries.map((g) => (
                <li>
                  <a href={`/studio/galleries/${g.uuid}`}>{g.name}</a> <span class="muted">{number(g.count)} {g.count === 1 ? 'visit' : 'visits'}</span>
                </li>
              ))}
            </ol>
          )}
        </section>
        <section class="card" aria-labelledby="an-photos">
          <h2 id="an-photos">Photos clients chose most</h2>
          {medias.length === 0 ? (
            <p class="muted">No favourites or downloads yet in these weeks.</p>
          ) : (
            <ol class="an-photos">
              {medias.map((m) => (
                <li>
                  <a href={`/studio/media/${m.uuid}`}>
                    <img src={`/studio/thumbs/${m.uuid}`} alt="" width={64} height={64} loading="lazy" decoding="async" />
                    <span class="an-photo-name">{m.title || m.file_name}</span>
                  </a>
                  <span class="muted">
                    {number(m.picks)} {m.picks === 1 ? 'favourite' : 'favourites'}, {number(m.downloads)} {m.downloads === 1 ? 'download' : 'downloads'}
                  </span>
                </li>
              ))}
            </ol>
          )}
        </section>
      </div>
      <details class="card">
        <summary>Figures week by week</summary>
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Figures week by week">
          <table id="an-weeks">
            <caption class="sr">Figures week by week</caption>
            <thead>
              <tr>
                <th scope="col">Week of</th>
                {MEASURES.map((m) => (
                  <th scope="col">{m.label}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {weeks.map((w) => (
                <tr>
                  <th scope="row">
                    <time dateTime={w.start}>{shortDay(w.start)}</time>
                  </th>
                  {MEASURES.map((m) => (
                    <td>{number(w[m.key])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </Layout>,
  );
}

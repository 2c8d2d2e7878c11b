// The user's jobs (batch updates, renditions…) with their state and progress. Without a
// script the page is reloaded by hand; with it (browser/jobs.js) the rows follow the queue.
import { studioScript } from '../assets.js';
import { html, Layout, type Viewer } from './layout.js';

export interface JobItem {
  uuid: string;
  kind: string;
  state: string;
  processed: number;
  failed: number;
  total: number;
  createdAt: string;
  errors: string[];
}

const JOBS_SCRIPT = studioScript('jobs');

/** What the list shows of a job's kind. */
export function kindText(kind: string): string {
  return kind.replace(/[_-]+/g, ' ');
}

export function jobsPage(p: { viewer: Viewer; jobs: JobItem[] }): string {
  return html(
    <Layout title="Jobs" viewer={p.viewer} scripts={[JOBS_SCRIPT]}>
      <h1>Jobs</h1>
      <p class="muted">Work the service does for you in the background: batch edits, previews of new uploads. Finished jobs are kept for a while.</p>
      {p.jobs.length === 0 ? (
        <p>No job lately.</p>
      ) : (
        <div class="card table-wrap" tabIndex={0} role="region" aria-label="Your latest jobs">
          <table id="jobs">
            <caption class="sr">Your latest jobs</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">State</th>
                <th scope="col">Progress</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {p.jobs.map((j) => (
                <tr data-job={j.uuid}>
                  <td>{kindText(j.kind)}</td>
                  <td class="state">
                    {j.state}
                    {j.failed > 0 ? <span class="tag off">{j.failed} failed</span> : null}
                  </td>
                  <td>
                    <progress max={Math.max(1, j.total)} value={j.processed + j.failed} aria-label={`Progress of ${kindText(j.kind)}, ${j.createdAt.slice(0, 16).replace('T', ' ')}`}>
                      {j.processed + j.failed} of {j.total}
                    </progress>{' '}
                    <span class="count">
                      {j.processed + j.failed} / {j.total}
                    </span>
                  </td>
                  <td>
                    <time dateTime={j.createdAt}>{j.createdAt.slice(0, 16).replace('T', ' ')}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p>
        <a href="/studio/jobs">Reload</a> <span class="muted" id="jobs-live"></span>
      </p>
    </Layout>,
  );
}

// The job list follows the queue: while a job waits or runs, the rows are refreshed from
// GET /studio/jobs.json every 2 s (5 s when the tab is hidden); a finished job is announced.
const table = document.getElementById('jobs');
const live = document.getElementById('jobs-live');
const ACTIVE = new Set(['queued', 'running']);
const rowOf = (uuid) => table?.querySelector(`tr[data-job="${CSS.escape(uuid)}"]`);

function active() {
  return [...(table?.querySelectorAll('tr[data-job] td.state') ?? [])].some((td) => ACTIVE.has(td.firstChild?.textContent?.trim() ?? ''));
}

function update(job) {
  const row = rowOf(job.uuid);
  if (!row) return false;
  const state = row.querySelector('td.state');
  const before = state.firstChild?.textContent?.trim();
  state.textContent = job.state;
  if (job.failed > 0) {
    const tag = document.createElement('span');
    tag.className = 'tag off';
    tag.textContent = `${job.failed} failed`;
    state.append(tag);
  }
  const bar = row.querySelector('progress');
  const done = job.processed + job.failed;
  bar.max = Math.max(1, job.total);
  bar.value = done;
  bar.textContent = `${done} of ${job.total}`;
  row.querySelector('.count').textContent = `${done} / ${job.total}`;
  if (ACTIVE.has(before) && !ACTIVE.has(job.state)) studio.announce(`${job.kind.replace(/[_-]+/g, ' ')}: ${job.state}.`);
  return true;
}

async function poll() {
  if (!table || !active()) {
    if (live) live.textContent = '';
    return;
  }
  if (live) live.textContent = 'Updating as the jobs run.';
  try {
    const { jobs } = await studio.get('/studio/jobs.json');
    // A job this page does not show yet (a new one): the page is reloaded to show it.
    if (jobs.some((j) => !update(j) && ACTIVE.has(j.state))) return location.reload();
  } catch {
    // A missed refresh is tried again at the next one.
  }
  setTimeout(poll, document.hidden ? 5000 : 2000);
}

setTimeout(poll, 2000);

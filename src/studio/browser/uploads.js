// The upload screen (pages/uploads.tsx): files and folders dropped or chosen are checked against
// the library (the content probe of src/uploads/probe.ts), then sent with tus three at a time,
// retried with backoff and resumed from the server's offset, also after a reload (the upload's
// address kept in localStorage under the file's fingerprint); each ends with the studio's own
// answer: a media, already in the library, or refused with the reason (docs/studio.md, "Uploads").
const PARALLEL = 3;
/** Bytes per PATCH request: a lost connection costs at most this much again, and proxies see bounded bodies. */
const CHUNK = 16 * 1024 * 1024;
const PROBE_WHOLE = 32 * 1024 * 1024;
const CHECK_BATCH = 500;
/** tus-js-client's own retries of a request, in ms: a few seconds offline, a restart of the service. */
const RETRY_DELAYS = [500, 1000, 2000, 3000, 5000, 8000, 13000, 20000, 30000, 30000, 30000, 30000];

/** The list's previews, in device pixels (3rem at 2x). */
const THUMB_PX = 96;
/** Larger files are not decoded for a preview: the browser would hold the whole bitmap for a moment. */
const THUMB_MAX_BYTES = 40 * 1024 * 1024;

const $ = (id) => document.getElementById(id);
const gallerySelect = $('up-gallery');
const drop = $('up-drop');
const queueList = $('up-queue');
const overall = $('up-overall');
const summary = $('up-summary');

/** Every file of this page: { file, el, bar, status, state, sent, upload, id }. */
const items = [];
let running = 0;

const LABELS = {
  checking: 'Checking…',
  queued: 'Queued',
  waiting: 'Waiting',
  uploading: 'Uploading',
  offline: 'Connection lost: waiting to resume',
  processing: 'Processing…',
  done: 'Done',
  duplicate: 'Already in the library: skipped',
  refused: 'Refused',
};

function humanSize(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} kB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

function setState(item, state, detail) {
  item.state = state;
  item.el.dataset.state = state;
  let text = LABELS[state];
  // Why a queued file waits: the screen sends PARALLEL at once.
  if (state === 'queued' && running >= PARALLEL) text = `Waiting: ${PARALLEL} uploads at once`;
  if (state === 'uploading') text = `Uploading ${Math.floor((item.sent / item.file.size) * 100)}%`;
  if (detail) text = `${text}: ${detail}`;
  item.status.textContent = text;
  if (state === 'done' || state === 'duplicate') item.sent = item.file.size;
  item.bar.value = Math.floor((item.sent / item.file.size) * 100);
  render();
}

function render() {
  const total = items.reduce((n, i) => n + i.file.size, 0);
  const sent = items.reduce((n, i) => n + (i.state === 'refused' ? i.file.size : i.sent), 0);
  overall.value = total ? Math.floor((sent / total) * 100) : 0;
  const count = (s) => items.filter((i) => i.state === s).length;
  const finished = count('done') + count('duplicate') + count('refused');
  const parts = [`${finished} of ${items.length} finished`];
  if (count('duplicate')) parts.push(`${count('duplicate')} already in the library`);
  if (count('refused')) parts.push(`${count('refused')} refused`);
  if (count('offline')) parts.push('waiting for the connection');
  if (count('waiting')) parts.push(`${count('waiting')} held back by the studio's upload budget`);
  summary.textContent = parts.join(', ');
}

function addItem(file, path) {
  const el = document.createElement('li');
  const name = document.createElement('span');
  name.className = 'up-name';
  name.textContent = path || file.name;
  const size = document.createElement('span');
  size.className = 'up-size muted';
  size.textContent = humanSize(file.size);
  const bar = document.createElement('progress');
  bar.max = 100;
  bar.value = 0;
  bar.setAttribute('aria-label', `Upload of ${path || file.name}`);
  const status = document.createElement('span');
  status.className = 'up-status';
  // A small preview, drawn when the file's upload starts (PARALLEL decodes at most, never the whole list at once).
  const thumb = document.createElement('canvas');
  thumb.className = 'up-thumb';
  thumb.width = THUMB_PX;
  thumb.height = THUMB_PX;
  thumb.setAttribute('aria-hidden', 'true');
  el.append(thumb, name, size, bar, status);
  queueList.append(el);
  const item = { file, path: path || file.name, el, thumb, bar, status, state: 'checking', sent: 0, upload: null, id: null, attempts: 0, drawn: false };
  items.push(item);
  setState(item, 'checking');
  return item;
}

function hex(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The file's content probe, as src/uploads/probe.ts computes it, for a file it hashes whole (up to
 * 32 MiB); null for a larger one, whose sampled probe proves nothing (the server compares every
 * byte at the end), and where WebCrypto is missing (a page not served securely).
 */
async function probeOf(file) {
  if (!globalThis.crypto?.subtle || file.size > PROBE_WHOLE) return null;
  return `w:${hex(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()))}`;
}

/** Skips what the library already holds; the rest is queued. A failed check only costs the skip: the server checks again at the end. */
async function check(batch) {
  const probes = [];
  for (const item of batch) probes.push(item.file.size > 0 ? await probeOf(item.file).catch(() => null) : null);
  const asked = batch.map((item, i) => ({ item, probe: probes[i] })).filter((x) => x.probe);
  for (let i = 0; i < asked.length; i += CHECK_BATCH) {
    const part = asked.slice(i, i + CHECK_BATCH);
    try {
      const answer = await studio.send('POST', '/studio/uploads/check', { files: part.map((x) => ({ size: x.item.file.size, probe: x.probe })) });
      part.forEach((x, j) => {
        if (answer.media?.[j]) setState(x.item, 'duplicate');
      });
    } catch {
      /* uploaded, then recognised by the server */
    }
  }
  for (const item of batch) if (item.state === 'checking') setState(item, 'queued');
  pump();
}

function pump() {
  while (running < PARALLEL) {
    const next = items.find((i) => i.state === 'queued');
    if (!next) break;
    running++;
    send(next).finally(() => {
      running--;
      pump();
      if (items.every((i) => ['done', 'duplicate', 'refused'].includes(i.state))) studio.announce(`All uploads finished. ${summary.textContent}.`);
    });
  }
  relabelQueued();
}

/** The queued files say why they wait (the number of uploads at once), or no longer wait. */
function relabelQueued() {
  const text = running >= PARALLEL ? `Waiting: ${PARALLEL} uploads at once` : LABELS.queued;
  for (const i of items) if (i.state === 'queued' && i.status.textContent !== text) i.status.textContent = text;
}

/** Network failures and the service's own trouble are retried; a refusal (4xx but a conflict or a lock) is final. */
function retryable(err) {
  const status = err?.originalResponse?.getStatus?.() ?? 0;
  return status === 0 || status >= 500 || status === 409 || status === 423 || status === 429;
}

const onlineAgain = () => (navigator.onLine ? Promise.resolve() : new Promise((resolve) => window.addEventListener('online', () => resolve(), { once: true })));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function refusalOf(err) {
  const body = err?.originalResponse?.getBody?.();
  return (typeof body === 'string' && body.trim()) || err?.message || 'the upload failed';
}

/** Draws the file's preview, centred and cropped to the square; a file the browser cannot decode keeps the grey box. */
async function drawThumb(item) {
  if (item.drawn || !/^image\/(jpeg|png|webp|gif|avif)$/.test(item.file.type) || item.file.size > THUMB_MAX_BYTES || !window.createImageBitmap) return;
  item.drawn = true;
  try {
    const bitmap = await createImageBitmap(item.file);
    const side = Math.min(bitmap.width, bitmap.height);
    const ctx = item.thumb.getContext('2d');
    ctx.drawImage(bitmap, (bitmap.width - side) / 2, (bitmap.height - side) / 2, side, side, 0, 0, THUMB_PX, THUMB_PX);
    bitmap.close();
  } catch {
    /* not an image the browser reads: the server decides what it is */
  }
}

/** One file: tus until every byte is there (resuming a previous upload of it), then the studio's outcome. */
async function send(item) {
  const gallery = gallerySelect.value;
  drawThumb(item);
  setState(item, 'uploading');
  for (;;) {
    try {
      if (!item.upload) item.upload = await prepare(item, gallery);
      await new Promise((resolve, reject) => {
        item.upload.options.onSuccess = resolve;
        item.upload.options.onError = reject;
        item.upload.start();
      });
      break;
    } catch (err) {
      if (!retryable(err)) return setState(item, 'refused', refusalOf(err));
      item.attempts++;
      if (err?.originalResponse?.getStatus?.() === 429) setState(item, 'waiting', refusalOf(err).replace(/^waiting: /, ''));
      else setState(item, 'offline');
      await onlineAgain();
      await sleep(Math.min(30000, 500 * 2 ** Math.min(item.attempts, 6)));
      setState(item, 'uploading');
    }
  }
  item.id = item.upload.url.split('/').pop();
  setState(item, 'processing');
  for (let attempt = 0; ; attempt++) {
    try {
      const outcome = await studio.send('POST', '/studio/uploads/finish', { id: item.id });
      if (outcome.state === 'done') return setState(item, 'done');
      if (outcome.state === 'duplicate') return setState(item, 'duplicate');
      if (outcome.state === 'refused') return setState(item, 'refused', outcome.reason);
      // Another request is ending it right now: ask again shortly.
    } catch (err) {
      if (err.status && err.status < 500 && err.status !== 429) return setState(item, 'refused', err.message);
      if (!err.status) {
        // No answer at all: the connection.
        setState(item, 'offline');
        await onlineAgain();
        setState(item, 'processing');
      }
    }
    await sleep(Math.min(10000, 500 * 2 ** Math.min(attempt, 5)));
  }
}

async function prepare(item, gallery) {
  const upload = new tus.Upload(item.file, {
    endpoint: '/studio/uploads/tus',
    chunkSize: CHUNK,
    retryDelays: RETRY_DELAYS,
    headers: { 'X-Studio-CSRF': studio.csrf() },
    metadata: { filename: item.file.name, filetype: item.file.type, ...(gallery ? { gallery } : {}) },
    // The same file for the same gallery resumes; for another gallery it is another upload.
    fingerprint: async (file) => ['studio', file.name, file.type, file.size, file.lastModified, gallery].join('/'),
    storeFingerprintForResuming: true,
    removeFingerprintOnSuccess: true,
    onShouldRetry: (err) => {
      // The studio's budget said wait (429): the list says why, and tus-js-client tries again after its delay.
      if (err?.originalResponse?.getStatus?.() === 429) setState(item, 'waiting', refusalOf(err).replace(/^waiting: /, ''));
      return retryable(err) && navigator.onLine !== false;
    },
    onProgress: (sent) => {
      item.sent = sent;
      if (item.state === 'uploading' || item.state === 'offline' || item.state === 'waiting') setState(item, 'uploading');
    },
  });
  const previous = await upload.findPreviousUploads();
  if (previous.length) upload.resumeFromPreviousUpload(previous[0]);
  return upload;
}

/** Files of a dropped folder, read through its entries (webkitGetAsEntry), with their paths. */
async function filesOfEntry(entry, prefix, out) {
  if (entry.isFile) {
    const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
    out.push({ file, path: prefix + file.name });
    return;
  }
  if (!entry.isDirectory) return;
  const reader = entry.createReader();
  // readEntries answers in batches until an empty one.
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) break;
    for (const child of batch) await filesOfEntry(child, `${prefix}${entry.name}/`, out);
  }
}

const wanted = (f) => !f.file.name.startsWith('.');

function accept(found) {
  const batch = found.filter(wanted).map((f) => addItem(f.file, f.path));
  if (!batch.length) return;
  $('up-progress').hidden = false;
  studio.announce(`${batch.length} files added.`);
  check(batch);
}

for (const input of [$('up-files'), $('up-folder')]) {
  input.addEventListener('change', () => {
    accept([...input.files].map((file) => ({ file, path: file.webkitRelativePath || file.name })));
    input.value = '';
  });
}

drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('up-over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('up-over'));
drop.addEventListener('drop', async (e) => {
  e.preventDefault();
  drop.classList.remove('up-over');
  const dt = e.dataTransfer;
  if (!dt) return;
  const entries = [...(dt.items ?? [])].map((i) => (i.kind === 'file' && i.webkitGetAsEntry ? i.webkitGetAsEntry() : null));
  if (entries.length && entries.every(Boolean)) {
    const found = [];
    for (const entry of entries) await filesOfEntry(entry, '', found);
    accept(found);
  } else {
    accept([...dt.files].map((file) => ({ file, path: file.name })));
  }
});
// A drop beside the zone must not open the file in the tab (and lose the uploads).
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => e.preventDefault());

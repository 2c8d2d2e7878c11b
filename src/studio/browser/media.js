// The media library's script (after common.js): the page works as forms; this turns its grid
// into a virtualised one over the whole scope (only the visible rows and half a screen above
// and below are in the DOM, thumbnails asked for once scrolling pauses), adds the selection
// (click, shift-click, ctrl/cmd-click, select all, arrows, space, shift+arrows), sends the batch
// edit as JSON and follows its job until it completes, and orders a manual gallery by drag and
// drop or by "Move earlier/later".

const PAGE = 200;
/** Where a thumbnail's request waits for scrolling to pause, so a fling asks for none of the rows it passes. */
const SETTLE_MS = 150;
/** Thumbnail requests of ours in flight at once, at most. */
const LOADING = 12;
const MIN_CELL = 168;
const CAPTION = 30;
/** Room for two lines of a client's note in a selection's cells. */
const NOTE = 36;

const wrap = document.getElementById('grid-wrap');
const jobBox = document.getElementById('job');
if (wrap) grid(wrap);
if (jobBox && !['done', 'failed'].includes(jobBox.dataset.state)) followJob(jobBox.dataset.job);

function jobSection() {
  let box = document.getElementById('job');
  if (!box) {
    box = document.createElement('section');
    box.id = 'job';
    box.className = 'card job';
    box.setAttribute('aria-labelledby', 'job-title');
    const h = document.createElement('h2');
    h.id = 'job-title';
    h.textContent = 'Batch edit';
    const p = document.createElement('p');
    const progress = document.createElement('progress');
    progress.id = 'job-progress';
    progress.setAttribute('aria-labelledby', 'job-title job-text');
    const text = document.createElement('span');
    text.id = 'job-text';
    text.setAttribute('role', 'status');
    p.append(progress, ' ', text);
    box.append(h, p);
    const form = document.getElementById('batch');
    form.parentNode.insertBefore(box, form);
  }
  return box;
}

function showJob(view) {
  const box = jobSection();
  box.dataset.state = view.state;
  const progress = document.getElementById('job-progress');
  progress.max = Math.max(1, view.total);
  progress.value = view.processed;
  const label = view.state === 'done' ? 'Done' : view.state === 'failed' ? 'Failed' : view.state === 'queued' ? 'Waiting' : 'Working';
  document.getElementById('job-text').textContent = `${label}: ${view.processed} of ${view.total} medias${view.failed ? `, ${view.failed} no longer there` : ''}.`;
  for (const a of box.querySelectorAll('a')) a.remove();
}

/** Polls the job until it is done or failed; resolves with its last view. */
async function followJob(uuid) {
  let delay = 200;
  for (;;) {
    const view = await studio.get(`/studio/media/jobs/${uuid}`);
    showJob(view);
    if (view.state === 'done' || view.state === 'failed') {
      studio.announce(view.state === 'done' ? `Batch edit done: ${view.processed} medias.` : 'The batch edit failed.');
      return view;
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(1000, delay * 1.3);
  }
}

function grid(wrap) {
  const gallery = wrap.dataset.gallery || '';
  // A collection or a client's selection: the grid and "select all" stay within it.
  const group = wrap.dataset.group || '';
  const lightbox = wrap.dataset.lightbox || '';
  // A selection's cells hold the client's note under the caption.
  const captionH = lightbox ? CAPTION + NOTE : CAPTION;
  const manual = wrap.dataset.manual === '1';
  let total = Number(wrap.dataset.total) || 0;
  const form = document.getElementById('batch');
  const countOut = document.getElementById('selected-count');
  const selectAll = document.getElementById('select-all');
  const message = document.getElementById('batch-message');

  // The forms' page gives way to the virtualised grid.
  for (const el of wrap.querySelectorAll('#grid-static, .pager')) el.hidden = true;
  for (const el of document.querySelectorAll('.js-only')) el.classList.add('on');

  const box = document.createElement('div');
  box.id = 'grid';
  box.className = 'vgrid';
  box.setAttribute('role', 'listbox');
  box.setAttribute('aria-multiselectable', 'true');
  box.setAttribute('aria-label', 'Medias (arrows move, space selects, shift extends, Enter opens)');
  box.tabIndex = 0;
  const space = document.createElement('div');
  space.className = 'vgrid-space';
  box.append(space);
  wrap.append(box);

  const pages = new Map(); // page number → items, or a promise of them
  const cells = new Map(); // index → element
  let selected = new Set();
  let all = false;
  let anchor = null;
  let focus = 0;
  let cols = 1;
  let cellW = MIN_CELL;
  let rowH = MIN_CELL + captionH;
  let settle = 0;
  let dragging = null;
  let queue = [];

  const itemAt = (i) => {
    const page = pages.get(Math.floor(i / PAGE));
    return Array.isArray(page) ? page[i % PAGE] : undefined;
  };
  const isSelected = (i) => all || selected.has(i);
  const count = () => (all ? total : selected.size);

  function load(p) {
    if (pages.has(p)) return pages.get(p);
    const params = new URLSearchParams({ offset: String(p * PAGE), limit: String(PAGE) });
    if (gallery) params.set('gallery', gallery);
    if (group) params.set('group', group);
    if (lightbox) params.set('lightbox', lightbox);
    const promise = studio.get(`/studio/media/items.json?${params}`).then(
      (data) => {
        pages.set(p, data.items);
        if (data.total !== total) {
          total = data.total;
          layout();
        }
        render();
        return data.items;
      },
      (err) => {
        pages.delete(p);
        throw err;
      },
    );
    pages.set(p, promise);
    return promise;
  }

  async function uuidsOf(indices) {
    const needed = new Set(indices.map((i) => Math.floor(i / PAGE)));
    await Promise.all([...needed].map((p) => load(p)));
    return indices.map((i) => itemAt(i)?.uuid).filter(Boolean);
  }

  function layout() {
    const width = box.clientWidth || 320;
    cols = Math.max(2, Math.floor(width / MIN_CELL));
    cellW = Math.floor(width / cols);
    rowH = cellW + captionH;
    space.style.height = `${Math.ceil(total / cols) * rowH}px`;
    for (const el of cells.values()) {
      drop(el.firstChild);
      el.remove();
    }
    cells.clear();
    render();
  }

  function label(item, i) {
    return item ? item.title || item.name : `Media ${i + 1} (loading)`;
  }

  function paint(el, i) {
    const item = itemAt(i);
    el.setAttribute('aria-selected', isSelected(i) ? 'true' : 'false');
    el.tabIndex = i === focus ? 0 : -1;
    const cap = el.children[1];
    cap.textContent = label(item, i);
    if (lightbox) {
      // Two lines in the cell; the whole note on hover.
      el.lastChild.textContent = item?.note ? `Note: ${item.note}` : '';
      el.lastChild.title = item?.note ?? '';
    }
    const img = el.firstChild;
    if (item && item.uuid !== el.dataset.uuid) {
      el.dataset.uuid = item.uuid;
      drop(img);
      img.dataset.src = item.thumb ? `/studio/thumbs/${item.uuid}` : '';
    }
  }

  function cell(i) {
    const el = document.createElement('div');
    el.className = 'vcell';
    el.id = `m-${i}`;
    el.setAttribute('role', 'option');
    el.setAttribute('aria-posinset', String(i + 1));
    el.setAttribute('aria-setsize', String(total));
    el.dataset.index = String(i);
    el.draggable = manual;
    el.style.width = `${cellW}px`;
    el.style.height = `${rowH}px`;
    el.style.transform = `translate(${(i % cols) * cellW}px, ${Math.floor(i / cols) * rowH}px)`;
    const img = document.createElement('img');
    img.alt = '';
    img.decoding = 'async';
    img.draggable = false;
    img.style.height = `${cellW - 12}px`;
    const cap = document.createElement('span');
    cap.className = 'cap';
    el.append(img, cap);
    if (lightbox) {
      const note = document.createElement('span');
      note.className = 'note';
      el.append(note);
    }
    paint(el, i);
    return el;
  }

  /** The rows in view, half a screen above and below: one screenful of overscan in all. */
  function range() {
    const rows = Math.ceil(total / cols);
    const inView = Math.ceil(box.clientHeight / rowH) + 1;
    const extra = Math.ceil(inView / 2);
    const first = Math.floor(box.scrollTop / rowH);
    const from = Math.max(0, first - extra);
    const to = Math.min(rows, first + inView + extra);
    return [from * cols, Math.min(total, to * cols)];
  }

  function render() {
    const [from, to] = range();
    for (const [i, el] of cells) {
      if (i < from || i >= to) {
        // Out of the window: its thumbnail's request (if any) is cancelled with the element.
        drop(el.firstChild);
        el.remove();
        cells.delete(i);
      }
    }
    const fresh = document.createDocumentFragment();
    for (let i = from; i < to; i++) {
      const el = cells.get(i);
      if (el) paint(el, i);
      else {
        const made = cell(i);
        cells.set(i, made);
        fresh.append(made);
      }
    }
    box.append(fresh);
    for (let p = Math.floor(from / PAGE); p <= Math.floor(Math.max(from, to - 1) / PAGE); p++) if (!pages.has(p) && from < to) load(p).catch(() => {});
    // Still moving: what waited to load waits for the next pause (in the window it will then show).
    queue = [];
    clearTimeout(settle);
    settle = setTimeout(thumbs, SETTLE_MS);
  }

  // Thumbnails load a few at a time, those in the window only: a cell that leaves it gives up its
  // turn (and its request), so a long scroll never has more than LOADING requests of ours in flight.
  let loading = 0;
  function thumbs() {
    queue = [...cells.values()].map((el) => el.firstChild).filter((img) => img.dataset.src && !img.getAttribute('src'));
    pump();
  }
  function pump() {
    while (loading < LOADING && queue.length) {
      const img = queue.shift();
      if (!img.isConnected || img.getAttribute('src') || !img.dataset.src) continue;
      loading++;
      img.dataset.loading = '1';
      const done = () => {
        if (img.dataset.loading !== '1') return;
        delete img.dataset.loading;
        loading--;
        pump();
      };
      img.addEventListener('load', done, { once: true });
      img.addEventListener('error', done, { once: true });
      img.src = img.dataset.src;
    }
  }
  /** A cell leaves the window: its thumbnail's request is cancelled and its turn given back. */
  function drop(img) {
    img.removeAttribute('src');
    if (img.dataset.loading === '1') {
      delete img.dataset.loading;
      loading--;
    }
  }

  function updateCount() {
    countOut.value = `${count()} selected`;
    countOut.textContent = `${count()} selected`;
    selectAll.checked = all;
  }

  function setFocus(i, scroll = true) {
    focus = Math.max(0, Math.min(total - 1, i));
    if (scroll) {
      const top = Math.floor(focus / cols) * rowH;
      if (top < box.scrollTop) box.scrollTop = top;
      else if (top + rowH > box.scrollTop + box.clientHeight) box.scrollTop = top + rowH - box.clientHeight;
    }
    render();
    const el = cells.get(focus);
    if (el) el.focus({ preventScroll: true });
  }

  function rangeSet(a, b) {
    const s = new Set();
    for (let i = Math.min(a, b); i <= Math.max(a, b); i++) s.add(i);
    return s;
  }

  function choose(i, e) {
    if (e.shiftKey && anchor !== null) {
      const span = rangeSet(anchor, i);
      selected = e.ctrlKey || e.metaKey ? new Set([...(all ? [] : selected), ...span]) : span;
    } else if (e.ctrlKey || e.metaKey) {
      if (all) selected = new Set();
      if (selected.has(i)) selected.delete(i);
      else selected.add(i);
      anchor = i;
    } else {
      selected = new Set([i]);
      anchor = i;
    }
    all = false;
    updateCount();
    setFocus(i, false);
  }

  box.addEventListener('scroll', () => render(), { passive: true });
  new ResizeObserver(() => layout()).observe(box);

  box.addEventListener('click', (e) => {
    const el = e.target.closest('.vcell');
    if (el) choose(Number(el.dataset.index), e);
  });
  box.addEventListener('dblclick', (e) => {
    const el = e.target.closest('.vcell');
    const item = el && itemAt(Number(el.dataset.index));
    if (item) location.href = `/studio/media/${item.uuid}`;
  });
  box.addEventListener('focus', (e) => {
    if (e.target === box && total > 0) setFocus(focus);
  });
  box.addEventListener('keydown', (e) => {
    if (total === 0) return;
    const moves = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: cols, ArrowUp: -cols, Home: -Infinity, End: Infinity, PageDown: cols * Math.max(1, Math.floor(box.clientHeight / rowH)), PageUp: -cols * Math.max(1, Math.floor(box.clientHeight / rowH)) };
    if (e.key in moves) {
      e.preventDefault();
      const step = moves[e.key];
      const next = step === -Infinity ? 0 : step === Infinity ? total - 1 : Math.max(0, Math.min(total - 1, focus + step));
      if (e.shiftKey) {
        if (anchor === null) anchor = focus;
        selected = rangeSet(anchor, next);
        all = false;
        updateCount();
      }
      setFocus(next);
    } else if (e.key === ' ') {
      e.preventDefault();
      choose(focus, { ctrlKey: true, shiftKey: false });
      studio.announce(`${label(itemAt(focus), focus)} ${isSelected(focus) ? 'selected' : 'not selected'}; ${count()} selected.`);
    } else if ((e.key === 'a' || e.key === 'A') && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      all = true;
      updateCount();
      render();
    } else if (e.key === 'Enter') {
      const item = itemAt(focus);
      if (item) location.href = `/studio/media/${item.uuid}`;
    }
  });

  selectAll.addEventListener('change', () => {
    all = selectAll.checked;
    if (!all) selected = new Set();
    updateCount();
    render();
    studio.announce(all ? `All ${total} selected.` : 'Selection cleared.');
  });
  document.getElementById('select-none').addEventListener('click', () => {
    all = false;
    selected = new Set();
    updateCount();
    render();
    studio.announce('Selection cleared.');
  });

  function reload() {
    pages.clear();
    for (const el of cells.values()) {
      drop(el.firstChild);
      el.remove();
    }
    cells.clear();
    load(0).then(() => layout(), () => {});
  }

  async function selection() {
    if (all) return { all: true, count: total };
    const indices = [...selected].sort((a, b) => a - b);
    return { media: await uuidsOf(indices) };
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const deleting = e.submitter && e.submitter.name === 'delete';
    if (count() === 0) {
      message.textContent = 'Select at least one media first.';
      return;
    }
    if (deleting && !document.getElementById('confirm-delete').checked) {
      message.textContent = 'Tick "Yes, delete the selected medias" to delete them.';
      return;
    }
    const data = new FormData(form);
    const body = { ...(await selection()), gallery: gallery || undefined, group: group || undefined, lightbox: lightbox || undefined };
    // The form's own names: the studio reads the script's JSON and the form alike.
    if (deleting) Object.assign(body, { delete: true, confirm_delete: 'yes' });
    else {
      for (const k of ['title', 'description', 'location', 'keywords', 'publish', 'unpublish']) if (data.get(k)) body[k] = String(data.get(k));
      body.keywords_mode = String(data.get('keywords_mode') || 'add');
    }
    message.textContent = 'Sending…';
    try {
      const r = await studio.send('POST', '/studio/media/batch', body);
      message.textContent = `${deleting ? 'Deleting' : 'Editing'} ${r.count} medias…`;
      showJob({ ...r.job, total: r.count });
      const done = await followJob(r.job.uuid);
      message.textContent = done.state === 'done' ? `${deleting ? 'Deleted' : 'Edited'} ${done.processed} medias.` : 'The batch edit failed.';
      if (deleting) {
        all = false;
        selected = new Set();
        updateCount();
      }
      reload();
    } catch (err) {
      message.textContent = err.message;
    }
  });

  // ---- the manual order: drag and drop, or move earlier/later (the keyboard's way)
  async function move(indices, beforeIndex) {
    const [medias, before] = await Promise.all([uuidsOf(indices), beforeIndex === null || beforeIndex >= total ? [] : uuidsOf([beforeIndex])]);
    await studio.send('POST', '/studio/media/move', { gallery, media: medias, before: before[0] ?? null });
  }

  async function step(direction) {
    const indices = all ? [] : [...(selected.size ? selected : new Set([focus]))].sort((a, b) => a - b);
    if (indices.length === 0) return;
    const first = indices[0];
    const last = indices[indices.length - 1];
    if ((direction < 0 && first === 0) || (direction > 0 && last >= total - 1)) return;
    try {
      await move(indices, direction < 0 ? first - 1 : last + 2 < total ? last + 2 : null);
      const shifted = new Set(indices.map((i) => i + direction));
      if (last - first + 1 === indices.length) {
        selected = shifted;
        anchor = anchor === null ? null : anchor + direction;
      } else selected = new Set();
      updateCount();
      focus = Math.max(0, Math.min(total - 1, focus + direction));
      reload();
      studio.announce(`Moved ${direction < 0 ? 'earlier' : 'later'}.`);
      setFocus(focus);
    } catch (err) {
      message.textContent = err.message;
    }
  }
  if (manual) {
    document.getElementById('move-earlier').addEventListener('click', () => step(-1));
    document.getElementById('move-later').addEventListener('click', () => step(1));
    box.addEventListener('dragstart', (e) => {
      const el = e.target.closest('.vcell');
      if (!el) return;
      const i = Number(el.dataset.index);
      dragging = !all && selected.has(i) ? [...selected].sort((a, b) => a - b) : [i];
      e.dataTransfer.effectAllowed = 'move';
      e.dataTransfer.setData('text/plain', String(i));
    });
    box.addEventListener('dragover', (e) => {
      if (dragging && e.target.closest('.vcell')) e.preventDefault();
    });
    box.addEventListener('drop', async (e) => {
      const el = e.target.closest('.vcell');
      if (!dragging || !el) return;
      e.preventDefault();
      const i = Number(el.dataset.index);
      const rect = el.getBoundingClientRect();
      let before = e.clientX > rect.left + rect.width / 2 ? i + 1 : i;
      const moving = dragging;
      dragging = null;
      // Dropped on one of those moved: before the first one that is not.
      while (moving.includes(before)) before++;
      try {
        await move(moving, before < total ? before : null);
        selected = new Set();
        updateCount();
        reload();
        studio.announce(`Moved ${moving.length} ${moving.length === 1 ? 'media' : 'medias'}.`);
      } catch (err) {
        message.textContent = err.message;
      }
    });
    box.addEventListener('dragend', () => (dragging = null));
  }

  updateCount();
  layout();
  load(0).catch((err) => (message.textContent = err.message));
}

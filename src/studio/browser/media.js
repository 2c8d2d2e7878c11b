// The media library's script (after common.js): the page works as forms; this makes its grid a
// virtualised one over the whole scope (the visible rows and half a screen around them in the
// DOM, thumbnails once scrolling pauses), adds the selection (click, shift/ctrl-click, select
// all, arrows, space), sends the batch edit as JSON by the form's names and follows its job,
// and orders a manual gallery by drag and drop or "Move earlier/later".

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

/** The virtualised grid: its state and DOM, its selection, the batch form and the manual order. */
class Grid {
  constructor(wrap) {
    this.gallery = wrap.dataset.gallery || '';
    // A collection or a client's selection: the grid and "select all" stay within it.
    this.group = wrap.dataset.group || '';
    this.lightbox = wrap.dataset.lightbox || '';
    // A selection's cells hold the client's note under the caption.
    this.captionH = this.lightbox ? CAPTION + NOTE : CAPTION;
    this.manual = wrap.dataset.manual === '1';
    this.total = Number(wrap.dataset.total) || 0;
    this.form = document.getElementById('batch');
    this.countOut = document.getElementById('selected-count');
    this.selectAll = document.getElementById('select-all');
    this.message = document.getElementById('batch-message');

    // The forms' page gives way to the virtualised grid.
    for (const el of wrap.querySelectorAll('#grid-static, .pager')) el.hidden = true;
    for (const el of document.querySelectorAll('.js-only')) el.classList.add('on');

    this.box = document.createElement('div');
    this.box.id = 'grid';
    this.box.className = 'vgrid';
    this.box.setAttribute('role', 'listbox');
    this.box.setAttribute('aria-multiselectable', 'true');
    this.box.setAttribute('aria-label', 'Medias (arrows move, space selects, shift extends, Enter opens)');
    this.box.tabIndex = 0;
    this.space = document.createElement('div');
    this.space.className = 'vgrid-space';
    this.box.append(this.space);
    wrap.append(this.box);

    this.pages = new Map(); // page number → items, or a promise of them
    this.cells = new Map(); // index → element
    this.selected = new Set();
    this.all = false;
    this.anchor = null;
    this.focus = 0;
    this.cols = 1;
    this.cellW = MIN_CELL;
    this.rowH = MIN_CELL + this.captionH;
    this.settle = 0;
    this.dragging = null;
    this.queue = [];
    this.loading = 0;

    this.listen();
    this.listenBatch();
    if (this.manual) this.listenOrder();
    this.updateCount();
    this.layout();
    this.load(0).catch((err) => (this.message.textContent = err.message));
  }

  itemAt(i) {
    const page = this.pages.get(Math.floor(i / PAGE));
    return Array.isArray(page) ? page[i % PAGE] : undefined;
  }

  isSelected(i) {
    return this.all || this.selected.has(i);
  }

  count() {
    return (this.all ? this.total : this.selected.size);
  }

  load(p) {
    if (this.pages.has(p)) return this.pages.get(p);
    const params = new URLSearchParams({ offset: String(p * PAGE), limit: String(PAGE) });
    if (this.gallery) params.set('gallery', this.gallery);
    if (this.group) params.set('group', this.group);
    if (this.lightbox) params.set('lightbox', this.lightbox);
    const promise = studio.get(`/studio/media/items.json?${params}`).then(
      (data) => {
        this.pages.set(p, data.items);
        if (data.total !== this.total) {
          this.total = data.total;
          this.layout();
        }
        this.render();
        return data.items;
      },
      (err) => {
        this.pages.delete(p);
        throw err;
      },
    );
    this.pages.set(p, promise);
    return promise;
  }

  async uuidsOf(indices) {
    const needed = new Set(indices.map((i) => Math.floor(i / PAGE)));
    await Promise.all([...needed].map((p) => this.load(p)));
    return indices.map((i) => this.itemAt(i)?.uuid).filter(Boolean);
  }

  layout() {
    const width = this.box.clientWidth || 320;
    this.cols = Math.max(2, Math.floor(width / MIN_CELL));
    this.cellW = Math.floor(width / this.cols);
    this.rowH = this.cellW + this.captionH;
    this.space.style.height = `${Math.ceil(this.total / this.cols) * this.rowH}px`;
    for (const el of this.cells.values()) {
      this.drop(el.firstChild);
      el.remove();
    }
    this.cells.clear();
    this.render();
  }

  label(item, i) {
    return item ? item.title || item.name : `Media ${i + 1} (loading)`;
  }

  paint(el, i) {
    const item = this.itemAt(i);
    el.setAttribute('aria-selected', this.isSelected(i) ? 'true' : 'false');
    el.tabIndex = i === this.focus ? 0 : -1;
    const cap = el.children[1];
    cap.textContent = this.label(item, i);
    if (this.lightbox) {
      // Two lines in the cell; the whole note on hover.
      el.lastChild.textContent = item?.note ? `Note: ${item.note}` : '';
      el.lastChild.title = item?.note ?? '';
    }
    const img = el.firstChild;
    if (item && item.uuid !== el.dataset.uuid) {
      el.dataset.uuid = item.uuid;
      this.drop(img);
      img.dataset.src = item.thumb ? `/studio/thumbs/${item.uuid}` : '';
    }
  }

  cell(i) {
    const el = document.createElement('div');
    el.className = 'vcell';
    el.id = `m-${i}`;
    el.setAttribute('role', 'option');
    el.setAttribute('aria-posinset', String(i + 1));
    el.setAttribute('aria-setsize', String(this.total));
    el.dataset.index = String(i);
    el.draggable = this.manual;
    el.style.width = `${this.cellW}px`;
    el.style.height = `${this.rowH}px`;
    el.style.transform = `translate(${(i % this.cols) * this.cellW}px, ${Math.floor(i / this.cols) * this.rowH}px)`;
    const img = document.createElement('img');
    img.alt = '';
    img.decoding = 'async';
    img.draggable = false;
    img.style.height = `${this.cellW - 12}px`;
    const cap = document.createElement('span');
    cap.className = 'cap';
    el.append(img, cap);
    if (this.lightbox) {
      const note = document.createElement('span');
      note.className = 'note';
      el.append(note);
    }
    this.paint(el, i);
    return el;
  }

  /** The rows in view, half a screen above and below: one screenful of overscan in all. */
  range() {
    const rows = Math.ceil(this.total / this.cols);
    const inView = Math.ceil(this.box.clientHeight / this.rowH) + 1;
    const extra = Math.ceil(inView / 2);
    const first = Math.floor(this.box.scrollTop / this.rowH);
    const from = Math.max(0, first - extra);
    const to = Math.min(rows, first + inView + extra);
    return [from * this.cols, Math.min(this.total, to * this.cols)];
  }

  render() {
    const [from, to] = this.range();
    for (const [i, el] of this.cells) {
      if (i < from || i >= to) {
        // Out of the window: its thumbnail's request (if any) is cancelled with the element.
        this.drop(el.firstChild);
        el.remove();
        this.cells.delete(i);
      }
    }
    const fresh = document.createDocumentFragment();
    for (let i = from; i < to; i++) {
      const el = this.cells.get(i);
      if (el) this.paint(el, i);
      else {
        const made = this.cell(i);
        this.cells.set(i, made);
        fresh.append(made);
      }
    }
    this.box.append(fresh);
    for (let p = Math.floor(from / PAGE); p <= Math.floor(Math.max(from, to - 1) / PAGE); p++) if (!this.pages.has(p) && from < to) this.load(p).catch(() => {});
    // Still moving: what waited to load waits for the next pause (in the window it will then show).
    this.queue = [];
    clearTimeout(this.settle);
    this.settle = setTimeout(() => this.thumbs(), SETTLE_MS);
  }


  // Thumbnails load a few at a time, those in the window only: a cell that leaves it gives up its
  // turn (and its request), so a long scroll never has more than LOADING requests of ours in flight.
  thumbs() {
    this.queue = [...this.cells.values()].map((el) => el.firstChild).filter((img) => img.dataset.src && !img.getAttribute('src'));
    this.pump();
  }
  pump() {
    while (this.loading < LOADING && this.queue.length) {
      const img = this.queue.shift();
      if (!img.isConnected || img.getAttribute('src') || !img.dataset.src) continue;
      this.loading++;
      img.dataset.loading = '1';
      const done = () => {
        if (img.dataset.loading !== '1') return;
        delete img.dataset.loading;
        this.loading--;
        this.pump();
      };
      img.addEventListener('load', done, { once: true });
      img.addEventListener('error', done, { once: true });
      img.src = img.dataset.src;
    }
  }
  /** A cell leaves the window: its thumbnail's request is cancelled and its turn given back. */
  drop(img) {
    img.removeAttribute('src');
    if (img.dataset.loading === '1') {
      delete img.dataset.loading;
      this.loading--;
    }
  }

  updateCount() {
    this.countOut.value = `${this.count()} selected`;
    this.countOut.textContent = `${this.count()} selected`;
    this.selectAll.checked = this.all;
  }

  setFocus(i, scroll = true) {
    this.focus = Math.max(0, Math.min(this.total - 1, i));
    if (scroll) {
      const top = Math.floor(this.focus / this.cols) * this.rowH;
      if (top < this.box.scrollTop) this.box.scrollTop = top;
      else if (top + this.rowH > this.box.scrollTop + this.box.clientHeight) this.box.scrollTop = top + this.rowH - this.box.clientHeight;
    }
    this.render();
    const el = this.cells.get(this.focus);
    if (el) el.focus({ preventScroll: true });
  }

  rangeSet(a, b) {
    const s = new Set();
    for (let i = Math.min(a, b); i <= Math.max(a, b); i++) s.add(i);
    return s;
  }

  choose(i, e) {
    if (e.shiftKey && this.anchor !== null) {
      const span = this.rangeSet(this.anchor, i);
      this.selected = e.ctrlKey || e.metaKey ? new Set([...(this.all ? [] : this.selected), ...span]) : span;
    } else if (e.ctrlKey || e.metaKey) {
      if (this.all) this.selected = new Set();
      if (this.selected.has(i)) this.selected.delete(i);
      else this.selected.add(i);
      this.anchor = i;
    } else {
      this.selected = new Set([i]);
      this.anchor = i;
    }
    this.all = false;
    this.updateCount();
    this.setFocus(i, false);
  }


  reload() {
    this.pages.clear();
    for (const el of this.cells.values()) {
      this.drop(el.firstChild);
      el.remove();
    }
    this.cells.clear();
    this.load(0).then(() => this.layout(), () => {});
  }

  async selection() {
    if (this.all) return { all: true, count: this.total };
    const indices = [...this.selected].sort((a, b) => a - b);
    return { media: await this.uuidsOf(indices) };
  }

  // ---- the manual order: drag and drop, or move earlier/later (the keyboard's way)
  async move(indices, beforeIndex) {
    const [medias, before] = await Promise.all([this.uuidsOf(indices), beforeIndex === null || beforeIndex >= this.total ? [] : this.uuidsOf([beforeIndex])]);
    await studio.send('POST', '/studio/media/move', { gallery: this.gallery, media: medias, before: before[0] ?? null });
  }

  async step(direction) {
    const indices = this.all ? [] : [...(this.selected.size ? this.selected : new Set([this.focus]))].sort((a, b) => a - b);
    if (indices.length === 0) return;
    const first = indices[0];
    const last = indices[indices.length - 1];
    if ((direction < 0 && first === 0) || (direction > 0 && last >= this.total - 1)) return;
    try {
      await this.move(indices, direction < 0 ? first - 1 : last + 2 < this.total ? last + 2 : null);
      const shifted = new Set(indices.map((i) => i + direction));
      if (last - first + 1 === indices.length) {
        this.selected = shifted;
        this.anchor = this.anchor === null ? null : this.anchor + direction;
      } else this.selected = new Set();
      this.updateCount();
      this.focus = Math.max(0, Math.min(this.total - 1, this.focus + direction));
      this.reload();
      studio.announce(`Moved ${direction < 0 ? 'earlier' : 'later'}.`);
      this.setFocus(this.focus);
    } catch (err) {
      this.message.textContent = err.message;
    }
  }

  listen() {
    this.box.addEventListener('scroll', () => this.render(), { passive: true });
    new ResizeObserver(() => this.layout()).observe(this.box);

    this.box.addEventListener('click', (e) => {
      const el = e.target.closest('.vcell');
      if (el) this.choose(Number(el.dataset.index), e);
    });
    this.box.addEventListener('dblclick', (e) => {
      const el = e.target.closest('.vcell');
      const item = el && this.itemAt(Number(el.dataset.index));
      if (item) location.href = `/studio/media/${item.uuid}`;
    });
    this.box.addEventListener('focus', (e) => {
      if (e.target === this.box && this.total > 0) this.setFocus(this.focus);
    });
    this.box.addEventListener('keydown', (e) => {
      if (this.total === 0) return;
      const moves = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: this.cols, ArrowUp: -this.cols, Home: -Infinity, End: Infinity, PageDown: this.cols * Math.max(1, Math.floor(this.box.clientHeight / this.rowH)), PageUp: -this.cols * Math.max(1, Math.floor(this.box.clientHeight / this.rowH)) };
      if (e.key in moves) {
        e.preventDefault();
        const by = moves[e.key];
        const next = by === -Infinity ? 0 : by === Infinity ? this.total - 1 : Math.max(0, Math.min(this.total - 1, this.focus + by));
        if (e.shiftKey) {
          if (this.anchor === null) this.anchor = this.focus;
          this.selected = this.rangeSet(this.anchor, next);
          this.all = false;
          this.updateCount();
        }
        this.setFocus(next);
      } else if (e.key === ' ') {
        e.preventDefault();
        this.choose(this.focus, { ctrlKey: true, shiftKey: false });
        studio.announce(`${this.label(this.itemAt(this.focus), this.focus)} ${this.isSelected(this.focus) ? 'selected' : 'not selected'}; ${this.count()} selected.`);
      } else if ((e.key === 'a' || e.key === 'A') && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.all = true;
        this.updateCount();
        this.render();
      } else if (e.key === 'Enter') {
        const item = this.itemAt(this.focus);
        if (item) location.href = `/studio/media/${item.uuid}`;
      }
    });

    this.selectAll.addEventListener('change', () => {
      this.all = this.selectAll.checked;
      if (!this.all) this.selected = new Set();
      this.updateCount();
      this.render();
      studio.announce(this.all ? `All ${this.total} selected.` : 'Selection cleared.');
    });
    document.getElementById('select-none').addEventListener('click', () => {
      this.all = false;
      this.selected = new Set();
      this.updateCount();
      this.render();
      studio.announce('Selection cleared.');
    });
  }

  listenBatch() {
    this.form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const deleting = e.submitter && e.submitter.name === 'delete';
      if (this.count() === 0) {
        this.message.textContent = 'Select at least one media first.';
        return;
      }
      if (deleting && !document.getElementById('confirm-delete').checked) {
        this.message.textContent = 'Tick "Yes, delete the selected medias" to delete them.';
        return;
      }
      const data = new FormData(this.form);
      const body = { ...(await this.selection()), gallery: this.gallery || undefined, group: this.group || undefined, lightbox: this.lightbox || undefined };
      // The form's own names: the studio reads the script's JSON and the form alike.
      if (deleting) Object.assign(body, { delete: true, confirm_delete: 'yes' });
      else {
        for (const k of ['title', 'description', 'location', 'keywords', 'publish', 'unpublish', 'add_price_list', 'remove_price_list']) if (data.get(k)) body[k] = String(data.get(k));
        body.keywords_mode = String(data.get('keywords_mode') || 'add');
      }
      this.message.textContent = 'Sending…';
      try {
        const r = await studio.send('POST', '/studio/media/batch', body);
        this.message.textContent = `${deleting ? 'Deleting' : 'Editing'} ${r.count} medias…`;
        showJob({ ...r.job, total: r.count });
        const done = await followJob(r.job.uuid);
        this.message.textContent = done.state === 'done' ? `${deleting ? 'Deleted' : 'Edited'} ${done.processed} medias.` : 'The batch edit failed.';
        if (deleting) {
          this.all = false;
          this.selected = new Set();
          this.updateCount();
        }
        this.reload();
      } catch (err) {
        this.message.textContent = err.message;
      }
    });
  }

  listenOrder() {
    document.getElementById('move-earlier').addEventListener('click', () => this.step(-1));
    document.getElementById('move-later').addEventListener('click', () => this.step(1));
    this.box.addEventListener('dragstart', (e) => {
      const el = e.target.closest('.vcell');
      if (!el) return;
      const i = Number(el.dataset.index);
      this.dragging = !this.all && this.selected.has(i) ? [...this.selected].sort((a, b) => a - b) : [i];
      e.dataTransfer.effectAllowed = 'move';
      e.dataTransfer.setData('text/plain', String(i));
    });
    this.box.addEventListener('dragover', (e) => {
      if (this.dragging && e.target.closest('.vcell')) e.preventDefault();
    });
    this.box.addEventListener('drop', async (e) => {
      const el = e.target.closest('.vcell');
      if (!this.dragging || !el) return;
      e.preventDefault();
      const i = Number(el.dataset.index);
      const rect = el.getBoundingClientRect();
      let before = e.clientX > rect.left + rect.width / 2 ? i + 1 : i;
      const moving = this.dragging;
      this.dragging = null;
      // Dropped on one of those moved: before the first one that is not.
      while (moving.includes(before)) before++;
      try {
        await this.move(moving, before < this.total ? before : null);
        this.selected = new Set();
        this.updateCount();
        this.reload();
        studio.announce(`Moved ${moving.length} ${moving.length === 1 ? 'media' : 'medias'}.`);
      } catch (err) {
        this.message.textContent = err.message;
      }
    });
    this.box.addEventListener('dragend', () => (this.dragging = null));
  }
}

// After the class: a class is not hoisted as a function is.
if (wrap) new Grid(wrap);

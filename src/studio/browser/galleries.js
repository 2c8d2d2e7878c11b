// The gallery tree's drag and drop (native HTML5): drop a gallery on the middle of another to
// put it inside, on its upper or lower edge to place it before or after. Every move is also a
// button or the "Move…" page (keyboard, no script); this only sends the same move as JSON to
// /studio/galleries/<uuid>/move, which the galleries service checks (no cycle, the limits).
const tree = document.getElementById('tree');
if (tree) {
  let dragged = null;
  let marked = null;

  const itemOf = (el) => el?.closest?.('.item');
  const nodeOf = (item) => item.closest('li.node');
  /** A tree item's gallery UUID (its id is g-<uuid>), and its parent's. */
  const uuidOf = (li) => li.id.slice(2);
  const parentOf = (li) => li.parentElement.closest('li.node');
  const unmark = () => {
    if (marked) marked.classList.remove('drop-before', 'drop-after', 'drop-inside');
    marked = null;
  };
  /** Where on `item` the pointer is: before, after, or inside (the root takes only inside). */
  const zoneOf = (item, y) => {
    if (item.dataset.root) return 'inside';
    const r = item.getBoundingClientRect();
    const f = (y - r.top) / r.height;
    return f < 0.25 ? 'before' : f > 0.75 ? 'after' : 'inside';
  };
  const within = (node, other) => node === other || node.contains(other);

  tree.addEventListener('dragstart', (ev) => {
    const item = itemOf(ev.target);
    if (!item || item.dataset.root) return;
    dragged = nodeOf(item);
    ev.dataTransfer.effectAllowed = 'move';
    ev.dataTransfer.setData('text/plain', uuidOf(dragged));
    dragged.classList.add('dragging');
  });
  tree.addEventListener('dragend', () => {
    dragged?.classList.remove('dragging');
    dragged = null;
    unmark();
  });
  tree.addEventListener('dragover', (ev) => {
    const item = itemOf(ev.target);
    if (!dragged || !item || within(dragged, item)) return unmark();
    ev.preventDefault();
    ev.dataTransfer.dropEffect = 'move';
    const zone = zoneOf(item, ev.clientY);
    if (marked !== item) unmark();
    marked = item;
    item.classList.remove('drop-before', 'drop-after', 'drop-inside');
    item.classList.add(`drop-${zone}`);
  });
  tree.addEventListener('dragleave', (ev) => {
    if (marked && !marked.contains(ev.relatedTarget)) unmark();
  });
  tree.addEventListener('drop', async (ev) => {
    const item = itemOf(ev.target);
    if (!dragged || !item || within(dragged, item)) return;
    ev.preventDefault();
    const zone = zoneOf(item, ev.clientY);
    const target = nodeOf(item);
    const uuid = uuidOf(dragged);
    let parent;
    let position;
    if (zone === 'inside') {
      parent = uuidOf(target);
      // Last among the new siblings (the service clamps a place past the end).
      position = 1000;
    } else {
      parent = uuidOf(parentOf(target));
      // Positions count the siblings without the one moved.
      const siblings = [...target.parentElement.children].filter((li) => li !== dragged);
      position = siblings.indexOf(target) + (zone === 'before' ? 1 : 2);
    }
    unmark();
    try {
      await studio.send('POST', `/studio/galleries/${uuid}/move`, { parent, position });
      studio.announce('Moved.');
      const search = '?done=moved';
      if (location.search === search) {
        location.hash = `g-${uuid}`;
        location.reload();
      } else location.assign(`${location.pathname}${search}#g-${uuid}`);
    } catch (err) {
      const alert = document.createElement('p');
      alert.className = 'alert';
      alert.setAttribute('role', 'alert');
      alert.textContent = err.message;
      tree.closest('form').before(alert);
    }
  });
}

// The header on a phone: one bar with the current section's name and a Menu button that shows or
// hides the sections (a disclosure: aria-expanded on the button, Escape closes it and gives the
// focus back). On a wider screen the sections are listed and the button is not shown (CSS). Without
// this script the button stays hidden and the sections stay listed.
const header = document.querySelector('header.bar');
const button = document.getElementById('studio-menu');
const nav = document.getElementById('studio-nav');
const here = document.getElementById('studio-here');
if (header && button && nav) {
  // The section this page belongs to: a website's galleries are under Galleries, a lightbox's
  // screens under Collections (where lightboxes are listed), else the longest section address the
  // path starts with.
  const path = location.pathname;
  let current = null;
  let best = -1;
  for (const a of nav.querySelectorAll('a[href]')) {
    const href = a.getAttribute('href');
    const inGalleries =
      (href === '/studio/galleries' && /^\/studio\/websites\/[^/]+\/galleries(\/|$)/.test(path)) ||
      (href === '/studio/collections' && path.startsWith('/studio/lightboxes/'));
    const under = path === href || path.startsWith(href + '/') || path.startsWith(href + '.');
    const score = inGalleries ? 1000 : under ? href.length : -1;
    if (score > best) {
      best = score;
      current = a;
    }
  }
  if (current) {
    current.setAttribute('aria-current', 'page');
    if (here) here.textContent = current.textContent;
  }
  const set = (open) => {
    button.setAttribute('aria-expanded', open ? 'true' : 'false');
    header.classList.toggle('menu-open', open);
  };
  button.hidden = false;
  header.classList.add('js-menu');
  button.addEventListener('click', () => set(button.getAttribute('aria-expanded') !== 'true'));
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || button.getAttribute('aria-expanded') !== 'true') return;
    set(false);
    button.focus();
  });
  // A tap or click outside the open menu closes it.
  document.addEventListener('click', (e) => {
    if (button.getAttribute('aria-expanded') === 'true' && !header.contains(e.target)) set(false);
  });
}

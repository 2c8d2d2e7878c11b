// What every screen's script shares (put in front of each by src/studio/assets.ts).
// Every screen works as forms without it; scripts add to it and send the session's CSRF
// token (from <meta name="studio-csrf">) in the x-studio-csrf header of every change.
const studio = {
  csrf() {
    return document.querySelector('meta[name="studio-csrf"]')?.getAttribute('content') ?? '';
  },
  /** A change sent as JSON; resolves to the parsed reply, rejects with the server's message. */
  async send(method, url, body) {
    const res = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-studio-csrf': studio.csrf(), accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let data = {};
    try {
      data = text ? JSON.parse(text) : {};
    } catch {
      data = { error: res.ok ? undefined : `The studio answered ${res.status}.` };
    }
    if (!res.ok) throw Object.assign(new Error(data.error || `The studio answered ${res.status}.`), { status: res.status, data });
    return data;
  },
  async get(url) {
    const res = await fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } });
    if (!res.ok) throw Object.assign(new Error(`The studio answered ${res.status}.`), { status: res.status });
    return res.json();
  },
  /** Says a message to screen readers (the layout's polite live region). */
  announce(message) {
    const region = document.getElementById('announce');
    if (!region) return;
    region.textContent = '';
    setTimeout(() => (region.textContent = message), 50);
  },
};

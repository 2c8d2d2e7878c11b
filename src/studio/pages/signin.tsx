// The sign-in screens: e-mail and password, then a two-factor code.
import { html, Layout, Notice } from './layout.js';

export function signInPage(p: { token: string; email?: string; error?: string }): string {
  return html(
    <Layout title="Sign in">
      <h1>Sign in to the studio</h1>
      <Notice error={p.error} />
      <form class="card" method="post" action="/studio/signin">
        <input type="hidden" name="csrf" value={p.token} />
        <div class="field">
          <label for="email">E-mail address</label>
          <input id="email" type="email" name="email" required autocomplete="username" maxLength={254} value={p.email ?? ''} />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input id="password" type="password" name="password" required autocomplete="current-password" maxLength={200} />
        </div>
        <button type="submit">Sign in</button>
      </form>
    </Layout>,
  );
}

export function codePage(p: { token: string; error?: string }): string {
  return html(
    <Layout title="Two-factor code">
      <h1>Your two-factor code</h1>
      <Notice error={p.error} />
      <form class="card" method="post" action="/studio/signin/code">
        <input type="hidden" name="csrf" value={p.token} />
        <div class="field">
          <label for="code">Six-digit code from your authenticator app</label>
          <input id="code" type="text" name="code" required inputMode="numeric" pattern="[0-9]{6}" autocomplete="one-time-code" maxLength={6} />
        </div>
        <button type="submit">Continue</button>
      </form>
    </Layout>,
  );
}

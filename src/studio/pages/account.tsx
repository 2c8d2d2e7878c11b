// The account's screens: password, two-factor sign-in.
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';

export function accountPage(p: { viewer: Viewer; otp: boolean; notice?: string; error?: { field: string; message: string } }): string {
  const e = p.error;
  return html(
    <Layout title="Account" viewer={p.viewer}>
      <h1>Account</h1>
      <p>Signed in as {p.viewer.email}.</p>
      <p>
        <a href="/studio/account/apps">Applications</a> <span class="muted">(API keys for your scripts and plugins)</span>
      </p>
      <p>
        <a href="/studio/account/webhooks">Webhooks</a> <span class="muted">(your other tools told of your events, signed)</span>
      </p>
      <Notice notice={p.notice} />
      <h2>Change the password</h2>
      <form class="card" method="post" action="/studio/account/password" novalidate>
        <Csrf viewer={p.viewer} />
        <input type="hidden" name="username" value={p.viewer.email} autocomplete="username" />
        <Field id="current" label="Current password" error={e}>
          {(d, bad) => <input id="current" type="password" name="current" required autocomplete="current-password" maxLength={200} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="next" label="New password" hint="At least 10 characters. Your other sessions end." error={e}>
          {(d, bad) => <input id="next" type="password" name="next" required autocomplete="new-password" minLength={10} maxLength={200} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <button type="submit">Change the password</button>
      </form>
      <h2>Two-factor sign-in</h2>
      <div class="card">
        {p.otp ? (
          <form method="post" action="/studio/account/two-factor/off" novalidate>
            <p>Two-factor sign-in is on.</p>
            <Csrf viewer={p.viewer} />
            <input type="hidden" name="username" value={p.viewer.email} autocomplete="username" />
            <Field id="otp_password" label="Password, to turn it off" error={e}>
              {(d, bad) => <input id="otp_password" type="password" name="password" required autocomplete="current-password" maxLength={200} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
            </Field>
            <div class="field">
              <label for="otp_code">The six-digit code your app shows now</label>
              <input id="otp_code" type="text" name="code" required inputMode="numeric" pattern="[0-9]{6}" autocomplete="one-time-code" maxLength={6} />
            </div>
            <p class="muted">To use another phone or app, turn it off, then on again with the new one. Your other sessions end.</p>
            <button class="danger" type="submit">
              Turn two-factor sign-in off
            </button>
          </form>
        ) : (
          <p>
            Two-factor sign-in is off. <a href="/studio/account/two-factor">Turn it on</a>
          </p>
        )}
      </div>
      <h2>Sessions</h2>
      <form class="card" method="post" action="/studio/signout-everywhere">
        <Csrf viewer={p.viewer} />
        <p>Ends every session of your account: this browser, other browsers and the API's sessions (publishing plugins sign in again).</p>
        <button class="danger" type="submit">
          Sign out everywhere
        </button>
      </form>
    </Layout>,
  );
}

export function enrolPage(p: { viewer: Viewer; secret: string; qrSvg: string; error?: string }): string {
  return html(
    <Layout title="Turn on two-factor sign-in" viewer={p.viewer}>
      <h1>Turn on two-factor sign-in</h1>
      <Notice error={p.error} />
      <div class="card">
        <p>Scan this code with your authenticator app, or type the key below into it.</p>
        <div class="qr" role="img" aria-label="QR code of the two-factor key" dangerouslySetInnerHTML={{ __html: p.qrSvg }} />
        <p>
          Key: <code class="secret">{p.secret}</code>
        </p>
        <form method="post" action="/studio/account/two-factor" novalidate>
          <Csrf viewer={p.viewer} />
          <input type="hidden" name="secret" value={p.secret} />
          <input type="hidden" name="username" value={p.viewer.email} autocomplete="username" />
          <div class="field">
            <label for="enrol_password">Your password</label>
            <input id="enrol_password" type="password" name="password" required autocomplete="current-password" maxLength={200} />
          </div>
          <div class="field">
            <label for="code">The six-digit code the app shows now</label>
            <input id="code" type="text" name="code" required inputMode="numeric" pattern="[0-9]{6}" autocomplete="one-time-code" maxLength={6} />
          </div>
          <button type="submit">Turn it on</button>
        </form>
      </div>
    </Layout>,
  );
}


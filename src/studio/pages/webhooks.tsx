// Account → Webhooks (docs/studio.md "Webhooks", docs/integrations.md): a photographer's endpoints,
// a new one with its secret shown once, and one endpoint's delivery log with a replay per delivery.
import { WEBHOOK_EVENT_TYPES } from '../../webhooks/events.js';
import type { Delivery, Endpoint } from '../../webhooks/service.js';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';

const base = '/studio/account/webhooks';

export function webhooksPage(p: { viewer: Viewer; endpoints: Endpoint[]; notice?: string; error?: { field: string; message: string }; created?: { url: string; secret: string }; form?: { url?: string; events?: string[] } }): string {
  const e = p.error;
  const chosen = new Set(p.form?.events ?? []);
  return html(
    <Layout title="Webhooks" viewer={p.viewer}>
      <h1>Webhooks</h1>
      <p>
        <a href="/studio/account">Back to the account</a>
      </p>
      <p class="muted">Your other tools are told at once when something happens: each event is sent, signed, to the addresses you give here (docs: Integrations).</p>
      <Notice notice={p.notice} error={e && e.field === '' ? e.message : undefined} />
      {p.created ? (
        <section class="card created" aria-labelledby="created-h">
          <h2 id="created-h">The endpoint's signing secret</h2>
          <p>
            <strong>Copy it into the receiving tool now: it is shown this once, never again.</strong>
          </p>
          <p>
            <code class="secret" id="new-secret">
              {p.created.secret}
            </code>
          </p>
        </section>
      ) : null}
      {p.endpoints.length === 0 ? (
        <p>No endpoint yet.</p>
      ) : (
        <ul class="list card">
          {p.endpoints.map((x) => (
            <li>
              <span>
                <a href={`${base}/${x.uuid}`}>{x.url}</a>
                <span class="muted"> · {x.events.join(', ')}</span>
                {x.enabled ? null : <span class="tag off"> disabled</span>}
              </span>
            </li>
          ))}
        </ul>
      )}
      <h2>New endpoint</h2>
      <form class="card" method="post" action={base} novalidate>
        <Csrf viewer={p.viewer} />
        <Field id="url" label="Address" hint="Where events are sent: an https address your tool gave you." error={e}>
          {(d, bad) => <input id="url" type="url" name="url" required maxLength={2000} value={p.form?.url} aria-describedby={d} aria-invalid={bad ? 'true' : undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <fieldset class="acl" aria-describedby={e?.field === 'events' ? 'events-error' : undefined}>
          <legend>Events</legend>
          {e?.field === 'events' ? (
            <p class="error" id="events-error">
              {e.message}
            </p>
          ) : null}
          <div class="rights">
            <label class="check">
              <input type="checkbox" name="events" value="*" checked={chosen.has('*')} /> All, and those added later
            </label>
            {WEBHOOK_EVENT_TYPES.map((t) => (
              <label class="check">
                <input type="checkbox" name="events" value={t} checked={chosen.has(t)} /> <code>{t}</code>
              </label>
            ))}
          </div>
        </fieldset>
        <button type="submit">Add the endpoint</button>
      </form>
    </Layout>,
  );
}

export function webhookLogPage(p: { viewer: Viewer; endpoint: Endpoint; deliveries: Delivery[]; total: number; notice?: string; error?: string }): string {
  const x = p.endpoint;
  const at = `${base}/${x.uuid}`;
  return html(
    <Layout title="Webhook deliveries" viewer={p.viewer}>
      <h1>Deliveries</h1>
      <p>
        <a href={base}>Back to the webhooks</a>
      </p>
      <p>
        <code>{x.url}</code> <span class="muted">· {x.events.join(', ')}</span>
      </p>
      <Notice notice={p.notice} error={p.error} />
      <div class="card">
        {x.enabled ? (
          <p>Enabled.{x.failingSince ? ` Failing since ${x.failingSince.slice(0, 16).replace('T', ' ')} UTC.` : ''}</p>
        ) : (
          <form method="post" action={`${at}/enable`}>
            <Csrf viewer={p.viewer} />
            <p>Disabled{x.disabledAt ? ` since ${x.disabledAt.slice(0, 16).replace('T', ' ')} UTC` : ''}: no event is sent to it.</p>
            <button type="submit">Enable it again</button>
          </form>
        )}
        <form method="post" action={`${at}/delete`}>
          <Csrf viewer={p.viewer} />
          <button type="submit" class="danger">
            Delete the endpoint<span class="sr"> {x.url}</span>
          </button>
        </form>
      </div>
      {p.deliveries.length === 0 ? (
        <p>Nothing sent yet.</p>
      ) : (
        <ul class="list card deliveries">
          {p.deliveries.map((d) => {
            const last = d.attempts[d.attempts.length - 1];
            return (
              <li>
                <div>
                  <strong>{d.eventType}</strong> <span class={d.state === 'delivered' ? 'tag' : 'tag off'}>{d.state}</span>
                  <span class="muted"> · {d.createdAt.slice(0, 19).replace('T', ' ')} UTC</span>
                  <details>
                    <summary>
                      {d.attempts.length} attempt{d.attempts.length === 1 ? '' : 's'}
                      {last ? `, last: ${last.status_code ?? 'no answer'}${last.error ? ` (${last.error})` : ''}, ${last.latency_ms} ms` : ''}
                    </summary>
                    <ol>
                      {d.attempts.map((a) => (
                        <li>
                          {a.attempted_at.slice(0, 19).replace('T', ' ')} UTC · {a.status_code ?? 'no answer'} · {a.latency_ms} ms{a.error ? ` · ${a.error}` : ''}
                          {a.response_excerpt ? <pre>{a.response_excerpt}</pre> : null}
                        </li>
                      ))}
                    </ol>
                  </details>
                </div>
                {x.enabled ? (
                  <form method="post" action={`${at}/deliveries/${d.uuid}/replay`}>
                    <Csrf viewer={p.viewer} />
                    <button type="submit">
                      Send again<span class="sr"> {d.eventType}</span>
                    </button>
                  </form>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
      {p.total > p.deliveries.length ? <p class="muted">Showing the latest {p.deliveries.length} of {p.total}.</p> : null}
    </Layout>,
  );
}

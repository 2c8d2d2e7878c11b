// The shop's overview and its payment settings (docs/studio.md "Shop"): sales per month as bar
// charts drawn on the server (SVG, as the analytics screen draws them: no script, no third
// party), one card per currency; then card payments (Stripe) and each website's manual
// payment instructions. Secrets are never shown: four last characters at most.
import type { MonthSales } from '../../orders/service.js';
import { MAX_INSTRUCTIONS } from '../../shop-settings/fields.js';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';
import { money, ShopNav } from './shop-common.js';

const W = 240;
const H = 72;
const monthName = (month: string, style: 'short' | 'long' = 'short') =>
  new Date(`${month}-01T00:00:00.000Z`).toLocaleDateString('en-GB', { month: style, year: style === 'long' ? 'numeric' : '2-digit', timeZone: 'UTC' });

interface CurrencyLine {
  currency: string;
  months: Array<{ month: string; orders: number; total: number; refunded: number; refundedTotal: number }>;
}

/** The months of each currency sold in, each currency's months complete (a month without sales is 0). */
function byCurrency(months: MonthSales[]): CurrencyLine[] {
  const codes = [...new Set(months.flatMap((m) => m.currencies.map((c) => c.currency)))].sort();
  return codes.map((currency) => ({
    currency,
    months: months.map((m) => {
      const c = m.currencies.find((x) => x.currency === currency);
      return { month: m.month, orders: c?.orders ?? 0, total: c?.total ?? 0, refunded: c?.refunded ?? 0, refundedTotal: c?.refundedTotal ?? 0 };
    }),
  }));
}

function SalesChart(p: { line: CurrencyLine }) {
  const values = p.line.months.map((m) => m.total - m.refundedTotal);
  const max = Math.max(1, ...values);
  const step = W / values.length;
  const summary = p.line.months.map((m, i) => `${monthName(m.month, 'long')}: ${money(values[i]!, p.line.currency)}`).join('; ');
  return (
    <svg class="an-chart" viewBox={`0 0 ${W} ${H + 2}`} role="img" aria-label={`Sales in ${p.line.currency} per month: ${summary}`} preserveAspectRatio="none">
      <line class="an-axis" x1="0" y1={H + 1} x2={W} y2={H + 1} />
      {values.map((v, i) => {
        const h = v <= 0 ? 0 : Math.max(2, Math.round((v / max) * H));
        return (
          <rect class={i === values.length - 1 ? 'an-bar an-now' : 'an-bar'} x={(i * step + step * 0.15).toFixed(1)} y={H - h} width={(step * 0.7).toFixed(1)} height={h}>
            <title>{`${monthName(p.line.months[i]!.month, 'long')}: ${money(v, p.line.currency)}`}</title>
          </rect>
        );
      })}
    </svg>
  );
}

export function shopOverviewPage(p: { viewer: Viewer; months: MonthSales[]; pending: number; lists: number; cards: boolean }): string {
  const lines = byCurrency(p.months);
  const first = p.months[0]!.month;
  return html(
    <Layout title="Shop" viewer={p.viewer}>
      <h1>Shop</h1>
      <ShopNav current="overview" />
      <ul class="shop-glance">
        <li class="card">
          <a href="/studio/shop/orders?status=pending">
            <strong>{p.pending}</strong> {p.pending === 1 ? 'order awaits' : 'orders await'} payment
          </a>
        </li>
        <li class="card">
          <a href="/studio/shop/price-lists">
            <strong>{p.lists}</strong> {p.lists === 1 ? 'price list' : 'price lists'}
          </a>
        </li>
        <li class="card">
          <a href="/studio/shop/payments">{p.cards ? 'Card payments are on (Stripe)' : 'Card payments are off: connect Stripe'}</a>
        </li>
      </ul>
      <h2>Sales per month</h2>
      <p class="muted">
        Orders paid in the last {p.months.length} months, from {monthName(first, 'long')}, by the month they were paid (UTC), taxes included; refunds are taken off.
      </p>
      {lines.length === 0 ? (
        <p class="card muted">No sales yet in these months.</p>
      ) : (
        <ul class="an-cards">
          {lines.map((l) => {
            const total = l.months.reduce((n, m) => n + m.total - m.refundedTotal, 0);
            const orders = l.months.reduce((n, m) => n + m.orders, 0);
            const last = l.months[l.months.length - 1]!;
            return (
              <li class="card an-card">
                <h3>{l.currency}</h3>
                <p class="an-total">
                  <strong>{money(total, l.currency)}</strong> <span class="muted">{`from ${orders} ${orders === 1 ? 'order' : 'orders'}`}</span>
                </p>
                <p class="an-now-text">
                  This month: <strong>{money(last.total - last.refundedTotal, l.currency)}</strong> ({last.orders} {last.orders === 1 ? 'order' : 'orders'})
                </p>
                <SalesChart line={l} />
                <p class="an-range muted" aria-hidden="true">
                  <span>{monthName(first)}</span> <span>this month</span>
                </p>
              </li>
            );
          })}
        </ul>
      )}
      {lines.length === 0 ? null : (
        <details class="card">
          <summary>Figures month by month</summary>
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Figures month by month">
            <table id="sales-months">
              <caption class="sr">Sales month by month</caption>
              <thead>
                <tr>
                  <th scope="col">Month</th>
                  <th scope="col">Currency</th>
                  <th scope="col">Orders</th>
                  <th scope="col">Sales</th>
                  <th scope="col">Refunded</th>
                </tr>
              </thead>
              <tbody>
                {p.months.flatMap((m) =>
                  m.currencies.map((c) => (
                    <tr>
                      <th scope="row">{monthName(m.month, 'long')}</th>
                      <td>{c.currency}</td>
                      <td class="num">{c.orders}</td>
                      <td class="num">{money(c.total, c.currency)}</td>
                      <td class="num">{c.refunded ? `${money(c.refundedTotal, c.currency)} (${c.refunded})` : '—'}</td>
                    </tr>
                  )),
                )}
              </tbody>
            </table>
          </div>
        </details>
      )}
    </Layout>,
  );
}

export interface StripeView {
  webhookUrl: string;
  secretKeyEnd: string;
  webhookSecretEnd: string;
  readable: boolean;
}

export interface InstructionsView {
  urlname: string;
  title: string;
  text: string;
}

export function paymentsPage(p: {
  viewer: Viewer;
  stripe?: StripeView;
  available: boolean;
  websites: InstructionsView[];
  notice?: string;
  error?: { field: string; message: string };
  /** The website whose instructions were refused, and what was sent. */
  draft?: { urlname: string; text: string };
}): string {
  const e = p.error;
  return html(
    <Layout title="Payments" viewer={p.viewer}>
      <h1>Payments</h1>
      <ShopNav current="payments" />
      <Notice notice={p.notice} error={e && e.field === '' ? e.message : undefined} />
      <section class="card" aria-labelledby="pay-card">
        <h2 id="pay-card">Card payments (Stripe)</h2>
        <p class="muted">Buyers pay by card on Stripe's page, into your own Stripe account: the money goes straight to you.</p>
        {p.stripe ? (
          <>
            <dl class="pay-state">
              <dt>Secret key</dt>
              <dd>{p.stripe.readable ? `Set, ending in …${p.stripe.secretKeyEnd}` : 'Set, but unreadable with this service’s key: enter it again'}</dd>
              <dt>Webhook signing secret</dt>
              <dd>{p.stripe.readable ? `Set, ending in …${p.stripe.webhookSecretEnd}` : 'Set, but unreadable: enter it again'}</dd>
              <dt>Webhook address</dt>
              <dd>
                <code class="pay-url" id="webhook-url">
                  {p.stripe.webhookUrl}
                </code>
                <span class="hint">
                  In the Stripe dashboard, add an endpoint at this address for the events checkout.session.completed, checkout.session.async_payment_succeeded and
                  checkout.session.async_payment_failed.
                </span>
              </dd>
            </dl>
            <form method="post" action="/studio/shop/payments/stripe/remove" class="row danger-row">
              <Csrf viewer={p.viewer} />
              <label class="inline">
                <input type="checkbox" name="confirm" value="yes" /> Yes, stop taking cards
              </label>
              <button type="submit" class="danger">
                Disconnect Stripe
              </button>
            </form>
          </>
        ) : (
          <p>Not connected: buyers pay you directly (the instructions below).</p>
        )}
        {p.available ? (
          <form method="post" action="/studio/shop/payments/stripe" autocomplete="off">
            <Csrf viewer={p.viewer} />
            <h3>{p.stripe ? 'Replace the keys' : 'Connect Stripe'}</h3>
            <Field id="secret_key" label="Secret key" hint="From the Stripe dashboard, Developers → API keys: sk_live_… (or a restricted key rk_… allowed to write Checkout Sessions and Refunds)." error={e}>
              {(d, bad) => <input type="password" id="secret_key" name="secret_key" required autocomplete="off" aria-describedby={d} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined} />}
            </Field>
            <Field id="webhook_secret" label="Webhook signing secret" hint="Shown by Stripe for the endpoint: whsec_…" error={e}>
              {(d, bad) => <input type="password" id="webhook_secret" name="webhook_secret" required autocomplete="off" aria-describedby={d} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined} />}
            </Field>
            <button type="submit">{p.stripe ? 'Save the new keys' : 'Connect'}</button>
          </form>
        ) : (
          <p class="alert">Card payments need the service's PAYMENT_SECRETS_KEY, which your operator has not set.</p>
        )}
      </section>
      <section class="card" aria-labelledby="pay-manual">
        <h2 id="pay-manual">Paying you directly</h2>
        <p class="muted">
          Always offered at checkout: the buyer sees these instructions (bank details, pick-up…) and the order waits until you mark it paid. Left empty, buyers read “The
          photographer will contact you by e-mail about the payment.”
        </p>
        {p.websites.length === 0 ? <p>You have no website yet.</p> : null}
        {p.websites.map((w) => {
          const id = `instructions-${w.urlname}`;
          const mine = e && p.draft?.urlname === w.urlname ? { field: id, message: e.message } : undefined;
          return (
            <form method="post" action="/studio/shop/payments/instructions" class="pay-site">
              <Csrf viewer={p.viewer} />
              <input type="hidden" name="website" value={w.urlname} />
              <Field id={id} label={`Instructions on ${w.title || w.urlname}`} error={mine}>
                {(d, bad) => (
                  <textarea id={id} name="instructions" rows={4} maxLength={MAX_INSTRUCTIONS} aria-describedby={d} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined}>
                    {mine ? p.draft!.text : w.text}
                  </textarea>
                )}
              </Field>
              <button type="submit" class="quiet">
                Save the instructions
              </button>
            </form>
          );
        })}
      </section>
    </Layout>,
  );
}

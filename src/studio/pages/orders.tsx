// Orders (docs/studio.md "Shop"): the list with its filters (status, buyer's e-mail, days) and
// pages, the two accounting exports; one order with its photos, buyer, payments, the state of
// its download links and what can be done with it now (mark paid, cancel, refund, extend, resend).
import type { OrdersService } from '../../orders/service.js';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';
import { day, money, ShopNav, StatusBadge, when } from './shop-common.js';

type OrderList = Awaited<ReturnType<OrdersService['listWithItems']>>;
export type OrderView = Awaited<ReturnType<OrdersService['get']>>;

export interface FilterDraft {
  status: string;
  email: string;
  from: string;
  to: string;
}

const STATUSES: Array<[string, string]> = [
  ['', 'Any status'],
  ['pending', 'Awaiting payment'],
  ['paid', 'Paid'],
  ['cancelled', 'Cancelled'],
  ['refunded', 'Refunded'],
];

const short = (uuid: string) => uuid.slice(0, 8);

function Filters(p: { filter: FilterDraft; error?: { field: string; message: string } }) {
  const e = p.error;
  return (
    <form method="get" action="/studio/shop/orders" class="card or-filters" role="search" aria-label="Filter the orders">
      <Field id="status" label="Status" error={e}>
        {(d) => (
          <select id="status" name="status" aria-describedby={d}>
            {STATUSES.map(([v, label]) => (
              <option value={v} selected={p.filter.status === v}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field id="email" label="Buyer's e-mail" error={e}>
        {(d, bad) => <input type="email" id="email" name="email" value={p.filter.email} aria-describedby={d} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined} />}
      </Field>
      <Field id="from" label="From" error={e}>
        {(d, bad) => <input type="date" id="from" name="from" value={p.filter.from} aria-describedby={d} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined} />}
      </Field>
      <Field id="to" label="To" error={e}>
        {(d, bad) => <input type="date" id="to" name="to" value={p.filter.to} aria-describedby={d} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined} />}
      </Field>
      <div class="or-filter-buttons">
        <button type="submit">Filter</button>
        <a href="/studio/shop/orders">Clear</a>
      </div>
    </form>
  );
}

export function ordersPage(p: { viewer: Viewer; list: OrderList; page: number; pageSize: number; filter: FilterDraft; query: (page: number) => string; error?: { field: string; message: string }; exports: { report: string; items: string } }): string {
  const pages = Math.max(1, Math.ceil(p.list.total / p.pageSize));
  return html(
    <Layout title="Orders" viewer={p.viewer}>
      <h1>Orders</h1>
      <ShopNav current="orders" />
      <Filters filter={p.filter} error={p.error} />
      <p class="or-count muted" role="status">
        {p.error ? 'The filter could not be read: nothing is shown.' : `${p.list.total} ${p.list.total === 1 ? 'order' : 'orders'}${pages > 1 ? `, page ${p.page} of ${pages}` : ''}`}
      </p>
      {p.list.rows.length === 0 ? null : (
        <ul class="card or-list" aria-label="Orders, newest first">
          {p.list.rows.map((o) => (
            <li>
              <span class="or-thumbs" aria-hidden="true">
                {o.items.medias.slice(0, 1).map((m) => (
                  <img src={`/studio/thumbs/${m}`} alt="" width={56} height={56} loading="lazy" decoding="async" />
                ))}
              </span>
              <span class="or-main">
                <a href={`/studio/shop/orders/${o.uuid}`} class="or-link">
                  {o.name ? `${o.name}` : o.email}
                </a>
                <span class="muted or-sub">{o.name ? o.email : ''}</span>
                <span class="muted or-sub">{`Order ${short(o.uuid)} · ${day(o.created_at)} · ${o.items.count} ${o.items.count === 1 ? 'item' : 'items'}`}</span>
              </span>
              <span class="or-end">
                <strong class="or-amount">{money(o.total, o.currency)}</strong>
                <StatusBadge status={o.status} />
              </span>
            </li>
          ))}
        </ul>
      )}
      {pages > 1 ? (
        <nav class="row pager" aria-label="Pages">
          {p.page > 1 ? <a href={p.query(p.page - 1)}>Newer orders</a> : null}
          {p.page < pages ? <a href={p.query(p.page + 1)}>Older orders</a> : null}
        </nav>
      ) : null}
      <section class="card" aria-labelledby="or-export">
        <h2 id="or-export">Export for accounting</h2>
        <p class="muted">All your orders, as the two semicolon-separated files accounting tools read (UTF-8).</p>
        <ul class="row or-exports">
          <li>
            <a href="/studio/shop/orders/export/report" download={p.exports.report}>
              Orders report ({p.exports.report})
            </a>
          </li>
          <li>
            <a href="/studio/shop/orders/export/items" download={p.exports.items}>
              Order items ({p.exports.items})
            </a>
          </li>
        </ul>
      </section>
    </Layout>,
  );
}

/** Where the buyer's download links stand. */
function linksState(o: OrderView, now: Date): string {
  if (o.status === 'refunded') return 'Refunded: the links no longer work.';
  if (o.status !== 'paid' && o.status !== 'shipped') return o.status === 'pending' ? 'Nothing to download before payment.' : 'None.';
  if (!o.items.some((i) => i.kind === 'download')) return 'No downloads in this order.';
  if (!o.delivered_at) return 'Paid: the files are being made; the buyer is mailed once they are.';
  const until = o.downloads_expire_at;
  if (until && new Date(until) <= now) return `Expired on ${when(until)}: extend them to send the buyer back.`;
  return `Mailed to the buyer; the links work until ${when(until)}.`;
}

function Actions(p: { viewer: Viewer; o: OrderView; card: boolean }) {
  const { o } = p;
  const base = `/studio/shop/orders/${o.uuid}`;
  if (o.status === 'pending')
    return (
      <div class="or-actions">
        <form method="post" action={`${base}/paid`}>
          <Csrf viewer={p.viewer} />
          <button type="submit">Mark paid</button>
          <span class="hint">The buyer paid you directly: the downloads are made and mailed.</span>
        </form>
        <form method="post" action={`${base}/cancel`} class="row">
          <Csrf viewer={p.viewer} />
          <label class="inline">
            <input type="checkbox" name="confirm" value="yes" /> Yes, cancel this order
          </label>
          <button type="submit" class="quiet">
            Cancel the order
          </button>
        </form>
      </div>
    );
  if (o.status !== 'paid' && o.status !== 'shipped') return <p class="muted">Nothing more can be done with this order.</p>;
  const downloads = o.items.some((i) => i.kind === 'download');
  return (
    <div class="or-actions">
      {downloads ? (
        <>
          <form method="post" action={`${base}/extend`}>
            <Csrf viewer={p.viewer} />
            <button type="submit" class="quiet">
              Extend the links 30 days
            </button>
          </form>
          <form method="post" action={`${base}/resend`}>
            <Csrf viewer={p.viewer} />
            <button type="submit" class="quiet" disabled={!o.delivered_at}>
              Resend the download mail
            </button>
          </form>
        </>
      ) : null}
      <form method="post" action={`${base}/refund`} class="row">
        <Csrf viewer={p.viewer} />
        <label class="inline">
          <input type="checkbox" name="confirm" value="yes" /> {p.card ? `Yes, refund ${money(o.total, o.currency)} to the buyer's card` : `Yes, I returned ${money(o.total, o.currency)} to the buyer`}
        </label>
        <button type="submit" class="danger">
          Refund
        </button>
      </form>
    </div>
  );
}

/** An order's prints: where they go, the order sheet, the lab, and the shipping with its tracking link. */
function Prints(p: { viewer: Viewer; o: OrderView; lab?: string; error?: { field: string; message: string }; tracking?: string }) {
  const { o } = p;
  const base = `/studio/shop/orders/${o.uuid}`;
  const paid = o.status === 'paid' || o.status === 'shipped';
  const lines = [o.ship_name, o.ship_line1, o.ship_line2, `${o.ship_postcode ?? ''} ${o.ship_city ?? ''}`.trim(), o.ship_country].filter((l): l is string => !!l);
  const bad = p.error?.field === 'tracking_url';
  return (
    <section class="card or-prints" aria-labelledby="or-prints">
      <h2 id="or-prints">Prints</h2>
      <h3 class="or-sub-title">Ship to</h3>
      <address class="or-address">
        {lines.map((l) => (
          <span>{l}</span>
        ))}
      </address>
      {o.shipped_at ? (
        <p id="shipped-state">
          {`Shipped ${when(o.shipped_at)}: `}
          <a href={o.tracking_url ?? '#'} rel="noopener noreferrer" target="_blank" class="or-ref">
            {o.tracking_url}
          </a>
        </p>
      ) : null}
      {!paid ? (
        <p class="muted">Once the order is paid: the order sheet, the lab and the shipping.</p>
      ) : (
        <div class="or-actions">
          <p>
            <a href={`${base}/sheet`} download>
              Download the order sheet (CSV)
            </a>
          </p>
          <form method="post" action={`${base}/lab`}>
            <Csrf viewer={p.viewer} />
            <button type="submit" class="quiet" disabled={!p.lab}>
              {o.lab_sent_at ? 'Send to the lab again' : 'Send to the lab'}
            </button>
            <span class="hint">
              {o.lab_sent_at ? `Sent ${when(o.lab_sent_at)}. ` : ''}
              {p.lab ? `To ${p.lab}.` : 'No lab yet: set one in Shop → Tax, terms & lab.'}
            </span>
          </form>
          <form method="post" action={`${base}/ship`}>
            <Csrf viewer={p.viewer} />
            <div class="field">
              <label for="tracking_url">Tracking link</label>
              <input type="url" id="tracking_url" name="tracking_url" maxLength={2000} required value={p.tracking ?? o.tracking_url ?? ''} placeholder="https://" aria-describedby={bad ? 'tracking_url-error' : 'tracking_url-hint'} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined} />
              <span class="hint" id="tracking_url-hint">
                The carrier's link; the buyer is mailed it.
              </span>
              {bad ? (
                <span class="error" id="tracking_url-error" role="alert">
                  {p.error!.message}
                </span>
              ) : null}
            </div>
            <button type="submit">{o.shipped_at ? 'Save the new link' : 'Mark shipped'}</button>
          </form>
        </div>
      )}
    </section>
  );
}

export function orderPage(p: { viewer: Viewer; o: OrderView; notice?: string; error?: string; fieldError?: { field: string; message: string }; tracking?: string; lab?: string; now: Date }): string {
  const { o } = p;
  const card = o.payments.some((x) => x.kind === 'payment' && x.provider !== 'manual');
  const tax = Number(o.tax);
  return html(
    <Layout title={`Order ${short(o.uuid)}`} viewer={p.viewer}>
      <p class="muted">
        <a href="/studio/shop/orders">All orders</a>
      </p>
      <div class="or-head">
        <h1>{`Order ${short(o.uuid)}`}</h1>
        <StatusBadge status={o.status} />
        <p class="or-total">{money(o.total, o.currency)}</p>
      </div>
      <Notice notice={p.notice} error={p.error} />
      <div class="or-grid">
        <section class="card or-items" aria-labelledby="or-items">
          <h2 id="or-items">Photos</h2>
          <ul class="or-lines">
            {o.items.map((i) => (
              <li>
                <img src={`/studio/thumbs/${i.media_uuid}`} alt="" width={72} height={72} loading="lazy" decoding="async" />
                <div class="or-line-text">
                  <a href={`/studio/media/${i.media_uuid}`} class="or-file">
                    {i.media_file_name ?? i.media_uuid}
                  </a>
                  <span class="muted">
                    {i.kind === 'print' ? `Print: ${i.label}${i.option_label ? `, ${i.option_label}` : ''}` : `${i.label} (${i.long_edge === null ? 'original file' : `${i.long_edge} px`})`}
                    {Number(i.quantity) > 1 ? ` × ${i.quantity}` : ''}
                  </span>
                </div>
                <span class="or-line-price">{money(i.total, o.currency)}</span>
              </li>
            ))}
          </ul>
          <dl class="or-sums">
            <dt>Subtotal</dt>
            <dd>{money(o.subtotal, o.currency)}</dd>
            {Number(o.discount) > 0 ? (
              <>
                <dt>{`Coupon ${o.coupon_code ?? ''}`}</dt>
                <dd>{`−${money(o.discount, o.currency)}`}</dd>
              </>
            ) : null}
            {tax > 0 ? (
              <>
                <dt>{`Tax ${(Number(o.tax_rate_bp) / 100).toString()} % (${Number(o.tax_included) === 1 ? 'included' : 'added'})`}</dt>
                <dd>{money(tax, o.currency)}</dd>
              </>
            ) : null}
            <dt class="or-grand">Total</dt>
            <dd class="or-grand">{money(o.total, o.currency)}</dd>
          </dl>
        </section>
        <div class="or-side">
          <section class="card" aria-labelledby="or-do">
            <h2 id="or-do">Actions</h2>
            <Actions viewer={p.viewer} o={o} card={card} />
          </section>
          {o.items.some((i) => i.kind === 'print') ? <Prints viewer={p.viewer} o={o} lab={p.lab} error={p.fieldError} tracking={p.tracking} /> : null}
          <section class="card" aria-labelledby="or-buyer">
            <h2 id="or-buyer">Buyer</h2>
            <p class="or-buyer-name">{o.name || 'No name given'}</p>
            <p>
              <a href={`mailto:${o.email}`}>{o.email}</a>
            </p>
            <p class="muted">{`Placed ${when(o.created_at)}`}</p>
          </section>
          <section class="card" aria-labelledby="or-pay">
            <h2 id="or-pay">Payments</h2>
            {o.payments.length === 0 ? (
              <p class="muted">None yet.</p>
            ) : (
              <ul class="list">
                {o.payments.map((x) => (
                  <li>
                    <span>
                      {x.kind === 'refund' ? 'Refund' : 'Payment'} · {x.provider === 'manual' ? 'paid directly' : x.provider === 'stripe' ? 'card (Stripe)' : x.provider}
                      <span class="muted or-when"> {when(x.created_at)}</span>
                      {x.reference ? <span class="muted or-ref"> {x.reference}</span> : null}
                    </span>
                    <strong>{money(x.amount, x.currency)}</strong>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section class="card" aria-labelledby="or-links">
            <h2 id="or-links">Download links</h2>
            <p id="links-state">{linksState(o, p.now)}</p>
          </section>
        </div>
      </div>
    </Layout>,
  );
}

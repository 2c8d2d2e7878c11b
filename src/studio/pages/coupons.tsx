// A website's coupons in the studio (docs/studio.md "Shop"): the list (code, discount, validity,
// uses, active), the form that creates or edits one, deactivate and delete. No script.
import type { VNode } from 'preact';
import { CURRENCIES } from '../../shop/money.js';
import type { Coupon } from '../../coupons/service.js';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';
import { day, money, ShopNav } from './shop-common.js';

/** What the coupon screens show of a coupon (the coupons service's own type). */
export type CouponView = Pick<Coupon, 'uuid' | 'code' | 'kind' | 'value' | 'currency' | 'valid_from' | 'valid_until' | 'usage_limit' | 'times_used' | 'active'>;

/** The form as typed (or as stored, for people): every field a string. */
export interface CouponDraft {
  code: string;
  percent: string;
  amount: string;
  currency: string;
  valid_from: string;
  valid_until: string;
  max_uses: string;
  active: boolean;
}

export interface WebsiteChoice {
  urlname: string;
  title: string;
  /** The website's public address. */
  home: string;
}

type FormError = { field: string; message: string };

export const discountOf = (c: CouponView) => (c.kind === 'percent' ? `${c.value / 100} % off` : `${money(c.value, c.currency ?? 'EUR')} off`);

function validity(c: CouponView): string {
  if (!c.valid_from && !c.valid_until) return 'Always';
  if (!c.valid_until) return `From ${day(c.valid_from!)}`;
  if (!c.valid_from) return `Until ${day(c.valid_until)}`;
  return `${day(c.valid_from)} – ${day(c.valid_until)}`;
}

/** The website tabs of a per-website shop screen. */
export function WebsitePicker(p: { websites: WebsiteChoice[]; current: string; base: string }): VNode | null {
  if (p.websites.length < 2) return null;
  return (
    <nav class="cp-sites" aria-label="Websites">
      {p.websites.map((w) => (
        <a href={`${p.base}?website=${encodeURIComponent(w.urlname)}`} aria-current={w.urlname === p.current ? 'page' : undefined}>
          {w.title || w.urlname}
        </a>
      ))}
    </nav>
  );
}

function CouponFields(p: { draft: CouponDraft; error?: FormError }): VNode {
  const e = p.error;
  const input = (id: keyof CouponDraft, label: string, type: 'text' | 'date', hint?: string, extra: Record<string, unknown> = {}) => (
    <Field id={id} label={label} hint={hint} error={e}>
      {(d, bad) => <input type={type as "text"} id={id} name={id} value={String(p.draft[id])} aria-describedby={d} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined} {...extra} />}
    </Field>
  );
  return (
    <>
      <div class="cp-fields">
        {input('code', 'Code', 'text', 'Letters, digits, - and _; buyers may type it in any case.', { maxLength: 32, autocapitalize: 'characters', spellcheck: false })}
        {input('percent', 'Percent off', 'text', 'A whole percent, 1 to 100; or an amount below.', { inputMode: 'numeric', maxLength: 3 })}
        {input('amount', 'Amount off', 'text', 'In the currency beside it, e.g. 5.00.', { inputMode: 'decimal', maxLength: 16 })}
        <Field id="currency" label="Currency of the amount" error={e}>
          {(d, bad) => (
            <select id="currency" name="currency" aria-describedby={d} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined}>
              <option value="">—</option>
              {Object.keys(CURRENCIES).map((c) => (
                <option value={c} selected={p.draft.currency === c}>
                  {c}
                </option>
              ))}
            </select>
          )}
        </Field>
        {input('valid_from', 'Valid from (UTC)', 'date', 'Empty: from now.')}
        {input('valid_until', 'Valid until (UTC)', 'date', 'Empty: no end. The day itself is included.')}
        {input('max_uses', 'Maximum uses', 'text', 'Empty: no limit.', { inputMode: 'numeric', maxLength: 7 })}
      </div>
      <label class="inline">
        <input type="checkbox" name="active" value="1" checked={p.draft.active} /> Active: buyers can use it
      </label>
    </>
  );
}

function CouponRow(p: { viewer: Viewer; urlname: string; c: CouponView }): VNode {
  const c = p.c;
  const base = `/studio/shop/coupons/${encodeURIComponent(p.urlname)}/${c.uuid}`;
  return (
    <li class="cp-row">
      <div class="cp-main">
        <a class="cp-code" href={base}>
          {c.code}
        </a>
        <span>{discountOf(c)}</span>
        <span class="muted cp-sub">
          {validity(c)} · {c.times_used} {c.usage_limit === null ? 'uses' : `of ${c.usage_limit} uses`}
        </span>
      </div>
      <div class="cp-end">
        <span class={`status ${c.active ? 'status-paid' : 'status-cancelled'}`}>{c.active ? 'Active' : 'Inactive'}</span>
        <form method="post" action={`${base}/active`}>
          <Csrf viewer={p.viewer} />
          <input type="hidden" name="active" value={c.active ? '0' : '1'} />
          <button type="submit" class="quiet" aria-label={`${c.active ? 'Deactivate' : 'Activate'} ${c.code}`}>
            {c.active ? 'Deactivate' : 'Activate'}
          </button>
        </form>
      </div>
    </li>
  );
}

export function couponsPage(p: { viewer: Viewer; websites: WebsiteChoice[]; urlname?: string; coupons: CouponView[]; total: number; draft: CouponDraft; error?: FormError; notice?: string }): string {
  const site = p.websites.find((w) => w.urlname === p.urlname);
  return html(
    <Layout title="Coupons" viewer={p.viewer}>
      <h1>Coupons</h1>
      <ShopNav current="coupons" />
      <Notice notice={p.notice} error={p.error && p.error.field === '' ? p.error.message : undefined} />
      {!site ? (
        <p>You have no website yet: coupons are per website.</p>
      ) : (
        <>
          <WebsitePicker websites={p.websites} current={site.urlname} base="/studio/shop/coupons" />
          <section class="card" aria-labelledby="cp-list">
            <h2 id="cp-list">Coupons of {site.title || site.urlname}</h2>
            {p.coupons.length === 0 ? <p>No coupons yet.</p> : null}
            <ul class="cp-list">
              {p.coupons.map((c) => (
                <CouponRow viewer={p.viewer} urlname={site.urlname} c={c} />
              ))}
            </ul>
            {p.total > p.coupons.length ? <p class="muted">The first {p.coupons.length} of {p.total}.</p> : null}
          </section>
          <form method="post" action={`/studio/shop/coupons/${encodeURIComponent(site.urlname)}`} class="card" aria-labelledby="cp-new">
            <h2 id="cp-new">New coupon</h2>
            <Csrf viewer={p.viewer} />
            <CouponFields draft={p.draft} error={p.error} />
            <button type="submit">Create the coupon</button>
          </form>
        </>
      )}
    </Layout>,
  );
}

export function couponPage(p: { viewer: Viewer; urlname: string; c: CouponView; draft: CouponDraft; error?: FormError; notice?: string }): string {
  const base = `/studio/shop/coupons/${encodeURIComponent(p.urlname)}/${p.c.uuid}`;
  return html(
    <Layout title={`Coupon ${p.c.code}`} viewer={p.viewer}>
      <p>
        <a href={`/studio/shop/coupons?website=${encodeURIComponent(p.urlname)}`}>← Coupons</a>
      </p>
      <h1>Coupon {p.c.code}</h1>
      <Notice notice={p.notice} error={p.error && p.error.field === '' ? p.error.message : undefined} />
      <p class="muted">
        {discountOf(p.c)} · used {p.c.times_used} {p.c.times_used === 1 ? 'time' : 'times'}
      </p>
      <form method="post" action={base} class="card" aria-labelledby="cp-edit">
        <h2 id="cp-edit">Change it</h2>
        <Csrf viewer={p.viewer} />
        <CouponFields draft={p.draft} error={p.error} />
        <button type="submit">Save the coupon</button>
      </form>
      <form method="post" action={`${base}/delete`} class="card row danger-row" aria-labelledby="cp-del">
        <h2 id="cp-del">Delete</h2>
        <Csrf viewer={p.viewer} />
        <p class="muted">Placed orders keep its code and discount.</p>
        <label class="inline">
          <input type="checkbox" name="confirm" value="yes" /> Yes, delete this coupon
        </label>
        <button type="submit" class="danger">
          Delete the coupon
        </button>
      </form>
    </Layout>,
  );
}

// A website's tax and terms of sale, and the photographer's print lab, in the studio (docs/studio.md
// "Shop"). The manual-payment instructions stay on the Payments tab: linked, not repeated.
import type { VNode } from 'preact';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';
import { WebsitePicker, type WebsiteChoice } from './coupons.js';
import { ShopNav } from './shop-common.js';

export interface SettingsDraft {
  tax_rate: string;
  tax_label: string;
  tax_included: boolean;
  terms: string;
}
export interface LabDraft {
  email: string;
  auto: boolean;
}

type FormError = { field: string; message: string };

function TaxTerms(p: { viewer: Viewer; site: WebsiteChoice; draft: SettingsDraft; error?: FormError }): VNode {
  const e = p.error;
  const bad = (id: string) => e?.field === id;
  return (
    <form method="post" action={`/studio/shop/settings/${encodeURIComponent(p.site.urlname)}`} class="card" aria-labelledby="st-tax">
      <h2 id="st-tax">Tax and terms of {p.site.title || p.site.urlname}</h2>
      <Csrf viewer={p.viewer} />
      <div class="cp-fields">
        <Field id="tax_rate" label="Tax rate (%)" hint="20 for 20 %, 7.7 for 7.7 %; 0: no tax." error={e}>
          {(d) => <input type="text" id="tax_rate" name="tax_rate" inputMode="decimal" maxLength={8} value={p.draft.tax_rate} aria-describedby={d} aria-invalid={bad('tax_rate') || undefined} class={bad('tax_rate') ? 'invalid' : undefined} />}
        </Field>
        <Field id="tax_label" label="Its name on receipts" hint="VAT, MwSt, GST… Empty: “Tax”." error={e}>
          {(d) => <input type="text" id="tax_label" name="tax_label" maxLength={40} value={p.draft.tax_label} aria-describedby={d} aria-invalid={bad('tax_label') || undefined} class={bad('tax_label') ? 'invalid' : undefined} />}
        </Field>
      </div>
      <fieldset class="st-included">
        <legend>Your prices</legend>
        <label class="inline">
          <input type="radio" name="tax_included" value="1" checked={p.draft.tax_included} /> include the tax (the buyer pays your prices)
        </label>
        <label class="inline">
          <input type="radio" name="tax_included" value="0" checked={!p.draft.tax_included} /> do not: the tax is added at checkout
        </label>
      </fieldset>
      <Field id="terms" label="Terms of sale (Markdown)" hint="Headings, lists, links, emphasis. When set, buyers must accept them at checkout. Empty: no terms." error={e}>
        {(d) => (
          <textarea id="terms" name="terms" rows={10} maxLength={20000} aria-describedby={d} aria-invalid={bad('terms') || undefined} class={bad('terms') ? 'invalid' : undefined}>
            {p.draft.terms}
          </textarea>
        )}
      </Field>
      <p class="st-links">
        <a href={`${p.site.home.replace(/\/$/, '')}/_cart/terms`} target="_blank" rel="noopener">
          Preview the terms page<span class="sr"> of {p.site.title || p.site.urlname}</span>
        </a>{' '}
        (once saved) · Manual-payment instructions: on <a href="/studio/shop/payments">Payments</a>
      </p>
      <button type="submit">Save tax and terms</button>
    </form>
  );
}

function Lab(p: { viewer: Viewer; draft: LabDraft; error?: FormError; website?: string }): VNode {
  const e = p.error;
  return (
    <form method="post" action="/studio/shop/lab" class="card" aria-labelledby="st-lab">
      <h2 id="st-lab">Print lab</h2>
      <p class="muted">Orders with prints go to your lab as an order sheet (CSV, with links to the files at print size), for all your websites.</p>
      <Csrf viewer={p.viewer} />
      {p.website ? <input type="hidden" name="website" value={p.website} /> : null}
      <Field id="lab_email" label="Lab's e-mail" hint="Empty: no lab (you download the order sheet yourself)." error={e}>
        {(d, bad) => <input type="email" id="lab_email" name="lab_email" maxLength={254} autocomplete="off" value={p.draft.email} aria-describedby={d} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined} />}
      </Field>
      <label class="inline">
        <input type="checkbox" name="auto" value="1" checked={p.draft.auto} /> Send paid print orders automatically
      </label>
      <button type="submit">Save the lab</button>
    </form>
  );
}

export function shopSettingsPage(p: {
  viewer: Viewer;
  websites: WebsiteChoice[];
  site?: WebsiteChoice;
  draft: SettingsDraft;
  lab: LabDraft;
  error?: FormError;
  /** Which form the error is of. */
  errorOf?: 'settings' | 'lab';
  notice?: string;
}): string {
  return html(
    <Layout title="Tax, terms & lab" viewer={p.viewer}>
      <h1>Tax, terms &amp; lab</h1>
      <ShopNav current="settings" />
      <Notice notice={p.notice} error={p.error && p.error.field === '' ? p.error.message : undefined} />
      {p.site ? (
        <>
          <WebsitePicker websites={p.websites} current={p.site.urlname} base="/studio/shop/settings" />
          <TaxTerms viewer={p.viewer} site={p.site} draft={p.draft} error={p.errorOf === 'settings' ? p.error : undefined} />
        </>
      ) : (
        <p>You have no website yet: tax and terms are per website.</p>
      )}
      <Lab viewer={p.viewer} draft={p.lab} error={p.errorOf === 'lab' ? p.error : undefined} website={p.site?.urlname} />
    </Layout>,
  );
}

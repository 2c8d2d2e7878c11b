// A gallery sold whole, on its settings page beside "Sell these photos" (docs/studio.md "Shop"):
// one price for all its photos at one size of a download price list. No script.
import type { VNode } from 'preact';
import { Csrf, Field, type Viewer } from './layout.js';
import { money, plainAmount } from './shop-common.js';

/** A size of a download list the gallery can be sold at; `value` is the form's (list and item position). */
export interface SaleChoice {
  value: string;
  label: string;
}

export interface SaleView {
  viewer: Viewer;
  uuid: string;
  choices: SaleChoice[];
  /** The sale as set: what it sells and at what price. */
  current?: { choice: string; price: number; currency: string; medias: number; words: string };
  /** The form as sent (after a refusal). */
  draft?: { choice: string; price: string };
  error?: { field: string; message: string };
  notice?: string;
}

export function WholeSaleCard(p: SaleView): VNode {
  const e = p.error;
  const chosen = p.draft?.choice ?? p.current?.choice ?? '';
  return (
    <form method="post" action={`/studio/galleries/${p.uuid}/sale`} class="card" aria-labelledby="whole-title" id="whole-sale">
      <h2 id="whole-title">Sell the whole gallery</h2>
      {p.notice ? (
        <p class="notice" role="status">
          {p.notice}
        </p>
      ) : null}
      {e && e.field === '' ? (
        <p class="alert" role="alert">
          {e.message}
        </p>
      ) : null}
      <Csrf viewer={p.viewer} />
      <p class="muted" id="whole-state">
        {p.current ? `For sale whole: ${p.current.words}, ${money(p.current.price, p.current.currency)} for its ${p.current.medias === 1 ? 'one photo' : `${p.current.medias} photos`}.` : 'Not sold whole. Buyers get every photo of the gallery as it is when they pay, as one ZIP.'}
      </p>
      {p.choices.length === 0 ? (
        <p class="muted">
          It needs a download price list: <a href="/studio/shop/price-lists">create one in the shop</a>.
        </p>
      ) : (
        <>
          <Field id="sale_item" label="Size of the files" hint="A size of one of your download price lists (its own price is not used)." error={e}>
            {(d, bad) => (
              <select id="sale_item" name="sale_item" aria-describedby={d} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined}>
                {p.choices.map((c) => (
                  <option value={c.value} selected={c.value === chosen}>
                    {c.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field id="sale_price" label="Price of the whole gallery" hint="In the list's currency, e.g. 49.00." error={e}>
            {(d, bad) => (
              <input type="text" id="sale_price" name="sale_price" inputMode="decimal" maxLength={16} value={p.draft?.price ?? (p.current ? plainAmount(p.current.price, p.current.currency) : '')} aria-describedby={d} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined} />
            )}
          </Field>
          <div class="row">
            <button type="submit" name="do" value="sell">
              {p.current ? 'Save the sale' : 'Sell the gallery whole'}
            </button>
            {p.current ? (
              <button type="submit" name="do" value="stop" class="quiet">
                Stop selling it whole
              </button>
            ) : null}
          </div>
        </>
      )}
    </form>
  );
}

// Price lists (docs/studio.md "Shop"): the photographer's lists with their kind, currency and
// number of items; a new list (name, kind, currency); one list's editor (download sizes, or print
// products with their options priced or by ratio), with empty rows to fill, working without script.
import type { VNode } from 'preact';
import { CURRENCY_CODES } from '../../shop/money.js';
import { Csrf, Field, html, Layout, Notice, type Viewer } from './layout.js';
import { ShopNav } from './shop-common.js';

export interface ListRow {
  uuid: string;
  name: string;
  kind: string;
  currency: string;
  itemsCount: number;
}

export interface OptionDraft {
  label: string;
  price: string;
  ratio: string;
}
export interface ItemDraft {
  label: string;
  longEdge: string;
  price: string;
  options: OptionDraft[];
}
export interface ListDraft {
  uuid: string;
  name: string;
  kind: string;
  currency: string;
  minimumPrice: string;
  items: ItemDraft[];
}

export interface FormError {
  field: string;
  message: string;
}

/** Empty rows offered under the filled ones: sizes of a download list, products, options of a product. */
const SPARE_ITEMS = 3;
const SPARE_PRODUCTS = 1;
const SPARE_OPTIONS = 2;

/** The id of a form name (`items[0][price]` → `items-0-price`): ids and errors meet by it. */
export const idOf = (name: string) => name.replace(/\]\[|\[|\]/g, '-').replace(/-+$/, '');

const KIND_WORDS: Record<string, string> = { download: 'Downloads', print: 'Prints' };

function NewListForm(p: { viewer: Viewer; error?: FormError; draft?: { name: string; kind: string; currency: string } }) {
  const e = p.error;
  return (
    <form method="post" action="/studio/shop/price-lists" class="card pl-new" aria-labelledby="pl-new-title">
      <h2 id="pl-new-title">New price list</h2>
      <Csrf viewer={p.viewer} />
      <div class="pl-new-fields">
        <Field id="name" label="Name" hint="Shown to you only." error={e}>
          {(d, bad) => <input type="text" id="name" name="name" maxLength={255} required value={p.draft?.name ?? ''} aria-describedby={d} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined} />}
        </Field>
        <Field id="kind" label="Sells" error={e}>
          {(d, bad) => (
            <select id="kind" name="kind" aria-describedby={d} aria-invalid={bad || undefined}>
              <option value="download" selected={p.draft?.kind !== 'print'}>
                Downloads (sizes of the file)
              </option>
              <option value="print" selected={p.draft?.kind === 'print'}>
                Prints (products and options)
              </option>
            </select>
          )}
        </Field>
        <Field id="currency" label="Currency" error={e}>
          {(d, bad) => <CurrencySelect id="currency" value={p.draft?.currency ?? 'EUR'} describedBy={d} bad={bad} />}
        </Field>
      </div>
      <button type="submit">Create the price list</button>
    </form>
  );
}

function CurrencySelect(p: { id: string; value: string; describedBy?: string; bad?: boolean }) {
  return (
    <select id={p.id} name="currency" aria-describedby={p.describedBy} aria-invalid={p.bad || undefined}>
      {CURRENCY_CODES.map((c) => (
        <option value={c} selected={c === p.value}>
          {c}
        </option>
      ))}
    </select>
  );
}

export function priceListsPage(p: { viewer: Viewer; lists: ListRow[]; total: number; notice?: string; error?: FormError; draft?: { name: string; kind: string; currency: string } }): string {
  return html(
    <Layout title="Price lists" viewer={p.viewer}>
      <h1>Price lists</h1>
      <ShopNav current="price-lists" />
      <Notice notice={p.notice} error={p.error?.field === '' ? p.error.message : undefined} />
      <p class="muted">
        A price list says what a photo sells at. Attach lists to photos in the <a href="/studio/media">library</a>'s batch edit (or to all the photos of a gallery from its
        settings); a photo without one is not for sale.
      </p>
      {p.lists.length === 0 ? (
        <p class="card muted">No price list yet.</p>
      ) : (
        <ul class="list card pl-list">
          {p.lists.map((l) => (
            <li>
              <a href={`/studio/shop/price-lists/${l.uuid}`} class="pl-name">
                {l.name}
              </a>
              <span class="muted">
                {KIND_WORDS[l.kind] ?? l.kind} · {l.currency} · {l.itemsCount} {l.kind === 'print' ? (l.itemsCount === 1 ? 'product' : 'products') : l.itemsCount === 1 ? 'size' : 'sizes'}
              </span>
            </li>
          ))}
        </ul>
      )}
      {p.total > p.lists.length ? <p class="muted">{`The first ${p.lists.length} of ${p.total} lists.`}</p> : null}
      <NewListForm viewer={p.viewer} error={p.error?.field ? p.error : undefined} draft={p.draft} />
    </Layout>,
  );
}

/** One input of an item's row, labelled for screen readers, with its error under it. */
function Cell(p: { name: string; label: string; value: string; error?: FormError; inputMode?: 'numeric' | 'decimal'; placeholder?: string; wide?: boolean }): VNode {
  const id = idOf(p.name);
  const bad = p.error?.field === id;
  return (
    <div class={p.wide ? 'pl-cell pl-wide' : 'pl-cell'}>
      <label for={id}>{p.label}</label>
      <input
        type="text"
        id={id}
        name={p.name}
        value={p.value}
        inputMode={p.inputMode}
        placeholder={p.placeholder}
        aria-invalid={bad || undefined}
        aria-describedby={bad ? `${id}-error` : undefined}
        class={bad ? 'invalid' : undefined}
      />
      {bad ? (
        <span class="error" id={`${id}-error`} role="alert">
          {p.error!.message}
        </span>
      ) : null}
    </div>
  );
}

function DownloadRows(p: { items: ItemDraft[]; currency: string; error?: FormError }) {
  const rows = [...p.items, ...Array.from({ length: SPARE_ITEMS }, () => ({ label: '', longEdge: '', price: '', options: [] }))];
  return (
    <fieldset class="pl-items">
      <legend>Sizes</legend>
      <p class="hint">Each size a buyer can download. A blank long edge is the original file, byte for byte. A size larger than a photo's original is not offered for it. Empty rows are left out.</p>
      <ol class="pl-rows">
        {rows.map((it, i) => (
          <li class="pl-row">
            <Cell name={`items[${i}][label]`} label={`Size ${i + 1}: label`} value={it.label} error={p.error} placeholder="Web" wide />
            <Cell name={`items[${i}][long_edge]`} label="Long edge (px)" value={it.longEdge} error={p.error} inputMode="numeric" placeholder="original" />
            <Cell name={`items[${i}][price]`} label={`Price (${p.currency})`} value={it.price} error={p.error} inputMode="decimal" placeholder="9.00" />
          </li>
        ))}
      </ol>
    </fieldset>
  );
}

function PrintProducts(p: { items: ItemDraft[]; currency: string; error?: FormError }) {
  const products = [...p.items, ...Array.from({ length: SPARE_PRODUCTS }, () => ({ label: '', longEdge: '', price: '', options: [] }))];
  return (
    <div class="pl-items">
      <h2>Products</h2>
      <p class="hint">
        Each product has a base price and options (sizes, papers, frames). An option has its own price, or a ratio over the base price: 200 is the base price itself, 300 one
        and a half times it. Empty rows are left out.
      </p>
      {products.map((it, i) => {
        const options = [...it.options, ...Array.from({ length: SPARE_OPTIONS }, () => ({ label: '', price: '', ratio: '' }))];
        return (
          <fieldset class="pl-product">
            <legend>{it.label ? `Product ${i + 1}: ${it.label}` : `Product ${i + 1}`}</legend>
            <div class="pl-row">
              <Cell name={`items[${i}][label]`} label="Product" value={it.label} error={p.error} placeholder="Fine Art paper" wide />
              <Cell name={`items[${i}][price]`} label={`Base price (${p.currency})`} value={it.price} error={p.error} inputMode="decimal" placeholder="100.00" />
            </div>
            <ol class="pl-rows pl-options">
              {options.map((o, j) => (
                <li class="pl-row">
                  <Cell name={`items[${i}][options][${j}][label]`} label={`Option ${j + 1}`} value={o.label} error={p.error} placeholder="A3" wide />
                  <Cell name={`items[${i}][options][${j}][price]`} label={`Price (${p.currency})`} value={o.price} error={p.error} inputMode="decimal" />
                  <Cell name={`items[${i}][options][${j}][ratio]`} label="or ratio" value={o.ratio} error={p.error} inputMode="numeric" placeholder="200" />
                </li>
              ))}
            </ol>
          </fieldset>
        );
      })}
    </div>
  );
}

export function priceListPage(p: { viewer: Viewer; draft: ListDraft; notice?: string; error?: FormError }): string {
  const d = p.draft;
  const e = p.error;
  return html(
    <Layout title={`Price list: ${d.name}`} viewer={p.viewer}>
      <h1>{d.name}</h1>
      <ShopNav current="price-lists" />
      <p class="muted">
        <a href="/studio/shop/price-lists">All price lists</a>
      </p>
      <Notice notice={p.notice} error={e && (e.field === '' || e.field === 'form') ? e.message : undefined} />
      {e && e.field !== '' && e.field !== 'form' ? (
        <p class="alert">
          The price list was not saved: <a href={`#${e.field}`}>see the field marked below</a>.
        </p>
      ) : null}
      <form method="post" action={`/studio/shop/price-lists/${d.uuid}`} class="card pl-edit">
        <Csrf viewer={p.viewer} />
        <div class="pl-new-fields">
          <Field id="name" label="Name" error={e}>
            {(db, bad) => <input type="text" id="name" name="name" maxLength={255} required value={d.name} aria-describedby={db} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined} />}
          </Field>
          <Field id="kind" label="Sells" hint="Changing it empties the list (sizes are not products)." error={e}>
            {(db, bad) => (
              <select id="kind" name="kind" aria-describedby={db} aria-invalid={bad || undefined}>
                <option value="download" selected={d.kind === 'download'}>
                  Downloads
                </option>
                <option value="print" selected={d.kind === 'print'}>
                  Prints
                </option>
              </select>
            )}
          </Field>
          <Field id="currency" label="Currency" hint="Prices keep their figures in a new currency." error={e}>
            {(db, bad) => <CurrencySelect id="currency" value={d.currency} describedBy={db} bad={bad} />}
          </Field>
          {d.kind === 'print' ? (
            <Field id="minimum_price" label={`Minimum price (${d.currency})`} hint="No print costs less. Blank: none." error={e}>
              {(db, bad) => (
                <input type="text" id="minimum_price" name="minimum_price" inputMode="decimal" value={d.minimumPrice} aria-describedby={db} aria-invalid={bad || undefined} class={bad ? 'invalid' : undefined} />
              )}
            </Field>
          ) : null}
        </div>
        {d.kind === 'print' ? <PrintProducts items={d.items} currency={d.currency} error={e} /> : <DownloadRows items={d.items} currency={d.currency} error={e} />}
        <div class="row">
          <button type="submit">Save the price list</button>
        </div>
      </form>
      <form method="post" action={`/studio/shop/price-lists/${d.uuid}/delete`} class="card row danger-row">
        <Csrf viewer={p.viewer} />
        <label class="inline">
          <input type="checkbox" name="confirm" value="yes" /> Yes, delete this list (photos carrying it are no longer sold with it; placed orders keep their prices)
        </label>
        <button type="submit" class="danger">
          Delete
        </button>
      </form>
    </Layout>,
  );
}

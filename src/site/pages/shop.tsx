// The shop's pages (docs/shop.md "On the website"): a media's offer on its page,
// the cart, and the buyer's order page. Plain forms, no script; every amount is
// the service's, in minor units, formatted here for people.
import type { VNode } from 'preact';
import { money } from '../../shop/money.js';
import type { OfferedList } from '../../shop/offer.js';
import type { Picture } from '../service.js';
import { Layout, type Frame } from './layout.js';
import { Img } from './picture.js';

/** The website's terms of sale, as their Markdown renders (sanitised by the site's renderer). */
export function TermsPage(props: { frame: Base; html: string; cartHref: string }): VNode {
  return (
    <Layout {...props.frame} title="Terms of sale" indexable={false}>
      <h1>Terms of sale</h1>
      <article class="prose" dangerouslySetInnerHTML={{ __html: props.html }} />
      <p>
        <a href={props.cartHref}>Back to your cart</a>
      </p>
    </Layout>
  );
}

type Base = Omit<Frame, 'title' | 'indexable' | 'crumbs' | 'script'>;

function itemText(i: { kind?: string; label: string; option?: string | null; longEdge?: number | null; long_edge?: number | null }): string {
  const edge = i.longEdge ?? i.long_edge ?? null;
  if (i.kind === 'print') return i.option ? `Print: ${i.label}, ${i.option}` : `Print: ${i.label}`;
  const size = edge === null ? `${i.label} (original files)` : `${i.label} (${edge} px)`;
  if (i.kind === 'gallery') return `The whole gallery: ${size}`;
  return edge === null ? `${i.label} (original file)` : `${i.label} (${edge} px)`;
}

/** The value of an offer's radio: the list, the item's label and a print's option after a tab (the server checks them against the offer). */
export const choiceOf = (profile: string, label: string, option?: string | null) => `${profile}:${label}${option ? `\t${option}` : ''}`;

export interface OfferProps {
  action: string;
  media: string;
  lists: OfferedList[];
  cartHref: string;
}

/** A priced media's offer on its page: one radio per item, one button. */
export function Offer(props: OfferProps): VNode {
  let first = true;
  return (
    <section aria-labelledby="buy-h" class="offer">
      <h2 id="buy-h">Buy this photo</h2>
      <form method="post" action={props.action}>
        <input type="hidden" name="media" value={props.media} />
        {props.lists.map((l) => (
          <fieldset key={l.uuid}>
            <legend>{l.name}</legend>
            {l.items.map((i) => {
              const checked = first;
              first = false;
              return (
                <label key={`${i.label}\t${i.option ?? ''}`}>
                  <span>
                    <input type="radio" name="choice" value={choiceOf(l.uuid, i.label, i.option)} checked={checked} required /> {l.kind === 'print' ? (i.option ? `${i.label}, ${i.option}` : i.label) : itemText(i)}
                  </span>
                  <span class="price">{money(i.unitPrice, l.currency)}</span>
                </label>
              );
            })}
          </fieldset>
        ))}
        <span class="actions">
          <button type="submit">Add to cart</button>
          <a href={props.cartHref} class="to-cart">
            View cart
          </a>
        </span>
      </form>
    </section>
  );
}

export interface CartLine {
  media: string;
  profile: string;
  /** download, print, or gallery (then `media` is the gallery's UUID). */
  kind: string;
  label: string;
  option: string | null;
  longEdge: number | null;
  quantity: number;
  unitPrice: number;
  total: number;
  title: string;
  href?: string;
  picture?: Picture;
}

export interface CartTotalsView {
  currency: string;
  subtotal: number;
  discount: number;
  tax: number;
  taxRateBp: number;
  taxIncluded: boolean;
  total: number;
  coupon: string | null;
  /** The website's name of its tax ("VAT"); null: "Tax". */
  taxLabel?: string | null;
}

export interface CartPageProps {
  frame: Base;
  action: string;
  lines: CartLine[];
  totals?: CartTotalsView;
  card: boolean;
  manualText: string;
  /** What left the cart since the visitor last saw it. */
  changed?: string;
  error?: string;
  email?: string;
  name?: string;
  /** The terms page, when the website has terms: checkout asks for them to be accepted. */
  termsHref?: string;
  /** The coupon code as typed, shown back with a refusal. */
  couponTyped?: string;
  /** The postal address as last sent (a refused checkout shows it again). */
  address?: Record<string, string | undefined>;
}

/** The checkout's postal address, asked only when the cart holds prints. */
function AddressFields(props: { a: Record<string, string | undefined> }): VNode {
  const f = (part: string, label: string, max: number, auto: string, required = true) => (
    <>
      <label for={`ship_${part}`}>{label}</label>
      <input id={`ship_${part}`} name={`ship_${part}`} maxLength={max} autocomplete={auto} required={required} value={props.a[part] ?? ''} />
    </>
  );
  return (
    <fieldset class="address">
      <legend>Delivery address (for your prints)</legend>
      {f('name', 'Name', 200, 'shipping name')}
      {f('line1', 'Address', 200, 'shipping address-line1')}
      {f('line2', 'Address, line 2 (optional)', 200, 'shipping address-line2', false)}
      {f('postcode', 'Postcode', 20, 'shipping postal-code')}
      {f('city', 'City', 100, 'shipping address-level2')}
      {f('country', 'Country', 60, 'shipping country-name')}
    </fieldset>
  );
}

function Totals(props: { t: CartTotalsView }): VNode {
  const t = props.t;
  const rate = `${(t.taxRateBp / 100).toLocaleString('en')} %`;
  return (
    <dl class="totals">
      <dt>Subtotal</dt>
      <dd>{money(t.subtotal, t.currency)}</dd>
      {t.discount > 0 ? (
        <>
          <dt>Coupon {t.coupon}</dt>
          <dd>−{money(t.discount, t.currency)}</dd>
        </>
      ) : null}
      {t.taxRateBp > 0 ? (
        <>
          <dt>{t.taxIncluded ? `${t.taxLabel || 'Tax'} included (${rate})` : `${t.taxLabel || 'Tax'} (${rate})`}</dt>
          <dd>{money(t.tax, t.currency)}</dd>
        </>
      ) : null}
      <dt class="total">Total</dt>
      <dd class="total">{money(t.total, t.currency)}</dd>
    </dl>
  );
}

export function CartPage(props: CartPageProps): VNode {
  const a = props.action;
  return (
    <Layout {...props.frame} title="Your cart" indexable={false}>
      <h1>Your cart</h1>
      {props.error ? (
        <p class="error" role="alert" id="page-error">
          {props.error}
        </p>
      ) : null}
      {props.changed ? (
        <p class="notice" role="status">
          {props.changed}
        </p>
      ) : null}
      {props.lines.length === 0 || !props.totals ? (
        <p>
          Your cart is empty. <a href={props.frame.homeHref}>Back to the photos</a>
        </p>
      ) : (
        <>
          <ul class="cart">
            {props.lines.map((l, n) => (
              <li key={`${l.media}/${l.profile}/${l.label}/${l.option ?? ''}`}>
                {l.picture && l.href ? (
                  <a href={l.href} tabIndex={-1} aria-hidden="true">
                    <Img picture={{ ...l.picture, alt: '' }} sizes="6rem" auto={false} />
                  </a>
                ) : l.picture ? (
                  <Img picture={{ ...l.picture, alt: '' }} sizes="6rem" auto={false} />
                ) : (
                  <span />
                )}
                <div>
                  {l.href ? <a href={l.href}>{l.title}</a> : <span>{l.title}</span>}
                  <div>{itemText(l)}</div>
                  {l.kind === 'gallery' ? (
                    <form method="post" action={`${a}/update`}>
                      <input type="hidden" name="gallery" value={l.media} />
                      <button type="submit" name="remove" value="1" class="quiet">
                        Remove
                      </button>
                    </form>
                  ) : (
                  <form method="post" action={`${a}/update`}>
                    <input type="hidden" name="media" value={l.media} />
                    <input type="hidden" name="choice" value={choiceOf(l.profile, l.label, l.option)} />
                    <label for={`q${n}`}>Quantity</label>
                    <input id={`q${n}`} type="number" name="quantity" min={1} max={100} value={String(l.quantity)} required />
                    <button type="submit" class="quiet">
                      Update
                    </button>
                    <button type="submit" name="remove" value="1" class="quiet">
                      Remove
                    </button>
                  </form>
                  )}
                </div>
                <span class="price">{money(l.total, props.totals!.currency)}</span>
              </li>
            ))}
          </ul>
          <Totals t={props.totals} />
          <form method="post" action={`${a}/coupon`} class="inline">
            <span>
              <label for="coupon">Coupon code</label>
              <br />
              <input
                id="coupon"
                name="coupon"
                maxLength={32}
                value={props.couponTyped ?? props.totals.coupon ?? ''}
                autocomplete="off"
                aria-invalid={props.couponTyped !== undefined ? 'true' : undefined}
                aria-describedby={props.couponTyped !== undefined ? 'page-error' : undefined}
              />
            </span>
            <button type="submit" class="quiet">
              Apply
            </button>
          </form>
          {props.totals.coupon ? (
            <form method="post" action={`${a}/coupon`} class="coupon-off">
              <input type="hidden" name="coupon" value="" />
              <button type="submit" class="quiet">
                Remove coupon {props.totals.coupon}
              </button>
            </form>
          ) : null}
          <h2>Checkout</h2>
          <form method="post" action={`${a}/checkout`} class="shop">
            <label for="email">E-mail address (your download link is sent there)</label>
            <input id="email" type="email" name="email" required maxLength={254} autocomplete="email" value={props.email ?? ''} />
            <label for="name">Name (optional)</label>
            <input id="name" name="name" maxLength={200} autocomplete="name" value={props.name ?? ''} />
            {props.lines.some((l) => l.kind === 'print') ? <AddressFields a={props.address ?? {}} /> : null}
            <fieldset>
              <legend>Payment</legend>
              {props.card ? (
                <label>
                  <input type="radio" name="method" value="card" checked required /> Card (secure payment through Stripe)
                </label>
              ) : null}
              <label>
                <input type="radio" name="method" value="manual" checked={!props.card} required /> Pay the photographer directly
              </label>
              <p class="hint">{props.manualText}</p>
            </fieldset>
            {props.termsHref ? (
              <label class="accept">
                <input type="checkbox" name="accept_terms" value="1" required />
                <span>
                  I accept the <a href={props.termsHref}>terms of sale</a>
                </span>
              </label>
            ) : null}
            <button type="submit">Place the order · {money(props.totals.total, props.totals.currency)}</button>
          </form>
        </>
      )}
    </Layout>
  );
}

export interface OrderPageProps {
  frame: Base;
  uuid: string;
  status: string;
  email: string;
  items: Array<{ kind: string; label: string; option: string | null; long_edge: number | null; quantity: number; total: number; title: string; href?: string; picture?: Picture }>;
  /** An order with prints: where they go, and the tracking link once shipped. */
  shipping?: { lines: string[]; trackingUrl: string | null };
  totals: CartTotalsView;
  /** Came back from the card payment: the webhook has not said so yet. */
  confirming: boolean;
  manualText: string;
}

export function OrderPage(props: OrderPageProps): VNode {
  const short = props.uuid.slice(0, 8).toUpperCase();
  const t = props.totals;
  return (
    <Layout {...props.frame} title={`Order ${short}`} indexable={false}>
      <h1>Order {short}</h1>
      {props.status === 'shipped' ? (
        <p class="notice" role="status">
          Your prints are on their way.{' '}
          {props.shipping?.trackingUrl ? <a href={props.shipping.trackingUrl}>Follow the parcel</a> : null}
        </p>
      ) : props.status === 'paid' ? (
        <p class="notice" role="status">
          {props.items.every((i) => i.kind === 'print') ? `Paid, thank you. Your prints are being made; we write to ${props.email} when they ship.` : `Paid, thank you. The link to your downloads is sent to ${props.email}.`}
        </p>
      ) : props.status === 'pending' && props.confirming ? (
        <p class="notice" role="status">
          Thank you! We are confirming your payment; this page says so once it is done, and your download link is sent to {props.email}.
        </p>
      ) : props.status === 'pending' ? (
        <div class="notice" role="status">
          <strong>Thank you, your order is placed.</strong>
          {'\n'}
          {props.manualText}
          {'\n'}We write to {props.email}.
        </div>
      ) : (
        <p class="notice" role="status">
          This order is {props.status}.
        </p>
      )}
      <ul class="cart">
        {props.items.map((i, n) => (
          <li key={n}>
            {i.picture ? <Img picture={{ ...i.picture, alt: '' }} sizes="6rem" auto={false} /> : <span />}
            <div>
              {i.href ? <a href={i.href}>{i.title}</a> : <span>{i.title}</span>}
              <div>
                {itemText(i)} × {i.quantity}
              </div>
            </div>
            <span class="price">{money(i.total, t.currency)}</span>
          </li>
        ))}
      </ul>
      <Totals t={t} />
      {props.shipping ? (
        <>
          <h2>Delivery address</h2>
          <p class="address">
            {props.shipping.lines.map((l, n) => (
              <>
                {n > 0 ? <br /> : null}
                {l}
              </>
            ))}
          </p>
        </>
      ) : null}
      <p>
        <a href={props.frame.homeHref}>Back to the photos</a>
      </p>
    </Layout>
  );
}

export interface GallerySaleProps {
  action: string;
  gallery: string;
  label: string;
  longEdge: number | null;
  price: number;
  currency: string;
  medias: number;
}

/** A gallery sold whole: one button on its page, the price from the server. */
export function GallerySale(props: GallerySaleProps): VNode {
  const size = props.longEdge === null ? 'original files' : `${props.longEdge} px on the long edge`;
  return (
    <section aria-labelledby="buy-gallery-h" class="offer gallery-sale">
      <h2 id="buy-gallery-h">Buy the whole gallery</h2>
      <form method="post" action={props.action}>
        <input type="hidden" name="gallery" value={props.gallery} />
        <p>
          All {props.medias} photo{props.medias === 1 ? '' : 's'}, {props.label} ({size}), as one download: <strong class="price">{money(props.price, props.currency)}</strong>
        </p>
        <span class="actions">
          <button type="submit">Add the gallery to the cart</button>
        </span>
      </form>
    </section>
  );
}

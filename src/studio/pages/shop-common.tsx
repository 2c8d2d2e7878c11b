// What the shop's screens share (docs/studio.md "Shop"): their sub-navigation, amounts for people
// and the statuses' badges. Every amount is the service's, in minor units, formatted here.
import type { VNode } from 'preact';
import { formatMinor, type CurrencyCode } from '../../shop/money.js';

/** An amount for people, as the website writes it. */
export { money } from '../../shop/money.js';

export type ShopSection = 'overview' | 'orders' | 'price-lists' | 'coupons' | 'settings' | 'payments';

const SECTIONS: Array<{ key: ShopSection; href: string; label: string }> = [
  { key: 'overview', href: '/studio/shop', label: 'Sales' },
  { key: 'orders', href: '/studio/shop/orders', label: 'Orders' },
  { key: 'price-lists', href: '/studio/shop/price-lists', label: 'Price lists' },
  { key: 'coupons', href: '/studio/shop/coupons', label: 'Coupons' },
  { key: 'settings', href: '/studio/shop/settings', label: 'Tax, terms & lab' },
  { key: 'payments', href: '/studio/shop/payments', label: 'Payments' },
];

export function ShopNav(p: { current: ShopSection }): VNode {
  return (
    <nav class="shop-nav" aria-label="Shop">
      <ul>
        {SECTIONS.map((s) => (
          <li>
            <a href={s.href} aria-current={s.key === p.current ? 'page' : undefined}>
              {s.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** An amount as a form shows it for editing, in major units without a symbol ("9.00"). */
export const plainAmount = (amount: number | null | undefined, code: string) => (amount === null || amount === undefined ? '' : formatMinor(Number(amount), code as CurrencyCode));

const STATUS_WORDS: Record<string, string> = { pending: 'Awaiting payment', paid: 'Paid', shipped: 'Shipped', cancelled: 'Cancelled', refunded: 'Refunded' };

export function StatusBadge(p: { status: string }): VNode {
  return <span class={`status status-${p.status}`}>{STATUS_WORDS[p.status] ?? p.status}</span>;
}

/** "28 Nov 2026, 21:30 UTC". */
export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return `${d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })}, ${iso.slice(11, 16)} UTC`;
}

export const day = (iso: string) => new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

// The shop's screens' styles (pages/shop.tsx, price-lists.tsx, orders.tsx), joined to the studio's
// one stylesheet by assets.ts: the sub-navigation as tabs, status badges, the price list's rows
// (a grid of inputs, stacked on a phone), an order's photos beside its actions and buyer.
export const SHOP_CSS = `
.shop-nav ul{list-style:none;margin:0 0 1rem;padding:0;display:flex;flex-wrap:wrap;gap:.25rem;border-bottom:1px solid #d9d9d4}
.shop-nav a{display:inline-block;padding:.45rem .8rem;text-decoration:none;color:#333;border-bottom:3px solid transparent;margin-bottom:-1px}
.shop-nav a:hover{color:#0b57d0}
.shop-nav a[aria-current=page]{color:#0b57d0;border-bottom-color:#0b57d0;font-weight:600}
.shop-glance{list-style:none;margin:0 0 .5rem;padding:0;display:grid;gap:.75rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,13rem),1fr))}
.shop-glance .card{margin:0;padding:.85rem 1rem}
.shop-glance a{text-decoration:none;color:#1b1b1b;display:block}
.shop-glance strong{font-size:1.5rem;color:#0b57d0;margin-right:.25rem}
.an-card h3{margin:0;font-size:1.05rem}
.status{display:inline-block;padding:.1rem .6rem;border-radius:999px;font-size:.8rem;font-weight:600;white-space:nowrap;background:#eceff3;color:#374151}
.status-pending{background:#fff4d6;color:#7a4b00}
.status-paid{background:#e3f3e8;color:#155d2b}
.status-shipped{background:#e0ecfb;color:#0b3d91}
.or-address{font-style:normal;display:flex;flex-direction:column;margin:0 0 .75rem}
.or-sub-title{font-size:.95rem;margin:.25rem 0}
.or-prints input[type=url]{width:100%}
.cp-fields{display:grid;gap:0 1rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,13rem),1fr))}
.cp-fields input,.cp-fields select{width:100%}
.cp-sites{display:flex;flex-wrap:wrap;gap:.5rem;margin:0 0 1rem}
.cp-sites a{padding:.3rem .75rem;border:1px solid #d9d9d4;border-radius:999px;text-decoration:none;color:#333}
.cp-sites a[aria-current=page]{background:#0b57d0;border-color:#0b57d0;color:#fff}
.cp-list{list-style:none;margin:0;padding:0}
.cp-row{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem 1rem;padding:.6rem 0;border-bottom:1px solid #ecece8}
.cp-row:last-child{border-bottom:0}
.cp-main{display:flex;flex-direction:column;min-width:0}
.cp-code{font-weight:700;font-family:ui-monospace,monospace;letter-spacing:.03em}
.cp-sub{font-size:.875rem}
.cp-end{display:flex;align-items:center;gap:.75rem}
.cp-end form{margin:0}
.st-included{border:0;padding:0;margin:0 0 1rem;display:flex;flex-direction:column;gap:.25rem}
.st-included legend{font-weight:600;padding:0;margin-bottom:.25rem}
.st-links{font-size:.9rem}
#terms{width:100%;font-family:ui-monospace,monospace}
.status-cancelled{background:#eceff3;color:#4b5563}
.status-refunded{background:#fdecea;color:#8c1d18}
.pl-list li{align-items:baseline}
.pl-name{font-weight:600}
.pl-new-fields{display:grid;gap:0 1rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,12rem),1fr))}
.pl-items{border:0;padding:0;margin:0 0 1rem;min-width:0}
.pl-items>legend,.pl-items>h2{font-weight:600;font-size:1.05rem;margin:.5rem 0 .25rem;padding:0}
.pl-items .hint{font-size:.875rem;color:#555;margin:0 0 .5rem}
.pl-rows{list-style:none;margin:0;padding:0}
.pl-row{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,1fr) minmax(0,1fr);gap:.5rem .75rem;padding:.5rem 0;border-bottom:1px solid #ecece8;align-items:start}
.pl-rows li:last-child{border-bottom:0}
.pl-cell{display:flex;flex-direction:column;gap:.15rem;min-width:0}
.pl-cell label{font-size:.8rem;font-weight:600;color:#444}
.pl-cell input{width:100%}
.pl-cell .error{color:#b3261e;font-weight:600;font-size:.85rem}
.pl-product{border:1px solid #e2e2de;border-radius:8px;padding:.5rem .85rem .25rem;margin:0 0 .85rem;min-width:0}
.pl-product legend{font-weight:600;padding:0 .25rem}
.pl-product>.pl-row{border-bottom:1px solid #e2e2de;grid-template-columns:minmax(0,2fr) minmax(0,1fr)}
.pl-options{margin-left:1rem}
.pay-state{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.35rem 1rem;margin:0 0 1rem}
.pay-state dt{font-weight:600}
.pay-state dd{margin:0;min-width:0}
.pay-url{display:block;padding:.4rem .5rem;background:#f3f4f6;border-radius:4px;overflow-wrap:anywhere;user-select:all;margin-bottom:.25rem}
.pay-state .hint{display:block;font-size:.85rem;color:#555}
.pay-site{border-top:1px solid #ecece8;padding-top:.75rem;margin-top:.75rem}
.or-filters{display:grid;gap:0 .75rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,10rem),1fr));align-items:end;padding-bottom:0}
.or-filters input,.or-filters select{width:100%;min-height:2.6rem}
.or-filter-buttons{display:flex;gap:.75rem;align-items:center;margin:0 0 1rem}
.or-count{margin:.25rem 0 .5rem}
.or-list{list-style:none;padding:0 1rem}
.or-list li{display:grid;grid-template-columns:56px minmax(0,1fr) auto;gap:.35rem .9rem;align-items:center;padding:.7rem 0;border-bottom:1px solid #ecece8}
.or-list li:last-child{border-bottom:0}
.or-thumbs{width:56px;height:56px;border-radius:6px;background:#e8e8e4;overflow:hidden}
.or-thumbs img{width:56px;height:56px;object-fit:cover;display:block}
.or-main{display:flex;flex-direction:column;min-width:0}
.or-link{font-weight:600;overflow-wrap:anywhere}
.or-sub{font-size:.875rem;overflow-wrap:anywhere}
.or-end{display:flex;flex-direction:column;align-items:flex-end;gap:.3rem}
.or-amount{font-variant-numeric:tabular-nums}
input[type=date]{font:inherit;padding:.45rem .55rem;border:1px solid #8a8a85;border-radius:4px;background:#fff;color:inherit;max-width:100%}
.pager{justify-content:space-between;margin:0 0 1rem}
.or-exports{list-style:none;margin:0;padding:0}
.or-head{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem}
.or-head h1{margin:.25rem 0}
.or-total{margin:0 0 0 auto;font-size:1.5rem;font-weight:700;font-variant-numeric:tabular-nums}
.or-grid{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1rem;align-items:start}
.or-grid .card{margin:0 0 1rem}
.or-lines{list-style:none;margin:0;padding:0}
.or-lines li{display:grid;grid-template-columns:72px minmax(0,1fr) auto;gap:.75rem;align-items:center;padding:.6rem 0;border-bottom:1px solid #ecece8}
.or-lines img{width:72px;height:72px;object-fit:cover;border-radius:6px;background:#e8e8e4;display:block}
.or-line-text{display:flex;flex-direction:column;min-width:0}
.or-file{font-weight:600;overflow-wrap:anywhere}
.or-line-price{font-variant-numeric:tabular-nums;font-weight:600}
.or-sums{display:grid;grid-template-columns:1fr auto;gap:.2rem 0;margin:.75rem 0 0}
.or-sums dt{padding-right:1rem}
.or-sums dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
.or-sums .or-grand{font-weight:700;font-size:1.1rem;border-top:1px solid #e2e2de;padding-top:.35rem}
.or-actions{display:flex;flex-direction:column;gap:.75rem}
.or-actions form{margin:0}
.or-actions .hint{display:block;font-size:.85rem;color:#555;margin-top:.25rem}
.or-buyer-name{font-weight:600;margin:0}
.or-ref{display:block;font-size:.8rem;overflow-wrap:anywhere}
button[disabled]{opacity:.55;cursor:not-allowed}
@media (max-width:40rem){.shop-nav ul{flex-wrap:nowrap;overflow-x:auto;gap:0}.shop-nav a{padding:.45rem .55rem;white-space:nowrap}.or-list li{grid-template-columns:48px minmax(0,1fr);gap:.3rem .7rem;align-items:start}.or-end{grid-column:2;flex-direction:row;align-items:center;justify-content:space-between}.or-thumbs,.or-thumbs img{width:48px;height:48px}.or-grid{grid-template-columns:1fr}.pl-row,.pl-product>.pl-row{grid-template-columns:1fr 1fr}.pl-row .pl-wide{grid-column:1/-1}.pl-options{margin-left:0}.or-total{margin-left:0;width:100%}.pay-state{grid-template-columns:1fr}.or-lines li{grid-template-columns:56px minmax(0,1fr);}.or-lines img{width:56px;height:56px}.or-line-price{grid-column:2}}
`;

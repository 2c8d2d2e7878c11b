// The proofing screen's styles (pages/proofing.tsx), joined to the studio's one stylesheet by
// assets.ts: the clients down the side, the chosen selection, the client's activity beside it on
// a wide screen; one column on a phone, the clients as a row of wrapping chips.
export const PROOFING_CSS = `
.proof{display:grid;grid-template-columns:minmax(12rem,16rem) minmax(0,1fr) minmax(14rem,20rem);gap:1rem;align-items:start}
.proof>.card{margin:0}
.proof-clients ul{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:.25rem}
.proof-clients a{display:flex;flex-direction:column;padding:.45rem .6rem;border-radius:6px;text-decoration:none;color:#1b1b1b;border:1px solid transparent;overflow-wrap:anywhere}
.proof-clients a:hover{background:#f1f3f7}
.proof-clients a[aria-current=page]{background:#e8f0fe;border-color:#0b57d0}
.proof-clients .pc-name{font-weight:600;color:#0b57d0}
.proof-lists ul{list-style:none;margin:.5rem 0;padding:0;display:flex;flex-wrap:wrap;gap:.4rem}
.proof-lists a{display:inline-flex;align-items:center;gap:.4rem;min-height:2.5rem;padding:.3rem .85rem;border:1px solid #c4c7c5;border-radius:999px;text-decoration:none;color:#1b1b1b}
.proof-lists a[aria-current=page]{background:#0b57d0;border-color:#0b57d0;color:#fff}
.proof-lists .count{font-weight:600}
.proof-clients .pc-meta{font-size:.8rem;color:#555}
.proof-head p{margin:.25rem 0}
.proof-head .actions{margin-top:.75rem;gap:.5rem 1rem}
.proof-head form{margin:0}
.proof-head .hint{font-size:.875rem;color:#555}
.tag.open{background:#fef7e0;color:#6b4e00}
.proof-names{margin-top:.75rem;border-top:1px solid #e2e2de;padding-top:.5rem}
.proof-names summary{cursor:pointer;color:#0b57d0;padding:.25rem 0}
.names-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:0 1rem;margin-top:.5rem}
.names-grid .field{margin-bottom:.5rem}
.proof-names textarea{min-height:0;font:.85rem/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;resize:vertical}
.proof-picks{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr));gap:.75rem}
.proof-picks li{background:#fff;border:1px solid #e2e2de;border-radius:8px;padding:.4rem;display:flex;flex-direction:column;gap:.2rem;min-width:0}
.proof-picks img{display:block;width:100%;aspect-ratio:3/2;object-fit:contain;background:#ececec;border-radius:4px}
.proof-picks .fname{font-weight:600;font-size:.85rem;overflow-wrap:anywhere}
.proof-picks .ptitle{font-size:.8rem;color:#555;overflow-wrap:anywhere}
.proof-picks .pnote{margin:.2rem 0 0;padding:.35rem .5rem;background:#fff8e1;border-left:3px solid #e0b84c;border-radius:4px;font-size:.85rem;color:#3d2c00;white-space:pre-line;overflow-wrap:anywhere}
.proof-activity .kinds{list-style:none;margin:0 0 .75rem;padding:0;display:flex;flex-wrap:wrap;gap:.35rem}
.proof-activity .kinds li{background:#f1f3f7;border-radius:999px;padding:.1rem .6rem;font-size:.85rem}
.proof-activity .events{list-style:none;margin:0;padding:0;font-size:.875rem}
.proof-activity .events li{display:flex;flex-direction:column;padding:.35rem 0;border-bottom:1px solid #e2e2de;overflow-wrap:anywhere}
.proof-activity .events li:last-child{border-bottom:0}
.proof-activity time{color:#555;font-size:.8rem}
@media (max-width:70rem){.proof{grid-template-columns:minmax(11rem,14rem) minmax(0,1fr)}.proof-activity{grid-column:2}}
@media (max-width:40rem){.proof{grid-template-columns:minmax(0,1fr)}.proof-activity{grid-column:auto}.proof-clients ul{flex-direction:row;flex-wrap:wrap}.proof-clients a{border-color:#e2e2de}.proof-picks{grid-template-columns:repeat(2,minmax(0,1fr));gap:.5rem}}
`;

/** The console's one stylesheet, served from its own origin (no asset from anywhere else). */
export const STYLESHEET = `
:root { --ink: #1d2433; --muted: #5b6478; --line: #d9dee8; --bg: #f6f7fa; --card: #fff; --accent: #2553c8; --accent-ink: #fff;
  --ok: #17794a; --warn: #9a5b00; --bad: #b42318; --focus: #ffbf47; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: var(--bg); font-size: 15px; line-height: 1.45; }
body.mode-test { --accent: #b4570b; --bg: #fdf6ee; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 8px; top: 8px; background: #fff; padding: 6px 10px; z-index: 10; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.bar { display: flex; flex-wrap: wrap; gap: 8px 20px; align-items: center; padding: 10px 20px; background: var(--ink); color: #fff; }
.bar a { color: #fff; text-decoration: none; font-weight: 700; }
.bar form { margin: 0; display: flex; gap: 8px; align-items: center; }
.bar .link { color: #fff; }
.brand { margin: 0; font-size: 17px; display: flex; gap: 8px; align-items: center; }
.region { font-size: 12px; border: 1px solid #fff8; border-radius: 4px; padding: 0 5px; }
.org { color: #c9d2e3; font-weight: 400; }
.mode-switch { margin-left: auto !important; }
.mode-badge { font-weight: 700; border-radius: 999px; padding: 2px 10px; font-size: 13px; }
.mode-badge[data-mode="test"] { background: #f59e0b; color: #1d1300; }
.mode-badge[data-mode="live"] { background: #22c55e; color: #04210f; }
.who { color: #c9d2e3; font-size: 13px; }
.test-banner { margin: 0; padding: 6px 20px; background: repeating-linear-gradient(135deg, #fde6c8, #fde6c8 12px, #fbd9ad 12px, #fbd9ad 24px); color: #5a3300; font-weight: 600; font-size: 14px; }
.shell { display: grid; grid-template-columns: 200px 1fr; min-height: calc(100vh - 52px); }
.nav { background: var(--card); border-right: 1px solid var(--line); padding: 16px 0; }
.nav ul { list-style: none; margin: 0; padding: 0; }
.nav a { display: block; padding: 8px 20px; color: var(--ink); text-decoration: none; }
.nav a:hover { background: var(--bg); }
.nav a[aria-current="page"] { border-left: 4px solid var(--accent); padding-left: 16px; font-weight: 700; background: var(--bg); }
main { padding: 20px 28px 48px; max-width: 1200px; min-width: 0; }
h1 { margin: 0 0 16px; font-size: 24px; }
h2 { font-size: 18px; margin: 28px 0 10px; }
.card, .panel { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 18px 20px; }
.panel { margin: 0 0 20px; }
.bare main.card { max-width: 420px; margin: 10vh auto; }
label { display: block; font-weight: 600; margin: 12px 0 4px; }
.hint { color: var(--muted); font-size: 13px; font-weight: 400; }
input[type=text], input[type=search], input[type=email], input[type=password], input[type=url], input[type=date], select, textarea {
  width: 100%; max-width: 480px; padding: 8px 10px; border: 1px solid #aab3c5; border-radius: 6px; font: inherit; background: #fff; }
textarea { min-height: 80px; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 12px 0; padding: 8px 12px; max-width: 480px; }
fieldset label { font-weight: 400; margin: 4px 0; display: flex; gap: 8px; align-items: center; }
legend { font-weight: 600; }
button, .button { display: inline-block; margin-top: 14px; padding: 8px 16px; border: 0; border-radius: 6px; background: var(--accent); color: var(--accent-ink); font: inherit; font-weight: 600; cursor: pointer; text-decoration: none; }
button.secondary { background: #e6e9f0; color: var(--ink); }
button.danger { background: var(--bad); color: #fff; }
button.link { background: none; padding: 0; margin: 0; color: var(--accent); text-decoration: underline; font-weight: 400; }
.inline { display: inline; margin: 0; }
.inline button { margin: 0 6px 0 0; }
.inline select { width: auto; margin: 0 6px 0 0; padding: 6px 8px; }
.table-wrap { overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 8px 12px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 13px; color: var(--muted); font-weight: 600; background: #fafbfc; }
tr:last-child td { border-bottom: 0; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
.secret { display: block; padding: 10px; background: #111827; color: #e5e7eb; border-radius: 6px; word-break: break-all; user-select: all; }
/* two-factor sign-in: the QR code (an inline SVG on a white quiet zone), the steps, the recovery codes */
.qr { display: inline-block; background: #fff; padding: 8px; border: 1px solid var(--line); border-radius: 6px; line-height: 0; }
.qr svg { width: 220px; height: 220px; max-width: 100%; }
ol.steps > li { margin: 0 0 18px; }
details > summary { cursor: pointer; margin: 8px 0; }
ul.recovery-codes { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 6px 16px; }
ul.recovery-codes code { font-size: 15px; user-select: all; }
.notice { border-radius: 6px; padding: 10px 14px; margin: 0 0 16px; border: 1px solid; }
.notice.success { background: #e8f6ee; border-color: #9fd7b6; }
.notice.error { background: #fdecea; border-color: #f3a59d; }
.notice.info { background: #eef3fd; border-color: #a9c0ef; }
.empty { text-align: center; padding: 32px 16px; background: var(--card); border: 1px dashed #aab3c5; border-radius: 8px; color: var(--muted); }
.empty-title { font-weight: 700; color: var(--ink); font-size: 16px; margin: 0 0 6px; }
.badge { display: inline-block; border-radius: 999px; padding: 1px 8px; font-size: 12px; font-weight: 600; background: #e6e9f0; }
.badge.ok { background: #dcf3e5; color: var(--ok); } .badge.warn { background: #fdf0d5; color: var(--warn); } .badge.bad { background: #fde2df; color: var(--bad); }
.muted { color: var(--muted); }
.filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; margin-bottom: 16px; }
.filters label { margin: 0; font-size: 13px; }
.filters select, .filters input { width: auto; }
.filters button { margin: 0; }
.pager { display: flex; gap: 16px; margin: 14px 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 6px 18px; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 20px; }
.images { display: flex; flex-wrap: wrap; gap: 12px; }
.images figure { margin: 0; }
.images img { max-width: 240px; max-height: 240px; border: 1px solid var(--line); border-radius: 6px; display: block; }
.timeline { list-style: none; padding: 0; margin: 0; border-left: 2px solid var(--line); }
.timeline li { padding: 4px 0 10px 14px; position: relative; }
.timeline li::before { content: ""; position: absolute; left: -6px; top: 10px; width: 10px; height: 10px; border-radius: 50%; background: var(--accent); }
@media (max-width: 720px) {
  /* the navigation as tall as its tabs, the page below it: no row stretched to fill the screen (a short page left a gap) */
  .shell { grid-template-columns: 1fr; grid-template-rows: auto 1fr; }
  .nav { border-right: 0; border-bottom: 1px solid var(--line); padding: 4px 0; }
  /* every tab in sight: the strip wraps onto a second line rather than hide later tabs behind a scroll */
  .nav ul { display: flex; flex-wrap: wrap; }
  .nav a { white-space: nowrap; padding: 8px 12px; }
  .nav a[aria-current="page"] { border-left: 0; border-bottom: 3px solid var(--accent); padding-left: 12px; }
  main { padding: 16px; }
  .mode-switch { margin-left: 0 !important; }
  .table-wrap table, .table-wrap tbody, .table-wrap tr, .table-wrap td { display: block; }
  .table-wrap thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .table-wrap tr { padding: 8px 0; border-bottom: 1px solid var(--line); }
  .table-wrap tr:last-child { border-bottom: 0; }
  .table-wrap td { border: 0; padding: 3px 14px; display: grid; grid-template-columns: 96px 1fr; gap: 8px; overflow-wrap: anywhere; }
  .table-wrap td::before { content: attr(data-label); color: var(--muted); font-size: 12px; font-weight: 600; }
  .table-wrap td > .cell { min-width: 0; }
  /* a bare page (not found, sign-in) starts near the top on a phone rather than a tenth of the screen down */
  .bare main.card { margin: 16px; }
}
.panel > h2:first-child { margin-top: 0; }
td form.inline { white-space: nowrap; }
/* Webhooks, Logs and Usage (pages/webhooks.ts, pages/logs.ts, pages/usage.ts) */
.tabs { display: flex; flex-wrap: wrap; gap: 4px; border-bottom: 1px solid var(--line); margin: 0 0 18px; }
.tabs a { padding: 8px 14px; margin-bottom: -1px; color: var(--ink); text-decoration: none; border-bottom: 3px solid transparent; }
.tabs a:hover { background: var(--card); }
.tabs a[aria-current="page"] { border-bottom-color: var(--accent); font-weight: 700; }
h2 .hint { margin-left: 6px; }
.wh-url { font-weight: 600; overflow-wrap: break-word; }
.event-types label { align-items: flex-start; }
.event-types label input { margin-top: 4px; }
.row-actions { display: flex; flex-wrap: wrap; gap: 6px; }
.row-actions button, .row-actions .button { margin: 0; }
.event-types code { overflow-wrap: anywhere; }
input[type=datetime-local] { display: block; width: 100%; max-width: 480px; padding: 8px 10px; border: 1px solid #aab3c5; border-radius: 6px; font: inherit; background: #fff; }
td a.button.secondary { background: #e6e9f0; color: var(--ink); }
.panel > .inline + a { margin-left: 8px; }
ul.kv { list-style: none; margin: 0; padding: 0; }
/* an activity entry's ids break anywhere rather than push the table wider than its frame */
.details code { overflow-wrap: anywhere; }
code.id { font-size: 12px; }
.email { overflow-wrap: break-word; }
.delivery-filters > div { min-width: 0; max-width: 100%; }
.delivery-filters select { max-width: 100%; }
.deliveries th, .deliveries td { padding-left: 10px; padding-right: 10px; }
.num { font-variant-numeric: tabular-nums; }
.usage-totals, .billing-prices { max-width: 520px; }
.money { white-space: nowrap; }
.usage-bar { display: inline-block; width: 160px; max-width: 30vw; height: 10px; margin-top: 5px; background: #e6e9f0; border-radius: 5px; overflow: hidden; }
.usage-bar > span { display: block; height: 100%; border-radius: 5px; }
.usage-bar.test > span { background: #f59e0b; }
.usage-bar.live > span { background: #22c55e; }
.usage-bar .w0 { width: 0%; } .usage-bar .w5 { width: 5%; } .usage-bar .w10 { width: 10%; } .usage-bar .w15 { width: 15%; } .usage-bar .w20 { width: 20%; } .usage-bar .w25 { width: 25%; } .usage-bar .w30 { width: 30%; } .usage-bar .w35 { width: 35%; } .usage-bar .w40 { width: 40%; } .usage-bar .w45 { width: 45%; } .usage-bar .w50 { width: 50%; } .usage-bar .w55 { width: 55%; } .usage-bar .w60 { width: 60%; } .usage-bar .w65 { width: 65%; } .usage-bar .w70 { width: 70%; } .usage-bar .w75 { width: 75%; } .usage-bar .w80 { width: 80%; } .usage-bar .w85 { width: 85%; } .usage-bar .w90 { width: 90%; } .usage-bar .w95 { width: 95%; } .usage-bar .w100 { width: 100%; }
@media (max-width: 720px) {
  /* usage stays a table of numbers on a phone (it scrolls sideways in its frame) rather than a card per row */
  :is(.usage-totals, .usage-days) .table-wrap table { display: table; }
  :is(.usage-totals, .usage-days) .table-wrap thead { display: table-header-group; position: static; width: auto; height: auto; overflow: visible; clip: auto; }
  :is(.usage-totals, .usage-days) .table-wrap tbody { display: table-row-group; }
  :is(.usage-totals, .usage-days) .table-wrap tr { display: table-row; padding: 0; }
  :is(.usage-totals, .usage-days) .table-wrap td { display: table-cell; padding: 6px 8px; border-bottom: 1px solid var(--line); }
  :is(.usage-totals, .usage-days) .table-wrap td::before { content: none; }
  :is(.usage-totals, .usage-days) th { padding: 6px 8px; }
  .usage-bar { width: 60px; }
}
/* Verifications, Review queue and Test data (pages/verifications.ts, pages/review.ts, pages/test-data.ts) */
.crumbs { margin: -6px 0 14px; font-size: 14px; }
.verification-id { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 0 0 12px; }
.verification-id code { font-size: 15px; font-weight: 600; word-break: break-all; }
.vpage .grid2 { margin: 0 0 20px; }
.vpage .grid2 > .panel { margin: 0; }
.vpage h3 { font-size: 15px; margin: 18px 0 8px; }
.vpage .panel > h2:first-child { margin-top: 0; }
ul.chips { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 10px; }
ul.chips li { white-space: nowrap; font-size: 13px; }
table.compact th, table.compact td { padding: 6px 8px; }
ol.names { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px; }
ol.names li { background: #eef1f6; border-radius: 4px; padding: 0 6px; }
.small { font-size: 13px; }
code.field { background: #eef1f6; border-radius: 4px; padding: 1px 5px; display: inline-block; margin: 1px 0; }
.decision { border: 2px solid var(--warn); background: #fffaf0; }
.decision h2 { margin-top: 0; }
.decision textarea, .note-form textarea { max-width: 640px; }
.watchlist article.hit { border-top: 1px solid var(--line, #ddd); padding-top: 0.75rem; margin-top: 1rem; }
.watchlist article.hit h3 { margin: 0 0 0.5rem; }
.watchlist ul.pairs { margin: 0; padding-left: 1rem; }
.watchlist .hit-form textarea { max-width: 640px; }
.watchlist .hit-decision { border-left: 4px solid var(--muted); padding-left: 0.75rem; }
.watchlist .hit-decision.confirmed { border-left-color: var(--bad, #b42318); }
.watchlist .hit-decision.cleared { border-left-color: var(--ok, #067647); }
.hit-reason { white-space: pre-wrap; overflow-wrap: anywhere; }
.actions { display: flex; flex-wrap: wrap; gap: 10px; }
button.approve { background: var(--ok); }
.vpage .timeline li { display: grid; grid-template-columns: 150px 1fr; gap: 2px 14px; }
.vpage .timeline time { color: var(--muted); font-size: 13px; padding-top: 1px; }
.vpage .timeline .tl-note::before { background: var(--ink); }
.note-text { white-space: pre-wrap; margin: 4px 0 0; overflow-wrap: anywhere; }
.event-type { color: var(--muted); font-size: 12px; }
.note-form { margin-top: 16px; border-top: 1px solid var(--line); padding-top: 4px; }
details.metadata summary { cursor: pointer; font-weight: 600; }
details.metadata pre { overflow-x: auto; font-size: 13px; margin: 10px 0 0; }
table.checks td { vertical-align: top; }
ul.reasons { margin: 0; padding-left: 18px; }
ul.reasons li { margin: 0 0 2px; }
code.reason-code { font-size: 11px; color: var(--muted); overflow-wrap: anywhere; }
table.checks, table.side-by-side { width: 100%; }
table.checks td, table.side-by-side td { overflow-wrap: anywhere; }
table.side-by-side td.field { color: var(--muted); font-weight: 500; }
table.side-by-side tr:has(td.differs) td:not(.mark) { background: #fdf3f2; }
table.side-by-side ol.names { margin: 0; }
.images figcaption { font-size: 13px; color: var(--muted); margin-top: 4px; }
a.button.small { margin: 0; padding: 4px 12px; font-size: 14px; }
.form-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); gap: 0 24px; }
.form-grid fieldset { max-width: none; }
fieldset.outcomes label.choice { align-items: flex-start; padding: 3px 0; }
label.choice .hint { display: block; }
label.choice input { margin-top: 4px; }
.danger-zone { border-color: #f3a59d; }
.danger-zone input[type=text] { max-width: 240px; }
kbd { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #eef1f6; border: 1px solid #cfd5e2; border-radius: 4px; padding: 0 5px; font-size: 13px; }
ul.counts { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 14px; }
.purge-result h2 { margin-top: 0; }
fieldset.plain label { display: block; font-weight: 600; margin: 10px 0 4px; }
fieldset.plain label .hint { margin-left: 4px; }
select.wide { max-width: 640px; }
td time, td .badge { white-space: nowrap; }
.status-cell { display: inline-flex; flex-wrap: wrap; gap: 4px; }
.applicant-cell { display: flex; flex-direction: column; gap: 1px; min-width: 0; overflow-wrap: anywhere; }
.applicant-cell .holder { color: var(--muted); }
.filters input[type=date] { max-width: 100%; }
.danger-zone > p:first-of-type, .first-p > p:first-of-type { margin-top: 0; }
@media (max-width: 720px) {
  .vpage .timeline li { grid-template-columns: 1fr; }
  .vpage dl.facts { grid-template-columns: 1fr; gap: 0; }
  .vpage dl.facts dd { margin-bottom: 8px; }
  .images img { max-width: 100%; }
  .images figure { flex: 1 1 140px; }
  /* the frame's one column may be narrower than the navigation's row of links, which then scrolls on its own */
  .shell { grid-template-columns: minmax(0, 1fr); }
}
`;

"""The web UI's one stylesheet and one script, written for it (no third-party asset, nothing
loaded from the internet). Served from /static/ so the Content-Security-Policy can forbid every
inline script and style.
"""

from __future__ import annotations

CSS = """
:root { --fg:#1d1f23; --muted:#5b6270; --bg:#fbfbfc; --line:#d9dce1; --accent:#2456b3;
  --bad:#b3261e; --good:#1e7a3c; font-family: system-ui, "Noto Sans", "PingFang SC",
  "Microsoft YaHei", "Noto Sans CJK SC", sans-serif; color:var(--fg); background:var(--bg); }
body { margin:0; line-height:1.45; }
.skip { position:absolute; left:-999px; } .skip:focus { left:8px; top:8px; background:#fff; }
nav { display:flex; flex-wrap:wrap; gap:.2rem 1rem; align-items:center; padding:.6rem 1rem;
  border-bottom:1px solid var(--line); background:#fff; }
nav a { color:var(--accent); text-decoration:none; padding:.15rem .2rem; }
nav a[aria-current=page] { font-weight:600; border-bottom:2px solid var(--accent); }
main { max-width:1100px; margin:0 auto; padding:1rem; }
h1 { font-size:1.4rem; margin:.2rem 0 1rem; } h2 { font-size:1.1rem; margin:1.2rem 0 .5rem; }
a:focus, button:focus, input:focus, select:focus, textarea:focus, tr:focus {
  outline:3px solid #f0b429; outline-offset:1px; }
table { border-collapse:collapse; width:100%; margin:.4rem 0; font-size:.92rem; }
th, td { text-align:left; padding:.3rem .45rem; border-bottom:1px solid var(--line);
  vertical-align:top; overflow-wrap:break-word; }
th { white-space:nowrap; }
/* Stored text may be one long token: it breaks anywhere; short cells keep their words whole. */
td a, td pre { overflow-wrap:anywhere; }
table.facts td:first-child { color:var(--muted); width:12rem; }
pre.text { white-space:pre-wrap; overflow-wrap:anywhere; background:#fff;
  border:1px solid var(--line); padding:.6rem; border-radius:4px; font-size:.92rem;
  font-family: ui-monospace, "Noto Sans Mono CJK SC", monospace; margin:.3rem 0; }
.counts { display:grid; grid-template-columns:repeat(auto-fit, minmax(9rem, 1fr)); gap:.6rem; }
.counts div { background:#fff; border:1px solid var(--line); border-radius:6px; padding:.6rem; }
.counts b { display:block; font-size:1.4rem; } .counts span { color:var(--muted); }
.plots figure { margin:1rem 0; background:#fff; border:1px solid var(--line); padding:.5rem;
  border-radius:6px; }
figcaption { font-weight:600; margin-bottom:.3rem; }
svg { width:100%; height:auto; } svg .axis { font-size:11px; fill:var(--muted); }
svg .rule { stroke:var(--line); } svg .growth { fill:none; stroke:var(--accent); stroke-width:2; }
svg .dot { fill:var(--accent); }
.legend { display:flex; flex-wrap:wrap; gap:.8rem; font-size:.85rem; }
.legend i { display:inline-block; width:.8rem; height:.8rem; margin-right:.25rem;
  vertical-align:middle; }
.sw0{background:#3366cc}.sw1{background:#dc7633}.sw2{background:#2e8b57}.sw3{background:#8e44ad}
.sw4{background:#c0392b}.sw5{background:#16a085}.sw6{background:#7f8c8d}.sw7{background:#b7950b}
.row { display:flex; flex-wrap:wrap; gap:1rem; align-items:flex-start; }
.row > div { flex:1 1 20rem; }
form.inline { display:inline-flex; flex-wrap:wrap; gap:.4rem; align-items:center; margin:.3rem 0; }
form.stack { display:flex; flex-direction:column; gap:.4rem; max-width:48rem; }
form.stack.review-form { max-width:none; }
form.filters { display:flex; flex-wrap:wrap; gap:.35rem .6rem; align-items:center; }
form.filters input[type=search] { min-width:18rem; flex:1 1 18rem; }
textarea { width:100%; font:inherit; }
button { font:inherit; padding:.25rem .7rem; border:1px solid var(--accent); background:#fff;
  color:var(--accent); border-radius:4px; cursor:pointer; }
button.danger { border-color:var(--bad); color:var(--bad); }
.notice { padding:.4rem .7rem; background:#e8f1ff; border-left:4px solid var(--accent); }
.notice.error { background:#fdecea; border-color:var(--bad); }
.state.running { color:var(--good); font-weight:600; }
.state.failing { color:var(--bad); font-weight:600; }
.state.pending { color:#8a5a00; font-weight:600; }
.hint { color:var(--muted); font-size:.85rem; }
.sides { display:grid; grid-template-columns:1fr 1fr; gap:.6rem; }
.conflict { border:1px solid var(--line); border-radius:6px; padding:.5rem; margin:.6rem 0;
  background:#fff; }
.turn header { color:var(--muted); font-size:.85rem; }
.turn.assistant pre.text { background:#f6f8fb; }
tr.cursor { background:#fff6d6; }
details.explain { color:var(--muted); font-size:.85rem; }
@media (max-width: 700px) { .sides { grid-template-columns:1fr; } }
"""

JS = """
'use strict';
// Confirm before a destructive button; keyboard review in the inbox. No inline handlers (CSP).
document.addEventListener('submit', function (ev) {
  var button = ev.submitter;
  var text = button && button.getAttribute('data-confirm');
  if (text && !window.confirm(text)) { ev.preventDefault(); }
});
(function () {
  var form = document.querySelector('.review-form');
  if (!form) { return; }
  var rows = Array.prototype.slice.call(form.querySelectorAll('tbody tr'));
  var at = rows.length ? 0 : -1;
  function show() {
    rows.forEach(function (r, i) { r.classList.toggle('cursor', i === at); });
    if (at >= 0) { rows[at].setAttribute('tabindex', '-1'); rows[at].focus(); }
  }
  document.addEventListener('keydown', function (ev) {
    var t = ev.target.tagName;
    if (t === 'INPUT' && ev.target.type !== 'checkbox' || t === 'TEXTAREA' || t === 'SELECT') {
      return;
    }
    if (ev.key === 'j' && at < rows.length - 1) { at += 1; show(); }
    else if (ev.key === 'k' && at > 0) { at -= 1; show(); }
    else if (ev.key === 'x' && at >= 0) {
      var box = rows[at].querySelector('input[type=checkbox]'); box.checked = !box.checked;
    } else if (ev.key === 'a') {
      rows.forEach(function (r) { r.querySelector('input[type=checkbox]').checked = true; });
    } else if (ev.key === 'R') { document.getElementById('reject').click(); }
    else if (ev.key === 'A') { document.getElementById('approve').click(); }
    else { return; }
    ev.preventDefault();
  });
  show();
})();
"""

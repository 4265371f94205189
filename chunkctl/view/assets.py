"""The view page's stylesheet and scripts, as text inlined into every page (no file is fetched at view time)."""

from __future__ import annotations

CSS = """
:root { --c0: #dbeafe; --c0h: #93c5fd; --c1: #fef3c7; --c1h: #fcd34d; --ink: #1f2937; --mute: #6b7280;
        --line: #e5e7eb; --mark: #1e3a8a; --pfx: #6d28d9; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
       background: #fff; }
a { color: #1d4ed8; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 15px; margin: 18px 0 6px; }
.wrap { padding: 14px 20px; }
.muted { color: var(--mute); }
.plots { display: flex; flex-wrap: wrap; gap: 8px 28px; align-items: flex-start; }
.plots figure { margin: 0; }
.plots figcaption { font-size: 12px; color: var(--mute); max-width: 560px; }
table.docs { border-collapse: collapse; margin-top: 6px; }
table.docs th, table.docs td { padding: 3px 10px; border-bottom: 1px solid var(--line); text-align: right;
                               white-space: nowrap; }
table.docs th { font-weight: 600; background: #f9fafb; position: sticky; top: 0; }
table.docs td.name, table.docs th.name { text-align: left; max-width: 46ch; overflow: hidden;
                                         text-overflow: ellipsis; }
table.docs tr.failed td { background: #fef2f2; }
table.docs td.status { text-align: left; white-space: normal; max-width: 60ch; }
.bad { color: #b91c1c; }
table.docs tr.best td { font-weight: 600; background: #ecfdf5; }
.settings { font-size: 12px; color: var(--mute); }
/* document view */
#doc { display: flex; flex-direction: column; height: 100vh; }
.dochead { padding: 10px 20px 6px; border-bottom: 1px solid var(--line); display: flex; gap: 8px 28px;
           flex-wrap: wrap; align-items: flex-start; }
.dochead > div { flex: 1 1 520px; min-width: 0; }
.dochead figure { margin: 0; flex: 0 0 auto; }
.dochead figcaption { font-size: 12px; color: var(--mute); max-width: 420px; }
.dochead .facts { font-size: 12px; color: var(--mute); margin: 2px 0 6px; }
.dochead .facts b { color: var(--ink); font-weight: 600; }
.toolbar { font-size: 12px; display: flex; gap: 14px; align-items: center; flex-wrap: wrap; margin-top: 4px; }
.legend span.sw { display: inline-block; padding: 0 6px; margin-right: 4px; border-radius: 3px; }
.docbody { flex: 1; display: flex; min-height: 0; }
.text { flex: 1; overflow: auto; padding: 12px 24px 40vh; min-width: 0; }
.side { width: 430px; border-left: 1px solid var(--line); display: flex; flex-direction: column; min-height: 0; }
.list { flex: 1 1 55%; overflow: auto; min-height: 0; }
.list table { border-collapse: collapse; width: 100%; font-size: 12px; }
.list td { padding: 2px 6px; border-bottom: 1px solid #f3f4f6; white-space: nowrap; vertical-align: top; }
.list td.h { white-space: normal; color: var(--mute); }
.list tr { cursor: pointer; }
.list tr:hover td { background: #f3f4f6; }
.list tr.sel td { background: #e0e7ff; }
.list tr.summary td { font-style: italic; }
.list .tok { display: inline-block; width: 60px; height: 8px; background: #f3f4f6; margin-left: 4px;
             vertical-align: middle; position: relative; }
.list .tok i { position: absolute; left: 0; top: 0; bottom: 0; background: #60a5fa; }
.list .tok i.full { background: #f59e0b; } .list .tok i.over { background: #dc2626; }
.rec { flex: 1 1 45%; border-top: 1px solid var(--line); overflow: auto; min-height: 0; padding: 6px 10px; }
.rec .head { font-size: 12px; margin-bottom: 4px; }
.rec pre { margin: 0; font-size: 11px; white-space: pre-wrap; word-break: break-word; }
.sec { font: 13px/1.6 ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace;
       white-space: pre-wrap; word-break: break-word; max-width: 110ch; }
.pg { font: 11px system-ui, sans-serif; color: var(--mute); border-top: 1px dashed #d1d5db; margin: 10px 0 4px;
      padding-top: 2px; }
.sec span[data-k] { cursor: pointer; }
.gap { color: #9ca3af; }
.c0 { background: var(--c0); } .c1 { background: var(--c1); }
.ov { background: repeating-linear-gradient(135deg, #bfdbfe 0 5px, #fde68a 5px 10px); }
.c0.hl { background: var(--c0h); } .c1.hl { background: var(--c1h); }
.hl { box-shadow: 0 2px 0 #1d4ed8; }
.ps { text-decoration: underline 2px #7c3aed; text-underline-offset: 3px; }
.mk { font: 600 10px/1 system-ui, sans-serif; background: var(--mark); color: #fff; border-radius: 3px;
      padding: 1px 4px; margin: 0 3px 0 1px; vertical-align: 2px; cursor: pointer; user-select: none; }
.mk.oversize { background: #dc2626; }
.mk.hl { background: #1d4ed8; outline: 2px solid #93c5fd; }
.pfx { display: inline-block; vertical-align: top; font: 11px/1.35 system-ui, sans-serif; color: var(--pfx);
       border: 1px dashed #a78bfa; background: #f5f3ff; padding: 1px 5px; margin: 0 4px 2px 0; user-select: none;
       white-space: pre-wrap; max-width: 100%; }
.pfx .header, .pfx .context { font-family: ui-monospace, monospace; display: block; color: #7c3aed; }
.lead { display: block; margin: 2px 0 1px; }
.lead .pfx { margin-bottom: 0; }
.nopfx .pfx { display: none; }
.nopfx .lead { display: inline; }
.ff { color: #9ca3af; }
"""

ERRORS_JS = """(function () {
  var root = document.documentElement;
  function note(msg) { root.setAttribute("data-errors", (root.getAttribute("data-errors") || "") + msg + "\\n"); }
  window.addEventListener("error", function (e) { note("error: " + (e.message || e.type)); });
  window.addEventListener("unhandledrejection", function (e) { note("unhandled rejection: " + e.reason); });
  document.addEventListener("securitypolicyviolation", function (e) {
    note("blocked by the page's policy: " + e.violatedDirective + " " + (e.blockedURI || ""));
  });
})();"""
"""Runs first: every script error or blocked load is written into <html data-errors>, where a test reads it."""

VIEW_JS = r"""(function () {
  "use strict";
  var root = document.documentElement;
  var nDocs = parseInt(root.getAttribute("data-docs") || "0", 10);
  var single = root.getAttribute("data-single") === "1";
  var indexEl = document.getElementById("index");
  var docEl = document.getElementById("doc");
  var SECTION = 12000;      // UTF-16 units per lazily drawn section of a document without pages
  var EAGER = 30000;        // units drawn at once before the observer takes over
  var state = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  function params() {
    var out = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      if (!kv) return;
      var i = kv.indexOf("=");
      out[i < 0 ? kv : kv.slice(0, i)] = i < 0 ? "1" : decodeURIComponent(kv.slice(i + 1));
    });
    return out;
  }

  // Shown as the document has it, but a lone CR breaks the line and a form feed (a page break, drawn as
  // a rule) is a space; each stays one UTF-16 unit, so offsets still index the text.
  function display(s) { return s.replace(/\r(?!\n)/g, "\n").replace(/\f/g, " "); }

  function lowerBound(arr, key, v) {
    var lo = 0, hi = arr.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (arr[mid][key] < v) lo = mid + 1; else hi = mid; }
    return lo;
  }

  function prepare(data) {
    var text = data.text, chunks = data.chunks, n = text.length;
    var leaves = [], starts = {}, ends = {}, cuts = [0, n];
    chunks.forEach(function (c, k) {
      c.k = k;
      if (c.role === "leaf") { c.ord = leaves.length; leaves.push(c); }
      (starts[c.s] = starts[c.s] || []).push(k);
      (ends[c.e] = ends[c.e] || []).push(k);
      cuts.push(c.s, c.e);
    });
    // sections: pages, cut further where a page is long; else every SECTION units at a line end
    var bounds = [];
    var pageStarts = data.pages && data.pages.length > 1 ? data.pages : [0];
    pageStarts.forEach(function (a, i) {
      var b = i + 1 < pageStarts.length ? pageStarts[i + 1] : n, first = true;
      while (a < b || (first && a === b)) {
        var end = b;
        if (b - a > SECTION * 1.5) {
          var nl = text.indexOf("\n", a + SECTION);
          end = nl < 0 || nl + 1 >= b ? b : nl + 1;
        }
        bounds.push({a: a, b: end, page: data.pages && data.pages.length > 1 && first ? i + 1 : 0});
        first = false;
        if (end === a) break;
        a = end;
      }
    });
    bounds.forEach(function (s) { cuts.push(s.a, s.b); });
    cuts.sort(function (x, y) { return x - y; });
    var segs = [], active = [], prev = -1;
    cuts.forEach(function (p) {
      if (p === prev) return;
      if (prev >= 0 && p > prev) {
        var ks = active.slice(), lv = ks.filter(function (k) { return chunks[k].role === "leaf"; });
        segs.push({a: prev, b: p, ks: ks, cls: lv.length === 0 ? "gap" : lv.length > 1 ? "ov" : "c" + (chunks[lv[0]].ord % 2)});
      }
      (ends[p] || []).forEach(function (k) { var i = active.indexOf(k); if (i >= 0) active.splice(i, 1); });
      (starts[p] || []).forEach(function (k) { if (chunks[k].e > p) active.push(k); });
      prev = p;
    });
    return {data: data, text: text, chunks: chunks, leaves: leaves, starts: starts, segs: segs, bounds: bounds};
  }

  function marker(st, k) {
    var c = st.chunks[k], r = c.rec;
    // a chunk that starts a line gets its marker and prefix on a line of their own, above it
    var lead = c.parts.length && (c.s === 0 || st.text.charAt(c.s - 1) === "\n");
    var frag = lead ? el("span", "lead") : document.createDocumentFragment();
    var mk = el("span", "mk" + (r.oversize ? " oversize" : ""), "#" + r.chunk_index);
    mk.setAttribute("data-m", String(k));
    mk.title = "chunk " + r.chunk_index + ": " + r.n_tokens + " tokens, " + r.kind;
    frag.appendChild(mk);
    if (c.parts.length) {
      var box = el("span", "pfx");
      box.setAttribute("data-m", String(k));
      c.parts.forEach(function (p) { box.appendChild(el("span", p[0], p[1].replace(/\n+$/, ""))); });
      frag.appendChild(box);
    }
    return frag;
  }

  function drawSection(st, i) {
    var b = st.bounds[i];
    if (b.done) return;
    b.done = true;
    var body = b.node.querySelector(".body");
    var frag = document.createDocumentFragment();
    for (var j = lowerBound(st.segs, "a", b.a); j < st.segs.length && st.segs[j].a < b.b; j++) {
      var s = st.segs[j];
      (st.starts[s.a] || []).forEach(function (k) { if (st.chunks[k].role === "leaf") frag.appendChild(marker(st, k)); });
      var span = el("span", s.cls, display(st.text.slice(s.a, s.b)));
      if (s.ks.length) span.setAttribute("data-k", s.ks.join(" "));
      frag.appendChild(span);
    }
    body.appendChild(frag);
    b.node.style.minHeight = "";
    if (st.selected !== null) highlight(st, st.selected, true);
  }

  function drawAll(st) { for (var i = 0; i < st.bounds.length; i++) drawSection(st, i); }

  function sectionOf(st, pos) {
    var i = lowerBound(st.bounds, "b", pos + 1);
    return Math.min(i, st.bounds.length - 1);
  }

  function rowText(r) {
    if (r.page_start == null) return "";
    return "p" + r.page_start + (r.page_end !== r.page_start ? "-" + r.page_end : "");
  }

  function fullRecord(st, k) {
    var c = st.chunks[k], out = {};
    Object.keys(c.rec).forEach(function (key) {
      out[key] = key === "text" && c.rec.text === null ? c.rec.prefix + st.text.slice(c.s, c.e) : c.rec[key];
    });
    return out;
  }

  function showRecord(st, k) {
    var box = st.recBox;
    box.textContent = "";
    if (k === null) { box.appendChild(el("div", "head muted", "Point at a chunk to see its record; click to keep it.")); return; }
    var c = st.chunks[k], r = c.rec, budget = (r.meta && r.meta.chunk_size) || st.data.budget;
    var head = el("div", "head");
    head.appendChild(el("b", null, "#" + r.chunk_index + "  "));
    head.appendChild(document.createTextNode(
      r.n_tokens + (budget ? "/" + budget : "") + " tokens \u00b7 " + r.kind + (c.role === "parent" ? " \u00b7 parent" : "") +
      (rowText(r) ? " \u00b7 " + rowText(r) : "") + " \u00b7 [" + r.start + ":" + r.end + ")" +
      (c.overlap ? " \u00b7 overlap " + c.overlap + " characters" : "") + (r.oversize ? " \u00b7 OVERSIZE" : "")));
    box.appendChild(head);
    if (r.headings && r.headings.length) box.appendChild(el("div", "head muted", r.headings.join(" \u203a ")));
    box.appendChild(el("pre", null, JSON.stringify(fullRecord(st, k), null, 2)));
  }

  function highlight(st, k, on) {
    if (k === null) return;
    var c = st.chunks[k], cls = c.role === "leaf" ? "hl" : "ps";
    st.textBox.querySelectorAll('[data-k~="' + k + '"]').forEach(function (e) { e.classList.toggle(cls, on); });
    st.textBox.querySelectorAll('[data-m="' + k + '"]').forEach(function (e) { e.classList.toggle("hl", on); });
  }

  function preview(st, k) {
    if (k === st.shown) return;
    if (st.shown !== null && st.shown !== st.selected) highlight(st, st.shown, false);
    st.shown = k;
    if (k !== null) highlight(st, k, true);
    showRecord(st, k);
  }

  function select(st, k, scroll) {
    if (st.selected !== null) { highlight(st, st.selected, false); st.rows[st.selected].classList.remove("sel"); }
    if (st.shown !== null) highlight(st, st.shown, false);
    st.selected = k;
    st.shown = null;
    if (k === null) { showRecord(st, null); return; }
    st.rows[k].classList.add("sel");
    preview(st, k);
    highlight(st, k, true);
    var p = params(); p.c = String(k);
    history.replaceState(null, "", "#" + Object.keys(p).map(function (x) { return x + "=" + encodeURIComponent(p[x]); }).join("&"));
    if (scroll) {
      var c = st.chunks[k], i = sectionOf(st, c.s);
      if (i > 0) drawSection(st, i - 1);
      drawSection(st, i);
      var target = st.textBox.querySelector('[data-m="' + k + '"]') || st.textBox.querySelector('[data-k~="' + k + '"]');
      if (target) target.scrollIntoView({block: "center"});
      st.rows[k].scrollIntoView({block: "nearest"});
    }
  }

  function chunkAt(st, e) {
    var t = e.target.closest ? e.target.closest("[data-m],[data-k]") : null;
    if (!t) return null;
    if (t.hasAttribute("data-m")) return parseInt(t.getAttribute("data-m"), 10);
    var ks = t.getAttribute("data-k").split(" ").map(Number), pick = null;
    ks.forEach(function (k) { if (st.chunks[k].role === "leaf") pick = k; });   // the later of two overlapping
    return pick === null ? ks[ks.length - 1] : pick;
  }

  function buildList(st) {
    var table = el("table"), budget = st.data.budget;
    st.rows = [];
    st.chunks.forEach(function (c, k) {
      var r = c.rec, tr = el("tr", c.role === "summary" ? "summary" : null);
      tr.setAttribute("data-row", String(k));
      var idx = el("td", null, "#" + r.chunk_index);
      idx.style.paddingLeft = (6 + 12 * c.depth) + "px";
      tr.appendChild(idx);
      var tok = el("td", null, String(r.n_tokens));
      if (budget) {
        var bar = el("span", "tok"), fill = el("i", r.n_tokens > budget ? "over" : r.n_tokens >= 0.9 * budget ? "full" : null);
        fill.style.width = Math.min(100, 100 * r.n_tokens / budget) + "%";
        bar.appendChild(fill);
        tok.appendChild(bar);
      }
      tr.appendChild(tok);
      tr.appendChild(el("td", null, r.kind + (c.role === "parent" ? " (parent)" : "")));
      tr.appendChild(el("td", null, rowText(r)));
      var h = el("td", "h", r.headings && r.headings.length ? r.headings[r.headings.length - 1] : "");
      if (r.headings && r.headings.length) h.title = r.headings.join(" \u203a ");
      tr.appendChild(h);
      table.appendChild(tr);
      st.rows.push(tr);
    });
    table.addEventListener("click", function (e) {
      var tr = e.target.closest("tr");
      if (tr) select(st, parseInt(tr.getAttribute("data-row"), 10), true);
    });
    table.addEventListener("mouseover", function (e) {
      var tr = e.target.closest("tr");
      if (tr) preview(st, parseInt(tr.getAttribute("data-row"), 10));
    });
    table.addEventListener("mouseleave", function () { preview(st, st.selected); });
    return table;
  }

  function showDoc(d, p) {
    if (!state || state.d !== d) {
      var data = JSON.parse(document.getElementById("j-" + d).textContent);
      var st = prepare(data);
      st.d = d; st.selected = null; st.shown = null;
      docEl.textContent = "";
      var head = document.getElementById("t-" + d).content.cloneNode(true);
      docEl.appendChild(head);
      var bodyRow = el("div", "docbody");
      st.textBox = el("div", "text");
      st.textBox.setAttribute("data-doc", String(d));
      var side = el("aside", "side"), list = el("div", "list");
      st.recBox = el("div", "rec");
      list.appendChild(buildList(st));
      side.appendChild(list);
      side.appendChild(st.recBox);
      bodyRow.appendChild(st.textBox);
      bodyRow.appendChild(side);
      docEl.appendChild(bodyRow);
      st.bounds.forEach(function (b, i) {
        var sec = el("section", "sec");
        sec.setAttribute("data-sec", String(i));
        if (b.page) sec.appendChild(el("div", "pg", "page " + b.page));
        sec.appendChild(el("div", "body"));
        var slice = data.text.slice(b.a, b.b), lines = (slice.match(/\n/g) || []).length + slice.length / 100;
        sec.style.minHeight = Math.max(21, Math.round(lines * 21)) + "px";
        b.node = sec;
        st.textBox.appendChild(sec);
      });
      var eager = 0;
      for (var i = 0; i < st.bounds.length && eager < EAGER; i++) { drawSection(st, i); eager += st.bounds[i].b - st.bounds[i].a; }
      if (p.all) drawAll(st);
      if ("IntersectionObserver" in window) {
        var io = new IntersectionObserver(function (entries) {
          entries.forEach(function (en) {
            if (en.isIntersecting) { drawSection(st, parseInt(en.target.getAttribute("data-sec"), 10)); io.unobserve(en.target); }
          });
        }, {root: st.textBox, rootMargin: "1500px 0px"});
        st.bounds.forEach(function (b) { if (!b.done) io.observe(b.node); });
      } else {
        drawAll(st);
      }
      st.textBox.addEventListener("mouseover", function (e) { var k = chunkAt(st, e); if (k !== null) preview(st, k); });
      st.textBox.addEventListener("mouseleave", function () { preview(st, st.selected); });
      st.textBox.addEventListener("click", function (e) { var k = chunkAt(st, e); if (k !== null) select(st, k, false); });
      var pfx = docEl.querySelector(".opt-prefix"), all = docEl.querySelector(".opt-all");
      if (pfx) pfx.addEventListener("change", function () { st.textBox.classList.toggle("nopfx", !pfx.checked); });
      if (all) all.addEventListener("click", function () { drawAll(st); all.disabled = true; });
      showRecord(st, null);
      state = st;
      document.title = (data.title || data.source) + " \u2013 chunkctl view";
    }
    if (indexEl) indexEl.hidden = true;
    docEl.hidden = false;
    var c = p.c !== undefined ? parseInt(p.c, 10) : NaN;
    if (c >= 0 && c < state.chunks.length) select(state, c, true);
  }

  function showIndex() {
    if (indexEl) indexEl.hidden = false;
    docEl.hidden = true;
    document.title = root.getAttribute("data-title") || "chunkctl view";
  }

  function route() {
    var p = params();
    var d = p.d !== undefined ? parseInt(p.d, 10) : (single ? 0 : -1);
    if (d >= 0 && d < nDocs && document.getElementById("j-" + d)) showDoc(d, p); else showIndex();
    root.setAttribute("data-ready", "1");
    root.setAttribute("data-ready-ms", String(Math.round(performance.now())));  // since navigation started
  }

  document.addEventListener("keydown", function (e) {
    if (!state || docEl.hidden || e.target.tagName === "INPUT") return;
    if (e.key !== "j" && e.key !== "k") return;
    var k = state.selected === null ? -1 : state.selected;
    k = e.key === "j" ? Math.min(state.chunks.length - 1, k + 1) : Math.max(0, k - 1);
    if (k >= 0) select(state, k, true);
  });
  window.addEventListener("hashchange", route);
  route();
})();"""
"""Draws the index or one document (from its JSON) by the URL's fragment: `#d=3` a document, `&c=12` a chunk,
`&all` every section at once. Text goes into the page only through textContent."""

// npcompile's report widget (anywidget ESM): the session's report, redrawn whenever the
// kernel sends a new one (model "report"), with tabs, a filter by function, and a
// details pane for the row clicked. No build step and no imports: it runs as it is in
// JupyterLab 4, Notebook 7 and VS Code.

const TABS = [
  ["breaks", "Graph breaks"],
  ["recompiles", "Recompiles"],
  ["kernels", "Kernels"],
  ["timings", "Compiled vs eager"],
  ["choices", "Path choices"],
  ["loops", "Loops"],
  ["fallbacks", "Fallbacks"],
];

function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

const ms = (x) => (x === undefined || x === null ? "–" : x < 1 ? `${(x * 1000).toFixed(0)} µs` : `${x.toFixed(2)} ms`);
const bytes = (b) => (b < 1e3 ? `${b} B` : b < 1e6 ? `${(b / 1e3).toFixed(1)} kB` : `${(b / 1e6).toFixed(2)} MB`);
const rate = (g) => (g >= 10 ? g.toFixed(0) : g >= 0.1 ? g.toFixed(1) : g.toPrecision(1));
const base = (f) => (f ? String(f).split("/").pop() : "");
// a %%npcompile cell is "<In [n]>": said as ipykernel says it
const where = (r) => {
  if (!r.filename) return "";
  const cell = /^<In \[(\d+)\]>$/.exec(r.filename);
  return cell ? `In [${cell[1]}], line ${r.lineno}` : `${base(r.filename)}:${r.lineno}`;
};
// code at a cell's top level is the cell's, "In [n]" (as its compiles are named)
const fnName = (r) => {
  const cell = /^<(In \[\d+\])>$/.exec(r.filename || "");
  return cell && (r.function === "<module>" || r.function === "<cell>") ? cell[1] : r.function || "";
};

// graph id -> the function that compiled it (kernels and timings name graphs only)
function functionsOf(report) {
  const of = {};
  for (const c of report.compiles || []) of[c.graph_id] = c.function;
  return of;
}

function rowsOf(report, tab, fnOf) {
  const withFn = (r) => ({ ...r, function: fnName(r) || fnOf[r.graph_id] || "" });
  switch (tab) {
    case "breaks": return (report.breaks || []).map(withFn);
    case "recompiles": return (report.recompiles || []).map(withFn);
    case "kernels": return (report.kernels || []).map(withFn);
    case "timings": return (report.graph_timings || []).map(withFn);
    case "choices": return (report.path_choices || []).map(withFn);
    case "loops": return (report.loops || []).map(withFn);
    case "fallbacks": return (report.fallbacks || []).map(withFn);
  }
  return [];
}

function table(tab, rows, pick, picked) {
  const cols = {
    breaks: [["×", (r) => r.count], ["where", where], ["function", (r) => r.function], ["reason", (r) => r.reason]],
    recompiles: [["graph", (r) => r.graph_id], ["where", where], ["function", (r) => r.function], ["why", (r) => r.reason]],
    kernels: [["kernel", (r) => r.name], ["function", (r) => r.function], ["target", (r) => r.target],
              ["runs", (r) => r.runs], ["median", (r) => ms(r.median_ms)],
              ["GB/s", (r) => (r.bytes && r.runs && r.median_ms ? rate(r.bytes / r.runs / (r.median_ms * 1e6)) : "–")]],
    timings: [["graph", (r) => r.graph_id], ["function", (r) => r.function], ["runs", (r) => r.runs],
              ["compiled", (r) => ms(r.compiled_ms)], ["eager", (r) => ms(r.eager_ms)],
              ["eager runs", (r) => r.eager_runs || "–"], ["speedup", (r) => bar(r.speedup)]],
    choices: [["function", (r) => r.function], ["choice", (r) => r.choice], ["compiled", (r) => ms(r.compiled_ms)],
              ["NumPy", (r) => ms(r.numpy_ms)]],
    loops: [["line", (r) => r.lineno], ["function", (r) => r.function], ["what happened", (r) => r.summary]],
    fallbacks: [["graph", (r) => r.graph_id], ["function", (r) => r.function], ["reason", (r) => r.reason]],
  }[tab];
  if (!rows.length) return h("div", { class: "npcw-empty" }, "Nothing here yet: it fills in as cells run.");
  return h("table", { class: "npcw-table" },
    h("thead", {}, h("tr", {}, cols.map(([name]) => h("th", {}, name)))),
    h("tbody", {}, rows.map((r, i) =>
      h("tr", { class: i === picked ? "npcw-picked" : "", onclick: () => pick(i) },
        cols.map(([, get]) => h("td", {}, get(r)))))));
}

function bar(speedup) {
  if (!speedup) return "–";
  const width = Math.min(100, Math.log2(1 + speedup) * 20);
  return h("span", { class: "npcw-bar-wrap" },
    h("span", { class: speedup >= 1 ? "npcw-bar" : "npcw-bar npcw-slow", style: `width:${width}px` }),
    ` ${speedup.toFixed(2)}×`);
}

// the kernel's source with each NumPy op it computes listed by the user's line
function kernelDetails(k, copyGbps) {
  // a run's bytes (its inputs and outputs whole) over its median time
  const perRun = k.runs ? k.bytes / k.runs : 0;
  const gbps = perRun && k.median_ms ? perRun / (k.median_ms * 1e6) : 0;
  const pct = (100 * gbps) / copyGbps;
  const share = gbps && copyGbps ? ` (${pct >= 1 ? Math.round(pct) : pct.toPrecision(1)}% of the ${copyGbps.toFixed(1)} GB/s of a NumPy copy here)` : "";
  const byLine = {};
  for (const op of k.ops || []) (byLine[op.lineno] = byLine[op.lineno] || { text: op.text, ops: [] }).ops.push(op.op);
  return [
    h("div", { class: "npcw-facts" },
      `${k.target} kernel of graph ${k.graph_id} · ${k.runs} ${k.runs === 1 ? "run" : "runs"} · min ${ms(k.min_ms)} · median ${ms(k.median_ms)} · max ${ms(k.max_ms)} · `,
      perRun ? `${bytes(perRun)} moved a run · ${rate(gbps)} GB/s at the median${share}` : "bytes not measured"),
    h("div", { class: "npcw-sub" }, "Your lines in this kernel"),
    h("ul", { class: "npcw-lines" }, Object.entries(byLine).map(([line, v]) =>
      h("li", {}, h("b", {}, `line ${line}`), ` ${v.text || ""}  `, h("span", { class: "npcw-ops" }, v.ops.join(", "))))),
    h("div", { class: "npcw-sub" }, k.target === "cuda" ? "Generated CUDA" : "Generated C++"),
    h("pre", { class: "npcw-code" }, k.source || "(source not kept)"),
  ];
}

function details(tab, r, model) {
  if (!r) return h("div", { class: "npcw-hint" }, "Click a row to see its details.");
  switch (tab) {
    case "breaks":
      return h("div", {},
        h("div", { class: "npcw-facts" }, `${r.function || "?"} at ${where(r)} · ${r.count}× this session`),
        h("pre", { class: "npcw-code" }, r.code || ""),
        h("div", { class: "npcw-reason" }, r.reason),
        r.hint ? h("div", { class: "npcw-tip" }, h("b", {}, "Hint: "), r.hint) : null);
    case "recompiles":
      return h("div", {},
        h("div", { class: "npcw-facts" }, `graph ${r.graph_id} of ${r.function || "?"} at ${where(r)}`),
        h("div", { class: "npcw-sub" }, "What changed since the last compile"),
        h("ul", { class: "npcw-lines" }, String(r.reason || "").split("; ").map((x) => h("li", {}, x))));
    case "kernels":
      return h("div", {}, kernelDetails(r, model.get("copy_gbps")));
    case "timings":
      return h("div", {},
        h("div", { class: "npcw-facts" }, `graph ${r.graph_id} of ${r.function || "?"}: ${r.runs} compiled runs`),
        h("div", {}, "compiled ", bar(r.speedup), ` (${ms(r.compiled_ms)} a run against ${ms(r.eager_ms)} in eager NumPy, `,
          `the median of ${r.eager_runs || 1} warm ${r.eager_runs === 1 ? "run" : "runs"}; compiled: ${r.runs} ${r.runs === 1 ? "run" : "runs"})`));
    default:
      return h("pre", { class: "npcw-code" }, JSON.stringify(r, null, 2));
  }
}

function summary(report, live) {
  const s = report.summary || {};
  // (what: the singular; a count other than 1 takes an s, "replays" included)
  const item = (n, what, warn) => h("span", { class: warn && n ? "npcw-chip npcw-warn" : "npcw-chip" },
    h("b", {}, n ?? 0), ` ${n === 1 ? what : what + "s"}`);
  return h("div", { class: "npcw-summary" },
    h("span", { class: live ? "npcw-live" : "npcw-live npcw-off", title: live ? "updates as cells run" : "a snapshot" }),
    h("b", { class: "npcw-title" }, "npcompile"),
    item(s.graphs, "graph"), item(s.graph_breaks, "graph break", true), item(s.recompiles, "recompile", true),
    item(s.kernels, "kernel"), item(s.fallbacks, "fallback", true), item(s.replays, "replay"),
    s.speedup ? h("span", { class: "npcw-chip" }, "compiled ", bar(s.speedup), " eager") : null);
}

function render({ model, el }) {
  const state = { tab: null, picked: -1, fn: "" };
  const root = h("div", { class: "npcw" });
  el.append(root);

  function draw() {
    const report = model.get("report") || {};
    const fnOf = functionsOf(report);
    if (state.tab === null) {   // open where something needs a look
      const s = report.summary || {};
      state.tab = s.graph_breaks ? "breaks" : s.recompiles ? "recompiles" : "kernels";
    }
    const all = rowsOf(report, state.tab, fnOf);
    const rows = state.fn ? all.filter((r) => r.function === state.fn) : all;
    const names = [...new Set(TABS.flatMap(([t]) => rowsOf(report, t, fnOf).map((r) => r.function)).filter(Boolean))].sort();
    const filter = h("select", { class: "npcw-filter", onchange: (e) => { state.fn = e.target.value; state.picked = -1; draw(); } },
      h("option", { value: "" }, "all functions and cells"),
      names.map((n) => { const o = h("option", { value: n }, n); if (n === state.fn) o.selected = true; return o; }));
    const auto = h("input", { type: "checkbox", onchange: (e) => { model.set("auto", e.target.checked); model.save_changes(); } });
    auto.checked = !!model.get("auto");
    const tabs = h("div", { class: "npcw-tabs" }, TABS.map(([t, label]) => {
      const n = rowsOf(report, t, fnOf).filter((r) => !state.fn || r.function === state.fn).length;
      return h("button", { class: t === state.tab ? "npcw-tab npcw-on" : "npcw-tab",
        onclick: () => { state.tab = t; state.picked = -1; draw(); } }, `${label} (${n})`);
    }));
    const pick = (i) => { state.picked = i; draw(); };
    root.replaceChildren(
      summary(report, model.get("live")),
      h("div", { class: "npcw-bar-row" }, filter, h("label", { class: "npcw-auto" }, auto, " trace every cell (auto mode)")),
      tabs,
      h("div", { class: "npcw-body" },
        h("div", { class: "npcw-list" }, table(state.tab, rows, pick, state.picked)),
        h("div", { class: "npcw-details" }, details(state.tab, rows[state.picked], model))));
  }
  model.on("change:report", draw);
  model.on("change:auto", draw);
  draw();
  return () => { model.off("change:report", draw); model.off("change:auto", draw); };
}

export default { render };

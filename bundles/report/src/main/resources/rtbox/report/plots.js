// rtbox's plots, written once for the HTML report (inlined into it) and for the
// control room's pages (served from rtbox.report's bundle). Drawn with uPlot, which
// must be loaded first as the global `uPlot` (its webjar's uPlot.iife.min.js): the
// report inlines it, the control room serves it, so nothing comes from a CDN.
//
// The plots take a "cell" model (see cellFromRunReport for its fields): latencies
// in microseconds, spike times in seconds. HtmlReport writes the same model in Java.

/** One colour per CPU (index = CPU number modulo the list), as HtmlReport.THREAD_COLOURS. */
export const CPU_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"];
/** Colours of spike causes (a cause starting with one of these names); any other cause is grey. */
export const CAUSE_COLOURS = {
  "RT throttling": "#ff7f0e",
  "JVM pause": "#9400d3",
  "workload": "#17becf",
  "machine-wide stall": "#7f7f00",
  "unexplained": "#000000",
  "preempted": "#a6761d",
  "interrupt": "#31a354",
  "late wake-up": "#e7298a",
};
/** One colour per cell when the cells of a plan are overlaid (or two runs compared). */
export const CELL_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
/** The threshold line: a colour no series uses, so a reader (and a pixel test) tells it apart. */
export const THRESHOLD_COLOUR = "#ff00ff";
/** Grid lines, opaque so that they look the same on every screen and in every screenshot. */
export const GRID_COLOUR = "#dddddd";

const OTHER_CAUSE = "#999999";

export function cpuColour(cpu) {
  return CPU_COLOURS[((cpu % CPU_COLOURS.length) + CPU_COLOURS.length) % CPU_COLOURS.length];
}

export function causeColour(cause) {
  for (const [name, colour] of Object.entries(CAUSE_COLOURS)) {
    if (cause != null && cause.startsWith(name)) return colour;
  }
  return OTHER_CAUSE;
}

/** The cause's group name in legends and lists: one of CAUSE_COLOURS' names, or the cause itself. */
export function causeGroup(cause) {
  for (const name of Object.keys(CAUSE_COLOURS)) {
    if (cause != null && cause.startsWith(name)) return name;
  }
  return cause || "unknown";
}

/**
 * The cell model from a RunReport as rtbox writes it in JSON (rtbox.core.Reports.json,
 * the MQTT cell messages): {name, verdict, durationS, thresholds: {max, p99, p999, pwcet}
 * (us or null), pwcet (the report's pWCET estimate as it is, or null), threads: [{cpu, bucketUs, counts, overflows, samples, min, avg, p50,
 * p99, p999, max}] (us), spikes: [{t, us, cpu, cause, detail}] (t in s)}.
 */
export function cellFromRunReport(name, report) {
  const r = report.result;
  const thresholds = { max: null, p99: null, p999: null, pwcet: null };
  for (const c of (report.verdict && report.verdict.checks) || []) {
    if (c.metric === "max_latency_us") thresholds.max = c.threshold;
    if (c.metric === "p99_us") thresholds.p99 = c.threshold;
    if (c.metric === "p99.9_us") thresholds.p999 = c.threshold;
    if (c.metric === "pwcet_us") thresholds.pwcet = c.threshold;
  }
  const threads = [], spikes = [];
  for (const t of r.threads) {
    const h = t.latency;
    let last = h.counts.length;
    while (last > 0 && h.counts[last - 1] === 0) last--;
    threads.push({
      cpu: t.cpu, bucketUs: h.bucketWidthNs / 1000, counts: h.counts.slice(0, last), overflows: h.overflows,
      samples: h.samples, min: h.minNs / 1000, avg: h.avgNs / 1000, p50: h.p50Ns / 1000, p99: h.p99Ns / 1000,
      p999: h.p999Ns / 1000, max: h.maxNs / 1000,
    });
    for (const s of t.spikes || []) {
      spikes.push({ t: s.offsetNs / 1e9, us: s.latencyNs / 1000, cpu: t.cpu, cause: s.cause, detail: s.detail });
    }
  }
  return {
    name, verdict: report.verdict ? report.verdict.outcome : null, durationS: r.durationNs / 1e9, thresholds,
    pwcet: report.pwcet ?? null, threads, spikes,
  };
}

function thresholdsFrom(checks, given) {
  const t = { max: null, p99: null, p999: null, pwcet: null };
  for (const c of checks || []) {
    if (c.metric === "max_latency_us") t.max = c.threshold;
    if (c.metric === "p99_us") t.p99 = c.threshold;
    if (c.metric === "p99.9_us") t.p999 = c.threshold;
    if (c.metric === "pwcet_us") t.pwcet = c.threshold;
  }
  const g = given || {};
  // a plan's thresholds as written (max_us, p99_us, p99.9_us / p999_us) when no check names them
  if (t.max == null) t.max = g.max_latency_us ?? g.max_us ?? null;
  if (t.p99 == null) t.p99 = g.p99_us ?? null;
  if (t.p999 == null) t.p999 = g["p99.9_us"] ?? g.p999_us ?? null;
  return t;
}

/**
 * The cell model from a cell of the control room's run API (GET /api/v1/runs/A/R:
 * docs/control-api.md): snake_case figures in us, histograms per thread.
 */
export function cellFromApi(cell) {
  const bucketUs = cell.histogram_bucket_us || 1;
  const threads = (cell.threads || []).map((t) => {
    const counts = t.histogram || [];
    let last = counts.length;
    while (last > 0 && !counts[last - 1]) last--;
    return {
      cpu: t.cpu, bucketUs, counts: counts.slice(0, last), overflows: t.overflows || 0, samples: t.samples,
      min: t.min_us, avg: t.avg_us, p50: t.p50_us, p99: t.p99_us, p999: t.p999_us, max: t.max_us,
    };
  });
  const spikes = (cell.spikes || []).map((s) => ({
    t: s.offset_s, us: s.latency_us, cpu: s.cpu, cause: s.cause, detail: s.detail,
  }));
  return {
    name: cell.name, verdict: cell.verdict, durationS: cell.duration_s, thresholds: thresholdsFrom(cell.checks, cell.thresholds),
    threads, spikes,
  };
}

/**
 * A one-histogram cell model from summary figures and one histogram (the compare API's
 * a, b and reference sides), so that overlayPlot draws it.
 */
export function cellFromSummary(name, s) {
  return {
    name, verdict: null, durationS: null, thresholds: {}, spikes: [],
    threads: [{
      cpu: 0, bucketUs: s.histogram_bucket_us || 1, counts: s.histogram || [], overflows: s.overflows || 0,
      samples: s.samples ?? (s.histogram || []).reduce((a, b) => a + b, 0), min: s.min_us, p50: s.p50_us,
      p99: s.p99_us, p999: s.p999_us, max: s.max_us,
    }],
  };
}

function fmtUs(v) {
  if (v == null || !isFinite(v)) return "-";
  if (v >= 10000) return Math.round(v).toLocaleString("en-US").replace(/,/g, " ");
  return v >= 10 ? String(Math.round(v)) : String(Math.round(v * 10) / 10);
}

function countLabel(v) {
  if (v == null) return "";
  const e = Math.round(Math.log10(v));
  return Math.abs(v - 10 ** e) < 1e-9 * v ? (e <= 3 ? String(10 ** e) : "1e" + e) : "";
}

function latencyLabel(v) {
  if (v == null) return "";
  if (v >= 1000000) return v / 1000000 + " s";
  if (v >= 1000) return v / 1000 + " ms";
  return (v < 1 ? v.toPrecision(1) : String(v)) + " us";
}

/** Grid and ticks at 1, 2 and 5 of each decade (only 1 on the count axis): lines a reader can count. */
function logSplits(mantissas) {
  return (u, axisIdx, min, max) => {
    const out = [];
    for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
      for (const m of mantissas) {
        const v = m * 10 ** e;
        if (v >= min * 0.999 && v <= max * 1.001) out.push(e < 0 ? +v.toPrecision(1) : v);
      }
    }
    return out;
  };
}

/** Labels for a log axis: every split when few decades are shown, else the decades only. */
function logValues(format) {
  return (u, vals) => {
    const decades = vals.length ? Math.log10(vals[vals.length - 1] / vals[0]) : 0;
    return vals.map((v) => (decades <= 3 || Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9 ? format(v) : ""));
  };
}

function axisStyle(label, extra) {
  return Object.assign({
    label, stroke: "#333",
    grid: { show: true, stroke: GRID_COLOUR, width: 1 },
    ticks: { show: true, stroke: "#666", width: 1, size: 6 },
  }, extra);
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "style") e.style.cssText = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function swatch(colour) {
  return el("span", { class: "swatch", style: "display:inline-block;width:.9em;height:.9em;margin-right:.4em;"
      + "vertical-align:-.1em;background:" + colour });
}

/** Lines across the plot at the thresholds, in THRESHOLD_COLOUR, each labelled. */
function thresholdHook(lines, scaleKey) {
  return (u) => {
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    ctx.save();
    ctx.setLineDash([]); // a dashed series drawn before must not dash the threshold
    ctx.strokeStyle = THRESHOLD_COLOUR;
    ctx.fillStyle = THRESHOLD_COLOUR;
    ctx.lineWidth = 2 * devicePixelRatio;
    ctx.font = Math.round(11 * devicePixelRatio) + "px sans-serif";
    for (const { value, label } of lines) {
      const sc = u.scales[scaleKey];
      if (value == null || sc.min == null || value < sc.min || value > sc.max) continue;
      const p = Math.round(u.valToPos(value, scaleKey, true));
      ctx.beginPath();
      if (scaleKey === "x") {
        ctx.moveTo(p, top);
        ctx.lineTo(p, top + height);
      } else {
        ctx.moveTo(left, p);
        ctx.lineTo(left + width, p);
      }
      ctx.stroke();
      if (scaleKey === "x") {
        ctx.fillText(label, p + 4 * devicePixelRatio, top + 12 * devicePixelRatio);
      } else {
        ctx.textAlign = "right";
        ctx.fillText(label, left + width - 4 * devicePixelRatio, p - 4 * devicePixelRatio);
      }
    }
    ctx.restore();
  };
}

/** After drawing, record where things are on the page (for pixel tests and for people's tools). */
function markGeometry(holder, scaleKey, lines) {
  return (u) => {
    const box = u.over.getBoundingClientRect();
    holder.dataset.plotBox = [box.left + scrollX, box.top + scrollY, box.width, box.height].map(Math.round).join(",");
    const sc = u.scales[scaleKey];
    holder.dataset.range = [sc.min, sc.max].join(",");
    const shown = lines.filter((l) => l.value != null && l.value >= sc.min && l.value <= sc.max);
    if (shown.length) {
      holder.dataset.threshold = shown[0].value;
      holder.dataset.thresholdPx = Math.round(u.valToPos(shown[0].value, scaleKey, false) + (scaleKey === "x"
        ? box.left + scrollX : box.top + scrollY));
    }
  };
}

function thresholdLines(thresholds) {
  const t = thresholds || {};
  return [
    { value: t.max, label: "max <= " + fmtUs(t.max) + " us" },
    { value: t.p999, label: "p99.9 <= " + fmtUs(t.p999) + " us" },
    { value: t.p99, label: "p99 <= " + fmtUs(t.p99) + " us" },
  ].filter((l) => l.value != null && l.value > 0);
}

/** x values (bucket upper edges, us) and one count column per histogram, null where empty. */
function alignHistograms(hists) {
  const xs = new Map();
  hists.forEach((h, k) => {
    h.counts.forEach((c, i) => {
      if (c > 0) {
        const x = Math.round((i + 1) * h.bucketUs * 1000) / 1000;
        let row = xs.get(x);
        if (!row) xs.set(x, row = new Array(hists.length).fill(null));
        row[k] = (row[k] || 0) + c;
      }
    });
  });
  const keys = [...xs.keys()].sort((a, b) => a - b);
  const data = [keys];
  hists.forEach((_, k) => data.push(keys.map((x) => xs.get(x)[k])));
  return data;
}

/**
 * A histogram's outline as uPlot draws a series: each bucket a step at its count from its
 * lower to its upper edge (the data's x), neighbouring buckets joined by a vertical, and
 * nothing across empty buckets: a gap, as OSADL's latency plots leave one. (uPlot's own
 * stepped path holds the last count until the next point: a flat line at count 1 across
 * every empty bucket between two rare outliers, 4 ms long on a real run.)
 */
function bucketSteps(bucketUs) {
  return (u, seriesIdx, idx0, idx1) => {
    const xs = u.data[0], ys = u.data[seriesIdx];
    const stroke = new Path2D();
    const xMin = u.scales.x.min;
    let prevUpper = null;
    for (let i = idx0; i <= idx1; i++) {
      const y = ys[i];
      if (y == null) continue;
      const upper = xs[i], lower = upper - bucketUs;
      const yPx = u.valToPos(y, "y", true);
      if (prevUpper != null && Math.abs(prevUpper - lower) <= bucketUs * 0.01) {
        stroke.lineTo(u.valToPos(prevUpper, "x", true), yPx); // the bucket next door: a vertical between them
      } else {
        stroke.moveTo(u.valToPos(Math.max(lower, xMin), "x", true), yPx); // after a gap (a log axis has no 0)
      }
      stroke.lineTo(u.valToPos(upper, "x", true), yPx);
      prevUpper = upper;
    }
    return { stroke, fill: null, clip: null, band: null, gaps: null, flags: 0 };
  };
}

function histogramOptions(width, height, hists, lines, holder, title) {
  let maxX = 1, minX = Infinity, maxY = 1;
  for (const h of hists) {
    h.counts.forEach((c, i) => {
      if (c > 0) {
        minX = Math.min(minX, (i + 1) * h.bucketUs);
        maxX = Math.max(maxX, (i + 1) * h.bucketUs);
        maxY = Math.max(maxY, c);
      }
    });
  }
  const dataMaxX = maxX;
  for (const l of lines) maxX = Math.max(maxX, l.value);
  if (!isFinite(minX)) minX = 1;
  const lo = 10 ** Math.floor(Math.log10(minX)), hi = 10 ** Math.ceil(Math.log10(maxX * 1.05));
  return {
    title, width, height, legend: { show: false },
    cursor: { drag: { x: true, y: false } },
    scales: {
      // the whole data (first draw, double-click) gets whole decades; a zoom gets what was dragged
      x: { time: false, distr: 3, log: 10, range: (u, min, max) => (min <= minX && max >= dataMaxX ? [lo, hi] : [min, max]) },
      y: { distr: 3, log: 10, range: () => [0.5, 10 ** Math.ceil(Math.log10(maxY * 1.5))] },
    },
    axes: [
      axisStyle("latency (us, log scale; drag to zoom, double-click to reset)",
        { splits: logSplits([1, 2, 5]), filter: (u, splits) => splits, values: logValues(latencyLabel) }),
      axisStyle("samples (log scale)", { size: 60, splits: logSplits([1]), values: (u, vals) => vals.map(countLabel) }),
    ],
    series: [{}, ...hists.map((h) => ({
      label: h.label, stroke: h.colour, width: 2,
      paths: bucketSteps(h.bucketUs),
      points: { show: true, size: 4, fill: h.colour, stroke: h.colour },
    }))],
    hooks: { draw: [thresholdHook(lines, "x"), markGeometry(holder, "x", lines)] },
  };
}

function statsTable(rows) {
  const head = el("tr", {}, ...["", "samples", "min", "p50", "p99", "p99.9", "max", "overflows"]
    .map((h) => el("th", { text: h })));
  const table = el("table", { class: "legend" }, head);
  for (const r of rows) {
    table.append(el("tr", { "data-series": r.label },
      el("td", {}, swatch(r.colour), r.label),
      el("td", { text: String(r.samples) }),
      ...[r.min, r.p50, r.p99, r.p999, r.max].map((v) => el("td", { text: v == null ? "-" : fmtUs(v) + " us" })),
      el("td", { text: String(r.overflows) })));
  }
  return table;
}

/**
 * Latency histograms of one cell, one line per CPU in its colour, on a log latency axis
 * and a log count axis, with the thresholds as lines and min/p50/p99/p99.9/max per CPU
 * in the legend below. Returns the uPlot.
 */
export function histogramPlot(target, cell, opts = {}) {
  const hists = cell.threads.map((t) => Object.assign({ label: "CPU " + t.cpu, colour: cpuColour(t.cpu) }, t));
  const holder = el("div", { class: "plot histogram", "data-cell": cell.name });
  target.append(holder);
  const lines = thresholdLines(cell.thresholds);
  const u = new uPlot(histogramOptions(opts.width || 860, opts.height || 300, hists, lines, holder,
    opts.title || "latency histogram per CPU"), alignHistograms(hists), holder);
  holder.append(statsTable(hists));
  return u;
}

/** Sums a cell's threads into one histogram (for overlays), with the summary figures over all threads. */
export function cellHistogram(cell) {
  const bucketUs = Math.min(...cell.threads.map((t) => t.bucketUs));
  const counts = [];
  let samples = 0, overflows = 0;
  // a figure a source does not give stays null, not NaN
  const worst = (key, pick) => {
    const vals = cell.threads.map((t) => t[key]).filter((v) => v != null && isFinite(v));
    return vals.length ? pick(...vals) : null;
  };
  for (const t of cell.threads) {
    t.counts.forEach((c, i) => {
      const j = Math.round((i + 1) * t.bucketUs / bucketUs) - 1;
      counts[j] = (counts[j] || 0) + c;
    });
    samples += t.samples || 0;
    overflows += t.overflows || 0;
  }
  for (let i = 0; i < counts.length; i++) counts[i] = counts[i] || 0;
  return { bucketUs, counts, samples, overflows, min: worst("min", Math.min), max: worst("max", Math.max),
    p50: worst("p50", Math.max), p99: worst("p99", Math.max), p999: worst("p999", Math.max) };
}

/**
 * All cells in one plot (a plan's idle vs pipe vs blockio, or two runs compared): one
 * line per cell, all CPUs summed, each cell in its colour; the first cell's thresholds
 * drawn. `cells` are cell models; opts.labels may rename them.
 */
export function overlayPlot(target, cells, opts = {}) {
  const hists = cells.map((c, k) => Object.assign(cellHistogram(c), {
    label: (opts.labels && opts.labels[k]) || c.name, colour: CELL_COLOURS[k % CELL_COLOURS.length],
  }));
  const holder = el("div", { class: "plot overlay" });
  target.append(holder);
  const lines = thresholdLines(opts.thresholds || (cells[0] && cells[0].thresholds));
  const u = new uPlot(histogramOptions(opts.width || 860, opts.height || 300, hists, lines, holder,
    opts.title || "all cells overlaid (all CPUs of each cell)"), alignHistograms(hists), holder);
  holder.append(statsTable(hists));
  return u;
}

/** Spikes over the run's time line, one dot per spike coloured by its cause, on a log latency axis. */
export function spikePlot(target, cell, opts = {}) {
  const holder = el("div", { class: "plot spikes", "data-cell": cell.name });
  target.append(holder);
  const spikes = [...cell.spikes].sort((a, b) => a.t - b.t);
  const groups = [...new Set(spikes.map((s) => causeGroup(s.cause)))];
  const data = [spikes.map((s) => s.t), ...groups.map((g) => spikes.map((s) => (causeGroup(s.cause) === g ? s.us : null)))];
  const lines = thresholdLines(cell.thresholds).slice(0, 1);
  let maxY = 100;
  for (const s of spikes) maxY = Math.max(maxY, s.us);
  for (const l of lines) maxY = Math.max(maxY, l.value);
  let minY = 10;
  for (const s of spikes) minY = Math.min(minY, s.us);
  const firstT = spikes.length ? spikes[0].t : 0, lastT = spikes.length ? spikes[spikes.length - 1].t : 0;
  const duration = Math.max(cell.durationS || 0, spikes.length ? spikes[spikes.length - 1].t : 0, 0.001);
  const u = new uPlot({
    title: opts.title || "spikes over time, by cause", width: opts.width || 860, height: opts.height || 240,
    legend: { show: false },
    scales: {
      x: { time: false, range: (u, min, max) => (min <= firstT && max >= lastT ? [0, duration] : [min, max]) },
      y: { distr: 3, log: 10, range: () => [10 ** Math.floor(Math.log10(minY)), 10 ** Math.ceil(Math.log10(maxY * 1.05))] },
    },
    axes: [axisStyle("time into the run (s)"),
      axisStyle("latency (log scale)", { size: 70, splits: logSplits([1]), values: (u, vals) => vals.map(latencyLabel) })],
    series: [{}, ...groups.map((g) => ({
      label: g, stroke: causeColour(g), paths: () => null,
      points: { show: true, size: 9, fill: causeColour(g), stroke: causeColour(g) },
    }))],
    hooks: { draw: [thresholdHook(lines, "y"), markGeometry(holder, "y", lines)] },
  }, spikes.length ? data : [[0], ...groups.map(() => [null])], holder);
  const legend = el("p", { class: "legend" });
  if (!spikes.length) legend.append("no spikes");
  for (const g of groups) {
    const n = spikes.filter((s) => causeGroup(s.cause) === g).length;
    legend.append(el("span", { style: "margin-right:1.5em" }, swatch(causeColour(g)), g + ": " + n));
  }
  holder.append(legend);
  return u;
}

/** The empirical block maxima in the exceedance plot. */
export const PWCET_EMPIRICAL_COLOUR = "#1f77b4";
/** The fitted tail, its 95 % bounds (dashed) and the band between them (filled, translucent). */
export const PWCET_FIT_COLOUR = "#d62728";

/** The estimate a plot shows: the cell's (pooled threads), or the only thread's. */
export function pwcetEstimate(pwcet) {
  if (!pwcet || !pwcet.estimates || !pwcet.estimates.length) return null;
  return pwcet.estimates.find((e) => e.scope === "cell") || pwcet.estimates[0];
}

/**
 * The exceedance plot of a pWCET estimate (MBPTA's): the probability that a block's maximum
 * exceeds a latency, on a log axis that grows rarer to the right, against the latency. The
 * block maxima as points (the i-th largest of n at i / (n + 1)), the fitted tail as a line down
 * to the rarest level stated, its 95 % confidence band, and the pwcet_us threshold (else max_us)
 * as a line across. Only for an estimate that holds: a refused one has no fit to draw.
 */
export function pwcetPlot(target, cell, opts = {}) {
  const holder = el("div", { class: "plot pwcet", "data-cell": cell.name });
  target.append(holder);
  const p = cell.pwcet, e = pwcetEstimate(p);
  if (!e || !e.applicable) {
    holder.append(el("p", { text: e ? e.refusal : "no pWCET estimate" }));
    return null;
  }
  const n = e.maximaNs.length;
  const sorted = [...e.maximaNs].sort((a, b) => b - a).map((v) => v / 1000);
  const rows = new Map();
  const row = (q) => rows.get(q) || rows.set(q, [null, null, null, null]).get(q);
  sorted.forEach((v, i) => { row((i + 1) / (n + 1))[0] = v; });
  for (const l of e.curve) {
    const r = row(l.probability);
    r[1] = l.ns / 1000; r[2] = l.lowNs / 1000; r[3] = l.highNs / 1000;
  }
  const xs = [...rows.keys()].sort((a, b) => a - b);
  const data = [xs, ...[0, 1, 2, 3].map((k) => xs.map((q) => rows.get(q)[k]))];
  let lo = Infinity, hi = 0;
  for (const col of data.slice(1)) for (const v of col) if (v != null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  const t = cell.thresholds || {};
  const threshold = t.pwcet ?? t.max;
  const label = (t.pwcet != null ? "pwcet_us" : "max") + " <= " + fmtUs(threshold) + " us";
  // A threshold far above the tail would squeeze the plot flat: then it is said, not drawn.
  const lines = threshold != null && threshold > 0 && threshold <= hi * 3 ? [{ value: threshold, label }] : [];
  for (const l of lines) hi = Math.max(hi, l.value);
  const pad = (hi - lo) * 0.05;
  const fit = PWCET_FIT_COLOUR;
  const u = new uPlot({
    title: opts.title || "pWCET: exceedance probability per block of " + p.blockSamples + " samples",
    width: opts.width || 860, height: opts.height || 300, legend: { show: false },
    scales: {
      x: { time: false, distr: 3, log: 10, dir: -1,
        range: () => [10 ** Math.floor(Math.log10(xs[0])), 10 ** Math.ceil(Math.log10(xs[xs.length - 1]))] },
      y: { range: () => [Math.max(0, lo - pad), hi + pad] },
    },
    axes: [
      axisStyle("exceedance probability per block (log scale; rarer to the right)",
        { splits: logSplits([1]), values: (u, vals) => vals.map((v) => {
          // every other decade labelled: 16 decades of "1e-12" do not fit side by side
          const e = v == null ? null : Math.round(Math.log10(v));
          return e == null || !isFinite(e) || e % 2 !== 0 ? "" : "1e" + e;
        }) }),
      axisStyle("latency (us)", { size: 70 }),
    ],
    series: [{},
      { label: "block maxima", stroke: PWCET_EMPIRICAL_COLOUR, paths: () => null,
        points: { show: true, size: 7, fill: PWCET_EMPIRICAL_COLOUR, stroke: PWCET_EMPIRICAL_COLOUR } },
      { label: "fit", stroke: fit, width: 2, spanGaps: true, points: { show: false } },
      { label: "95 % low", stroke: fit, width: 1, dash: [5, 4], spanGaps: true, points: { show: false } },
      { label: "95 % high", stroke: fit, width: 1, dash: [5, 4], spanGaps: true, points: { show: false } }],
    bands: [{ series: [4, 3], fill: "rgba(214, 39, 40, 0.12)" }],
    hooks: { draw: [thresholdHook(lines, "y"), markGeometry(holder, "y", lines)] },
  }, data, holder);
  const legend = el("p", { class: "legend" },
    el("span", { style: "margin-right:1.5em" }, swatch(PWCET_EMPIRICAL_COLOUR), n + " block maxima"),
    el("span", { style: "margin-right:1.5em" }, swatch(fit), (e.model === "gev" ? "GEV" : "Gumbel") + " fit ("
      + e.tail + " tail) with its 95 % band"));
  if (threshold != null && !lines.length) legend.append(el("span", { text: label + ": above the plot" }));
  holder.append(legend);
  return u;
}

/**
 * Draws every plot a report page asks for: elements with data-plot="histogram",
 * "spikes", "pwcet" (data-cell = the cell's index in model.cells) or "overlay" (all cells).
 */
export function renderAll(root, model, opts = {}) {
  for (const target of root.querySelectorAll("[data-plot]")) {
    const kind = target.dataset.plot;
    if (kind === "overlay") overlayPlot(target, model.cells, opts);
    else if (kind === "histogram") histogramPlot(target, model.cells[+target.dataset.cell], opts);
    else if (kind === "spikes") spikePlot(target, model.cells[+target.dataset.cell], opts);
    else if (kind === "pwcet") pwcetPlot(target, model.cells[+target.dataset.cell], opts);
  }
}

const VERDICT_COLOURS = { PASS: "#2ca02c", FAIL: "#d62728", INCONCLUSIVE: "#bcbd22", ERROR: "#7f7f7f", MEASURED: "#1f77b4" };

export function verdictColour(v) {
  return VERDICT_COLOURS[v] || "#7f7f7f";
}

/**
 * The long-term plot (OSADL's): worst latency (solid) and p99.9 (dashed) of each cell
 * name over time, on a log latency axis, with each point coloured by its verdict.
 * points: [{started (ISO), name, max_us, p999_us, verdict}], oldest first.
 */
export function historyPlot(target, points, opts = {}) {
  const holder = el("div", { class: "plot history" });
  target.append(holder);
  const names = [...new Set(points.map((p) => p.name))];
  const times = [...new Set(points.map((p) => Date.parse(p.started) / 1000))].sort((a, b) => a - b);
  const index = new Map(times.map((t, i) => [t, i]));
  const data = [times];
  const series = [{}];
  names.forEach((n, k) => {
    const colour = CELL_COLOURS[k % CELL_COLOURS.length];
    const max = new Array(times.length).fill(null), p999 = new Array(times.length).fill(null);
    const verdicts = new Array(times.length).fill(null);
    for (const p of points) {
      if (p.name !== n) continue;
      const i = index.get(Date.parse(p.started) / 1000);
      max[i] = p.max_us > 0 ? p.max_us : null;
      p999[i] = p.p999_us > 0 ? p.p999_us : null;
      verdicts[i] = p.verdict;
    }
    data.push(max, p999);
    series.push({
      label: n + " max", stroke: colour, width: 2, spanGaps: true,
      points: { show: true, size: 9, stroke: colour, fill: colour, width: 1 },
      verdicts,
    }, { label: n + " p99.9", stroke: colour, width: 1, dash: [6, 4], spanGaps: true, points: { show: false } });
  });
  let maxY = 10, minY = 1e9;
  for (const p of points) {
    if (p.max_us > 0) maxY = Math.max(maxY, p.max_us);
    if (p.p999_us > 0) minY = Math.min(minY, p.p999_us);
  }
  if (minY > maxY) minY = 1;
  const u = new uPlot({
    title: opts.title || "worst latency (solid) and p99.9 (dashed) over time; dots coloured by verdict",
    width: opts.width || 900, height: opts.height || 300, legend: { show: true, live: false },
    scales: { x: { time: true }, y: { distr: 3, log: 10,
      range: () => [10 ** Math.floor(Math.log10(minY)), 10 ** Math.ceil(Math.log10(maxY * 1.05))] } },
    axes: [axisStyle("run started (UTC)"),
      axisStyle("latency (log scale)", { size: 70, splits: logSplits([1]), values: (u, vals) => vals.map(latencyLabel) })],
    series,
    hooks: { draw: [(u) => {
      // each worst-latency point in its verdict's colour, over the series' own dots
      const ctx = u.ctx;
      ctx.save();
      u.series.forEach((s, si) => {
        if (!s.verdicts) return;
        s.verdicts.forEach((v, i) => {
          const y = u.data[si][i];
          if (v == null || y == null) return;
          ctx.fillStyle = verdictColour(v);
          ctx.beginPath();
          ctx.arc(u.valToPos(u.data[0][i], "x", true), u.valToPos(y, "y", true), 5 * devicePixelRatio, 0, 2 * Math.PI);
          ctx.fill();
        });
      });
      ctx.restore();
    }, markGeometry(holder, "y", [])] },
  }, data, holder);
  const legend = el("p", { class: "legend" });
  for (const v of Object.keys(VERDICT_COLOURS)) legend.append(el("span", { style: "margin-right:1.5em" }, swatch(verdictColour(v)), v));
  holder.append(legend);
  return u;
}

// tailwatch status page: reads /api/v1/status and /api/v1/history from this agent and draws them.
// No library, no inline script: every element is built with the DOM API and every value from outside
// (engine names, model names, versions, error texts) goes in as text, never as markup.
"use strict";

// The host is sampled every 5 s by default: polling faster would redraw the same figures.
const STATUS_EVERY_MS = 5000;
const HISTORY_EVERY_MS = 10000;
const SVG = "http://www.w3.org/2000/svg";
const API = new URL("../api/v1/", document.baseURI);

let token = null;
let lastStatus = null;
let lastHistory = null;
let statusTimer = null;
let historyTimer = null;

// ---------- formatting ----------
function fmtBytes(b) {
  if (b == null) return null;
  const u = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = b;
  while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return (i === 0 ? v.toFixed(0) : v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)) + " " + u[i];
}
function fmtSeconds(s) {
  if (s == null) return null;
  if (Math.abs(s) < 1) return (s * 1000).toFixed(s < 0.01 ? 1 : 0) + " ms";
  return s.toFixed(s >= 100 ? 0 : 2) + " s";
}
function fmtRatio(r) { return r == null ? null : (r * 100).toFixed(r < 0.1 && r > 0 ? 1 : 0) + " %"; }
function fmtRate(n) { return n == null ? null : fmtNum(n, n >= 100 || n === 0 ? 0 : 1) + " /s"; }
function fmtNum(n, d) { return n == null ? null : Number(n).toFixed(d == null ? 1 : d); }
function fmtTime(t) {
  if (!t) return null;
  const d = new Date(t);
  return isNaN(d) ? String(t) : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}
// Ages are measured on the agent's clock (the status' own time), not this browser's.
function fmtAgo(t) {
  if (!t) return null;
  const now = lastStatus && lastStatus.time ? new Date(lastStatus.time).getTime() : Date.now();
  const s = Math.max(0, (now - new Date(t).getTime()) / 1000);
  if (s < 90) return Math.round(s) + " s ago";
  if (s < 5400) return Math.round(s / 60) + " min ago";
  return Math.round(s / 3600) + " h ago";
}
const MEMORY_LEVELS = ["normal", "warning", "critical"];
const THERMAL_LEVELS = ["nominal", "moderate", "heavy", "trapping", "sleeping"];

// ---------- DOM helpers ----------
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null) continue;
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) append(e, c);
  return e;
}
function append(e, c) {
  if (c == null || c === false) return;
  if (Array.isArray(c)) { c.forEach(x => append(e, x)); return; }
  e.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
}
function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null) continue;
    // Colours are CSS variables (light and dark schemes): set through the style object, which a
    // strict CSP allows, rather than as presentation attributes, which do not take var().
    if (k === "fill" || k === "stroke") e.style[k] = v; else e.setAttribute(k, v);
  }
  for (const c of children) {
    if (c == null) continue;
    e.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}
// A value, or a muted dash when this host cannot read it (unknown is not zero).
function val(text, cls) {
  return text == null ? el("span", { class: "unknown", title: "not known on this host" }, "—") : el("span", { class: cls }, text);
}
function kv(pairs) {
  const dl = el("dl", { class: "kv" });
  for (const [k, v, attrs] of pairs) {
    dl.appendChild(el("dt", {}, k));
    dl.appendChild(el("dd", attrs || {}, v instanceof Node ? v : val(v)));
  }
  return dl;
}
function pill(text, cls, attrs) { return el("span", Object.assign({ class: "pill " + cls }, attrs || {}), text); }
function replace(id, ...children) {
  const target = document.getElementById(id);
  target.replaceChildren();
  append(target, children);
}

// ---------- fetching ----------
async function getJson(path) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  const r = await fetch(new URL(path, API), { headers, cache: "no-store", credentials: "same-origin" });
  if (r.status === 401) {
    const e = new Error("unauthorized");
    e.unauthorized = true;
    throw e;
  }
  if (!r.ok) throw new Error(path + ": HTTP " + r.status);
  return r.json();
}

async function pollStatus() {
  clearTimeout(statusTimer);
  try {
    lastStatus = await getJson("status");
    render(lastStatus);
    document.getElementById("login").hidden = true;
    document.getElementById("page").hidden = false;
  } catch (e) {
    if (e.unauthorized) { askToken(); return; }
    const s = document.getElementById("summary");
    s.className = "pill bad";
    s.textContent = "agent unreachable, retrying";
  }
  statusTimer = setTimeout(pollStatus, STATUS_EVERY_MS);
}

async function pollHistory() {
  clearTimeout(historyTimer);
  try {
    lastHistory = await getJson("history");
    renderCharts();
  } catch (e) {
    if (e.unauthorized) return;
  }
  historyTimer = setTimeout(pollHistory, HISTORY_EVERY_MS);
}

function askToken() {
  clearTimeout(statusTimer);
  clearTimeout(historyTimer);
  document.getElementById("page").hidden = true;
  document.getElementById("login").hidden = false;
  document.getElementById("login-error").textContent = token ? "That token was refused." : "";
  document.getElementById("token").focus();
}

// ---------- rendering: header and alerts ----------
function render(s) {
  document.getElementById("version").textContent = s.version ? "v" + s.version : "";
  document.getElementById("updated").textContent = "updated " + fmtTime(s.time);
  const a = s.alerts || {};
  const firing = a.firing || 0;
  const pending = a.pending || 0;
  const sum = document.getElementById("summary");
  const critical = (a.alerts || []).some(x => x.state === "firing" && x.severity === "critical");
  sum.className = "pill " + (firing ? (critical ? "bad" : "warn") : pending ? "warn" : "ok");
  sum.textContent = firing ? firing + " firing" + (pending ? ", " + pending + " pending" : "")
    : pending ? pending + " pending" : "all clear";
  document.title = (firing ? "(" + firing + ") " : "") + "tailwatch";
  renderAlerts(a);
  renderHost(s.host || {}, a.signals || {}, s.thresholds || {}, s.engines || []);
  renderEngines(s.engines || [], s.host || {}, a.signals || {});
  renderWindows(s.engines || [], a.signals || {}, s.thresholds || {});
  renderLanes(s.proxies || []);
  if (lastHistory) renderCharts();
}

function runbookLink(runbook) {
  if (!runbook) return null;
  const anchor = runbook.includes("#") ? runbook.slice(runbook.indexOf("#") + 1) : "";
  return el("a", { href: "runbook#" + encodeURIComponent(anchor), class: "small" }, "runbook");
}

function renderAlerts(a) {
  const list = a.alerts || [];
  const active = list.filter(x => x.state !== "resolved");
  const resolved = list.filter(x => x.state === "resolved");
  const out = [];
  if (!active.length) out.push(el("p", { class: "none" }, "No active alerts (" + (a.rules || []).length + " rules evaluated)."));
  for (const x of active.concat(resolved)) out.push(alertCard(x));
  replace("alerts", out);
}

function alertCard(x) {
  // Only the labels that say where (engine, model, scenario, by their metric attribute names or short ones);
  // the rest (severity, selector labels such as the percentile) is noise here.
  const l = x.labels || {};
  const labels = [["engine", l.tailwatch_engine_name || l.engine], ["model", l.gen_ai_request_model || l.model],
    ["scenario", l.tailwatch_scenario || l.scenario]].filter(([, v]) => v).map(([k, v]) => k + "=" + v).join(" ");
  const stateCls = x.state === "firing" ? (x.severity === "critical" ? "bad" : "warn") : x.state === "pending" ? "warn" : "ok";
  const when = x.state === "resolved" ? "resolved " + fmtAgo(x.resolved_at || x.since)
    : x.state === "firing" ? "firing since " + fmtTime(x.fired_at || x.since) : "pending since " + fmtTime(x.since);
  const evidence = el("details", {}, el("summary", { class: "small" }, "evidence"),
    el("pre", {}, JSON.stringify(x.evidence || {}, null, 1)));
  return el("div", { class: "alert " + x.severity + " " + x.state, "data-alert": x.name, "data-state": x.state },
    el("div", { class: "head" },
      pill(x.state, stateCls), el("span", { class: "name" }, x.name), el("span", { class: "muted small" }, x.severity),
      labels ? el("code", {}, labels) : null, el("span", { class: "muted small" }, when), runbookLink(x.runbook)),
    el("div", {}, x.summary || ""),
    x.threshold_text ? el("div", { class: "muted small" }, "value " + (x.value_text || x.value) + " · threshold " + x.threshold_text) : null,
    x.description ? el("div", { class: "small" }, x.description) : null,
    evidence);
}

// ---------- host ----------
const STATE_COLORS = ["var(--s1)", "var(--s2)", "var(--s3)", "var(--s4)", "var(--s5)", "var(--s6)"];

const BAR_STATES = ["used", "cached", "buffers", "free"];
const NOT_PAGE_STATES = ["total_bytes", "available_bytes"].concat(BAR_STATES.map(k => k + "_bytes"));

function memoryBar(mem) {
  const total = mem.total_bytes;
  // The parts that add up to the total (system.memory.usage); macOS page states overlap them and are listed apart.
  const states = BAR_STATES.filter(k => typeof mem[k + "_bytes"] === "number").map(k => [k + "_bytes", mem[k + "_bytes"]]);
  if (!total || !states.length) return null;
  const bar = el("div", { class: "bar", role: "img", "aria-label": "memory by state" });
  const legend = el("div", { class: "legend" });
  states.forEach(([k, v], i) => {
    const name = k.replace(/_bytes$/, "");
    const color = STATE_COLORS[i % STATE_COLORS.length];
    bar.appendChild(el("span", { title: name + " " + fmtBytes(v), "data-state": name }));
    bar.lastChild.style.width = (100 * v / total).toFixed(2) + "%";
    bar.lastChild.style.background = color;
    const sw = el("i");
    sw.style.background = color;
    legend.appendChild(el("span", {}, sw, name + " " + fmtBytes(v)));
  });
  return [bar, legend];
}

function level(n, names, okBelow) {
  if (n == null) return null;
  const name = names[n] || String(n);
  return pill(name + " (" + n + ")", n < okBelow ? "ok" : n === okBelow ? "warn" : "bad");
}

// The GPU's share of unified memory (macOS): Metal's working-set limit, what GPU work holds, and each
// loaded model's footprint + KV against the limit (the bar's full width; the tick is GpuMemoryLimitNear's).
function gpuCard(h, engines, thr) {
  const g = h.gpu_memory || {};
  const limit = g.limit_bytes;
  const head = el("h3", {}, "GPU memory");
  if (limit == null) {
    return el("div", { class: "card", id: "host-gpu" }, head,
      el("p", { class: "unknown" }, "No GPU working-set limit on this host (Metal sets one on a Mac)."));
  }
  const total = (h.memory || {}).total_bytes;
  const near = thr.GpuMemoryLimitNear && thr.GpuMemoryLimitNear.threshold;
  const rows = [
    ["working-set limit", fmtBytes(limit) + (total ? " (" + fmtRatio(limit / total) + " of " + fmtBytes(total) + ")" : ""),
      { "data-figure": "gpu-limit", "data-value": limit }],
    ["in use", g.in_use_bytes == null ? null : fmtBytes(g.in_use_bytes) + " (" + fmtRatio(g.in_use_bytes / limit) + " of the limit)"],
    ["allocated", fmtBytes(g.allocated_bytes)],
    ["iogpu.wired_limit_mb", g.wired_limit_bytes == null ? "not set" : fmtNum(g.wired_limit_bytes / 1048576, 0)],
  ];
  const bars = [];
  for (const e of engines) {
    for (const m of e.models || []) {
      if (m.gpu_used_bytes == null) continue;
      const share = m.gpu_used_bytes / limit;
      const over = near != null && share > near;
      const bar = el("div", { class: "bar gpu", role: "img", "data-model": e.name + "/" + m.name, "data-share": share,
        "aria-label": e.name + "/" + m.name + " footprint + KV " + fmtRatio(share) + " of the GPU limit" });
      const used = el("span", { title: "footprint + KV " + fmtBytes(m.gpu_used_bytes) });
      used.style.width = Math.min(100, 100 * share).toFixed(2) + "%";
      used.style.background = over ? "var(--bad)" : "var(--s1)";
      bar.appendChild(used);
      if (near != null) {
        const tick = el("i", { class: "near", title: "GpuMemoryLimitNear at " + fmtRatio(near) });
        tick.style.left = (100 * near).toFixed(2) + "%";
        bar.appendChild(tick);
      }
      bars.push(el("div", { class: "small" + (over ? " bad" : "") }, e.name + "/" + m.name + ": " + fmtBytes(m.gpu_used_bytes)
        + " (" + fmtRatio(share) + ")" + (m.kv_headroom_tokens != null ? " · KV headroom "
        + Math.round(m.kv_headroom_tokens).toLocaleString("en") + " tokens (" + (m.kv_headroom_bound === "gpu_limit"
        ? "GPU limit" : "memory") + " binds)" : "")), bar);
    }
  }
  return el("div", { class: "card", id: "host-gpu" }, head, kv(rows), bars);
}

function renderHost(h, sig, thr, engines) {
  const mem = h.memory || {};
  const swap = h.swap || {};
  const paging = h.paging || {};
  const th = h.thermal || {};
  const hostSig = sig.host || {};
  const memCard = el("div", { class: "card", id: "host-memory" }, el("h3", {}, "Memory"),
    memoryBar(mem),
    kv([
      ["total", fmtBytes(mem.total_bytes)],
      ["available", fmtBytes(mem.available_bytes)],
      ["free ratio", fmtRatio(mem.free_ratio)],
      ["pressure", level(mem.pressure_level, MEMORY_LEVELS, 1) || null],
    ].concat(Object.entries(mem).filter(([k, v]) => k.endsWith("_bytes") && !NOT_PAGE_STATES.includes(k) && typeof v === "number")
      .map(([k, v]) => [k.replace(/_bytes$/, "") + " pages", fmtBytes(v)]))));
  const swapLimit = thr.SwapUsedHigh && thr.SwapUsedHigh.threshold;
  const growthLimit = thr.SwapGrowthUnderLoad && thr.SwapGrowthUnderLoad.threshold;
  const swapCard = el("div", { class: "card", id: "host-swap" }, el("h3", {}, "Swap and paging"),
    kv([
      ["swap used", swap.used_bytes == null ? null : fmtBytes(swap.used_bytes) + (swap.total_bytes ? " of " + fmtBytes(swap.total_bytes) : ""),
        { class: swapLimit != null && swap.used_bytes > swapLimit ? "bad" : null }],
      ["change, 10 min", hostSig.swap_change10m_bytes == null ? null : (hostSig.swap_change10m_bytes >= 0 ? "+" : "") + fmtBytes(hostSig.swap_change10m_bytes),
        { class: growthLimit != null && hostSig.swap_change10m_bytes > growthLimit ? "bad" : null }],
      ["alert above", swapLimit == null ? null : fmtBytes(swapLimit) + " used" + (growthLimit == null ? "" : ", +" + fmtBytes(growthLimit) + " / 10 min")],
      // Pages moving now (over the last host interval): swap used alone can be stale.
      ["pages in", fmtRate(paging.in_per_second), { "data-figure": "paging-in", "data-value": paging.in_per_second }],
      ["pages out", fmtRate(paging.out_per_second), { "data-figure": "paging-out", "data-value": paging.out_per_second }],
    ]));
  const speed = th.cpu_speed_limit;
  const speedLimit = thr.ThermalThrottling && thr.ThermalThrottling.threshold;
  const thermalCard = el("div", { class: "card", id: "host-thermal" }, el("h3", {}, "Thermal"),
    kv([
      ["pressure", level(th.pressure_level, THERMAL_LEVELS, 1) || null],
      ["CPU speed limit", speed == null ? null : fmtRatio(speed), { class: speedLimit != null && speed < speedLimit ? "bad" : null }],
      ["temperature", th.temperature_celsius == null ? null : fmtNum(th.temperature_celsius) + " °C"],
      ["CPU busy", cpuText(h), { "data-figure": "cpu" }],
    ]));
  const rails = Object.entries(h.power || {}).filter(([, v]) => typeof v === "number")
    .map(([k, v]) => [k.replace(/_watts$/, ""), fmtNum(v, 2) + " W"]);
  // A rail macOS froze is named with why, never drawn as 0 W.
  const frozen = Object.entries(h.power_unavailable || {}).map(([k, why]) => [k, String(why), { class: "unknown" }]);
  // The whole machine (SMC PSTR) and the battery, each with where it came from.
  const src = h.power_sources || {};
  const whole = [];
  if (typeof h.system_power_watts === "number") {
    whole.push(["system", fmtNum(h.system_power_watts, 2) + " W", { "data-figure": "system-power", title: src.system || "" }]);
  }
  const bat = h.battery || {};
  if (typeof bat.power_watts === "number") {
    whole.push(["battery", fmtNum(bat.power_watts, 2) + " W " + (bat.power_watts < 0 ? "(discharging)" : "(charging)"),
      { "data-figure": "battery-power", title: src.battery || "" }]);
  }
  if (typeof bat.charge_ratio === "number") whole.push(["battery charge", fmtRatio(bat.charge_ratio)]);
  if (typeof bat.adapter_watts === "number") whole.push(["adapter", fmtNum(bat.adapter_watts, 0) + " W"]);
  const sourceRows = Object.entries(src).filter(([k]) => !k.startsWith("rail "))
    .map(([k, v]) => ["source: " + k, String(v), { class: "unknown" }]);
  const powerCard = el("div", { class: "card", id: "host-power" }, el("h3", {}, "Power"),
    rails.length || frozen.length || whole.length ? kv(whole.concat(rails, frozen, sourceRows))
      : el("p", { class: "unknown" }, "No power figure is readable on this host."));
  // Fans and every temperature sensor: absent on a host that has none, never drawn as 0.
  const fanRows = (h.fans || []).filter(f => typeof f.rpm === "number")
    .map(f => [f.name || f.id, fmtNum(f.rpm, 0) + " rpm" + (typeof f.max_rpm === "number" ? " of " + fmtNum(f.max_rpm, 0) : ""),
      { "data-figure": "fan" }]);
  const sensorRows = (th.sensors || []).slice(0, 64)
    .map(x => [x.name || x.id, fmtNum(x.celsius, 1) + " °C", { "data-figure": "sensor" }]);
  const sensorCard = fanRows.length || sensorRows.length
    ? el("div", { class: "card", id: "host-sensors" }, el("h3", {}, "Fans and temperatures"), kv(fanRows.concat(sensorRows)))
    : null;
  const failed = (h.samplers || []).filter(x => !x.success);
  const samplerCard = failed.length ? el("div", { class: "card" }, el("h3", {}, "Readings failing"),
    kv(failed.map(x => [x.name, x.error || "failed", { class: "bad" }]))) : null;
  replace("host", memCard, gpuCard(h, engines || [], thr), swapCard, thermalCard, powerCard, sensorCard, samplerCard);
}

function cpuText(h) {
  const c = h.cpu;
  if (!c || typeof c !== "object") return null;
  const u = c.busy_ratio;
  if (u == null) return null;
  const parts = ["user", "system", "iowait"].filter(m => c[m + "_ratio"] != null).map(m => m + " " + fmtRatio(c[m + "_ratio"]));
  return fmtRatio(u) + (parts.length ? " (" + parts.join(", ") + ")" : "");
}

// ---------- engines ----------
function renderEngines(engines, host, sig) {
  const procs = {};
  for (const p of host.processes || []) procs[p.engine] = p;
  const sigEngines = {};
  for (const e of sig.engines || []) sigEngines[e.engine] = e;
  if (!engines.length) { replace("engines", el("p", { class: "muted" }, "No engines configured.")); return; }
  replace("engines", engines.map(e => engineCard(e, procs[e.name] || {}, sigEngines[e.name] || {})));
}

function engineCard(e, proc, sig) {
  const state = e.state === "never_reachable" ? pill("never reached", "warn", { title: "configured, but it has not answered since the agent started" })
    : e.state === "needs_key" ? pill("needs API key", "warn", { title: "it answers HTTP 401/403: set api_key: on the engine" })
    : e.up == null ? pill("unknown", "warn") : e.loading ? pill("loading", "warn")
    : e.up ? pill("up", "ok") : pill("down", "bad");
  const q = sig.queue || {};
  const headroom = {};
  for (const m of sig.models || []) headroom[m.model] = m;
  const models = (e.models || []).map(m => {
    const bits = [modelLabel(m.name)];
    const kind = [m.format, m.quantization].filter(Boolean).join(" ");
    if (kind) bits.push(kind);
    const size = m.vram_bytes || m.size_bytes;
    if (size) bits.push(fmtBytes(size));
    if (m.context_length) bits.push("context " + m.context_length.toLocaleString("en"));
    if (m.kv_context_bytes) bits.push("KV at full context " + fmtBytes(m.kv_context_bytes));
    const hr = headroom[m.name];
    if (hr && hr.kv_headroom_tokens != null) bits.push("KV headroom " + Math.round(hr.kv_headroom_tokens).toLocaleString("en") + " tokens");
    if (m.gpu_memory_share != null) bits.push("GPU " + fmtRatio(m.gpu_memory_share) + " of limit");
    return el("div", { class: "model" }, bits.join(" · "));
  });
  const rd = e.ready || null;
  // The router's verdict (GET /api/v1/engines/NAME/ready): plain text, not a pill, beside the engine's state.
  const ready = rd == null ? null : el("span", {
    class: rd.ready ? "ok" : (rd.reasons || []).includes("down") ? "bad" : "warn", "data-figure": "ready",
    "data-value": rd.ready ? 1 : 0, title: "GET /api/v1/engines/" + e.name + "/ready (docs/routing.md)" },
    rd.ready ? "ready" + (rd.headroom != null ? ", headroom " + rd.headroom : "")
      : "not ready: " + (rd.reasons || []).join(", "));
  const queue = [];
  if (q.running != null) queue.push(fmtNum(q.running, 0) + " running");
  if (q.waiting != null) queue.push(fmtNum(q.waiting, 0) + " waiting");
  if (q.wait_seconds != null) queue.push("wait " + fmtSeconds(q.wait_seconds) + (q.wait_source === "estimate" ? " (estimated)" : ""));
  return el("div", { class: "card engine" + (e.up === false ? " down" : ""), "data-engine": e.name },
    el("h3", {}, el("span", { class: "engine-name" }, e.name), state,
      el("span", { class: "muted small" }, [e.provider || e.api, e.version].filter(Boolean).join(" "))),
    kv([
      ["url", e.url],
      ["ready", ready],
      ["version", e.version],
      ["models", models.length ? models : null],
      ["footprint", proc.footprint_bytes != null ? fmtBytes(proc.footprint_bytes)
        : proc.rss_bytes != null ? fmtBytes(proc.rss_bytes) + " resident" : null],
      ["queue", queue.length ? queue.join(", ") : null],
      ["KV cache", q.kv_cache_usage == null ? null : fmtRatio(q.kv_cache_usage) + " used"],
      ["checked", e.checked_at ? fmtAgo(e.checked_at) : null],
      e.error ? ["error", e.error, { class: "bad" }] : null,
    ].filter(Boolean)));
}

// ---------- probe windows ----------
function renderWindows(engines, sig, thr) {
  const extra = {};
  for (const w of sig.windows || []) extra[w.engine + "\u0000" + w.model + "\u0000" + w.scenario] = w;
  const cards = [];
  for (const e of engines) {
    for (const sc of e.scenarios || []) {
      if (!(sc.windows || []).length) {
        cards.push(el("div", { class: "card window", "data-engine": e.name, "data-scenario": sc.name },
          el("h3", {}, e.name + " · " + sc.name), el("p", { class: "muted" }, "No probe in the window yet.")));
      }
      for (const w of sc.windows || []) {
        cards.push(windowCard(e, sc, w, extra[e.name + "\u0000" + w.model + "\u0000" + sc.name] || {}, thr));
      }
    }
  }
  replace("windows", cards.length ? cards : el("p", { class: "muted" }, "No probe scenarios configured."));
}

// The lanes of each engine's metering proxy over their window, beside the probe windows: what real requests
// met (goodput against the target, TTFT and e2e p95 against the SLO), how long they waited for the engine,
// and each lane's share of the engine's requests in flight. Hidden without a proxy.
function renderLanes(proxies) {
  const cards = [];
  for (const p of proxies) {
    if (p.state !== "running") {
      cards.push(el("div", { class: "card lane", "data-engine": p.engine },
        el("h3", {}, el("span", {}, p.engine), el("span", { class: "muted" }, "proxy " + p.state)),
        el("p", { class: "bad" }, p.error == null ? "" : String(p.error))));
      continue;
    }
    const lanes = p.lanes || [];
    const total = lanes.reduce((t, l) => t + ((l.window && l.window.in_flight) || 0), 0);
    for (const l of lanes) {
      const w = l.window || {};
      const ttftMiss = w.ttft_p95_seconds != null && l.ttft_p95_slo_seconds != null && w.ttft_p95_seconds > l.ttft_p95_slo_seconds;
      const e2eMiss = w.e2e_p95_seconds != null && l.e2e_p95_slo_seconds != null && w.e2e_p95_seconds > l.e2e_p95_slo_seconds;
      const goodMiss = w.goodput != null && l.target != null && w.goodput < l.target;
      const share = total > 0 && w.in_flight != null ? w.in_flight / total : null;
      cards.push(el("div", { class: "card lane", "data-engine": p.engine, "data-lane": l.lane },
        el("h3", {}, el("span", {}, p.engine), el("span", { class: "muted" }, "lane " + l.lane)),
        kv([
          ["requests", w.requests == null ? String(l.requests) : w.requests + " in 5 min (" + l.requests + " in all)",
            { "data-figure": "requests", "data-value": w.requests }],
          ["goodput", w.goodput == null ? null : fmtRatio(w.goodput) + (l.target == null ? "" : " (target " + fmtRatio(l.target) + ")"),
            { class: goodMiss ? "bad" : "ok", "data-figure": "goodput", "data-value": w.goodput }],
          ["TTFT p95", w.ttft_p95_seconds == null ? null : fmtSeconds(w.ttft_p95_seconds)
            + (l.ttft_p95_slo_seconds == null ? "" : " (SLO " + fmtSeconds(l.ttft_p95_slo_seconds) + ")"),
            { class: ttftMiss ? "bad" : "ok", "data-figure": "ttft-p95", "data-value": w.ttft_p95_seconds }],
          ["e2e p95", w.e2e_p95_seconds == null ? null : fmtSeconds(w.e2e_p95_seconds)
            + (l.e2e_p95_slo_seconds == null ? "" : " (SLO " + fmtSeconds(l.e2e_p95_slo_seconds) + ")"),
            { class: e2eMiss ? "bad" : "ok", "data-figure": "e2e-p95", "data-value": w.e2e_p95_seconds }],
          ["queue wait p95", fmtSeconds(w.queue_wait_p95_seconds), { "data-figure": "wait-p95", "data-value": w.queue_wait_p95_seconds }],
          ["in flight", w.in_flight == null ? null : fmtNum(w.in_flight, 2) + (share == null ? "" : " (" + fmtRatio(share) + " of the engine)"),
            { "data-figure": "in-flight", "data-value": w.in_flight }],
        ])));
    }
  }
  document.getElementById("lanes-section").hidden = cards.length === 0;
  replace("lanes", cards);
}

// A model named by its file's whole path (llama.cpp without an alias) is shown by the file's name; the
// title keeps the path. Hub names (org/model) and tags stay as they are.
function modelLabel(name) {
  if (typeof name !== "string") return name;
  const path = /^(\/|~\/|\.\.?\/|[A-Za-z]:[\\/])/.test(name) || /\.(gguf|bin)$/i.test(name);
  if (!path) return name;
  const file = name.slice(Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\")) + 1);
  return file || name;
}

function windowCard(e, sc, w, x, thr) {
  const slo = x.interactive && thr.TtftOverSlo ? thr.TtftOverSlo.threshold : null;
  const spread = thr.TailLatencySpread ? thr.TailLatencySpread.threshold : null;
  const overBase = thr.LatencyOverBaseline && x.baseline_p95 != null ? thr.LatencyOverBaseline.threshold * x.baseline_p95 : null;
  const ttft = w.ttft_seconds || {};
  const e2e = w.e2e_seconds || {};
  const e2eLines = [];
  if (overBase != null) e2eLines.push({ at: overBase, label: "p95 ≤ " + fmtSeconds(overBase) });
  if (spread != null && e2e.p95 != null) e2eLines.push({ at: spread * e2e.p95, label: "p99 ≤ " + spread + "× p95" });
  const errLimit = thr.ProbeErrors ? thr.ProbeErrors.threshold : null;
  const decode = x.decode_rate != null ? x.decode_rate : sc.last && sc.last.decode_tokens_per_second;
  const errCls = errLimit != null && w.error_ratio > errLimit ? "bad" : "ok";
  return el("div", { class: "card window", "data-engine": e.name, "data-model": w.model, "data-scenario": sc.name },
    el("h3", {}, el("span", {}, e.name), el("span", { class: "muted", title: w.model }, modelLabel(w.model) + " · " + sc.name)),
    quantileFigure("TTFT", "ttft", ttft, slo == null ? [] : [{ at: slo, label: "SLO p95 " + fmtSeconds(slo) }]),
    quantileFigure("e2e", "e2e", e2e, e2eLines),
    kv([
      ["decode", decode == null ? null : fmtNum(decode, 1) + " tok/s", { "data-figure": "decode", "data-value": decode }],
      ["errors", w.error_ratio == null ? null : fmtRatio(w.error_ratio) + " of " + w.samples
        + (errLimit == null ? "" : " (alert above " + fmtRatio(errLimit) + ")"), { class: errCls, "data-figure": "errors", "data-value": w.error_ratio }],
      ["samples", String(w.samples), { "data-figure": "samples", "data-value": w.samples }],
    ]));
}

// One quantile strip: p50 | p95 | p99 as stacked segments on a linear scale from 0, rule lines dashed.
function quantileFigure(label, key, q, lines) {
  const values = [q.p50, q.p95, q.p99];
  const known = values.filter(v => v != null);
  const max = Math.max(...known, ...lines.map(l => l.at), 1e-9) * 1.08;
  const W = 300;
  const x = v => (W * v / max).toFixed(1);
  const g = svg("svg", { viewBox: "0 0 " + W + " 22", preserveAspectRatio: "none", role: "img",
    "aria-label": label + " quantiles" });
  g.appendChild(svg("rect", { x: 0, y: 4, width: W, height: 10, class: "grid", fill: "none" }));
  const fills = ["var(--q1)", "var(--q2)", "var(--q3)"];
  let from = 0;
  values.forEach((v, i) => {
    if (v == null) return;
    g.appendChild(svg("rect", { x: x(from), y: 4, width: Math.max(0, x(v) - x(from)), height: 10, fill: fills[i] }));
    from = v;
  });
  for (const l of lines) {
    g.appendChild(svg("line", { x1: x(l.at), x2: x(l.at), y1: 0, y2: 22, class: "threshold" }));
  }
  const text = el("div", { class: "values" },
    el("span", { "data-figure": key + "-p50", "data-value": q.p50 }, "p50 " + (fmtSeconds(q.p50) || "—")), " · ",
    el("span", { "data-figure": key + "-p95", "data-value": q.p95 }, "p95 " + (fmtSeconds(q.p95) || "—")), " · ",
    el("span", { "data-figure": key + "-p99", "data-value": q.p99 }, "p99 " + (fmtSeconds(q.p99) || "—")),
    lines.length ? el("div", { class: "rule small" }, "- - alert line: " + lines.map(l => l.label).join(", ")) : null);
  return el("div", { class: "fig" }, el("span", { class: "label" }, label), g, text);
}

// ---------- charts ----------
const CHARTS = [
  { name: "swap_used_bytes", title: "Swap used", fmt: fmtBytes, binary: true, lines: t => t.SwapUsedHigh ? [{ at: t.SwapUsedHigh.threshold, label: "SwapUsedHigh" }] : [] },
  { name: "memory_pressure_level", title: "Memory pressure level", fmt: v => fmtNum(v, 0), min: 2, fixed: true,
    lines: t => [t.MemoryPressureWarning ? { at: t.MemoryPressureWarning.threshold, label: "warning" } : null,
      t.MemoryPressureCritical ? { at: t.MemoryPressureCritical.threshold, label: "critical" } : null].filter(Boolean) },
  { name: "paging_pages_per_second", title: "Pages swapped in / out (per s)", fmt: v => fmtNum(v, v >= 10 ? 0 : 1), optional: true, min: 1,
    lines: () => [] },
  { name: "ttft_p95_seconds", title: "TTFT p95", fmt: fmtSeconds,
    lines: t => t.TtftOverSlo ? [{ at: t.TtftOverSlo.threshold, label: "SLO (interactive)" }] : [] },
  { name: "e2e_p95_seconds", title: "End-to-end p95", fmt: fmtSeconds, lines: () => [] },
  { name: "decode_tokens_per_second", title: "Decode rate (tok/s)", fmt: v => fmtNum(v, 1), lines: () => [] },
  { name: "power_watts", title: "Power (W)", fmt: v => fmtNum(v, 1) + " W", lines: () => [] },
  { name: "cpu_utilization", title: "CPU busy", fmt: fmtRatio, optional: true, min: 1, lines: () => [] },
];
const SERIES_COLORS = ["var(--s1)", "var(--s2)", "var(--s3)", "var(--s4)", "var(--s5)", "var(--s6)"];

function seriesLabel(l) {
  if (l.rail) return l.rail;
  if (l.direction) return l.direction;
  if (l.engine) return [l.engine, modelLabel(l.model), l.scenario].filter(Boolean).join(" · ");
  return "";
}

function renderCharts() {
  const h = lastHistory;
  const thr = (lastStatus && lastStatus.thresholds) || {};
  const now = (lastStatus && new Date(lastStatus.time).getTime() / 1000) || Date.now() / 1000;
  const span = h.span_seconds || 3600;
  const step = h.step_seconds || 10;
  const out = [];
  for (const c of CHARTS) {
    // Sorted by label, so an engine keeps its colour from chart to chart.
    const series = (h.series || []).filter(s => s.chart === c.name)
      .sort((a, b) => seriesLabel(a.labels).localeCompare(seriesLabel(b.labels)));
    if (c.optional && !series.length) continue;
    out.push(chart(c, series, c.lines(thr), now - span, now, step));
  }
  replace("charts", out);
}

// The smallest 1, 2, 2.5 or 5 times a power of ten at or above v: axis labels that read at a glance.
function niceCeil(v) {
  if (!(v > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v * 0.9999) return m * p;
  return 10 * p;
}

// The same in the binary unit a byte count is shown in (KiB, MiB, GiB), so the axis reads 2 GiB, not 2.33.
function niceBinary(v) {
  if (!(v > 0)) return 1;
  let unit = 1;
  while (v / unit >= 1024) unit *= 1024;
  return niceCeil(v / unit) * unit;
}

function chart(c, series, lines, t0, t1, step) {
  const W = 320, H = 120, L = 54, R = 6, T = 8, B = 16;
  const all = series.flatMap(s => s.points.map(p => p[1]));
  const thresholdValues = lines.map(l => l.at).filter(v => v != null);
  // Rule lines are always in range: how far a figure is from its threshold is the point of the chart.
  const top = Math.max(c.min || 0, ...all, ...thresholdValues);
  let max = c.fixed ? top : c.binary ? niceBinary(top * 1.05) : niceCeil(top * 1.05);
  const X = t => L + (W - L - R) * (t - t0) / (t1 - t0);
  const Y = v => T + (H - T - B) * (1 - v / max);
  const g = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": c.title + ", last hour",
    "data-chart": c.name });
  for (const f of [0, 0.5, 1]) {
    const v = max * f;
    g.appendChild(svg("line", { x1: L, x2: W - R, y1: Y(v).toFixed(1), y2: Y(v).toFixed(1), class: "grid" }));
    g.appendChild(svg("text", { x: L - 4, y: (Y(v) + 3).toFixed(1), "text-anchor": "end" }, v === 0 ? "0" : c.fmt(v)));
  }
  g.appendChild(svg("text", { x: L, y: H - 3 }, "−60 min"));
  g.appendChild(svg("text", { x: (L + W - R) / 2, y: H - 3, "text-anchor": "middle" }, "−30"));
  g.appendChild(svg("text", { x: W - R, y: H - 3, "text-anchor": "end" }, "now"));
  for (const l of lines) {
    if (l.at == null || l.at > max) continue;
    g.appendChild(svg("line", { x1: L, x2: W - R, y1: Y(l.at).toFixed(1), y2: Y(l.at).toFixed(1), class: "threshold" }));
    g.appendChild(svg("text", { x: W - R - 2, y: (Y(l.at) - 2).toFixed(1), "text-anchor": "end", class: "threshold-text" }, l.label));
  }
  const legend = el("div", { class: "legend" });
  series.forEach((s, i) => {
    const color = SERIES_COLORS[i % SERIES_COLORS.length];
    // Split where a slot is missing for more than two steps: a gap means unknown, not a straight line.
    let run = [];
    const runs = [run];
    let prev = null;
    for (const [t, v] of s.points) {
      if (prev != null && t - prev > 2.5 * step) { run = []; runs.push(run); }
      run.push(X(t).toFixed(1) + "," + Y(v).toFixed(1));
      prev = t;
    }
    for (const r of runs) {
      if (r.length > 1) {
        g.appendChild(svg("polyline", { points: r.join(" "), class: "line", stroke: color, "data-series": seriesLabel(s.labels) }));
      } else if (r.length === 1) {
        const [cx, cy] = r[0].split(",");
        g.appendChild(svg("circle", { cx, cy, r: 1.8, fill: color, "data-series": seriesLabel(s.labels) }));
      }
    }
    const last = s.points.length ? s.points[s.points.length - 1][1] : null;
    const sw = el("i");
    sw.style.background = color;
    const name = seriesLabel(s.labels);
    legend.appendChild(el("span", {}, sw, (name ? name + " " : "") + (c.fmt(last) || "—")));
  });
  if (!series.length) {
    g.appendChild(svg("text", { x: (L + W) / 2, y: H / 2, "text-anchor": "middle" }, "not readable on this host, or no data yet"));
  }
  return el("div", { class: "card chart" }, el("h3", {}, c.title), g, legend);
}

// ---------- start ----------
function start() {
  // A token may come in the fragment (/ui/#token=...): it never reaches a server log; it is kept in
  // this tab's session storage and removed from the address bar.
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem("tailwatch-token", decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  token = sessionStorage.getItem("tailwatch-token");
  document.getElementById("login").addEventListener("submit", ev => {
    ev.preventDefault();
    token = document.getElementById("token").value.trim();
    sessionStorage.setItem("tailwatch-token", token);
    pollStatus();
    pollHistory();
  });
  pollStatus();
  pollHistory();
}

start();

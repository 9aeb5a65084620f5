// The calibration editor: draggable tile corners and zone kinds over the calibration's photo.
// Coordinates: image pixels as tableref uses them (origin at the centre of the top-left pixel);
// the SVG's user space is the image's, shifted by half a pixel (SVG 0 is the pixel's edge).
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const $ = (sel) => document.querySelector(sel);
const PALETTE = ["#ffc800", "#00dcff", "#00ff78", "#ff5050", "#c080ff", "#ff9030", "#60a0ff", "#ff60c0"];

let state = null;          // /calibration/state.json
let corners = {};          // tile id -> [[x, y], ...] current (maybe moved) corners, image px
let moved = new Set();     // tiles whose corners were moved
let relabels = {};         // zone id -> kind chosen here
let fits = {};             // tile id -> preview of the fitted tile
let selected = null;       // {tile, index} of the selected handle
let previewTimer = null;
let lastWarnings = [];     // warnings of the last preview
let busy = false;

function status(text, cls) {
  const el = $("#status");
  el.textContent = text;
  el.className = cls || "";
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function pts(list) {
  return list.map(([x, y]) => `${(x + 0.5).toFixed(2)},${(y + 0.5).toFixed(2)}`).join(" ");
}

function kindColor(kind) {
  const i = state.zone_kinds.indexOf(kind);
  return PALETTE[(i < 0 ? state.zone_kinds.length : i) % PALETTE.length];
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

async function api(method, url, body) {
  const opts = {method, headers: {"Accept": "application/json"}};
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(url, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = {error: `${r.status} ${r.statusText}`}; }
  if (!r.ok) throw new Error((data && data.error) || `${r.status} ${r.statusText}`);
  return data;
}

// ------------------------------------------------------------------------------------ loading

async function load(keepStatus) {
  state = await api("GET", "/calibration/state.json");
  corners = {};
  for (const t of state.tiles) corners[t.id] = t.corners_px.map((p) => p.slice());
  moved = new Set();
  relabels = {};
  fits = {};
  selected = null;
  const [w, h] = state.image_size;
  const svg = $("#svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.dataset.revision = state.revision;
  setBackground();
  buildSvg();
  buildPanel();
  applyZoom();
  $("#title").textContent = `${state.profile_name}: ${state.path}`;
  if (!keepStatus) status(`loaded revision ${state.revision}`);
}

function setBackground() {
  const which = $("#background").value;
  const url = which === "photo" ? "/calibration/photo" : "/calibration/overlay.png";
  $("#bg").src = `${url}?rev=${state.revision}`;
}

function applyZoom() {
  if (!state) return;
  const z = $("#zoom").value;
  const stage = $("#stage");
  stage.style.aspectRatio = `${state.image_size[0]} / ${state.image_size[1]}`;  // laid out before the picture loads
  stage.style.width = z === "fit" ? "100%" : `${state.image_size[0] * parseFloat(z)}px`;
  requestAnimationFrame(sizeHandles);
}

function imagePerScreenPx() {
  const r = $("#svg").getBoundingClientRect();
  return r.width > 0 ? state.image_size[0] / r.width : 1;
}

function sizeHandles() {
  if (!state) return;
  const k = imagePerScreenPx();
  for (const c of document.querySelectorAll("#svg circle.handle")) c.setAttribute("r", (7 * k).toFixed(2));
  for (const t of document.querySelectorAll("#svg text")) t.setAttribute("font-size", (14 * k).toFixed(1));
  for (const p of document.querySelectorAll("#svg .stroke")) p.setAttribute("stroke-width", (2 * k).toFixed(2));
}

// -------------------------------------------------------------------------------------- drawing

function buildSvg() {
  const svg = $("#svg");
  svg.textContent = "";
  const gz = el("g", {id: "zone-layer"}, svg);
  for (const z of state.zones) {
    const p = el("polygon", {points: pts(z.polygon_px), class: "zone stroke", "data-zone": z.id}, gz);
    el("title", {}, p).textContent = `${z.id}${z.name ? " (" + z.name + ")" : ""}: ${z.kind}`;
    p.addEventListener("click", (ev) => { ev.stopPropagation(); pickZone(z.id); });
  }
  const gf = el("g", {id: "fit-layer"}, svg);
  const gt = el("g", {id: "tile-layer"}, svg);
  const gh = el("g", {id: "handle-layer"}, svg);
  for (const t of state.tiles) {
    el("polygon", {points: pts(corners[t.id]), class: "tile stroke", "data-tile": t.id}, gt);
    const [cx, cy] = t.center_px;
    const label = el("text", {x: cx + 0.5, y: cy + 0.5, dy: "1.8em", class: "tile-label", "text-anchor": "middle",
                              "data-tile": t.id}, gt);
    label.textContent = t.id;
    corners[t.id].forEach((c, i) => {
      const h = el("circle", {cx: c[0] + 0.5, cy: c[1] + 0.5, r: 8, class: "handle", tabindex: 0,
                              "data-tile": t.id, "data-index": i}, gh);
      el("title", {}, h).textContent = `${t.id} corner ${i + 1}`;
      attachDrag(h, t.id, i);
    });
  }
  el("g", {}, gf);
  drawZones();
  sizeHandles();
}

function drawZones() {
  const show = $("#show-zones").checked;
  for (const p of document.querySelectorAll("#svg polygon.zone")) {
    const z = p.dataset.zone;
    const kind = relabels[z] || state.zones.find((q) => q.id === z).kind;
    p.style.display = show ? "" : "none";
    p.setAttribute("stroke", kindColor(kind));
    p.setAttribute("fill", kindColor(kind));
    p.classList.toggle("relabelled", z in relabels);
  }
}

function redrawTile(id) {
  const poly = document.querySelector(`#tile-layer polygon[data-tile="${CSS.escape(id)}"]`);
  poly.setAttribute("points", pts(corners[id]));
  poly.classList.toggle("moved", moved.has(id));
  const cs = corners[id];
  const cx = cs.reduce((a, p) => a + p[0], 0) / cs.length, cy = cs.reduce((a, p) => a + p[1], 0) / cs.length;
  const label = document.querySelector(`#tile-layer text[data-tile="${CSS.escape(id)}"]`);
  label.setAttribute("x", cx + 0.5);
  label.setAttribute("y", cy + 0.5);
  for (const h of document.querySelectorAll(`#handle-layer circle[data-tile="${CSS.escape(id)}"]`)) {
    const c = cs[+h.dataset.index];
    h.setAttribute("cx", c[0] + 0.5);
    h.setAttribute("cy", c[1] + 0.5);
  }
}

function drawFits() {
  const g = $("#fit-layer");
  g.textContent = "";
  for (const [id, f] of Object.entries(fits)) {
    if (!moved.has(id)) continue;
    el("polygon", {points: pts(f.corners_px), class: "fit stroke", "data-tile": id}, g);
  }
  sizeHandles();
}

// -------------------------------------------------------------------------------------- editing

function toImage(ev) {
  const svg = $("#svg");
  const pt = svg.createSVGPoint();
  pt.x = ev.clientX;
  pt.y = ev.clientY;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  return [p.x - 0.5, p.y - 0.5];
}

function clampPx([x, y]) {
  const [w, h] = state.image_size;
  return [Math.min(Math.max(x, -0.5), w - 0.5), Math.min(Math.max(y, -0.5), h - 0.5)];
}

function setCorner(id, i, p) {
  corners[id][i] = clampPx(p);
  const orig = state.tiles.find((t) => t.id === id).corners_px;
  const same = corners[id].every((c, k) => Math.abs(c[0] - orig[k][0]) < 0.05 && Math.abs(c[1] - orig[k][1]) < 0.05);
  if (same) moved.delete(id); else moved.add(id);
  redrawTile(id);
  updateTileRow(id);
}

function raiseTile(id) {
  // neighbouring tiles share corners: put this tile's handles on top so they are the ones grabbed
  const layer = $("#handle-layer");
  for (const h of document.querySelectorAll(`#handle-layer circle[data-tile="${CSS.escape(id)}"]`)) layer.appendChild(h);
  for (const r of document.querySelectorAll("#tiles tr.active")) r.classList.remove("active");
  const tr = document.querySelector(`#tiles tr[data-tile="${CSS.escape(id)}"]`);
  if (tr) tr.classList.add("active");
}

function selectHandle(id, i) {
  selected = {tile: id, index: i};
  for (const h of document.querySelectorAll("#handle-layer circle")) {
    h.classList.toggle("selected", h.dataset.tile === id && +h.dataset.index === i);
  }
}

function attachDrag(h, id, i) {
  let grab = null;
  h.addEventListener("pointerdown", (ev) => {
    ev.preventDefault();
    ev.stopPropagation();
    h.setPointerCapture(ev.pointerId);
    const p = toImage(ev);
    grab = [corners[id][i][0] - p[0], corners[id][i][1] - p[1]];
    selectHandle(id, i);
    h.classList.add("dragging");
  });
  h.addEventListener("pointermove", (ev) => {
    if (!grab) return;
    const p = toImage(ev);
    setCorner(id, i, [p[0] + grab[0], p[1] + grab[1]]);
  });
  const end = (ev) => {
    if (!grab) return;
    grab = null;
    h.classList.remove("dragging");
    try { h.releasePointerCapture(ev.pointerId); } catch (e) { /* already released */ }
    schedulePreview();
  };
  h.addEventListener("pointerup", end);
  h.addEventListener("pointercancel", end);
  h.addEventListener("focus", () => selectHandle(id, i));
}

document.addEventListener("keydown", (ev) => {
  if (!selected || !state) return;
  if (ev.target && ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName)) return;
  const step = ev.shiftKey ? 10 : (ev.altKey ? 0.2 : 1);
  const d = {ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step]}[ev.key];
  if (!d) return;
  ev.preventDefault();
  const c = corners[selected.tile][selected.index];
  setCorner(selected.tile, selected.index, [c[0] + d[0], c[1] + d[1]]);
  schedulePreview();
});

function editBody() {
  const tiles = {};
  for (const id of moved) tiles[id] = corners[id];
  return {tiles, zones: {...relabels}, revision: state.revision};
}

function schedulePreview() {
  clearTimeout(previewTimer);
  previewTimer = setTimeout(preview, 150);
}

async function preview() {
  if (!moved.size) { fits = {}; lastWarnings = []; drawFits(); pending(); return; }
  try {
    const r = await api("POST", "/calibration/preview", {tiles: editBody().tiles, zones: {}, revision: state.revision});
    fits = r.tiles;
    drawFits();
    for (const id of Object.keys(fits)) updateTileRow(id);
    lastWarnings = r.warnings;
    pending(r.residual_mm);
  } catch (e) {
    status(e.message, "bad");
  }
}

function pending(residual) {
  const parts = [];
  if (moved.size) {
    const fit = residual !== undefined ? `, corner fit ${fmtMm(residual)}` : "";
    parts.push(`${moved.size} tile(s) moved${fit}`);
  }
  const n = Object.keys(relabels).length;
  if (n) parts.push(`${n} zone(s) relabelled`);
  if (!parts.length) { status("no changes"); return; }
  const warn = moved.size && lastWarnings.length ? " - " + lastWarnings.join("; ") : "";
  status(`not saved: ${parts.join(", ")}${warn}`, warn ? "warn" : "");
}

function fmtMm(v) {
  return v === null || v === undefined ? "-" : `${v.toFixed(2)} mm`;
}

function resetTile(id) {
  corners[id] = state.tiles.find((t) => t.id === id).corners_px.map((p) => p.slice());
  moved.delete(id);
  delete fits[id];
  redrawTile(id);
  updateTileRow(id);
  drawFits();
}

// ---------------------------------------------------------------------------------------- panel

function buildPanel() {
  const tb = $("#tiles tbody");
  tb.textContent = "";
  for (const t of state.tiles) {
    const tr = document.createElement("tr");
    tr.dataset.tile = t.id;
    tr.innerHTML = `<td>${escapeHtml(t.id)}</td><td class="num">${t.rotation_deg.toFixed(1)}&deg;</td>` +
      `<td class="num fit-cell"></td><td><button type="button" class="small">reset</button></td>`;
    tr.querySelector("button").addEventListener("click", (ev) => { ev.stopPropagation(); resetTile(t.id); });
    tr.addEventListener("click", () => raiseTile(t.id));
    tr.title = "click: bring this tile's corner handles to the front";
    tr.addEventListener("mouseenter", () => highlightTile(t.id, true));
    tr.addEventListener("mouseleave", () => highlightTile(t.id, false));
    tb.appendChild(tr);
    updateTileRow(t.id);
  }
  const zb = $("#zones tbody");
  zb.textContent = "";
  for (const z of state.zones) {
    const tr = document.createElement("tr");
    tr.dataset.zone = z.id;
    const opts = state.zone_kinds.map((k) => `<option value="${escapeHtml(k)}"${k === z.kind ? " selected" : ""}>${escapeHtml(k)}</option>`).join("");
    const hint = z.profile_kind && z.profile_kind !== z.kind ? ` <span class="note">(profile: ${escapeHtml(z.profile_kind)})</span>` : "";
    tr.innerHTML = `<td title="${escapeHtml(z.name || "")}">${escapeHtml(z.id)}${hint}</td>` +
      `<td><select data-zone="${escapeHtml(z.id)}">${opts}</select></td>`;
    const sel = tr.querySelector("select");
    sel.addEventListener("change", () => {
      if (sel.value === z.kind) delete relabels[z.id]; else relabels[z.id] = sel.value;
      tr.classList.toggle("changed", z.id in relabels);
      drawZones();
      pending();
    });
    tr.addEventListener("mouseenter", () => highlightZone(z.id, true));
    tr.addEventListener("mouseleave", () => highlightZone(z.id, false));
    zb.appendChild(tr);
  }
  filterZones();
  const q = state.quality;
  const probs = state.problems.length ? state.problems.map((p) => `<li class="bad">${escapeHtml(p)}</li>`).join("")
    : "<li>quality figures within bounds</li>";
  const notes = (q.notes || []).map((n) => `<li>${escapeHtml(n)}</li>`).join("");
  $("#info").innerHTML = `<p>${escapeHtml(state.game)}, ${state.tiles.length} tile(s), ${state.zones.length} zone(s);
    revision ${escapeHtml(state.revision)}</p><ul>${probs}</ul><p>fit ${q.reprojection_rms_px ?? "-"} px,
    board edges ${q.corner_rms_mm ?? "-"} mm, ${q.mm_per_px ?? "-"} mm/px</p><ul class="notes">${notes}</ul>`;
}

function updateTileRow(id) {
  const tr = document.querySelector(`#tiles tr[data-tile="${CSS.escape(id)}"]`);
  if (!tr) return;
  tr.classList.toggle("changed", moved.has(id));
  tr.querySelector(".fit-cell").textContent = moved.has(id) && fits[id] ? fmtMm(fits[id].residual_mm) : "";
}

function highlightTile(id, on) {
  const p = document.querySelector(`#tile-layer polygon[data-tile="${CSS.escape(id)}"]`);
  if (p) p.classList.toggle("hot", on);
}

function highlightZone(id, on) {
  const p = document.querySelector(`#zone-layer polygon[data-zone="${CSS.escape(id)}"]`);
  if (p) p.classList.toggle("hot", on);
}

function pickZone(id) {
  $("#zone-filter").value = "";
  filterZones();
  const tr = document.querySelector(`#zones tr[data-zone="${CSS.escape(id)}"]`);
  if (!tr) return;
  for (const r of document.querySelectorAll("#zones tr.picked")) r.classList.remove("picked");
  tr.classList.add("picked");
  tr.scrollIntoView({block: "center"});
  tr.querySelector("select").focus();
}

function filterZones() {
  const f = $("#zone-filter").value.trim().toLowerCase();
  for (const tr of document.querySelectorAll("#zones tbody tr")) {
    tr.style.display = !f || tr.textContent.toLowerCase().includes(f) || tr.dataset.zone.toLowerCase().includes(f) ? "" : "none";
  }
}

// ----------------------------------------------------------------------------------------- save

async function save() {
  if (busy) return;
  const body = editBody();
  if (!Object.keys(body.tiles).length && !Object.keys(body.zones).length) {
    status("nothing to save: move a corner or change a zone's kind first");
    return;
  }
  busy = true;
  $("#save").disabled = true;
  status("saving...");
  try {
    const r = await api("POST", "/calibration/save", body);
    const tiles = Object.entries(r.tiles).map(([id, f]) =>
      `<li>${escapeHtml(id)}: turned ${f.rotation_deg.toFixed(2)}&deg; at (${f.offset_mm[0].toFixed(1)}, ${f.offset_mm[1].toFixed(1)}) mm,
       moved up to ${f.moved_mm.toFixed(1)} mm, corner fit ${fmtMm(f.residual_mm)}</li>`).join("");
    const zones = Object.entries(r.zones).map(([id, z]) => `<li>${escapeHtml(id)}: ${escapeHtml(z.from)} &rarr; ${escapeHtml(z.to)}</li>`).join("");
    const probs = r.problems.map((p) => `<li class="bad">${escapeHtml(p)}</li>`).join("");
    const warns = r.warnings.map((p) => `<li class="warn">${escapeHtml(p)}</li>`).join("");
    $("#result").innerHTML = `<p>saved ${escapeHtml(r.saved)} (previous kept as ${escapeHtml(r.backup)});
      corner fit ${fmtMm(r.residual_mm)}</p><ul>${tiles}${zones}${probs}${warns}</ul>`;
    await load(true);
    const extra = r.problems.length ? `; problems: ${r.problems.join("; ")}` : "";
    status(`saved (corner fit ${fmtMm(r.residual_mm)})${extra}`, r.problems.length || r.warnings.length ? "warn" : "ok");
  } catch (e) {
    status(`not saved: ${e.message}`, "bad");
  } finally {
    busy = false;
    $("#save").disabled = false;
  }
}

$("#save").addEventListener("click", save);
$("#reset").addEventListener("click", () => load().catch((e) => status(e.message, "bad")));
$("#background").addEventListener("change", setBackground);
$("#zoom").addEventListener("change", applyZoom);
$("#show-zones").addEventListener("change", drawZones);
$("#zone-filter").addEventListener("input", filterZones);
$("#bg").addEventListener("load", sizeHandles);
window.addEventListener("resize", sizeHandles);
window.addEventListener("beforeunload", (ev) => {
  if (moved.size || Object.keys(relabels).length) { ev.preventDefault(); ev.returnValue = ""; }
});

load().catch((e) => status(`cannot load the calibration: ${e.message}`, "bad"));

// The live view: polls /live/state.json and shows the latest settled frame, events and scores.
"use strict";

const POLL_MS = 1000;
let lastSeq = -1;
let lastFrame = -1;

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

function render(s) {
  const status = document.getElementById("live-status");
  if (!s.seq) {
    status.textContent = "waiting for the referee (no settled frame yet)...";
    return;
  }
  const when = s.updated ? new Date(s.updated * 1000).toLocaleTimeString() : "";
  const pieces = s.judgement && Array.isArray(s.judgement.pieces) ? `, ${s.judgement.pieces.length} piece(s)` : "";
  status.textContent = `frame ${s.seq} at ${when}${pieces}`;
  if (s.has_frame && s.frame_seq !== lastFrame) {
    const img = document.getElementById("live-frame");
    img.src = `/live/frame.jpg?n=${s.frame_seq}`;
    img.hidden = false;
    lastFrame = s.frame_seq;
  }
  const sb = document.querySelector("#live-scoreboard tbody");
  const best = Math.max(...s.scoreboard.map((r) => r.score));
  sb.innerHTML = s.scoreboard.map((r) =>
    `<tr${r.score === best ? ' class="winner"' : ""}><td>${esc(r.player)}</td><td class="num">${r.score}</td></tr>`).join("");
  const ev = document.getElementById("live-events");
  ev.innerHTML = s.events.slice().reverse().map((e) =>
    `<li class="${e.update === s.seq ? "new" : ""}">${esc(e.text)}${e.points ? ` <b>(${e.points > 0 ? "+" : ""}${e.points})</b>` : ""}</li>`).join("");
}

async function poll() {
  try {
    const r = await fetch("/live/state.json", {cache: "no-store"});
    if (r.ok) {
      const s = await r.json();
      if (s.seq !== lastSeq) {
        lastSeq = s.seq;
        render(s);
      }
    }
  } catch (e) {
    document.getElementById("live-status").textContent = "the server does not answer: retrying...";
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

poll();

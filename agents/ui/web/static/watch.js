// The viewer: a records file from the served folder, an upload or a game of the play page
// (#game=ID), its hands listed; one hand stepped frame by frame with every hand shown and the
// solver's verdict on each play.
"use strict";

let SOURCE = null;   // the API path of the open file ("/api/records/PATH" or "/api/uploads/ID")
let COUNT = 0, HAND = null, REPLAY = null, FRAME = 0;

function analyse() { return document.getElementById("analyse").checked; }

async function listFiles() {
  const r = await api("GET", "/api/records");
  const sel = document.getElementById("files");
  if (!r.enabled) {
    sel.disabled = true;
    document.getElementById("source-note").textContent =
      "no records folder is served (texas42 serve --records DIR): upload a file";
    return;
  }
  for (const f of r.files) sel.append(el("option", { value: f.path, text: `${f.path} (${Math.ceil(f.size / 1024)} KB)` }));
  if (r.truncated) document.getElementById("source-note").textContent = `the first ${r.files.length} files`;
}

function encodePath(path) { return path.split("/").map(encodeURIComponent).join("/"); }

async function openSource(source, title, index) {
  SOURCE = source;
  index = index || await api("GET", source);
  COUNT = index.count;
  document.getElementById("hands-title").textContent = `${title}: ${index.count} hand${index.count === 1 ? "" : "s"}`;
  const rows = [el("tr", {}, ...["#", "line", "agents", "dealer", "bid", "contract", "plays"].map(h => el("th", { text: h })))];
  for (const h of index.hands) {
    rows.push(el("tr", { class: "hand-row", "data-hand": h.n, onclick: () => openHand(h.n) },
      el("td", { text: h.n + 1 }), el("td", { text: h.line }),
      el("td", { text: h.agents ? h.agents.join(", ") : (h.match || "") }),
      el("td", { text: h.dealer }), el("td", { text: h.bid || "all passed" }),
      el("td", { text: h.contract || "" }), el("td", { text: h.plays })));
  }
  if (index.count > index.hands.length) {
    rows.push(el("tr", {}, el("td", { colspan: 7, text: `… the first ${index.hands.length} of ${index.count}` })));
  }
  document.getElementById("hands").replaceChildren(...rows);
  document.getElementById("hands-panel").hidden = false;
  const e = index.error;
  document.getElementById("file-error").textContent = e ?
    `line ${e.line}: field '${e.field}': ${e.message} (the file is read up to there)` : "";
  if (index.count) await openHand(0);
}

async function openHand(n) {
  if (n < 0 || n >= COUNT) return;
  showError("");
  document.getElementById("step").textContent = analyse() ? "analysing…" : "…";
  try {
    REPLAY = await api("GET", `${SOURCE}?hand=${n}&analyse=${analyse()}`);
  } catch (err) {
    showError(err.message);
    return;
  }
  HAND = n;
  for (const row of document.querySelectorAll(".hand-row")) row.classList.toggle("current", Number(row.dataset.hand) === n);
  document.getElementById("viewer").hidden = false;
  if (REPLAY.error) showError(`the record stops at action ${REPLAY.error.index}: ${REPLAY.error.reason}`);
  renderAnalysis();
  go(0);
}

function completed(i) { return REPLAY.frames[i].view.tricks.filter(t => t.winner !== null).length; }

function go(i) {
  const frames = REPLAY.frames;
  FRAME = Math.max(0, Math.min(frames.length - 1, i));
  const frame = frames[FRAME];
  renderTable(document.getElementById("table"), frame.view, { bottom: 0, me: null });
  renderScore(document.getElementById("score"), frame.view, null);
  document.getElementById("position").textContent = `hand ${HAND + 1}/${COUNT} · step ${FRAME}/${frames.length - 1}`;
  const step = frame.step;
  const box = document.getElementById("step");
  box.replaceChildren();
  box.classList.remove("mistake");
  if (!step) box.textContent = "The deal: every hand shown. Step on with → or the buttons.";
  else {
    box.append(`seat ${step.seat} ${step.phase === "play" ? "played" : step.phase === "bid" ? "bid" : step.phase === "declare" ? "named" : "exchanged:"} ${step.action}`);
    if (step.verdict) {
      const v = step.verdict;
      box.append(v.mistake ? el("b", { class: "bad", text: ` · MISTAKE: lost ${v.loss} ${v.unit} (best: ${v.best.join(" ")})` })
        : el("span", { class: "good", text: ` · lost 0${v.best.length > 1 ? "" : " (the best play)"}` }));
      if (v.mistake) box.classList.add("mistake");
    }
  }
  renderLog();
  for (const b of ["first", "prev", "prev-trick"]) document.getElementById(b).disabled = FRAME === 0;
  for (const b of ["last", "next", "next-trick"]) document.getElementById(b).disabled = FRAME === frames.length - 1;
  document.getElementById("prev-hand").disabled = HAND === 0;
  document.getElementById("next-hand").disabled = HAND === COUNT - 1;
}

// the frames that end a trick
function trickEnds() {
  return REPLAY.frames.map((f, i) => i).filter(i => i > 0 && completed(i) > completed(i - 1));
}

function nextTrick() {
  const e = trickEnds().find(i => i > FRAME);
  go(e === undefined ? REPLAY.frames.length - 1 : e);
}

function prevTrick() {
  const e = trickEnds().filter(i => i < FRAME).pop();
  go(e !== undefined ? e : (FRAME > firstPlay() ? firstPlay() : 0));
}

function firstPlay() {
  const i = REPLAY.frames.findIndex(f => f.step && f.step.phase === "play");
  return i > 0 ? i - 1 : 0;
}

function renderLog() {
  const items = [];
  REPLAY.frames.slice(1, FRAME + 1).forEach((f, k) => {
    const v = f.step.verdict;
    f.step.lines.forEach(line => {
      const judged = v && line.trim().endsWith(`: ${f.step.action}`);  // the play's own line
      const li = el("li", { class: (judged && v.mistake ? "bad" : "") + (k === FRAME - 1 ? " new" : ""), text: line.trim() });
      if (judged) li.append(el("span", { class: "loss", text: `  lost ${v.loss}${v.mistake ? "  MISTAKE" : ""}` }));
      items.push(li);
    });
  });
  const log = document.getElementById("log");
  log.replaceChildren(...items);
  log.scrollTop = log.scrollHeight;
}

function renderAnalysis() {
  const box = document.getElementById("analysis");
  const a = REPLAY.analysis;
  if (!a) { box.replaceChildren(el("div", { class: "note", text: "solver analysis off" })); return; }
  const rows = [el("h3", { text: `Given away against perfect play (${a.unit})` })];
  a.teams.forEach((t, i) => rows.push(el("div", { class: "line", "data-team": i,
    text: `team ${i}: ${t.lost} ${a.unit}, ${t.mistakes} mistake${t.mistakes === 1 ? "" : "s"}` })));
  if (a.note) rows.push(el("div", { class: "note", text: a.note }));
  box.replaceChildren(...rows);
}

async function upload(text, title) {
  const index = await api("POST", "/api/uploads", text, true);
  await openSource(`/api/uploads/${index.id}`, title, index);
}

async function main() {
  try { await listFiles(); } catch (err) { showError(err.message); }
  document.getElementById("files").addEventListener("change", async e => {
    if (!e.target.value) return;
    showError("");
    try { await openSource(`/api/records/${encodePath(e.target.value)}`, e.target.value); }
    catch (err) { showError(err.message); }
  });
  document.getElementById("upload").addEventListener("change", async e => {
    const file = e.target.files[0];
    if (!file) return;
    showError("");
    try { await upload(await file.text(), file.name); } catch (err) { showError(err.message); }
  });
  document.getElementById("analyse").addEventListener("change", () => { if (HAND !== null) openHand(HAND); });
  const on = (id, f) => document.getElementById(id).addEventListener("click", f);
  on("first", () => go(0));
  on("prev", () => go(FRAME - 1));
  on("next", () => go(FRAME + 1));
  on("last", () => go(REPLAY.frames.length - 1));
  on("next-trick", nextTrick);
  on("prev-trick", prevTrick);
  on("prev-hand", () => openHand(HAND - 1));
  on("next-hand", () => openHand(HAND + 1));
  document.addEventListener("keydown", e => {
    if (!REPLAY || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") go(FRAME + 1);
    else if (e.key === "ArrowLeft") go(FRAME - 1);
  });
  window.addEventListener("hashchange", fromHash);
  await fromHash();
}

// #game=ID: the finished hands of a game of the play page
async function fromHash() {
  const m = location.hash.match(/game=([\w-]+)/);
  if (!m) return;
  showError("");
  try {
    const source = `/api/games/${m[1]}/hands`;
    const index = await api("GET", source);
    if (!index.count) throw new Error("the game has no finished hand yet");
    await openSource(source, "this game", index);
  } catch (err) { showError(err.message); }
}

main();

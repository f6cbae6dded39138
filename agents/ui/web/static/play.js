// The play page: a game set up, then drawn from each state the API returns; the person's
// legal choices are the clickable things, the rest dimmed. ?delay=MS paces the agents' plays
// (default 450; 0 draws the final state at once).
"use strict";

const params = new URLSearchParams(location.search);
const DELAY = Number(params.get("delay") ?? 450);
let INFO = null, GAME = null, STATE = null, BUSY = false;

// body[data-busy] is "1" while a request or an animation is under way (tests wait on it)
function busy(on) {
  BUSY = on;
  document.body.dataset.busy = on ? "1" : "0";
}

function sleep(ms) { return new Promise(r => setTimeout(r, ms)); }

// ------------------------------------------------------------------ the setup form
function fillSetup() {
  const rs = document.getElementById("ruleset");
  rs.replaceChildren(...Object.keys(INFO.rulesets).map(r => el("option", { value: r, text: r })));
  rs.addEventListener("change", setupSeats);
  document.getElementById("seat").addEventListener("change", setupAgents);
  setupSeats();
}

function setupSeats() {
  const r = INFO.rulesets[document.getElementById("ruleset").value];
  const seat = document.getElementById("seat");
  seat.replaceChildren(...[...Array(r.seats).keys()].map(s => el("option", { value: s, text: s })));
  setupAgents();
  const box = document.getElementById("options");
  box.replaceChildren(...Object.entries(r.options).map(([name, o]) => {
    let input;
    if (o.choices) {
      input = el("select", { "data-option": name },
        ...o.choices.map(c => el("option", { value: JSON.stringify(c), text: String(c), selected: c === o.default })));
    } else {
      input = el("input", { type: "number", "data-option": name, min: o.range[0], max: o.range[1],
        placeholder: o.default === null ? "default" : String(o.default) });
    }
    return el("label", { title: o.doc }, `${name} `, input);
  }));
}

function setupAgents() {
  const rsName = document.getElementById("ruleset").value, r = INFO.rulesets[rsName];
  const me = Number(document.getElementById("seat").value || 0);
  const box = document.getElementById("agents");
  const rows = [el("legend", { text: "Agents" })];
  for (let s = 0; s < r.seats; s++) {
    if (s === me) continue;
    const sel = el("select", { "data-seat": s },
      ...r.agents.map(a => el("option", { value: a, text: a, selected: a === r.default_agent })));
    rows.push(el("label", {}, `seat ${s} (${seatRole(s, me, r.seats)}) `, sel));
  }
  box.replaceChildren(...rows);
}

function setupBody() {
  const body = { ruleset: document.getElementById("ruleset").value,
                 human_seat: Number(document.getElementById("seat").value), agents: {}, rules: {} };
  const seed = document.getElementById("seed").value;
  if (seed !== "") body.seed = Number(seed);
  for (const sel of document.querySelectorAll("#agents select")) body.agents[sel.dataset.seat] = sel.value;
  const defaults = INFO.rulesets[body.ruleset].options;
  for (const input of document.querySelectorAll("#options [data-option]")) {
    const name = input.dataset.option;
    if (input.tagName === "SELECT") {
      const v = JSON.parse(input.value);
      if (v !== defaults[name].default) body.rules[name] = v;
    } else if (input.value !== "") body.rules[name] = Number(input.value);
  }
  return body;
}

// ------------------------------------------------------------------ the game
async function start(e) {
  e?.preventDefault();
  showError("");
  const button = document.getElementById("start");
  busy(true);
  button.disabled = true;
  button.textContent = "Dealing…";
  try {
    const r = await api("POST", "/api/games", setupBody());
    GAME = r.id;
    history.replaceState(null, "", `${location.pathname}${location.search}#game=${GAME}`);
    STATE = null;
    await show(r.state);
  } catch (err) {
    showError(err.message);
  } finally {
    button.disabled = false;
    button.textContent = "Start";
    busy(false);
  }
}

async function send(action) {
  if (BUSY) return;
  busy(true);
  showError("");
  document.getElementById("actions").classList.add("waiting");
  document.getElementById("prompt").textContent = "…";
  try {
    await show(await api("POST", `/api/games/${GAME}/actions`, { action }));
  } catch (err) {
    showError(err.message);
    await show(STATE, false);
  } finally {
    busy(false);
    document.getElementById("actions").classList.remove("waiting");
  }
}

// Draw the new state; the plays the agents made since the last one are shown one by one.
async function show(state, animate = true) {
  const before = STATE;
  STATE = state;
  document.getElementById("setup").hidden = true;
  document.getElementById("game").hidden = false;
  document.getElementById("download").href = `/api/games/${GAME}/records?format=jsonl`;
  document.getElementById("watch-link").href = `/watch#game=${GAME}`;
  const sameHand = before && before.hand === state.hand && before.game === state.game;
  const seen = sameHand ? before.events.length : 0;
  const plays = state.tricks.flatMap(t => t.plays.map(p => ({ ...p, trick: t })));
  const firstNew = sameHand ? before.tricks.reduce((n, t) => n + t.plays.length, 0)
    : (before ? 0 : plays.length);
  renderLog(state, seen);
  if (animate && DELAY > 0 && firstNew < plays.length) {
    for (let i = firstNew; i < plays.length; i++) {
      const t = plays[i].trick;
      const k = plays.slice(0, i + 1).filter(p => p.trick === t).length;
      const done = k === t.plays.length && t.winner !== null;
      const shown = { ...t, plays: t.plays.slice(0, k), winner: done ? t.winner : null };
      drawTable(midHand(state, plays.slice(i + 1)), shown, false, state.tricks.indexOf(t));
      await sleep(done && i < plays.length - 1 ? DELAY * 2 : DELAY);
    }
  }
  drawTable(state, null, true);
}

// The table as it stood before the plays ``later``: their tiles back in hand, the hands
// still closed and no result yet (the final state is drawn once the plays have been shown).
function midHand(state, later) {
  const me = state.human_seat;
  const seats = state.seats.map(s => {
    const back = later.filter(p => p.seat === s.seat).map(p => p.tile);
    return { ...s, held: s.held + back.length, dealt: undefined,
             tiles: s.seat === me ? [...(s.tiles || []), ...back] : null };
  });
  return { ...state, seats, phase: "play", result: undefined,
           to_move: later.length ? later[0].seat : null,
           cat: state.cat ? { size: state.cat.size } : state.cat };
}

function drawTable(state, trick, interactive, trickNo = null) {
  const me = state.human_seat;
  const mine = interactive && state.to_move === me;
  const legal = new Set(mine ? state.legal : []);
  const clickable = {};
  for (const t of state.seats[me].tiles || []) {
    if (legal.has(t)) clickable[t] = t;
    else if (legal.has(`discard ${t}`)) clickable[t] = `discard ${t}`;
  }
  const choosing = mine && (state.phase === "play" || state.phase === "exchange");
  renderTable(document.getElementById("table"), state, {
    bottom: me, me, trick, trickNo, clickable: choosing ? clickable : null, onAction: send,
  });
  renderScore(document.getElementById("score"), state, me);
  renderActions(state, interactive);
}

function button(text, action, enabled, cls = "") {
  return el("button", { type: "button", class: cls + (enabled ? "" : " dim"), disabled: !enabled,
    "data-action": action, onclick: () => send(action), text });
}

function renderActions(state, interactive) {
  const box = document.getElementById("actions"), prompt = document.getElementById("prompt");
  const me = state.human_seat, legal = new Set(state.legal);
  const groups = INFO.rulesets[state.ruleset];
  const items = [];
  let text = "";
  if (!interactive) {
    text = "…";
  } else if (state.phase === "game_over") {
    text = state.winner === (me & 1) ? "Game over: your team wins." : "Game over: the other team wins.";
    items.push(el("button", { type: "button", onclick: newGame, text: "New game" }));
  } else if (state.phase === "hand_over") {
    text = "The hand is over: every hand as dealt is shown, the tiles played faded.";
    items.push(button("Next hand", "next", true, "primary"));
  } else if (state.to_move !== me) {
    text = `Waiting for seat ${state.to_move}.`;
  } else if (state.phase === "bid") {
    const high = state.high_bid ? `high bid ${state.high_bid.bid} by seat ${state.high_bid.seat}` : "no bid yet";
    text = `Your bid (${high}):`;
    if (groups.bids.length <= 40) {
      for (const b of groups.bids) items.push(button(b, b, legal.has(b), b === "pass" ? "pass" : ""));
    } else {
      items.push(button("pass", "pass", legal.has("pass"), "pass"));
      const bids = groups.bids.filter(b => b !== "pass" && legal.has(b));
      const sel = el("select", { id: "bid-select" }, ...bids.map(b => el("option", { value: b, text: b })));
      items.push(sel, el("button", { type: "button", id: "bid-button", disabled: !bids.length,
        onclick: () => send(sel.value), text: "Bid" }));
    }
  } else if (state.phase === "declare") {
    text = "Name the contract:";
    for (const c of groups.contracts) items.push(button(c, c, legal.has(c)));
  } else if (state.phase === "exchange") {
    const left = state.cat?.left || [];
    text = state.exchange?.pending ? `Discard a tile for ${state.exchange.pending} (click one of yours):`
      : "Exchange with the cat: click a cat tile to take it, then one of yours to discard; keep to stop.";
    const cat = el("div", { class: "cat" }, el("span", { text: "cat: " }));
    for (const t of left) {
      const d = domino(t, 0.9);
      if (legal.has(`take ${t}`)) {
        d.classList.add("legal");
        d.addEventListener("click", () => send(`take ${t}`));
      } else d.classList.add("dim");
      cat.append(d);
    }
    items.push(cat, button("keep", "keep", legal.has("keep")));
  } else if (state.phase === "play") {
    const trick = state.tricks[state.tricks.length - 1];
    const leading = !trick || trick.winner !== null;
    text = leading ? "Your lead: click a tile." : "Your play: click a tile (the dimmed ones do not follow).";
  }
  prompt.textContent = text;
  box.replaceChildren(...items);
}

function renderLog(state, seen) {
  const log = document.getElementById("log");
  const lines = [];
  state.events.forEach((e, i) => {
    for (const line of e.lines) lines.push(el("li", { class: i >= seen ? "new" : "", text: line.trim() }));
  });
  log.replaceChildren(...lines);
  log.scrollTop = log.scrollHeight;
}

function newGame() {
  if (GAME) fetch(`/api/games/${GAME}`, { method: "DELETE" });  // the server forgets it
  history.replaceState(null, "", location.pathname + location.search);
  GAME = null;
  STATE = null;
  for (const id of ["table", "prompt", "actions", "score", "log"]) document.getElementById(id).replaceChildren();
  document.getElementById("game").hidden = true;
  document.getElementById("setup").hidden = false;
}

async function main() {
  try {
    INFO = await api("GET", "/api/info");
  } catch (err) {
    showError(err.message);
    return;
  }
  fillSetup();
  busy(false);
  document.getElementById("setup-form").addEventListener("submit", start);
  document.getElementById("new-game").addEventListener("click", newGame);
  const m = location.hash.match(/game=([\w-]+)/);
  if (m) {
    GAME = m[1];
    try { await show(await api("GET", `/api/games/${GAME}`), false); }
    catch (err) { showError(err.message); GAME = null; newGame(); }
  }
}

main();

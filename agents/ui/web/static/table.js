// The table, drawn from a state of the API (agents/ui/web/view.py): seats around, dominoes
// as SVG, the trick in the middle, bids and scores. Shared by the play page and the viewer.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const PIPS = {
  0: [], 1: [[.5, .5]], 2: [[.27, .27], [.73, .73]], 3: [[.27, .27], [.5, .5], [.73, .73]],
  4: [[.27, .27], [.73, .27], [.27, .73], [.73, .73]],
  5: [[.27, .27], [.73, .27], [.5, .5], [.27, .73], [.73, .73]],
  6: [[.27, .22], [.27, .5], [.27, .78], [.73, .22], [.73, .5], [.73, .78]],
};

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

// A domino, upright: the high end on top. name "6-4"; null draws its back.
function domino(name, size = 1) {
  const w = 34 * size, h = 68 * size;
  const s = svg("svg", { width: w, height: h, viewBox: "0 0 34 68", class: "domino" });
  if (name === null) {
    s.classList.add("back");
    s.append(svg("rect", { x: 1, y: 1, width: 32, height: 66, rx: 5, class: "face" }));
    s.append(svg("rect", { x: 6, y: 6, width: 22, height: 56, rx: 3, class: "inlay" }));
    return s;
  }
  s.dataset.tile = name;
  const title = svg("title", {});
  title.textContent = name;
  s.append(title);
  s.append(svg("rect", { x: 1, y: 1, width: 32, height: 66, rx: 5, class: "face" }));
  s.append(svg("line", { x1: 5, y1: 34, x2: 29, y2: 34, class: "bar" }));
  const [hi, lo] = name.split("-").map(Number);
  [[hi, 0], [lo, 34]].forEach(([n, top]) => {
    for (const [px, py] of PIPS[n]) {
      s.append(svg("circle", { cx: 3 + px * 28, cy: top + 3 + py * 28, r: 3.4, class: "pip" }));
    }
  });
  return s;
}

// Where each seat sits, as a fraction of the table, counted from the seat at the bottom.
const PLACES = {
  4: [[50, 86], [13, 50], [50, 13], [87, 50]],
  6: [[50, 86], [14, 68], [14, 30], [50, 12], [86, 30], [86, 68]],
};

function seatRole(s, me, n) {
  if (me === null || me === undefined) return `team ${s & 1}`;
  if (s === me) return "you";
  if (n === 4) return { 1: "left", 2: "partner", 3: "right" }[(s - me + 4) % 4];
  return (s - me) % 2 === 0 ? "partner" : "opponent";
}

function teamName(team, me) {
  if (me === null || me === undefined) return `team ${team}`;
  return team === (me & 1) ? "us" : "them";
}

// The trick to show in the middle: the one in progress, else the last one won.
function shownTrick(view) {
  const tricks = view.tricks;
  if (!tricks.length) return null;
  return tricks[tricks.length - 1];
}

// Draw ``view`` into ``root``. opts: bottom (the seat drawn at the bottom), me (the person's
// seat, or null for an onlooker), clickable (tile name -> action name for the bottom hand),
// trick and trickNo (a trick to draw instead of the view's own, for animation).
function renderTable(root, view, opts = {}) {
  const n = view.n_seats, bottom = opts.bottom ?? 0, me = opts.me ?? null;
  const felt = el("div", { class: `felt seats-${n}` });
  const bidOf = {};
  for (const b of view.bids) bidOf[b.seat] = b.bid;
  for (let s = 0; s < n; s++) {
    const rel = (s - bottom + n) % n;
    const [x, y] = PLACES[n][rel];
    const seat = view.seats[s];
    const tags = [];
    if (view.dealer === s) tags.push(el("span", { class: "tag dealer", title: "dealer", text: "D" }));
    if (view.bidder === s) tags.push(el("span", { class: "tag bidder", text: `bid ${view.bid}` }));
    else if (s in bidOf) tags.push(el("span", { class: "tag bid", text: bidOf[s] }));
    if (view.sit_out === s) tags.push(el("span", { class: "tag", text: "sits out" }));
    const label = el("div", { class: "seat-label" },
      el("span", { class: "seat-name", text: `seat ${s} · ${seatRole(s, me, n)}` }),
      seat.agent && s !== me ? el("span", { class: "agent", text: seat.agent }) : null, ...tags);
    const hand = el("div", { class: "hand" });
    const big = rel === 0;
    const size = big ? (n === 6 ? 0.95 : 1.1) : (n === 6 ? 0.5 : 0.6);
    if (seat.dealt && view.phase.endsWith("over")) {
      // the hand over: every hand as dealt, the tiles played faded
      const left = [...(seat.tiles || [])];
      for (const t of seat.dealt) {
        const d = domino(t, size);
        const i = left.indexOf(t);
        if (i >= 0) left.splice(i, 1); else d.classList.add("gone");
        hand.append(d);
      }
    } else if (seat.tiles) {
      for (const t of seat.tiles) {
        const d = domino(t, size);
        const action = big && opts.clickable ? opts.clickable[t] : undefined;
        if (big && opts.clickable) {
          if (action) {
            d.classList.add("legal");
            d.addEventListener("click", () => opts.onAction(action));
          } else d.classList.add("dim");
        }
        hand.append(d);
      }
    } else {
      for (let i = 0; i < seat.held; i++) hand.append(domino(null, size));
    }
    const box = el("div", {
      class: `seat team${seat.team}` + (view.to_move === s ? " to-move" : "") + (big ? " bottom" : ""),
      style: `left:${x}%;top:${y}%`, "data-seat": s,
    }, label, hand);
    felt.append(box);
  }
  // the middle: the trick
  const trick = opts.trick || shownTrick(view);
  const trickNo = opts.trick ? opts.trickNo : view.tricks.length - 1;
  const middle = el("div", { class: "middle" });
  if (trick) {
    for (const p of trick.plays) {
      const rel = (p.seat - bottom + n) % n;
      const [x, y] = PLACES[n][rel];
      const d = domino(p.tile, n === 6 ? 0.75 : 0.9);
      if (trick.winner === p.seat) d.classList.add("winner");
      middle.append(el("div", {
        class: "played", style: `left:${50 + (x - 50) * 0.42}%;top:${50 + (y - 50) * 0.42}%`,
        "data-seat": p.seat,
      }, d));
    }
    if (trick.winner !== null && trick.winner !== undefined) {
      middle.append(el("div", {
        class: "trick-note",
        text: `trick ${trickNo + 1} to seat ${trick.winner}: ${trick.points} pt`,
      }));
    }
  } else if (view.phase === "bid") {
    middle.append(el("div", { class: "trick-note", text: "bidding" }));
  }
  felt.append(middle);
  // the six-player cat, once it may be seen: as dealt
  if (view.cat && view.cat.dealt) {
    felt.append(el("div", { class: "cat-shown" }, el("span", { text: "cat" }),
      ...view.cat.dealt.map(t => domino(t, 0.5))));
  }
  root.replaceChildren(felt);
}

// The side panel: the contract, points and score.
function renderScore(root, view, me = null) {
  const rows = [];
  const unit = view.unit;
  const title = view.hand === null ? "Record" : `Hand ${view.hand + 1}`;
  rows.push(el("div", { class: "line" }, el("b", { text: title }),
    ` · ${view.ruleset}` + (view.seed !== null ? ` · seed ${view.seed}` : "")));
  if (view.contract) {
    const need = view.contract === "nello" ? "no trick" :
      view.need > 0 ? `${view.need} points` : "every trick";
    rows.push(el("div", { class: "line contract" },
      `Contract `, el("b", { text: view.contract }), ` · bid ${view.bid} by seat ${view.bidder}`,
      ` · ${teamName(view.bidder & 1, me)} to take ${need}`));
  } else if (view.high_bid) {
    rows.push(el("div", { class: "line", text: `High bid ${view.high_bid.bid} by seat ${view.high_bid.seat}` }));
  }
  if (view.exchange) {
    const x = view.exchange;
    const what = x.take ? (x.take.length ? `took ${x.take.join(" ")}, discarded ${x.discard.join(" ")}`
      : (x.done ? "kept the hand" : "")) : `${x.swapped} swapped`;
    rows.push(el("div", { class: "line", text: `Exchange (seat ${x.seat}): ${what}` }));
  }
  const table = el("table", { class: "score" },
    el("tr", {}, el("th"), el("th", { text: teamName(0, me) }), el("th", { text: teamName(1, me) })),
    el("tr", {}, el("td", { text: "points" }), el("td", { text: view.points[0] }), el("td", { text: view.points[1] })),
    el("tr", {}, el("td", { text: "tricks" }), el("td", { text: view.tricks_won[0] }), el("td", { text: view.tricks_won[1] })),
    el("tr", { class: "game" }, el("td", { text: `game (${unit} to ${view.target})` }),
      el("td", { text: view.score[0] }), el("td", { text: view.score[1] })));
  rows.push(table);
  if (view.result) rows.push(el("div", { class: "result" }, ...view.result.map(t => el("div", { text: t }))));
  root.replaceChildren(...rows);
}

async function api(method, path, body, raw = false) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    if (raw) { init.body = body; init.headers["Content-Type"] = "application/x-ndjson"; }
    else { init.body = JSON.stringify(body); init.headers["Content-Type"] = "application/json"; }
  }
  const r = await fetch(path, init);
  let data;
  try { data = await r.json(); } catch { data = { error: `${r.status} ${r.statusText}` }; }
  if (!r.ok) throw new Error(data.error || `${r.status} ${r.statusText}`);
  return data;
}

function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message || "";
  box.hidden = !message;
}

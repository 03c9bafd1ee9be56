// Draws a board as SVG from what the server says: every pit's cell (two ranks or four, any
// number of houses), its count, which houses are legal, the last move and what it took. No
// rule of any game lives here.
"use strict";

const Board = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const CELL = 72;       // one house's square
  const STORE = 84;      // width of the score boxes at both ends
  const MARGIN = 26;     // room for labels above and below

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  const scoreWords = { store: "store", captured: "captured", on_side: "on side" };

  // Seeds drawn as dots around the count, up to a handful; the number says the rest.
  function drawSeeds(g, cx, cy, n) {
    const shown = Math.min(n, 12);
    for (let k = 0; k < shown; k++) {
      const a = (k / shown) * 2 * Math.PI + 0.4;
      const r = 17;
      el("circle", { class: "seed", cx: cx + r * Math.cos(a), cy: cy + r * Math.sin(a), r: 4.5 }, g);
    }
  }

  // `view`: the game view; `frame`: {pits, scores, hand} to show instead of the view's own (a
  // step of a sowing), `active`: the pit that step changed; `onHouse(move)`: a click on a
  // house (or, where the mover chooses the direction, on one of its direction marks).
  function render(svg, view, opts) {
    const o = opts || {};
    const frame = o.frame || { pits: view.pits, scores: view.scores, hand: 0 };
    const lay = view.layout;
    const width = lay.cols * CELL + 2 * STORE;
    const height = lay.rows * CELL + 2 * MARGIN;
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    svg.dataset.rules = view.rules;
    svg.dataset.ranks = lay.rows;
    el("rect", { class: "frame", x: 2, y: MARGIN - 8, width: width - 4, height: lay.rows * CELL + 16, rx: 24 }, svg);
    // A line between the two players' halves of a four-rank board.
    if (lay.rows > 2) {
      el("line", { class: "divide", x1: STORE, y1: MARGIN + (lay.rows / 2) * CELL, x2: width - STORE, y2: MARGIN + (lay.rows / 2) * CELL }, svg);
    }

    const last = view.last;
    const course = last && last.course;
    const sown = new Set();
    if (course && !o.frame) {
      for (let k = 1; k < course.frames.length; k++) {
        course.frames[k].pits.forEach((n, i) => { if (n > course.frames[k - 1].pits[i]) sown.add(i); });
      }
    }
    const taken = new Set(course && !o.frame ? course.taken : []);
    const legal = new Set(o.clickable ? view.legal : []);

    for (const place of lay.places) {
      const cx = STORE + place.col * CELL + CELL / 2;
      const cy = MARGIN + place.row * CELL + CELL / 2;
      const n = frame.pits[place.pit];
      const moves = place.moves.filter((m) => legal.has(m));
      const classes = ["house"];
      if (moves.length > 0) classes.push("legal");
      if (last && last.pit === place.pit) classes.push("from");
      if (sown.has(place.pit)) classes.push("sown");
      if (taken.has(place.pit)) classes.push("taken");
      if (o.active === place.pit) classes.push("active");
      if (view.controllers) classes.push("controlled-" + view.controllers[place.pit]);
      const claim = view.claims ? view.claims[place.pit] : null;
      if (claim) classes.push("claimed-" + claim);
      const g = el("g", {
        class: classes.join(" "), "data-pit": place.pit, "data-label": place.label,
        "data-moves": moves.join(" "), "data-seeds": n,
      }, svg);
      el("circle", { class: "pit", cx, cy, r: CELL / 2 - 6 }, g);
      if (claim) {
        // A claimed house (Toguz Kumalak's tuzdyk): its seeds go to the claimer's store.
        const mark = el("text", { class: "claim", x: cx - CELL / 2 + 12, y: cy - CELL / 2 + 16 }, g);
        mark.textContent = claim === "south" ? "S" : "N";
      }
      drawSeeds(g, cx, cy, n);
      const t = el("text", { class: "count", x: cx, y: cy }, g);
      t.textContent = n;
      // Labels sit outside the board, next to the row they name.
      const top = place.row < lay.rows / 2;
      const ly = top ? MARGIN + place.row * CELL + 11 : MARGIN + (place.row + 1) * CELL - 4;
      const lab = el("text", { class: "label", x: cx + CELL / 2 - 9, y: ly }, g);
      lab.textContent = place.label;
      if (moves.length <= 1) {
        // A house that is no legal move is sent too: the server says why it is refused.
        g.addEventListener("click", () => o.onHouse && o.onHouse(moves.length === 1 ? moves[0] : place.label));
      } else {
        // The mover chooses the direction: one mark a move, `+` counter-clockwise.
        moves.forEach((m, k) => {
          const mx = cx + (k === 0 ? 14 : -14);
          const d = el("g", { class: "direction", "data-move": m }, g);
          el("circle", { cx: mx, cy: cy + 19, r: 10 }, d);
          const a = el("text", { x: mx, y: cy + 19 }, d);
          a.textContent = m.endsWith("+") ? "↺" : "↻";
          d.addEventListener("click", (e) => { e.stopPropagation(); if (o.onHouse) o.onHouse(m); });
        });
      }
    }

    // The stores (or counts) at both ends: South's after South's last house in its sowing
    // direction, as the server's layout says; North's at the other end.
    const right = width - STORE + 8;
    const ends = lay.south_end === "left" ? [["south", 8, 0], ["north", right, 1]] : [["north", 8, 1], ["south", right, 0]];
    for (const [side, x, idx] of ends) {
      const g = el("g", { class: "store", "data-score": side }, svg);
      el("rect", { x, y: MARGIN + 4, width: STORE - 16, height: lay.rows * CELL - 8, rx: 30 }, g);
      const c = el("text", { class: "store-count", x: x + (STORE - 16) / 2, y: MARGIN + (lay.rows * CELL) / 2 }, g);
      c.textContent = frame.scores[idx];
      const w = el("text", { class: "store-name", x: x + (STORE - 16) / 2, y: MARGIN + lay.rows * CELL - 14 }, g);
      w.textContent = scoreWords[lay.scores] || "";
      const who = el("text", { class: "store-name", x: x + (STORE - 16) / 2, y: MARGIN + 20 }, g);
      who.textContent = side;
    }
    for (const [side, y] of [["north", 14], ["south", height - 6]]) {
      const t = el("text", { class: `side-name ${side}` + (view.side_to_move === side && !view.result ? " to-move" : ""), x: width / 2, y }, svg);
      const who = view.engine_side === side ? " (engine)" : (view.engine_side ? " (you)" : "");
      t.textContent = side[0].toUpperCase() + side.slice(1) + who;
    }
    // Seeds lifted and not yet sown, while a sowing is shown.
    if (frame.hand > 0) {
      const h = el("text", { class: "hand", x: width - 12, y: 14 }, svg);
      h.textContent = `in hand: ${frame.hand}`;
    }
  }

  // A line chart of several series: {name: [[x, y], ...]}.
  function chart(svg, series, colours) {
    const W = 560, H = 220, L = 46, R = 10, T = 10, B = 42;
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const names = Object.keys(series).filter((k) => series[k].length > 0);
    if (names.length === 0) {
      const t = el("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, svg);
      t.textContent = "no figures yet";
      return;
    }
    const pts = names.flatMap((k) => series[k]);
    let [x0, x1] = [Math.min(...pts.map((p) => p[0])), Math.max(...pts.map((p) => p[0]))];
    let [y0, y1] = [Math.min(...pts.map((p) => p[1])), Math.max(...pts.map((p) => p[1]))];
    if (x1 === x0) x1 = x0 + 1;
    if (y1 === y0) { y0 -= 1; y1 += 1; }
    const sx = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
    const sy = (y) => T + (1 - (y - y0) / (y1 - y0)) * (H - T - B);
    el("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B }, svg);
    el("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B }, svg);
    for (const [v, y] of [[y1, T + 4], [y0, H - B]]) {
      const t = el("text", { x: L - 4, y, "text-anchor": "end" }, svg);
      t.textContent = Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2);
    }
    for (const [v, x, anchor] of [[x0, L, "start"], [x1, W - R, "end"]]) {
      const t = el("text", { x, y: H - B + 13, "text-anchor": anchor }, svg);
      t.textContent = "iteration " + v;
    }
    names.forEach((k, i) => {
      const colour = colours[i % colours.length];
      el("polyline", { stroke: colour, points: series[k].map((p) => `${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join(" "), "data-series": k }, svg);
      // A style, not a fill attribute: the page's stylesheet colours chart text grey.
      const t = el("text", { x: L + (i % 4) * 128, y: H - 6 - Math.floor(i / 4) * 12, style: `fill: ${colour}` }, svg);
      t.textContent = k.replace(/^(elo|loss)\//, "");
    });
  }

  return { render, chart };
})();

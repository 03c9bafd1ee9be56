// The page's controller: asks the server for every game fact (legal houses, what a move did,
// the result) and draws it with Board. `document.body.dataset.busy` is "1" while a request
// or a sowing animation is under way, and `dataset.actions` counts the clicks and changes
// handled, so that a driver (the browser test) knows when its click was taken and the board
// is still.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { game: null, info: null, pending: 0, runs: [] };
const STEP_MS = 140;

// Wraps an event handler: counts it as handled before it starts its work.
function act(handler) {
  return (...args) => {
    document.body.dataset.actions = String((+document.body.dataset.actions || 0) + 1);
    return handler(...args);
  };
}

function setBusy(delta) {
  state.pending += delta;
  document.body.dataset.busy = state.pending > 0 ? "1" : "0";
}

async function api(method, path, body) {
  setBusy(1);
  try {
    const init = { method, headers: {} };
    if (body !== undefined) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch(path, init);
    const text = await res.text();
    const data = text ? JSON.parse(text) : null;
    if (!res.ok) throw new Error(data && data.error ? data.error : `${res.status} ${res.statusText}`);
    return data;
  } finally {
    setBusy(-1);
  }
}

function showMessage(text) {
  const m = $("message");
  m.textContent = text || "";
  m.hidden = !text;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function humanTurn(game) {
  return !game.result && game.engine_side !== game.side_to_move;
}

function draw(game, frame, active) {
  Board.render($("board"), game, {
    frame,
    active,
    clickable: !frame && humanTurn(game) && !state.thinking,
    onHouse: act(clickHouse),
  });
}

// Shows a new game state; after a move, plays its sowing step by step when asked to.
async function show(game, animate) {
  state.game = game;
  const course = game.last && game.last.course;
  if (animate && $("animate").checked && course) {
    setBusy(1);
    try {
      // Frame 0 is the board before the move, already shown; each next one is a step of
      // the engine's trace (a lift, a seed, a store, a capture).
      for (let k = 1; k < course.frames.length - 1; k++) {
        const f = course.frames[k];
        draw(game, f, f.active);
        await sleep(STEP_MS);
        if (state.game !== game) return; // a newer state arrived meanwhile
      }
    } finally {
      setBusy(-1);
    }
  }
  draw(game);
  $("status").textContent = game.result ? "" :
    `${game.side_to_move === "south" ? "South" : "North"} to move` + (humanTurn(game) ? "" : " (engine)");
  $("result").hidden = !game.result;
  $("result").textContent = game.result ? `Game over: ${game.result}` : "";
  $("position-line").textContent = game.position;
  $("record").value = game.record;
  $("engine-name").textContent = game.engine;
  $("preset").value = pickerValue(game.rules);
  const l = game.last;
  if (l) {
    const gained = l.gained.map((g, i) => g > 0 ? `${i === 0 ? "South" : "North"} +${g}` : "").filter(Boolean).join(", ");
    $("last-move").textContent = `Last move: ${l.side} sowed ${l.house}` + (gained ? ` (${gained})` : "");
  } else {
    $("last-move").textContent = "";
  }
}

async function clickHouse(label) {
  const game = state.game;
  if (!game || state.pending > 0 || state.thinking) return;
  try {
    const next = await api("POST", `/api/games/${game.id}/move`, { house: label });
    showMessage("");
    await show(next, true);
    await afterMove();
  } catch (e) {
    showMessage(e.message);
  }
}

// The engine moves while it is its turn (Kalah's extra turns give it several in a row).
async function afterMove() {
  while (state.game && !state.game.result && state.game.engine_side === state.game.side_to_move) {
    state.thinking = true;
    $("thinking").hidden = false;
    draw(state.game);
    let reply;
    try {
      reply = await api("POST", `/api/games/${state.game.id}/engine-move`);
    } catch (e) {
      showMessage(e.message);
      return;
    } finally {
      state.thinking = false;
      $("thinking").hidden = true;
    }
    showAnalysis({ thought: reply.thought, exact: null, side_to_move: reply.game.last.side }, "Engine's search for its move");
    await show(reply.game, true);
  }
  if ($("auto-analyse").checked && state.game && !state.game.result) await analyse();
}

function pct(x) { return (100 * x).toFixed(1) + "%"; }

function showAnalysis(a, title) {
  const t = a.thought;
  const box = $("analysis");
  box.classList.remove("quiet");
  const parts = [`<p><b>${title}</b> (${a.side_to_move} to move; ${t.simulations} simulations in ${t.milliseconds.toFixed(1)} ms)</p>`];
  parts.push(`<p>Search value: <b id="search-value">${t.value.toFixed(3)}</b> (−1 loss … +1 win)</p>`);
  if (t.network) {
    const n = t.network;
    parts.push(`<div class="wdl" id="wdl"><div class="w" style="width:${pct(n.win)}">W ${pct(n.win)}</div>` +
      `<div class="d" style="width:${pct(n.draw)}">D ${pct(n.draw)}</div><div class="l" style="width:${pct(n.loss)}">L ${pct(n.loss)}</div></div>`);
    parts.push(`<p>Expected margin: <b>${n.margin >= 0 ? "+" : ""}${n.margin.toFixed(1)}</b> seeds</p>`);
  } else {
    parts.push(`<p class="quiet">No network for these rules: value from random rollouts, no win/draw/loss split.</p>`);
  }
  parts.push(`<table class="moves" id="move-table"><tr><th>house</th><th>policy</th><th>visits</th><th>value</th></tr>`);
  for (const m of t.moves) {
    parts.push(`<tr class="${m.house === t.best ? "best" : ""}" data-house="${m.house}"><td>${m.house}</td>` +
      `<td><div class="bar policy" title="${pct(m.policy)}"><div style="width:${pct(m.policy)}"></div></div></td>` +
      `<td><div class="bar visits" title="${m.visits} (${pct(m.visit_share)})"><div style="width:${pct(m.visit_share)}"></div></div></td>` +
      `<td>${m.value === null ? "–" : m.value.toFixed(2)}</td></tr>`);
  }
  parts.push(`</table><p>Best line: <span class="pv" id="pv">${t.pv.join(" ") || "–"}</span></p>`);
  box.innerHTML = parts.join("");
  const ex = $("exact");
  if (a.exact) {
    const e = a.exact;
    ex.innerHTML = `<p><b>Endgame database:</b> exact value ${e.value >= 0 ? "+" : ""}${e.value} seeds still to win ` +
      `(final margin ${e.final_margin >= 0 ? "+" : ""}${e.final_margin}); best: <b id="exact-best">${e.best.join(" ") || "–"}</b></p>` +
      `<p class="small">${e.moves.map(([h, v]) => `${h} ${v >= 0 ? "+" : ""}${v}`).join(" · ")}</p>`;
  } else {
    const db = state.info && state.info.database;
    ex.innerHTML = !db ? "" : `<p class="quiet small">` +
      (state.game && db === state.game.rules ? "Outside the endgame database." : `The endgame database is for ${db}.`) + `</p>`;
  }
}

async function analyse() {
  if (!state.game) return;
  try {
    state.thinking = true;
    $("thinking").hidden = false;
    const a = await api("POST", `/api/games/${state.game.id}/analysis`);
    showAnalysis(a, "Analysis");
  } catch (e) {
    showMessage(e.message);
  } finally {
    state.thinking = false;
    $("thinking").hidden = true;
    draw(state.game);
  }
}

function strength() {
  const n = Math.max(1, parseInt($("strength").value, 10) || 1);
  return $("strength-unit").value === "milliseconds" ? { milliseconds: n } : { simulations: n };
}

function engineSide() {
  return { south: "north", north: "south", both: "none" }[$("side").value];
}

// The game picker's entry for a rules string: its preset, its catalogue file, or "custom".
function pickerValue(rules) {
  if (!state.info) return "";
  const preset = rules.split(/[\s:]/)[0];
  if (state.info.presets.includes(preset) && rules.split(/\s/)[0] !== "sowing") return preset;
  const entry = state.info.catalogue.games.find((g) => g.rules === rules.trim() || g.game === rules);
  return entry ? entry.rules : "";
}

// A game from the description text the person wrote (TOML).
function newDescribedGame() {
  return newGame({ description: $("description").value });
}

async function newGame(extra) {
  const old = state.game;
  try {
    const body = Object.assign({ engine_side: engineSide(), strength: strength() }, extra || { rules: $("rules").value.trim() });
    const game = await api("POST", "/api/games", body);
    if (old) api("DELETE", `/api/games/${old.id}`).catch(() => {});
    showMessage("");
    $("analysis").textContent = "Press “Analyse position”, or let the engine move.";
    $("exact").textContent = "";
    await show(game, false);
    await afterMove();
  } catch (e) {
    showMessage(e.message);
  }
}

async function changeSettings() {
  if (!state.game) return;
  try {
    const game = await api("POST", `/api/games/${state.game.id}/settings`, { engine_side: engineSide(), strength: strength() });
    showMessage("");
    await show(game, false);
    await afterMove();
  } catch (e) {
    showMessage(e.message);
  }
}

async function undo() {
  const game = state.game;
  if (!game || state.thinking) return;
  // Against the engine, take back to the person's last turn; else one move.
  const you = { north: "south", south: "north" }[game.engine_side];
  try {
    const next = await api("POST", `/api/games/${game.id}/undo`, you ? { back_to: you } : { plies: 1 });
    showMessage("");
    await show(next, false);
  } catch (e) {
    showMessage(e.message);
  }
}

async function setPosition() {
  if (!state.game) return;
  try {
    const next = await api("POST", `/api/games/${state.game.id}/position`, { line: $("position-input").value });
    showMessage("");
    await show(next, false);
    await afterMove();
  } catch (e) {
    showMessage(e.message);
  }
}

async function copyRecord() {
  const text = $("record").value;
  try {
    await navigator.clipboard.writeText(text);
  } catch (_) {
    $("record").select();
    document.execCommand("copy");
  }
  $("copied").textContent = "copied";
  setTimeout(() => { $("copied").textContent = ""; }, 1500);
}

// Runs: the list, one run's curves, and games against its checkpoints.
async function loadRuns() {
  try {
    state.runs = await api("GET", "/api/runs");
  } catch (e) {
    $("run-info").textContent = e.message;
    return;
  }
  $("runs-panel").hidden = false;
  const sel = $("run-select");
  sel.replaceChildren(...state.runs.map((r) => new Option(`${r.name}${r.rules ? " (" + r.rules + ")" : ""}`, r.name)));
  if (state.runs.length === 0) {
    $("run-info").textContent = "No runs in the checkpoints folder yet.";
    return;
  }
  await showRun();
}

async function showRun() {
  const name = $("run-select").value;
  if (!name) return;
  try {
    const run = await api("GET", `/api/runs/${encodeURIComponent(name)}`);
    const cps = $("checkpoint-select");
    cps.replaceChildren(...run.models.map((m) => new Option(m === run.best ? `${m} (best)` : m, m)));
    if (run.best) cps.value = run.best;
    const elo = Object.entries(run.elo).map(([k, v]) => `${k} ${v >= 0 ? "+" : ""}${v.toFixed(0)}`).join(", ");
    $("run-info").textContent = `${run.models.length} checkpoints` + (elo ? `; latest Elo: ${elo}` : "") +
      (run.skipped_lines ? `; ${run.skipped_lines} unreadable metrics lines skipped` : "");
    const pick = (prefix) => Object.fromEntries(Object.entries(run.series).filter(([k]) => k.startsWith(prefix)));
    const colours = ["#2f6f9f", "#a63d40", "#2e7d32", "#7b5ea7", "#c77d00", "#555", "#0097a7"];
    Board.chart($("elo-chart"), pick("elo/"), colours);
    Board.chart($("loss-chart"), pick("loss/"), colours);
  } catch (e) {
    $("run-info").textContent = e.message;
  }
}

async function start() {
  try {
    state.info = await api("GET", "/api/info");
  } catch (e) {
    showMessage("Cannot reach the server: " + e.message);
    return;
  }
  const preset = $("preset");
  const presets = document.createElement("optgroup");
  presets.label = "Presets";
  presets.replaceChildren(...state.info.presets.map((p) => new Option(p, p)));
  const groups = [presets];
  if (state.info.catalogue.games.length > 0) {
    const described = document.createElement("optgroup");
    described.label = "Described games";
    described.replaceChildren(...state.info.catalogue.games.map((g) => new Option(g.title, g.rules)));
    groups.push(described);
  }
  preset.replaceChildren(new Option("(your rules)", ""), ...groups);
  preset.value = pickerValue(state.info.default_rules);
  $("rules").value = state.info.default_rules;
  $("strength").max = state.info.max_simulations;
  preset.addEventListener("change", act(() => {
    if (!preset.value) return;
    $("rules").value = preset.value;
    newGame();
  }));
  $("new-described").addEventListener("click", act(newDescribedGame));
  $("rules").addEventListener("keydown", (e) => { if (e.key === "Enter") act(newGame)(); });
  $("new-game").addEventListener("click", act(() => newGame()));
  $("undo").addEventListener("click", act(undo));
  $("side").addEventListener("change", act(changeSettings));
  $("strength").addEventListener("change", act(changeSettings));
  $("strength-unit").addEventListener("change", act(() => {
    $("strength").value = $("strength-unit").value === "milliseconds" ? 1000 : 400;
    changeSettings();
  }));
  $("analyse").addEventListener("click", act(analyse));
  $("set-position").addEventListener("click", act(setPosition));
  $("position-input").addEventListener("keydown", (e) => { if (e.key === "Enter") act(setPosition)(); });
  $("copy-record").addEventListener("click", act(copyRecord));
  $("run-select").addEventListener("change", act(showRun));
  $("play-checkpoint").addEventListener("click", act(() => {
    const run = $("run-select").value, model = $("checkpoint-select").value;
    if (run && model) newGame({ run, model });
  }));
  if (state.info.runs) loadRuns();
  await newGame();
}

setBusy(1);
start().finally(() => setBusy(-1));

// Review (photo) and manual entry: fix cells with a tap, watch the score sheet follow, save.
import { cellEditor } from "./celleditor.js";
import { cityJson, manualEntry, recoloured, sizeSteps, stepSizes } from "./city.js";
import { renderGrid } from "./citygrid.js";
import { api, clearDraft, describeGame, el, loadDraft, rulesById, saveDraft, showMessage } from "./common.js";
import { cellAt, drawOverlay } from "./overlay.js";
import { renderSheet } from "./sheet.js";

const root = document.getElementById("review");
const rules = rulesById();
const draft = loadDraft();
const $ = (id) => document.getElementById(id);

let entry = null;
let sheet = null;         // the latest score sheet from /api/score
let selected = null;      // the sheet line whose cells are highlighted
let scoring = 0;          // number of the latest /api/score request (older answers are dropped)
let editor = null;
const RECOLOURED_HINT = 2;  // pieces given another colour before calibrating is suggested

function start() {
  if (!draft) {
    window.location.replace("/new");
    return;
  }
  entry = draft.players[draft.current];
  if (!entry) {
    if (root.dataset.source !== "manual") {
      window.location.replace("/capture");
      return;
    }
    entry = manualEntry();
    draft.players[draft.current] = entry;
    saveDraft(draft);
  }
  if (entry.source === "manual") $("review-title").textContent = "Enter your city";
  describe();
  buildRulesChoice();
  $("player").value = entry.player || "";
  $("date").value = draft.date;
  $("notes").value = draft.notes || "";
  for (const w of (entry.detected && entry.detected.warnings) || []) $("warnings").append(el("li", { text: w }));
  if (entry.photo_url && entry.homography) {
    $("photo").src = entry.photo_url;
    $("photo-block").hidden = false;
    $("overlay").addEventListener("click", (e) => {
      const cell = cellAt($("overlay"), entry, e.clientX, e.clientY);
      if (cell) editor.open(cell.row, cell.col);
    });
  }
  editor = cellEditor($("cell-editor"), entry, changed);
  $("sizes-larger").addEventListener("click", () => { stepSizes(entry, 1); changed(); });
  $("sizes-smaller").addEventListener("click", () => { stepSizes(entry, -1); changed(); });
  render();
  rescore();
}

function describe() {
  $("game-line").textContent = describeGame(draft, rules)
    + (draft.competitive ? ` · player ${draft.current + 1}` : "");
}

// Picked the wrong rules at the start? Change them here; every player's city follows.
function buildRulesChoice() {
  const needed = draft.variant === "small-city" ? 2 : 3;
  const boxes = Object.values(rules).map((r) => el("input", {
    type: "checkbox", value: r.id, checked: draft.rules.includes(r.id),
  }));
  $("rules-choice").replaceChildren(...boxes.map((box) => el("li", {},
    el("label", { class: "choice" }, box, el("span", { text: `${rules[box.value].name} ` },
      el("small", { text: `target ${rules[box.value].target}` }))))));
  $("rules-choice").addEventListener("change", () => {
    const chosen = boxes.filter((b) => b.checked).map((b) => b.value);
    showMessage($("rules-error"), chosen.length === needed ? "" : `Pick ${needed} rules; ${chosen.length} picked.`);
    if (chosen.length !== needed) return;
    draft.rules = chosen;
    selected = null;
    describe();
    changed();
  });
}

function illegalCells() {
  return new Set(((sheet && sheet.illegal) || []).flatMap((i) => i.cells.map(([r, c]) => `${r},${c}`)));
}

function highlightCells() {
  return new Set(((selected && selected.cells) || []).map(([r, c]) => `${r},${c}`));
}

function render() {
  const marks = { illegal: illegalCells(), highlight: highlightCells() };
  renderGrid($("grid"), entry, { editable: true, onTap: (row, col) => editor.open(row, col), ...marks });
  $("empty-hint").hidden = entry.pieces.length > 0;
  $("calibrate-hint").hidden = recoloured(entry) < RECOLOURED_HINT;
  const steps = entry.source === "photo" ? sizeSteps(entry) : [];
  $("size-steps").hidden = !steps.length;
  $("sizes-larger").hidden = !steps.includes(1);
  $("sizes-smaller").hidden = !steps.includes(-1);
  if (!$("photo-block").hidden) drawOverlay($("overlay"), entry, marks);
  renderPlayers();
}

function renderScore() {
  const illegal = (sheet && sheet.illegal) || [];
  $("illegal-block").hidden = !illegal.length;
  $("illegal").replaceChildren(...illegal.map((i) => el("li", { "data-reason": i.reason, text: i.message || i.reason })));
  if (sheet) {
    renderSheet($("sheet"), sheet, { competitive: draft.competitive, selected: selected && selected.key, onSelect: select });
  }
  const detail = $("sheet-detail");
  detail.replaceChildren();
  if (selected) {
    detail.append(el("p", { text: `${selected.label}: ${selected.value}` }));
    detail.append(el("ul", {}, ...selected.notes.map((n) => el("li", { text: n }))));
  }
}

function select(line) {
  selected = line;
  renderScore();
  render();
}

async function rescore() {
  const ticket = ++scoring;
  try {
    const result = await api("/api/score", { json: cityJson(entry, draft) });
    if (ticket !== scoring) return;
    sheet = result;
    entry.total = result.total;
    saveDraft(draft);
    if (selected) {
      const again = result.rules.find((r) => `rule:${r.id}` === selected.key);
      const cells = again ? again.cells : (result.base_cells || {})[selected.key];
      selected = cells ? { ...selected, cells } : null;
    }
    showMessage($("score-error"), "");
  } catch (err) {
    if (ticket !== scoring) return;
    sheet = null;
    $("sheet").replaceChildren();
    showMessage($("score-error"), err.message);
  }
  renderScore();
  render();
}

function changed() {
  saveDraft(draft);
  render();
  rescore();
}

// Competitive games: the cities entered so far, and moving on to the next player.
function renderPlayers() {
  $("players-block").hidden = !draft.competitive;
  if (!draft.competitive) return;
  $("players").replaceChildren(...draft.players.map((p, i) => el("li", {},
    el(i === draft.current ? "b" : "a", i === draft.current ? {} : { href: "#", onclick: (e) => { e.preventDefault(); switchTo(i); } },
      `${p.player || `Player ${i + 1}`}: ${p.total === undefined ? "…" : p.total}`))));
}

function switchTo(index) {
  draft.current = index;
  saveDraft(draft);
  window.location.href = draft.players[index].source === "manual" ? "/manual" : "/review";
}

function addPlayer(next) {
  if (!keepForm()) return;
  draft.current = draft.players.length;
  saveDraft(draft);
  window.location.href = next;
}

function keepForm() {
  entry.player = $("player").value.trim();
  draft.date = $("date").value;
  draft.notes = $("notes").value;
  saveDraft(draft);
  if (draft.competitive && !entry.player) {
    showMessage($("save-error"), "Give this city's player a name first.");
    return false;
  }
  return true;
}

async function save(event) {
  event.preventDefault();
  if (!keepForm()) return;
  if (!entry.pieces.length) {
    showMessage($("save-error"), "The city is empty: place at least one piece first.");
    return;
  }
  const players = draft.players.filter((p) => p.pieces.length).map((p) => ({
    player: p.player, city: cityJson(p, draft), detected: p.detected, photo: p.photo,
  }));
  const body = draft.competitive
    ? { uid: draft.uid, date: draft.date, notes: draft.notes, players }
    : { uid: draft.uid, date: draft.date, notes: draft.notes, ...players[0], score: sheet };
  $("save").disabled = true;
  try {
    const game = await api("/api/games", { json: body });
    clearDraft();
    window.location.href = `/games/${game.id}?saved=1`;
  } catch (err) {
    showMessage($("save-error"), `Not saved: ${err.message}`);
    $("save").disabled = false;
  }
}

$("save-form").addEventListener("submit", save);
$("add-photo-player").addEventListener("click", () => addPlayer("/capture"));
$("add-manual-player").addEventListener("click", () => addPlayer("/manual"));
for (const id of ["player", "date", "notes"]) $(id).addEventListener("change", keepForm);
window.addEventListener("pageshow", (e) => { if (e.persisted) window.location.reload(); });
start();

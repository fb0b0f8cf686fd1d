// One saved game: its cities, photos and score sheets; delete it after a confirmation.
import { detectedDoubts, detectedPieces } from "./city.js";
import { renderGrid } from "./citygrid.js";
import { api, describeGame, el, rulesById, showMessage } from "./common.js";
import { drawOverlay } from "./overlay.js";
import { renderSheet } from "./sheet.js";

const $ = (id) => document.getElementById(id);
const gameId = Number($("game").dataset.gameId);
const rules = rulesById();

// The photo with what citycam read from it (before any correction) drawn over it.
function photoBlock(p) {
  const img = el("img", { class: "photo", src: p.photo_url, alt: `Photo of ${p.player || "the"} city` });
  const detected = p.detected;
  if (!detected || !detected.grid || !detected.image) return img;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "overlay");
  drawOverlay(svg, {
    pieces: detectedPieces(detected), doubtful: detectedDoubts(detected), homography: detected.grid.homography,
    image: detected.image, offset: { row: 0, col: 0 },
  });
  return el("figure", { class: "detected" }, el("div", { class: "photo-wrap" }, img, svg),
    el("figcaption", { class: "muted small", text: "What citycam read from the photo, before corrections." }));
}

function playerBlock(game, p) {
  const competitive = game.mode === "competitive";
  const grid = el("div", { class: "city-grid" });
  const entry = { pieces: p.city.pieces.map((q) => ({ ...q, level: q.level || 0 })) };
  const table = el("table", { class: "sheet" });
  const detail = el("div", { class: "sheet-detail" });
  let selected = null;
  const draw = () => {
    const highlight = new Set(((selected && selected.cells) || []).map(([r, c]) => `${r},${c}`));
    const illegal = new Set(p.score.illegal.flatMap((i) => i.cells.map(([r, c]) => `${r},${c}`)));
    renderGrid(grid, entry, { highlight, illegal });
    renderSheet(table, p.score, {
      competitive, selected: selected && selected.key,
      onSelect: (line) => { selected = line; draw(); },
    });
    detail.replaceChildren(...(selected ? [el("ul", {}, ...selected.notes.map((n) => el("li", { text: n })))] : []));
  };
  draw();
  const heading = competitive ? `${p.rank}. ${p.player}` : (p.player || "");
  return el("section", { class: "player" },
    heading ? el("h2", { text: heading }) : null,
    p.photo_url ? photoBlock(p) : null,
    el("div", { class: "grid-scroll" }, grid),
    p.score.illegal.length ? el("ul", { class: "illegal-list" }, ...p.score.illegal.map((i) => el("li", { text: i.message || i.reason }))) : null,
    table, detail);
}

async function load() {
  try {
    const game = await api(`/api/games/${gameId}`);
    const result = game.mode === "competitive" ? `competitive, best ${game.total}`
      : `${game.total} against ${game.target}: ${game.won ? "won" : "lost"}`;
    $("game-title").textContent = `${game.date} · ${result}`;
    $("game-line").textContent = describeGame(game, rules);
    $("game-notes").textContent = game.notes;
    const players = [...game.players].sort((a, b) => (a.rank || 0) - (b.rank || 0));
    $("players-detail").replaceChildren(...players.map((p) => playerBlock(game, p)));
  } catch (err) {
    showMessage($("game-error"), err.message);
  }
}

$("delete").addEventListener("click", async () => {
  if (!window.confirm("Delete this game for good? Its photo goes too.")) return;
  try {
    await api(`/api/games/${gameId}`, { method: "DELETE" });
    window.location.href = "/history";
  } catch (err) {
    showMessage($("game-error"), err.message);
  }
});

$("saved-note").hidden = new URLSearchParams(window.location.search).get("saved") !== "1";
load();

// History: the record (wins, best, average, per rule), the score-against-target chart, the
// list of games, export and import.
import { api, el, showMessage } from "./common.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

function svgNode(tag, attrs, text) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
  if (text !== undefined) n.textContent = text;
  return n;
}

function percent(rate) {
  return rate === null ? "–" : `${Math.round(rate * 100)}%`;
}

function renderStats(stats) {
  const card = (label, value, id) => el("div", { class: "stat", id }, el("b", { text: String(value) }), el("span", { text: label }));
  $("stats").replaceChildren(
    card("games", stats.games, "stat-games"),
    card("win rate", percent(stats.win_rate), "stat-win-rate"),
    card("best", stats.best ?? "–", "stat-best"),
    card("average", stats.average ?? "–", "stat-average"),
  );
  $("rule-stats").replaceChildren(...stats.per_rule.map((r) => el("tr", { "data-rule": r.id },
    el("th", { scope: "row", text: r.name }),
    el("td", { text: `${r.wins}/${r.games}` }),
    el("td", { text: percent(r.win_rate) }))));
}

// Score (dots: green won, red lost) and target (dashes) of each solo game, oldest first.
function renderChart(points) {
  const box = $("chart");
  box.replaceChildren();
  if (!points.length) {
    box.append(el("p", { class: "muted", text: "Save a solo game to start the chart." }));
    return;
  }
  const W = 360, H = 220, left = 34, right = 10, top = 10, bottom = 26;
  const values = points.flatMap((p) => [p.total, p.target]);
  let lo = Math.min(0, ...values), hi = Math.max(10, ...values);
  const pad = (hi - lo) * 0.08;
  lo -= pad; hi += pad;
  const x = (i) => left + (points.length === 1 ? (W - left - right) / 2 : (i * (W - left - right)) / (points.length - 1));
  const y = (v) => top + ((hi - v) * (H - top - bottom)) / (hi - lo);
  const svg = svgNode("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "Score against target over time" });
  for (const tick of niceTicks(lo, hi)) {
    svg.append(svgNode("line", { x1: left, x2: W - right, y1: y(tick), y2: y(tick), class: "axis" }));
    svg.append(svgNode("text", { x: left - 4, y: y(tick), class: "tick", "text-anchor": "end", "dominant-baseline": "central" }, tick));
  }
  svg.append(svgNode("polyline", { class: "target-line", points: points.map((p, i) => `${x(i)},${y(p.target)}`).join(" ") }));
  svg.append(svgNode("polyline", { class: "score-line", points: points.map((p, i) => `${x(i)},${y(p.total)}`).join(" ") }));
  points.forEach((p, i) => {
    const link = svgNode("a", { href: `/games/${p.id}` });
    const dot = svgNode("circle", { cx: x(i), cy: y(p.total), r: 7, class: `point ${p.won ? "won" : "lost"}`, "data-game-id": p.id });
    dot.append(svgNode("title", {}, `${p.date}: ${p.total} (target ${p.target})`));
    link.append(dot);
    svg.append(link);
  });
  svg.append(svgNode("text", { x: left, y: H - 6, class: "tick" }, points[0].date));
  if (points.length > 1) svg.append(svgNode("text", { x: W - right, y: H - 6, class: "tick", "text-anchor": "end" }, points[points.length - 1].date));
  box.append(svg, el("p", { class: "legend small" },
    el("span", { class: "key won", text: "● won" }), " ", el("span", { class: "key lost", text: "● lost" }), " ",
    el("span", { class: "key target", text: "– – target" })));
}

function niceTicks(lo, hi) {
  const step = [1, 2, 5, 10, 20, 50, 100].find((s) => (hi - lo) / s <= 6) || 200;
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) ticks.push(t);
  return ticks;
}

function renderGames(games) {
  const list = $("games");
  if (!games.length) {
    list.replaceChildren(el("li", { class: "muted", text: "No games saved yet." }));
    return;
  }
  list.replaceChildren(...games.map((g) => {
    const result = g.mode === "competitive"
      ? `winner ${g.players.filter((p) => p.rank === 1).map((p) => p.player).join(" & ")}: ${g.total}`
      : `${g.total} / ${g.target} ${g.won ? "won" : "lost"}`;
    const who = g.players.map((p) => p.player).filter(Boolean).join(", ");
    return el("li", { "data-game-id": g.id },
      el("a", { href: `/games/${g.id}`, class: `game-link ${g.won === null ? "" : g.won ? "won" : "lost"}` },
        el("b", { text: g.date }), " ", el("span", { text: result }),
        el("small", { text: [g.variant === "small-city" ? "Small City" : "", who, `${g.rules.length} rules`].filter(Boolean).join(" · ") })));
  }));
}

async function load() {
  try {
    const [games, stats] = await Promise.all([api("/api/games"), api("/api/stats")]);
    renderGames(games.games);
    renderStats(stats);
    renderChart(stats.points);
  } catch (err) {
    showMessage($("history-error"), err.message);
  }
}

$("import-input").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  const form = new FormData();
  form.append("file", file);
  try {
    const result = await api("/api/import", { method: "POST", body: form });
    showMessage($("import-result"), `Imported ${result.added} game(s); ${result.skipped} already here.`);
    load();
  } catch (err) {
    showMessage($("import-result"), `Not imported: ${err.message}`);
  }
});

load();

// The score sheet laid out like the paper one; tapping a line selects the cells behind it.
import { el } from "./common.js";

const COLOR_LINES = [
  ["red", "Residential (red)"], ["yellow", "Industrial (yellow)"],
  ["blue", "Commercial (blue)"], ["green", "Green space (green)"],
];

// The lines of the sheet: {label, value, key?, cells?, notes?, kind?}.
function sheetLines(score, competitive) {
  const base = score.base;
  const baseCells = score.base_cells || {};
  const baseItems = score.base_items || {};
  const notes = (items) => (items || []).map((i) => i.note).filter(Boolean);
  const colors = COLOR_LINES.reduce((sum, [c]) => sum + base[c], 0);
  const rulesSum = score.rules.reduce((sum, r) => sum + r.points, 0);
  const lines = COLOR_LINES.map(([c, label]) => ({
    label, value: base[c], key: c, cells: baseCells[c], notes: notes(baseItems[c]),
  }));
  lines.push({ label: "Colors SUM", value: colors, kind: "sum" });
  lines.push({ label: "Black", value: base.black, key: "black", cells: baseCells.black, notes: notes(baseItems.black) });
  lines.push({ label: "(Colors - Black) Subtotal", value: colors + base.black, kind: "sum" });
  score.rules.forEach((r, i) => lines.push({
    label: `Scoring Rule #${i + 1}: ${r.name}`, value: r.points, key: `rule:${r.id}`,
    cells: r.cells, notes: notes(r.items), target: r.target,
  }));
  lines.push({ label: "Scoring Rules SUM", value: rulesSum, kind: "sum" });
  if (!competitive) lines.push({ label: "Scoring Rules Targets SUM", value: score.target, kind: "target" });
  lines.push({ label: "Total", value: score.total, kind: "total" });
  return lines;
}

// onSelect(line or null) is called when a line with cells is tapped (again to clear).
export function renderSheet(table, score, { competitive = false, selected = null, onSelect } = {}) {
  table.replaceChildren();
  for (const line of sheetLines(score, competitive)) {
    const tappable = Boolean(line.key && onSelect);
    const row = el("tr", {
      class: [line.kind, tappable ? "tappable" : "", line.key === selected ? "selected" : ""].join(" ").trim(),
      "data-key": line.key,
    },
    el("th", { scope: "row" }, line.label, line.target !== undefined && !competitive
      ? el("small", { text: ` target ${line.target}` }) : null),
    el("td", { text: String(line.value) }));
    if (tappable) {
      const toggle = () => onSelect(line.key === selected ? null : line);
      row.tabIndex = 0;
      row.addEventListener("click", toggle);
      row.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          toggle();
        }
      });
    }
    table.append(row);
  }
  if (!competitive) {
    table.append(el("tr", { class: `result ${score.won ? "won" : "lost"}` },
      el("th", { scope: "row", text: "Result" }),
      el("td", { text: score.won ? "Won" : "Lost" })));
  }
}

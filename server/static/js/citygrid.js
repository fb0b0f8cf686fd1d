// The city as a plan of cells (row 0 at the top, as in the photo). Editable plans get a
// border of empty cells around the city so pieces can be added on every side.
import { bounds, isDoubtful, piecesAt, SIZES } from "./city.js";
import { el } from "./common.js";

const LETTER = { 1: "S", 2: "M", 3: "L" };
const CELL_MIN = 38;  // px: still a comfortable tap; wider plans scroll inside their box
const CELL_MAX = 56;
const LABEL = 24;
const GAP = 3;

function pieceNode(piece, top) {
  const unsure = Boolean(piece.unsure);
  const classes = ["piece", `c-${piece.color}`, `s-${piece.size}`];
  if (top) classes.push("top");
  if (unsure) classes.push("unsure");
  return el("span", { class: classes.join(" "), text: LETTER[piece.size] + (unsure ? "?" : "") });
}

export function describeCell(entry, row, col) {
  const here = piecesAt(entry, row, col);
  const what = here.length
    ? here.map((p) => `${SIZES[p.size]} ${p.color}${p.level ? " on top" : ""}`).join(", ")
    : `empty${isDoubtful(entry, row, col) ? " (check: a piece may stand here)" : ""}`;
  return `row ${row}, col ${col}: ${what}`;
}

// options: {editable, onTap(row, col), illegal: Set("r,c"), highlight: Set("r,c")}
export function renderGrid(container, entry, options = {}) {
  const { rows, cols } = bounds(entry);
  const margin = options.editable ? 1 : 0;
  const r0 = rows ? -margin : 0;
  const c0 = cols ? -margin : 0;
  const r1 = rows ? rows - 1 + margin : 0;
  const c1 = cols ? cols - 1 + margin : 0;
  const illegal = options.illegal || new Set();
  const highlight = options.highlight || new Set();
  container.replaceChildren();
  const columns = c1 - c0 + 1;
  const room = ((container.parentElement && container.parentElement.clientWidth) || 340) - LABEL - GAP * (columns + 1) - 4;
  const cell = Math.max(CELL_MIN, Math.min(CELL_MAX, Math.floor(room / columns)));
  container.style.setProperty("--cell", `${cell}px`);
  container.style.gridTemplateColumns = `${LABEL}px repeat(${columns}, var(--cell))`;
  container.append(el("span", { class: "label" }));
  for (let c = c0; c <= c1; c++) {
    container.append(el("span", { class: "label", text: c >= 0 && c < cols ? String(c) : "" }));
  }
  for (let r = r0; r <= r1; r++) {
    container.append(el("span", { class: "label", text: r >= 0 && r < rows ? String(r) : "" }));
    for (let c = c0; c <= c1; c++) {
      const key = `${r},${c}`;
      const here = piecesAt(entry, r, c);
      const classes = ["cell"];
      if (!here.length) classes.push("empty");
      const doubtful = !here.length && isDoubtful(entry, r, c);
      if (doubtful) classes.push("doubtful");
      if (illegal.has(key)) classes.push("illegal");
      if (highlight.has(key)) classes.push("highlight");
      const attrs = {
        class: classes.join(" "), "data-row": r, "data-col": c,
        "aria-label": describeCell(entry, r, c), role: "gridcell",
      };
      const cell = options.editable
        ? el("button", { ...attrs, type: "button", onclick: () => options.onTap(r, c) })
        : el("div", attrs);
      here.forEach((p) => cell.append(pieceNode(p, p.level > 0)));
      if (doubtful) cell.append(el("span", { class: "doubt", text: "?" }));
      container.append(cell);
    }
  }
}

// The photo overlay: the detected grid and the pieces drawn over the photo through the grid
// homography (grid (col, row, 1) -> image (x, y, w)); taps map back to cells.
import { bounds } from "./city.js";

const SVG = "http://www.w3.org/2000/svg";
const STROKE = { red: "#ff3b30", yellow: "#ffd60a", green: "#34c759", blue: "#0a84ff", black: "#111" };

function project(h, col, row) {
  const w = h[2][0] * col + h[2][1] * row + h[2][2];
  return [(h[0][0] * col + h[0][1] * row + h[0][2]) / w, (h[1][0] * col + h[1][1] * row + h[1][2]) / w];
}

function invert(m) {
  const [[a, b, c], [d, e, f], [g, h, i]] = m;
  const A = e * i - f * h, B = f * g - d * i, C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [
    [A / det, (c * h - b * i) / det, (b * f - c * e) / det],
    [B / det, (a * i - c * g) / det, (c * d - a * f) / det],
    [C / det, (b * g - a * h) / det, (a * e - b * d) / det],
  ];
}

function node(tag, attrs) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
  return n;
}

// The plan cell (row, col) under a tap, or null when the tap is off the city and its border.
export function cellAt(svg, entry, clientX, clientY) {
  const rect = svg.getBoundingClientRect();
  const x = ((clientX - rect.left) * entry.image.width) / rect.width;
  const y = ((clientY - rect.top) * entry.image.height) / rect.height;
  const [col, row] = project(invert(entry.homography), x, y);
  const r = Math.round(row) - entry.offset.row;
  const c = Math.round(col) - entry.offset.col;
  const { rows, cols } = bounds(entry);
  if (r < -1 || c < -1 || r > rows || c > cols) return null;
  return { row: r, col: c };
}

// options: {illegal: Set("r,c"), highlight: Set("r,c")}
export function drawOverlay(svg, entry, options = {}) {
  const h = entry.homography;
  const { width, height } = entry.image;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren();
  const { rows, cols } = bounds(entry);
  const at = (r, c) => project(h, c + entry.offset.col, r + entry.offset.row);
  const [x0, y0] = at(0, 0);
  const [x1, y1] = at(0, 1);
  const pitch = Math.hypot(x1 - x0, y1 - y0) || Math.min(width, height) / 10;
  const line = (a, b, cls) => svg.append(node("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: cls }));
  for (let r = -0.5; r <= rows - 0.5; r++) line(at(r, -0.5), at(r, cols - 0.5), "grid-line");
  for (let c = -0.5; c <= cols - 0.5; c++) line(at(-0.5, c), at(rows - 0.5, c), "grid-line");
  const mark = (cells, cls) => {
    for (const key of cells) {
      const [r, c] = key.split(",").map(Number);
      const corners = [[-0.5, -0.5], [-0.5, 0.5], [0.5, 0.5], [0.5, -0.5]].map(([dr, dc]) => at(r + dr, c + dc).join(","));
      svg.append(node("polygon", { points: corners.join(" "), class: cls }));
    }
  };
  mark(options.highlight || [], "cell-highlight");
  mark(options.illegal || [], "cell-illegal");
  for (const d of entry.doubtful || []) {
    const [x, y] = at(d.row, d.col);
    const g = node("g", { class: "doubt-mark", "data-row": d.row, "data-col": d.col });
    g.append(node("circle", { cx: x, cy: y, r: pitch * 0.32, "stroke-width": pitch * 0.05 }));
    const label = node("text", { x, y, "font-size": pitch * 0.4, "text-anchor": "middle", "dominant-baseline": "central" });
    label.textContent = "?";
    g.append(label);
    svg.append(g);
  }
  for (const p of entry.pieces) {
    const [x, y] = at(p.row, p.col);
    const unsure = Boolean(p.unsure);
    const radius = pitch * (0.18 + 0.07 * p.size) * (p.level ? 0.55 : 1);
    const g = node("g", { class: `piece-mark${unsure ? " unsure" : ""}`, "data-row": p.row, "data-col": p.col });
    g.append(node("circle", { cx: x, cy: y, r: radius, stroke: STROKE[p.color], "stroke-width": pitch * 0.06 }));
    const label = node("text", { x, y, "font-size": pitch * 0.3, "text-anchor": "middle", "dominant-baseline": "central" });
    label.textContent = ["", "S", "M", "L"][p.size] + (unsure ? "?" : "");
    g.append(label);
    svg.append(g);
  }
}

// The cell editor: a bottom sheet with colour and size buttons for a cell's piece and for a
// piece stacked on top of it. Edits go straight into the entry; onChange() follows each one.
import { clearDoubt, COLORS, piecesAt, removePiece, setPiece, SIZES } from "./city.js";
import { describeCell } from "./citygrid.js";
import { el } from "./common.js";

export function cellEditor(dialog, entry, onChange) {
  const title = dialog.querySelector("#editor-title");
  const addTop = dialog.querySelector("#add-top");
  const topLayer = dialog.querySelector(".layer[data-level='1']");
  const lastUsed = { color: "red", size: 1 };  // what a new piece gets for what was not picked
  let editing = null;  // {row, col, offset} of the open cell

  // Edits can shift the plan (adding left of or above the city renumbers it): follow the cell.
  function edit(change) {
    change();
    editing = {
      row: editing.row - (entry.offset.row - editing.offset.row),
      col: editing.col - (entry.offset.col - editing.offset.col),
      offset: { ...entry.offset },
    };
    onChange();
    fill();
  }

  function fill() {
    const here = piecesAt(entry, editing.row, editing.col);
    title.textContent = describeCell(entry, editing.row, editing.col);
    for (const layer of dialog.querySelectorAll(".layer")) {
      const piece = here.find((p) => p.level === Number(layer.dataset.level));
      layer.querySelectorAll(".swatch").forEach((b) => b.setAttribute("aria-pressed", Boolean(piece && piece.color === b.dataset.color)));
      layer.querySelectorAll(".size").forEach((b) => b.setAttribute("aria-pressed", Boolean(piece && piece.size === Number(b.dataset.size))));
      layer.querySelector(".remove").hidden = !piece;
    }
    topLayer.hidden = here.length < 2;
    addTop.hidden = here.length !== 1;
  }

  for (const layer of dialog.querySelectorAll(".layer")) {
    const level = Number(layer.dataset.level);
    const put = (change) => edit(() => setPiece(entry, editing.row, editing.col, level, change, lastUsed));
    layer.querySelector(".swatches").append(...COLORS.map((color) => el("button", {
      type: "button", class: `swatch c-${color}`, "data-color": color, "aria-label": color, text: color,
      onclick: () => { lastUsed.color = color; put({ color }); },
    })));
    layer.querySelector(".sizes").append(...Object.entries(SIZES).map(([size, name]) => el("button", {
      type: "button", class: "size", "data-size": size, text: name,
      onclick: () => { lastUsed.size = Number(size); put({ size: Number(size) }); },
    })));
    layer.querySelector(".remove").addEventListener("click", () => edit(() => removePiece(entry, editing.row, editing.col, level)));
  }
  addTop.addEventListener("click", () => {
    topLayer.hidden = false;
    addTop.hidden = true;
  });
  dialog.addEventListener("close", () => { editing = null; });

  return {
    open(row, col) {
      editing = { row, col, offset: { ...entry.offset } };
      fill();
      if (clearDoubt(entry, row, col)) onChange();  // opened: the player has checked the cell
      dialog.showModal();
    },
  };
}

// The city being reviewed ("entry"): its pieces, kept normalised (smallest row and column 0,
// like the scorer's output, so the scorer's cells and messages match the plan), and the
// offset from those cells to the grid of the photo's homography.

export const COLORS = ["red", "yellow", "green", "blue", "black"];
export const SIZES = { 1: "small", 2: "medium", 3: "large" };

// Detected pieces as the review edits them; `unsure` marks those read with a confidence
// under the calibration profile's threshold (the mark goes once the player edits the cell).
export function detectedPieces(detection) {
  return detection.pieces.map((p) => ({
    row: p.row, col: p.col, color: p.color, size: p.size, level: p.level || 0,
    unsure: p.confidence < detection.uncertain_below,
  }));
}

// Cells read empty where a piece may stand unseen (a black piece on a dark table, say): the
// player checks them like the unsure pieces; the mark goes once the cell is opened.
export function detectedDoubts(detection) {
  return (detection.doubtful_empty || []).map(([row, col]) => ({ row, col }));
}

export function entryFromDetection(detection, previous) {
  return {
    source: "photo",
    player: (previous && previous.player) || detection.player || "",
    detected: detection,
    photo: detection.photo,
    photo_url: detection.photo_url,
    image: detection.image,
    homography: detection.grid && detection.grid.homography,
    offset: { row: 0, col: 0 },
    pieces: detectedPieces(detection),
    doubtful: detectedDoubts(detection),
  };
}

export function manualEntry() {
  return {
    source: "manual", player: "", detected: null, photo: null,
    photo_url: null, image: null, homography: null, offset: { row: 0, col: 0 }, pieces: [], doubtful: [],
  };
}

export function cityJson(entry, draft) {
  return {
    game: "zoning-out", variant: draft.variant, rules: draft.rules,
    pieces: entry.pieces.map(({ row, col, color, size, level }) =>
      (level ? { row, col, color, size, level } : { row, col, color, size })),
  };
}

export function piecesAt(entry, row, col) {
  return entry.pieces.filter((p) => p.row === row && p.col === col).sort((a, b) => a.level - b.level);
}

export function bounds(entry) {
  if (!entry.pieces.length) return { rows: 0, cols: 0 };
  return {
    rows: 1 + Math.max(...entry.pieces.map((p) => p.row)),
    cols: 1 + Math.max(...entry.pieces.map((p) => p.col)),
  };
}

// Set colour and/or size of the piece at (row, col, level), adding it when missing (the
// missing attribute comes from `defaults`). A top piece needs a piece under it.
export function setPiece(entry, row, col, level, change, defaults) {
  const here = piecesAt(entry, row, col);
  let piece = here.find((p) => p.level === level);
  if (!piece) {
    if (level > here.length) return;
    piece = { row, col, level, color: defaults.color, size: defaults.size };
    entry.pieces.push(piece);
  }
  Object.assign(piece, change);
  piece.unsure = false;
  normalise(entry);
}

// How many of the pieces read from the photo the player has given another colour (the same
// cell and level; the photo's cells are the entry's shifted by its offset).
export function recoloured(entry) {
  if (!entry.detected) return 0;
  const { row: dr, col: dc } = entry.offset;
  return entry.detected.pieces.filter((d) => entry.pieces.some((p) =>
    p.row === d.row - dr && p.col === d.col - dc && p.level === (d.level || 0) && p.color !== d.color)).length;
}

// The steps (+1 larger, -1 smaller) by which every piece's size may be moved together: a
// photo has no ruler, and a city of smalls and mediums laid wide apart looks like one of
// mediums and larges laid closer. Possible where no piece is large (or small) already.
export function sizeSteps(entry) {
  const sizes = new Set(entry.pieces.map((p) => p.size));
  if (!sizes.size) return [];
  return [1, -1].filter((step) => !sizes.has(step > 0 ? 3 : 1));
}

// Every piece one size larger (step +1) or smaller (-1); a stack's upper stays the smaller.
export function stepSizes(entry, step) {
  for (const p of entry.pieces) p.size += step;
}

export function isDoubtful(entry, row, col) {
  return (entry.doubtful || []).some((d) => d.row === row && d.col === col);
}

// Drop the mark of a doubtful cell; whether there was one.
export function clearDoubt(entry, row, col) {
  if (!isDoubtful(entry, row, col)) return false;
  entry.doubtful = entry.doubtful.filter((d) => !(d.row === row && d.col === col));
  return true;
}

export function removePiece(entry, row, col, level) {
  entry.pieces = entry.pieces.filter((p) => !(p.row === row && p.col === col && p.level === level));
  for (const p of entry.pieces) {
    if (p.row === row && p.col === col && p.level > level) p.level -= 1;
  }
  normalise(entry);
}

function normalise(entry) {
  if (!entry.pieces.length) return;
  const r0 = Math.min(...entry.pieces.map((p) => p.row));
  const c0 = Math.min(...entry.pieces.map((p) => p.col));
  for (const p of [...entry.pieces, ...(entry.doubtful || [])]) {
    p.row -= r0;
    p.col -= c0;
  }
  entry.offset = { row: entry.offset.row + r0, col: entry.offset.col + c0 };
}

"""``citycam calibrate``: a profile from one photo of the calibration layout.

The layout: one small, medium and large piece of each colour in a block of 5 rows and 3
columns, rows red, yellow, green, blue, black from the far side of the table; the sizes go
small, medium, large from the left in the first row and shift one place each row (the second
row medium, large, small), so that no two pieces of a size touch: the layout is a legal city,
and the rules the reading leans on hold for it. The photo is read with the starting
profile; the piece model's means are refitted to the pieces' true colours on this table and
light (how colours move with the table is kept: one photo shows one table), and the report
says how well colours and sizes separate. The colour prototypes that tell what stands out of
the table are kept: refitted to one photo too, they read other photos worse, of the pieces
they were fitted to and of other plastics alike (``bench/calibrate.py``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .fit import refit_piece_means
from .profile import COLOR_ORDER, PROFILE_DIR, Profile, ProfileError, save_profile

LAYOUT_ROWS = COLOR_ORDER


def layout_size(row: int, col: int) -> int:
    """The size (1..3) laid out at (row, col) of the calibration block."""
    return (row + col) % 3 + 1


def layout_city() -> dict:
    """The calibration layout as a city (design.md section 2)."""
    return {"game": "zoning-out", "variant": "standard", "rules": [],
            "pieces": [{"row": r, "col": c, "color": color, "size": layout_size(r, c), "level": 0}
                       for r, color in enumerate(LAYOUT_ROWS) for c in range(3)]}


@dataclass(frozen=True)
class CalibrationReport:
    """How the profile fitted to a layout photo reads it: of the ``candidates`` (the parts of
    the layout's pieces that stand out of the table), ``read_right`` are read whole as their
    piece's colour by the refitted piece model, the least by ``worst_margin`` (the cost of the
    next colour less its own's: above 0 reads right); ``unseen`` colours had no candidate
    (their model is kept as it was); ``sizes_right`` of the 15 pieces are read at their
    laid-out size; ``left_out`` pieces read beside the block were left out."""

    candidates: int
    read_right: int
    worst_margin: float
    unseen: tuple[str, ...]
    sizes_right: int
    left_out: int

    def lines(self) -> list[str]:
        """The report in plain text, a line for colours, one for sizes and one for pieces left out."""
        colours = (f"colours: {self.read_right}/{self.candidates} candidates read whole as their colour, "
                   f"worst margin {self.worst_margin:.2f} (above 0 reads right)"
                   + (f" ({', '.join(self.unseen)}: none stood out; kept as it was)" if self.unseen else ""))
        return [colours, f"sizes: {self.sizes_right}/15 read as laid out"] + (
            [f"{self.left_out} piece(s) outside the block left out"] if self.left_out else [])

    def to_json(self) -> dict:
        return {**dataclasses.asdict(self), "unseen": list(self.unseen)}


def calibrate_from_photo(rgb: np.ndarray, profile: Profile, out: str) -> tuple[Path, str]:
    """Fit a profile to ``rgb`` (uint8 (H, W, 3) RGB of the layout, :func:`fit_profile`) and
    save it as ``out`` (a bundled name or a .json path). Returns the path and the report's text."""
    path = Path(out) if out.endswith(".json") or "/" in out else PROFILE_DIR / f"{out}.json"
    fitted, report = fit_profile(rgb, profile, path.stem)
    save_profile(fitted, path)
    return path, "\n".join(report.lines())


def fit_profile(rgb: np.ndarray, profile: Profile, name: str) -> tuple[Profile, CalibrationReport]:
    """``profile`` fitted to ``rgb`` (uint8 (H, W, 3) RGB of the layout) and named ``name``,
    and how it reads the layout. Raises :class:`ProfileError` where the photo cannot be read
    or shows no full 5 x 3 block."""
    import vision

    from .samples import candidate_samples

    try:
        detection = vision.analyze(rgb, profile)
    except vision.VisionError as exc:
        raise ProfileError(f"the calibration photo could not be read: {exc}") from None
    seen = [p for p in detection.pieces if p.level == 0]
    origin = _block_origin(seen)
    if origin is None:
        city = detection.city
        raise ProfileError(f"expected the 5 x 3 calibration block (15 pieces), found {len(seen)} pieces "
                           f"in {city.height} rows and {city.width} columns")
    pieces = [p for p in seen if 0 <= p.row - origin[0] < len(LAYOUT_ROWS) and 0 <= p.col - origin[1] < 3]
    outlines = [p.outline for p in pieces]
    colors = [LAYOUT_ROWS[p.row - origin[0]] for p in pieces]
    try:
        found = vision.find_candidates(rgb, profile)
    except vision.VisionError as exc:
        raise ProfileError(f"the calibration photo could not be read: {exc}") from None
    candidates = candidate_samples(found, outlines, np.array([p.center for p in pieces]), profile)
    piece_model = refit_piece_means(profile.piece_colors, *(np.array([s[k] for s in candidates]) for k in (1, 2, 3)),
                                    [colors[s[0]] for s in candidates])
    margins = _margins(piece_model, candidates, colors)
    report = CalibrationReport(
        candidates=len(candidates), read_right=int((margins > 0).sum()),
        worst_margin=round(float(margins.min()), 2) if len(margins) else 0.0,
        unseen=tuple(sorted(set(COLOR_ORDER) - {colors[s[0]] for s in candidates}, key=COLOR_ORDER.index)),
        sizes_right=sum(p.size == layout_size(p.row - origin[0], p.col - origin[1]) for p in pieces),
        left_out=len(seen) - len(pieces))
    return dataclasses.replace(profile, name=name, piece_colors=piece_model), report


def _block_origin(pieces: list) -> tuple[int, int] | None:
    """The (row, col) of the top left cell of a block of 5 rows and 3 columns whose every cell
    holds one of ``pieces`` (:class:`vision.detection.DetectedPiece` read on the table), or
    None; of several, the one whose pieces are surest on the whole. A piece read beside the
    block (a stray piece, or something else taken for one) is no part of it."""
    cells = {(p.row, p.col): p.confidence for p in pieces}
    origins = {(row - dr, col - dc) for row, col in cells for dr in range(len(LAYOUT_ROWS)) for dc in range(3)}
    full = [(row, col) for row, col in origins
            if all((row + dr, col + dc) in cells for dr in range(len(LAYOUT_ROWS)) for dc in range(3))]
    return max(full, default=None, key=lambda origin: sum(
        cells[origin[0] + dr, origin[1] + dc] for dr in range(len(LAYOUT_ROWS)) for dc in range(3)))


def _margins(model, candidates: list, colors: list[str]) -> np.ndarray:
    """Per candidate (:func:`calibration.samples.candidate_samples`: piece index, feature,
    chroma, level, offset), how far the piece ``model`` reads it as its piece's colour
    (``colors``, by piece): the least cost of another colour less its own colour's cost (N,)
    float64."""
    if not candidates:
        return np.zeros(0)
    costs = model.costs(*(np.array([s[k] for s in candidates]).reshape(len(candidates), -1) for k in (1, 2, 3, 4)))
    own = np.array([COLOR_ORDER.index(colors[s[0]]) for s in candidates])
    others = np.where(np.eye(len(COLOR_ORDER), dtype=bool)[own], np.inf, costs)
    return others.min(axis=1) - costs[np.arange(len(own)), own]

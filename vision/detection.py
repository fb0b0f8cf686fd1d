"""The result of reading a photo: pieces on cells, the grid, confidences and warnings."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from calibration.profile import COLOR_ORDER
from scorer import City, Piece, check_legality

from .camera import apply_homography

_CLEAR_GRID_RESIDUAL = 0.3  # pitches: the median anchor's distance from its cell's centre on a clear grid
_EDGE_PX = 1.0  # an outline within this many pixels of the photo's border reaches its edge
_AT_EDGE_CONFIDENCE = 0.5  # at most, for a piece at the photo's edge: read from what is left of it


@dataclass(frozen=True)
class DetectedPiece:
    """A piece as seen: cell (row, col) of the normalised city, colour, size 1..3, level,
    confidence 0..1, pixel centre (x, y) and outline (K, 2) (x, y) in analysed-image pixels."""

    row: int
    col: int
    color: str
    size: int
    level: int
    confidence: float
    center: tuple[float, float]
    outline: np.ndarray

    def to_json(self) -> dict:
        out = {"row": self.row, "col": self.col, "color": self.color, "size": self.size,
               "level": self.level, "confidence": round(self.confidence, 3),
               "x": round(self.center[0], 1), "y": round(self.center[1], 1),
               "outline": [[round(float(x), 1), round(float(y), 1)] for x, y in self.outline]}
        return out


@dataclass(frozen=True)
class Detection:
    """Pieces found in one photo. ``homography`` (3, 3) maps grid (col, row, 1) of the
    normalised city to pixels (x, y, w) of the analysed image of ``image_size`` (width, height).
    ``on_grid``: whether the pieces sit on a clear grid (their anchors' median distance from
    their cells' centres is at most ``_CLEAR_GRID_RESIDUAL`` of a pitch). ``doubtful_empty``:
    cells (row, col) of the normalised city read empty where a piece may stand unseen, for
    the player to check. ``guessed``: how many pieces were read anew or added to fit a whole
    set (:func:`vision.whole_set.as_whole_set`), which the photo did not show plainly."""

    pieces: list[DetectedPiece]
    homography: np.ndarray
    image_size: tuple[int, int]
    tilt_deg: float
    pitch_mm: float
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    on_grid: bool = True
    doubtful_empty: list[tuple[int, int]] = field(default_factory=list)
    guessed: int = 0

    @property
    def city(self) -> City:
        return City([Piece(p.row, p.col, p.color, p.size, p.level) for p in self.pieces])

    def uncertain(self, threshold: float) -> list[DetectedPiece]:
        return [p for p in self.pieces if p.confidence < threshold]

    def to_json(self, rules=None, variant: str = "standard") -> dict:
        """The ``citycam detect --json`` object: a city (design.md section 2) of the
        ``variant`` whose pieces carry ``confidence`` (and pixel ``x``, ``y``, ``outline``),
        plus ``illegal``, ``warnings``, ``doubtful_empty`` (cells [row, col]), ``image`` and
        ``grid``."""
        rules = list(rules or [])
        city = City(self.city.pieces, variant, rules)
        illegal = check_legality(city, rules)
        return {"game": "zoning-out", "variant": variant, "rules": rules,
                "pieces": [p.to_json() for p in self.pieces],
                "illegal": [i.to_json() for i in illegal], "warnings": list(self.warnings),
                "doubtful_empty": [[row, col] for row, col in self.doubtful_empty],
                "image": {"width": self.image_size[0], "height": self.image_size[1]},
                "grid": {"homography": np.round(self.homography, 6).tolist(),
                         "tilt_deg": round(self.tilt_deg, 1), "pitch_mm": round(self.pitch_mm, 1)},
                "seconds": round(self.seconds, 3)}


def build_detection(reading, image_size, profile, seconds: float) -> Detection:
    """Normalise a :class:`vision.cells.CityReading` into a Detection: the columns run along
    the grid direction nearest the photo's rightward (so row 0 is at the top), and the least
    row and column are 0."""
    turn = _upright_turn(reading.grid.H, [(p.col, p.row) for p in reading.pieces])
    cells = [tuple(int(v) for v in turn @ (p.col, p.row)) for p in reading.pieces]
    c0, r0 = (int(v) for v in np.min(cells, axis=0)) if cells else (0, 0)
    back = np.eye(3)
    back[:2, :2] = turn.T  # a quarter turn's inverse is its transpose
    back[:2, 2] = turn.T @ (c0, r0)
    H = reading.grid.H @ back
    pieces = [DetectedPiece(row - r0, col - c0, COLOR_ORDER[p.color_index], p.size, p.level,
                            p.confidence, p.center, p.outline)
              for p, (col, row) in sorted(zip(reading.pieces, cells), key=lambda pc: (pc[1][1], pc[1][0], pc[0].level))]
    at_edge = _at_photo_edge(pieces, image_size)
    pieces = [dataclasses.replace(p, confidence=min(p.confidence, _AT_EDGE_CONFIDENCE)) if reaches else p
              for p, reaches in zip(pieces, at_edge)]
    warnings = _uncertain_warning(pieces, profile.max_uncertain_confidence) + list(reading.warnings)
    warnings += _scale_warning(pieces)
    taken = {(p.col, p.row) for p in reading.pieces}  # a piece read later on a doubted cell settles it
    doubtful = sorted((int(row) - r0, int(col) - c0)
                      for col, row in (turn @ cell for cell in reading.doubtful_empty if cell not in taken))
    warnings += _doubtful_warning(doubtful)
    tilt = reading.camera.tilt_deg
    if tilt > profile.oblique_warning_deg:
        warnings.append(f"photo too oblique ({tilt:.0f} degrees from straight down); hold the phone higher")
    if reading.pitch_mm < profile.shadow_warning_ratio * reading.grid_pitch_mm:
        warnings.append("the pieces look larger than their spacing allows (long shadows under a low lamp?); "
                        "check the sizes, or light the table from above and photograph again")
    cut = sum(at_edge)
    if cut:
        warnings.append(f"{cut} piece{'s' if cut > 1 else ''} at the photo's edge: part of the city may be outside "
                        "the photo; step back and photograph the whole city")
    on_grid = bool(not len(reading.grid.residual) or np.median(reading.grid.residual) <= _CLEAR_GRID_RESIDUAL)
    if not on_grid:
        warnings.append("the pieces do not sit on a clear grid; check the cells")
    return Detection(pieces, H / H[2, 2], image_size, tilt, reading.grid_pitch_mm, warnings, seconds, on_grid,
                     doubtful, reading.guessed)


def with_confidences(detection: Detection, confidences, below: float) -> Detection:
    """``detection`` with its pieces' confidences set to ``confidences`` (one a piece, in
    order) and its warning of uncertain pieces (those under ``below``) counted again."""
    pieces = [dataclasses.replace(p, confidence=float(c)) for p, c in zip(detection.pieces, confidences)]
    old = _uncertain_warning(detection.pieces, below)
    warnings = _uncertain_warning(pieces, below) + [w for w in detection.warnings if w not in old]
    return dataclasses.replace(detection, pieces=pieces, warnings=warnings)


def with_doubtful_empty(detection: Detection, cells) -> Detection:
    """``detection`` with the empty cells (row, col) ``cells`` added to those it doubts, and
    its warning of them counted again (``detection`` itself where it doubts them all)."""
    doubtful = sorted({*detection.doubtful_empty, *cells})
    if len(doubtful) == len(detection.doubtful_empty):
        return detection
    old = _doubtful_warning(detection.doubtful_empty)
    warnings = _doubtful_warning(doubtful) + [w for w in detection.warnings if w not in old]
    return dataclasses.replace(detection, doubtful_empty=doubtful, warnings=warnings)


def _scale_warning(pieces) -> list[str]:
    """The warning that every size read may be a step off, where ``pieces`` hold no small
    piece or no large one: the sizes are told against one another and against the pitch a
    city may be laid at (a photo shows no other measure), and the pieces of two neighbouring
    sizes alone look alike a step up, at a wider pitch, or a step down, at a narrower one."""
    sizes = {p.size for p in pieces}
    if not sizes or {1, 3} <= sizes:
        return []
    unseen = "large" if 3 not in sizes else "small"
    return [f"no {unseen} piece read: every size may be a step off (from a photo, smaller pieces laid "
            "wider apart look alike); check one piece's size"]


def _doubtful_warning(cells) -> list[str]:
    """The warning of how many empty ``cells`` may hold a piece (none if none)."""
    return [f"{len(cells)} empty cell{'s' if len(cells) > 1 else ''} may hold a piece"] if cells else []


def _uncertain_warning(pieces: list[DetectedPiece], below: float) -> list[str]:
    """The warning of how many of ``pieces`` are under the confidence ``below`` (none if none)."""
    unsure = sum(p.confidence < below for p in pieces)
    return [f"{unsure} piece{'s' if unsure > 1 else ''} uncertain"] if unsure else []


def _at_photo_edge(pieces: list[DetectedPiece], image_size: tuple[int, int]) -> list[bool]:
    """Whether each of ``pieces`` has an outline reaching the edge of the photo of
    ``image_size`` (width, height): cut off by it, or within ``_EDGE_PX`` of it. Such a
    piece is read from what is left of it (or is a thing the photo's edge cuts, a card
    say), and its neighbours beyond the edge not at all."""
    w, h = image_size
    return [bool((p.outline.min(axis=0) < _EDGE_PX).any() or p.outline[:, 0].max() > w - 1 - _EDGE_PX
                 or p.outline[:, 1].max() > h - 1 - _EDGE_PX) for p in pieces]


def _upright_turn(H: np.ndarray, cells: list[tuple[int, int]]) -> np.ndarray:
    """The quarter turn (2, 2) int of grid (col, row) after which the column direction at the
    middle of ``cells`` points within 45 degrees of the photo's rightward (x): the grid found
    may start from either of its two directions, and near 45 degrees the choice flips."""
    centre = np.mean(cells, axis=0) if cells else np.zeros(2)
    xy = apply_homography(H, np.array([centre, centre + (1, 0), centre + (0, 1)]))
    jacobian = np.stack([xy[1] - xy[0], xy[2] - xy[0]], axis=1)  # image change per col, per row
    quarter = np.array([[0, -1], [1, 0]])
    for k in range(4):
        turn = np.linalg.matrix_power(quarter, k)
        dx, dy = jacobian @ turn.T[:, 0]  # the image direction of the turned grid's column axis
        if -45 < np.degrees(np.arctan2(dy, dx)) <= 45:
            return turn
    return np.eye(2, dtype=int)

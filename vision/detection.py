"""The result of reading a photo: pieces on cells, the grid, confidences and warnings."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from calibration.profile import COLOR_ORDER
from scorer import City, Piece, check_legality


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
    normalised city to pixels (x, y, w) of the analysed image of ``image_size`` (width, height)."""

    pieces: list[DetectedPiece]
    homography: np.ndarray
    image_size: tuple[int, int]
    tilt_deg: float
    pitch_mm: float
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def city(self) -> City:
        return City([Piece(p.row, p.col, p.color, p.size, p.level) for p in self.pieces])

    def uncertain(self, threshold: float) -> list[DetectedPiece]:
        return [p for p in self.pieces if p.confidence < threshold]

    def to_json(self, rules=None) -> dict:
        """The ``citycam detect --json`` object: a city (design.md section 2) whose pieces carry
        ``confidence`` (and pixel ``x``, ``y``, ``outline``), plus ``illegal``, ``warnings``,
        ``image`` and ``grid``."""
        rules = list(rules or [])
        city = City(self.city.pieces, rules=rules)
        illegal = check_legality(city, rules)
        return {"game": "zoning-out", "variant": "standard", "rules": rules,
                "pieces": [p.to_json() for p in self.pieces],
                "illegal": [i.to_json() for i in illegal], "warnings": list(self.warnings),
                "image": {"width": self.image_size[0], "height": self.image_size[1]},
                "grid": {"homography": np.round(self.homography, 6).tolist(),
                         "tilt_deg": round(self.tilt_deg, 1), "pitch_mm": round(self.pitch_mm, 1)},
                "seconds": round(self.seconds, 3)}


def build_detection(reading, image_size, profile, seconds: float) -> Detection:
    """Normalise a :class:`vision.cells.CityReading` (min row and col 0) into a Detection."""
    if reading.pieces:
        c0 = min(p.col for p in reading.pieces)
        r0 = min(p.row for p in reading.pieces)
    else:
        c0 = r0 = 0
    shift = np.array([[1, 0, c0], [0, 1, r0], [0, 0, 1]], np.float64)
    H = reading.grid.H @ shift
    pieces = [DetectedPiece(p.row - r0, p.col - c0, COLOR_ORDER[p.color_index], p.size, p.level,
                            p.confidence, p.center, p.outline)
              for p in sorted(reading.pieces, key=lambda p: (p.row, p.col, p.level))]
    warnings = []
    unsure = [p for p in pieces if p.confidence < profile.max_uncertain_confidence]
    if unsure:
        warnings.append(f"{len(unsure)} piece{'s' if len(unsure) > 1 else ''} uncertain")
    tilt = reading.camera.tilt_deg
    if tilt > 35:
        warnings.append(f"photo too oblique ({tilt:.0f} degrees from straight down); hold the phone higher")
    if len(reading.grid.residual) and np.median(reading.grid.residual) > 0.3:
        warnings.append("the pieces do not sit on a clear grid; check the cells")
    return Detection(pieces, H / H[2, 2], image_size, tilt, reading.grid_pitch_mm, warnings, seconds)

"""Drawing a detection over its photo: grid, labelled pieces, uncertain and illegal ones."""
from __future__ import annotations

import cv2
import numpy as np

from scorer import check_legality

from .detection import Detection

_RGB = {"red": (230, 40, 40), "yellow": (240, 220, 30), "green": (40, 200, 60),
        "blue": (40, 110, 240), "black": (20, 20, 20)}
_SIZE_LETTER = {1: "S", 2: "M", 3: "L"}


def draw_overlay(rgb: np.ndarray, detection: Detection, rules=(), uncertain_below: float = 0.6) -> np.ndarray:
    """A copy of ``rgb`` (uint8 (H, W, 3) RGB, the analysed image) with the grid, each piece's
    outline and label (e.g. 'L red'), uncertain pieces in a white ring, empty cells where a
    piece may stand unseen with a white '?' and illegal pairs joined in red."""
    out = rgb.copy()
    H = detection.homography
    city = detection.city
    thick = max(1, round(max(out.shape[:2]) / 800))
    for r in range(-1, city.height + 1):
        _line(out, H, (-1.5, r + 0.5), (city.width + 0.5, r + 0.5), (255, 255, 255), thick)
    for c in range(-1, city.width + 1):
        _line(out, H, (c + 0.5, -1.5), (c + 0.5, city.height + 0.5), (255, 255, 255), thick)
    for p in detection.pieces:
        pts = np.round(p.outline).astype(np.int32)
        cv2.polylines(out, [pts], True, _RGB[p.color], thick + 1)
        x, y = int(p.center[0]), int(p.center[1])
        label = f"{_SIZE_LETTER[p.size]}{'^' if p.level else ''}"
        cv2.putText(out, label, (x - 6 * thick, y + 4 * thick), cv2.FONT_HERSHEY_SIMPLEX,
                    0.45 * thick, (255, 255, 255), thick + 1, cv2.LINE_AA)
        if p.confidence < uncertain_below:
            cv2.circle(out, (x, y), 12 * thick, (255, 255, 255), thick, cv2.LINE_AA)
            cv2.putText(out, "?", (x + 10 * thick, y - 10 * thick), cv2.FONT_HERSHEY_SIMPLEX,
                        0.6 * thick, (255, 255, 255), thick + 1, cv2.LINE_AA)
    for row, col in detection.doubtful_empty:
        x, y = _to_image(H, (col, row))
        cv2.putText(out, "?", (x - 8 * thick, y + 8 * thick), cv2.FONT_HERSHEY_SIMPLEX,
                    0.9 * thick, (255, 255, 255), thick + 1, cv2.LINE_AA)
    for problem in check_legality(city, rules):
        centres = [_to_image(H, (c, r)) for r, c in problem.cells]
        for a, b in zip(centres, centres[1:]):
            cv2.line(out, a, b, (255, 0, 0), 3 * thick, cv2.LINE_AA)
        for a in centres:
            cv2.circle(out, a, 6 * thick, (255, 0, 0), -1)
    return out


def _to_image(H: np.ndarray, colrow) -> tuple[int, int]:
    v = H @ np.array([colrow[0], colrow[1], 1.0])
    return int(round(v[0] / v[2])), int(round(v[1] / v[2]))


def _line(img, H, a, b, color, thick) -> None:
    cv2.line(img, _to_image(H, a), _to_image(H, b), color, thick, cv2.LINE_AA)

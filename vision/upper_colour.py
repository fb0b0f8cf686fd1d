"""A stack's upper piece read green, read again against the lower piece it rests on.

Seen from above, the light that shows the upper piece of a stack has passed through the
lower piece's plastic too. Over a blue lower piece a yellow upper looks green, and so does a
blue upper over a yellow or red lower, so green, read against the table, is as often the
two tints mixed as a green piece. Against the lower piece, as the table under it, the upper
shows its own tint. Its log ratio to the lower's ring round it is read by the piece colour
model, taking the lower as seen (the table's chroma and brightness, and the ring's) for the
table. Where that reads blue or yellow, the upper is that colour.

Only a green upper on a tinted lower is read again so. Read against the lower alone, other
uppers go astray: black ones read blue, and yellow on red reads green
(``calibration/README.md``).
"""
from __future__ import annotations

import dataclasses
import logging

import cv2
import numpy as np

from calibration import Profile
from calibration.profile import BLACK, COLOR_ORDER

from ._lookup import pixels_where
from .cells import CityReading
from .colour import log_chroma, table_chroma, table_level
from .model import window_mask

logger = logging.getLogger(__name__)

_MIXED = COLOR_ORDER.index("green")  # what two tints mixed look like
_MIXING = {COLOR_ORDER.index("blue"), COLOR_ORDER.index("yellow")}  # tints that mix to it
_LEAST_PIXELS = 10  # in the upper's outline and in the lower's ring round it, to read either
_ERODE = np.ones((3, 3), np.uint8)  # the upper's blurred rim left out of it
_RING_GAP = np.ones((5, 5), np.uint8)  # and out of the lower's ring


def read_over_lower(reading: CityReading, log_ratio: np.ndarray, table: np.ndarray, profile: Profile) -> CityReading:
    """``reading`` (of a photo of a plain table) with each upper piece read green on a tinted
    lower piece read again against that lower piece: the median ``log_ratio`` (float32 (H, W,
    3)) inside its outline less that over the lower's outline round it, under the piece colour
    model (``profile.piece_colors``, less the reading's colour offset) with the table's chroma
    and log grey under the upper (``table``, float32 (H, W, 3) RGB) moved by the lower's
    (its median log ratio). Where that reads blue or yellow, the upper is read so, its
    confidence at most ``profile.max_uncertain_confidence``: the two tints mixed tell less
    than one piece's."""
    lowers = {(p.col, p.row): p for p in reading.pieces if p.level == 0}
    again = {}
    for upper in reading.pieces:
        lower = lowers.get((upper.col, upper.row))
        if upper.level != 1 or upper.color_index != _MIXED or lower is None or lower.color_index == BLACK:
            continue
        seen = _seen_over(log_ratio, table, lower.outline, upper.outline)
        if seen is None:
            continue
        feature, chroma, level = seen
        offset = reading.color_offset
        costs = profile.piece_colors.costs((feature - offset)[None], chroma[None], np.array([level]), offset)[0]
        colour = int(costs.argmin())
        if colour in _MIXING:
            again[id(upper)] = dataclasses.replace(upper, color_index=colour,
                                                   confidence=min(upper.confidence, profile.max_uncertain_confidence))
    if again:
        logger.info("%d upper piece(s) read green read again against the piece under them", len(again))
    return dataclasses.replace(reading, pieces=[again.get(id(p), p) for p in reading.pieces])


def _seen_over(log_ratio: np.ndarray, table: np.ndarray, lower: np.ndarray,
               upper: np.ndarray) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The upper piece of outline ``upper`` as seen against the lower one of outline
    ``lower`` (each (K, 2) image (x, y)): its median ``log_ratio`` less the lower's ring's
    (3,), and the chroma (3,) and log grey of the table (``table``, float32 (H, W, 3) RGB)
    under it, each moved by the ring's median; None where the upper's outline, its rim left
    out, or the ring round it holds fewer than ``_LEAST_PIXELS`` pixels of the photo."""
    h, w = log_ratio.shape[:2]
    x0, y0 = np.maximum(np.floor(lower.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(lower.max(axis=0)).astype(int) + 1, (w, h))
    if x1 <= x0 or y1 <= y0:
        return None
    box = (int(x0), int(y0), int(x1), int(y1))
    on_top = window_mask(upper, box)
    inside = cv2.erode(on_top, _ERODE) > 0
    ring = (window_mask(lower, box) > 0) & (cv2.dilate(on_top, _RING_GAP) == 0)
    if np.count_nonzero(inside) < _LEAST_PIXELS or np.count_nonzero(ring) < _LEAST_PIXELS:
        return None
    window = log_ratio[y0:y1, x0:x1]
    ring_seen = np.median(pixels_where(window, ring), axis=0)
    under = pixels_where(table[y0:y1, x0:x1], inside)
    level = float(np.mean(pixels_where(table_level(np.ascontiguousarray(table[y0:y1, x0:x1]))[..., None], inside)))
    return (np.median(pixels_where(window, inside), axis=0) - ring_seen, table_chroma(under) + log_chroma(ring_seen),
            level + float(ring_seen.mean()))

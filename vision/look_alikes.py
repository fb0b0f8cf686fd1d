"""Telling look-alike colours apart by the photo's own colours, across the whole city.

Each piece's colour is read against the table, and three pairs of colours can look alike
that way while the photo itself tells them apart, in this order:

- translucent yellow and green both take on the colour of the table under them: on warm
  wood both look olive. In the photo yellow is redder than green (:func:`warmth`).
- translucent green on a green table or print takes out only what the table has little of:
  against it, the piece is darker and of no other hue, as a black piece is. In the photo
  black is near grey and green is green (:func:`greenness`). A yellow piece read green is
  told yellow before, so that it does not make a group of its own here; a blue piece read
  green on such a cloth, less green than the green pieces, joins the black group here, and
  the next pair tells it from black.
- glossy black shows the room it reflects, not the table: against warm wood it can look as
  blue as a blue piece. In the photo black is near grey and blue is bluer (:func:`blueness`).

Where the pieces read as either colour of a pair fall into two groups of at least two by
that measure, with a gap between the groups wide against the spread within them, the group
higher on it takes the pair's first colour and the other group the second. Only pieces alone
in their cell are measured: a stack's outline holds both of its colours.

A set holds three pieces of each colour and size. Where the city as read has more of the
pair's colours than that, and a split by the measure leaves fewer over the supply, a
narrower gap (in itself and against the spread) is enough: black pieces read blue on wood,
say, make four or five large blue pieces, while the photo tells two groups, if less clearly.
"""
from __future__ import annotations

import dataclasses
import logging
from collections import Counter

import numpy as np

from calibration import Profile
from calibration.profile import BLACK, COLOR_ORDER

from ._lookup import pixels_where
from .cells import PER_KIND, CityReading
from .model import window_mask

log = logging.getLogger(__name__)

BLUE, YELLOW, GREEN = (COLOR_ORDER.index(c) for c in ("blue", "yellow", "green"))
_LEAST_SPREAD = 0.01  # a spread below a JPEG's rounding: pieces that look all alike


def tell_look_alikes(reading: CityReading, rgb: np.ndarray, strength: np.ndarray,
                     profile: Profile) -> CityReading:
    """``reading`` with its yellow and green pieces read again by :func:`warmth`, then its
    green and black ones by :func:`greenness`, and its blue and black ones by
    :func:`blueness`, each over the pixels of a piece's outline in
    ``rgb`` (uint8 (H, W, 3) RGB) that differ from the table (``strength``, float32 (H, W),
    over ``profile.unseen_threshold``), split by :func:`split_at_gap` with
    ``profile.look_alike_gap`` and ``profile.look_alike_separation``, or, where that split
    leaves fewer pieces over the supply (:func:`_surplus`), with
    ``profile.look_alike_supply_gap`` and ``profile.look_alike_supply_separation``."""
    per_cell = Counter((piece.col, piece.row) for piece in reading.pieces)
    alone = [per_cell[piece.col, piece.row] == 1 for piece in reading.pieces]
    for higher, lower, measure in ((YELLOW, GREEN, warmth), (GREEN, BLACK, greenness), (BLUE, BLACK, blueness)):
        reading = _tell_apart(reading, alone, higher, lower, measure, rgb, strength, profile)
    return reading


def _tell_apart(reading: CityReading, alone: list[bool], higher: int, lower: int, measure, rgb: np.ndarray,
                strength: np.ndarray, profile: Profile) -> CityReading:
    """``reading`` with the pieces read as colour ``higher`` or ``lower`` and ``alone`` in
    their cell (one bool per piece) read again: split by ``measure`` (of (N, 3) uint8 RGB
    pixels) at a clear gap, or at a less clear one where that leaves fewer over the supply
    (:func:`tell_look_alikes`), the group higher on it is ``higher``."""
    which, values = [], []
    for k, piece in enumerate(reading.pieces):
        if piece.color_index not in (higher, lower) or not alone[k]:
            continue
        pixels = _differing_pixels(piece.outline, rgb, strength, profile.unseen_threshold)
        if len(pixels):
            which.append(k)
            values.append(measure(pixels))
    measured = np.array(values)
    threshold = split_at_gap(measured, profile.look_alike_gap, profile.look_alike_separation)
    if threshold is not None:
        return _split(reading, which, values, threshold, higher, lower, measure.__name__)
    threshold = split_at_gap(measured, profile.look_alike_supply_gap, profile.look_alike_supply_separation)
    if threshold is None:
        return reading
    split = _split(reading, which, values, threshold, higher, lower, measure.__name__)
    if _surplus(split, (higher, lower)) < _surplus(reading, (higher, lower)):
        log.info("%s and %s told apart by their %s: the city as read had more than a set holds",
                 COLOR_ORDER[higher], COLOR_ORDER[lower], measure.__name__)
        return split
    return reading


def _split(reading: CityReading, which: list[int], values: list[float], threshold: float, higher: int,
           lower: int, measure_name: str) -> CityReading:
    """``reading`` with its pieces ``which`` (indices) read ``higher`` where their ``values``
    are over ``threshold``, else ``lower``."""
    pieces = list(reading.pieces)
    for k, value in zip(which, values):
        color = higher if value > threshold else lower
        if color != pieces[k].color_index:
            log.debug("piece at %s read %s by its %s", (pieces[k].col, pieces[k].row), COLOR_ORDER[color],
                      measure_name)
            pieces[k] = dataclasses.replace(pieces[k], color_index=color)
    return dataclasses.replace(reading, pieces=pieces)


def _surplus(reading: CityReading, colours: tuple[int, int]) -> int:
    """How many pieces of ``reading`` of the ``colours`` are over the supply: past
    ``PER_KIND`` of one colour and size."""
    counts = Counter((piece.color_index, piece.size) for piece in reading.pieces if piece.color_index in colours)
    return sum(max(count - PER_KIND, 0) for count in counts.values())


def blueness(pixels: np.ndarray) -> float:
    """Median over ``pixels`` ((N, 3) uint8 RGB) of log blue less the mean of log red and
    log green."""
    return _channel_excess(pixels, 2)


def greenness(pixels: np.ndarray) -> float:
    """Median over ``pixels`` ((N, 3) uint8 RGB) of log green less the mean of log red and
    log blue."""
    return _channel_excess(pixels, 1)


def _channel_excess(pixels: np.ndarray, channel: int) -> float:
    """Median over ``pixels`` ((N, 3) uint8 RGB) of the log of ``channel`` less the mean of
    the logs of the other two."""
    logs = np.log(pixels.astype(np.float64) + 1.0)
    first, second = (c for c in range(3) if c != channel)
    return float(np.median(logs[:, channel] - (logs[:, first] + logs[:, second]) / 2))


def warmth(pixels: np.ndarray) -> float:
    """Median over ``pixels`` ((N, 3) uint8 RGB) of log red less log green."""
    logs = np.log(pixels.astype(np.float64) + 1.0)
    return float(np.median(logs[:, 0] - logs[:, 1]))


def split_at_gap(values: np.ndarray, min_gap: float, min_separation: float) -> float | None:
    """Where ``values`` (N,) fall clearly into two groups of at least two: of the gaps between
    neighbours once sorted, the one widest against the larger spread (standard deviation) of
    the groups either side, if it is at least ``min_gap`` wide and ``min_separation`` times
    that spread; its middle, else None. A lone value far from the rest (a yellow piece read
    black in the shadow) is an outlier, not a group: rather than split it off, which would
    give every other piece the pair's other colour, the reading is left as it is."""
    if len(values) < 4:
        return None
    ordered = np.sort(values)
    gaps = np.diff(ordered)
    spreads = np.array([max(np.std(ordered[:k + 1]), np.std(ordered[k + 1:])) for k in range(len(gaps))])
    ratios = gaps / np.maximum(spreads, _LEAST_SPREAD)
    ratios[0] = ratios[-1] = 0.0  # a group of one
    best = int(np.argmax(ratios))
    if gaps[best] < min_gap or ratios[best] < min_separation:
        return None
    return float(ordered[best] + ordered[best + 1]) / 2


def _differing_pixels(shape: np.ndarray, rgb: np.ndarray, strength: np.ndarray, threshold: float) -> np.ndarray:
    """(N, 3) uint8 RGB of the pixels inside the convex ``shape`` ((K, 2) image (x, y)) whose
    ``strength`` exceeds ``threshold``; the part of the shape beyond the photo is left out."""
    h, w = strength.shape
    x0, y0 = np.clip(np.floor(shape.min(axis=0)).astype(int), 0, (w, h))
    x1, y1 = np.clip(np.ceil(shape.max(axis=0)).astype(int) + 1, 0, (w, h))
    if x1 <= x0 or y1 <= y0:
        return np.zeros((0, 3), np.uint8)
    inside = window_mask(shape, (x0, y0, x1, y1)).astype(bool) & (strength[y0:y1, x0:x1] > threshold)
    return pixels_where(rgb[y0:y1, x0:x1], inside)

"""Telling a stack from a piece with a stray second colour.

Seen from above, a smaller pyramid resting on a larger one covers the middle of the lower
piece, which shows round it as a ring. A single piece can show a second colour too (a face
turned from the lamp read as black, a yellow highlight on green, a shadow), but not there:
that colour lies on one side of the piece. So a second colour is a stack only where the
projected model of the stack puts each colour: the upper's outline holds more of the upper
colour than of the lower, and the lower colour covers the ring round it, some of it on every
side but one (under tilt, one steep face of the lower pyramid can turn from the camera).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration import Profile

from .camera import Camera
from .model import BASE_MM, outline, seat_height_mm, window_mask

_SIDES = 4
_HIDDEN_SIDES = 1  # ring sides that may show nothing of the lower piece


@dataclass(frozen=True)
class StackSplit:
    """How a cell's two colour groups make a stack: ``lower`` (0 or 1) is the index of the
    group on the table, ``upper_size`` (1..3) the size of the piece resting on it and
    ``score`` how well the model fits (the smaller of the two shares tested, 0..1)."""

    lower: int
    upper_size: int
    score: float


def split_stack(camera: Camera, cell: tuple[int, int], size: int, pitch_mm: float,
                groups: tuple[np.ndarray, np.ndarray], profile: Profile) -> StackSplit | None:
    """Whether the two colour groups seen on ``cell`` (col, row), each (N, 2) int (x, y)
    pixels, are a stack whose lower piece has ``size`` (its outline holds all that is seen),
    modelled at ``pitch_mm``. Tries each smaller upper size and each group on top; if the best
    split's score reaches ``profile.stack_min_cover``, returns it with the upper size whose
    outline the upper colour fills best (the score favours the smallest), else None."""
    if size < 2:
        return None
    colrow = np.asarray(cell, np.float64)
    lower_outline = outline(camera, colrow, size, pitch_mm)
    uppers = {u: outline(camera, colrow, u, pitch_mm, seat_height_mm(size, u)) for u in range(1, size)}
    everything = np.vstack([lower_outline, *uppers.values(), *groups])
    origin = np.floor(everything.min(axis=0)).astype(int) - 1
    box = (*origin, *(np.ceil(everything.max(axis=0)).astype(int) + 2))
    lower_mask = window_mask(lower_outline, box) > 0
    masks = [np.zeros_like(lower_mask) for _ in groups]
    for mask, pixels in zip(masks, groups):
        mask[pixels[:, 1] - origin[1], pixels[:, 0] - origin[0]] = True
    upper_masks = {u: window_mask(shape_u, box) > 0 for u, shape_u in uppers.items()}
    best = None
    for upper_size, upper_mask in upper_masks.items():
        sides = _ring_sides(camera, colrow, size, upper_size, pitch_mm, lower_mask & ~upper_mask, origin)
        for lower in (0, 1):
            on_top, below = masks[1 - lower], masks[lower]
            gain = (np.count_nonzero(on_top & upper_mask) - np.count_nonzero(below & upper_mask)) / max(
                np.count_nonzero(upper_mask), 1)
            cover = _ring_cover(sides, below, profile.stack_side_cover)
            score = min(gain, cover)
            if best is None or score > best.score:
                best = StackSplit(lower, upper_size, float(score))
    if best is None or best.score < profile.stack_min_cover:
        return None
    on_top = masks[1 - best.lower] & lower_mask
    overlap = {u: np.count_nonzero(on_top & m) / np.count_nonzero(on_top | m) for u, m in upper_masks.items()}
    return StackSplit(best.lower, max(overlap, key=overlap.get), best.score)


def _ring_sides(camera: Camera, colrow: np.ndarray, size: int, upper_size: int, pitch_mm: float,
                ring: np.ndarray, origin: np.ndarray) -> list[np.ndarray]:
    """The ``ring`` (bool mask, canvas at ``origin``) cut into its four sides: by the
    directions from the upper piece's base centre to the lower piece's base corners."""
    lift = seat_height_mm(size, upper_size) / pitch_mm
    half = BASE_MM[size] / pitch_mm / 2
    corners = colrow + half * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
    seat, *base = camera.project(np.vstack([np.append(colrow, lift), np.hstack([corners, np.zeros((4, 1))])]))
    bounds = np.sort(np.arctan2(np.array(base)[:, 1] - seat[1], np.array(base)[:, 0] - seat[0]))
    rows, cols = np.nonzero(ring)
    side = np.searchsorted(bounds, np.arctan2(rows + origin[1] - seat[1], cols + origin[0] - seat[0])) % _SIDES
    out = []
    for k in range(_SIDES):
        mask = np.zeros_like(ring)
        mask[rows[side == k], cols[side == k]] = True
        out.append(mask)
    return out


def _ring_cover(sides: list[np.ndarray], below: np.ndarray, side_floor: float) -> float:
    """How well ``below`` (bool mask) shows round the upper piece: the share of the ring it
    covers, if it covers at least ``side_floor`` of each side but one; else 0."""
    covered = [np.count_nonzero(side & below) for side in sides]
    sizes = [np.count_nonzero(side) for side in sides]
    if sum(n > 0 and c >= side_floor * n for c, n in zip(covered, sizes)) < _SIDES - _HIDDEN_SIDES:
        return 0.0
    return sum(covered) / sum(sizes)

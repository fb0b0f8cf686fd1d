"""Telling a stack from a piece with a stray second colour.

Seen from above, a smaller pyramid resting on a larger one covers the middle of the lower
piece, which shows round it as a ring. A single piece can show a second colour too (a face
turned from the lamp read as black, a yellow highlight on green, a shadow), but not there:
that colour lies on one side of the piece. So a second colour is a stack only where the
projected model of the stack puts each colour: the upper's outline holds more of the upper
colour than of the lower, and the lower colour covers the ring round it, some of it on every
side but one (under tilt, one steep face of the lower pyramid can turn from the camera).
The model is first moved and scaled onto what is seen: the grid and the pitch the pieces
are modelled at hold for the city as a whole, and one piece can sit a few pixels off them.

Tinted plastic over another colour can show that colour through it, so the upper's outline
may hold both. A weaker test then takes the stack: the second colour lies almost wholly
within the upper's outline (where a shadow or a face turned from the lamp never does) and
fills much of it, and the lower colour covers more of the ring. Such a stack is a weak one:
the cells module keeps it only where the rules allow its upper piece.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import cv2
import numpy as np

from calibration import Profile

from .camera import Camera
from .model import BASE_MM, outline, seat_height_mm, window_mask

_SIDES = 4
_HIDDEN_SIDES = 1  # ring sides that may show nothing of the lower piece
_ALIGN_STEPS = 2  # shifts tried each way along x and y, up to profile.stack_align_shift


@dataclass(frozen=True)
class StackSplit:
    """How a cell's two colour groups make a stack: ``lower`` (0 or 1) is the index of the
    group on the table, ``upper_size`` (1..3) the size of the piece resting on it, ``score``
    how well the model fits (the smaller of the two shares tested, 0..1) and ``weak``
    whether only the weaker test (the upper colour within its outline) took it."""

    lower: int
    upper_size: int
    score: float
    weak: bool = False


def split_stack(camera: Camera, cell: tuple[int, int], size: int, pitch_mm: float,
                groups: tuple[np.ndarray, np.ndarray], profile: Profile) -> StackSplit | None:
    """Whether the two colour groups seen on ``cell`` (col, row), each (N, 2) int (x, y)
    pixels, are a stack whose lower piece has ``size`` (its outline holds all that is seen),
    modelled at ``pitch_mm`` and aligned to the groups (:func:`_aligned`). Tries each smaller
    upper size and each group on top; if the best split's score reaches
    ``profile.stack_min_cover``, returns it with the upper size whose outline the upper
    colour fills best (the score favours the smallest). Else, if the upper colour lies at
    least ``stack_central_share`` within an upper outline and fills ``stack_central_fill``
    of it while the lower colour covers ``stack_central_cover`` of the ring, returns that
    split as a weak one; else None."""
    if size < 2:
        return None
    colrow = np.asarray(cell, np.float64)
    half = BASE_MM[size] / pitch_mm / 2
    corners = colrow + half * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
    base = camera.project(np.hstack([corners, np.zeros((4, 1))]))
    lower_outline = outline(camera, colrow, size, pitch_mm)
    uppers = {u: (outline(camera, colrow, u, pitch_mm, seat_height_mm(size, u)),
                  camera.project(np.append(colrow, seat_height_mm(size, u) / pitch_mm)[None])[0])
              for u in range(1, size)}
    seen = np.vstack(groups)
    side = np.sqrt(cv2.contourArea(lower_outline.astype(np.float32)))
    reach = profile.stack_align_shift * side + 2
    everything = np.vstack([lower_outline, *(shape for shape, _ in uppers.values()), seen])
    origin = np.floor(everything.min(axis=0) - reach).astype(int) - 1
    box = (*origin, *(np.ceil(everything.max(axis=0) + reach).astype(int) + 2))
    masks = [np.zeros((box[3] - box[1], box[2] - box[0]), bool) for _ in groups]
    for mask, pixels in zip(masks, groups):
        mask[pixels[:, 1] - origin[1], pixels[:, 0] - origin[0]] = True
    move = _aligned(lower_outline, side, masks[0] | masks[1], box, profile)
    lower_mask = window_mask(move(lower_outline), box) > 0
    best = weak = None
    upper_masks = {}
    for upper_size, (shape, seat) in uppers.items():
        upper_mask = upper_masks[upper_size] = window_mask(move(shape), box) > 0
        upper_area = max(np.count_nonzero(upper_mask), 1)
        sides = _ring_sides(move(seat), move(base), lower_mask & ~upper_mask, origin)
        for lower in (0, 1):
            on_top, below = masks[1 - lower], masks[lower]
            top_inside = np.count_nonzero(on_top & upper_mask)
            gain = (top_inside - np.count_nonzero(below & upper_mask)) / upper_area
            cover = _ring_cover(sides, below, profile.stack_side_cover)
            score = min(gain, cover)
            if best is None or score > best.score:
                best = StackSplit(lower, upper_size, float(score))
            central = top_inside / max(np.count_nonzero(on_top & lower_mask), 1)
            if (weak is None and central >= profile.stack_central_share and cover >= profile.stack_central_cover
                    and top_inside / upper_area >= profile.stack_central_fill):
                weak = StackSplit(lower, upper_size, float(min(top_inside / upper_area, cover)), weak=True)
    if best is None or best.score < profile.stack_min_cover:
        best = weak
    if best is None:
        return None
    on_top = masks[1 - best.lower] & lower_mask
    overlap = {u: np.count_nonzero(on_top & m) / np.count_nonzero(on_top | m) for u, m in upper_masks.items()}
    return StackSplit(best.lower, max(overlap, key=overlap.get), best.score, best.weak)


def _aligned(lower_outline: np.ndarray, side: float, seen: np.ndarray, box, profile: Profile):
    """The move of image points ((K, 2) (x, y) -> (K, 2)) that best lays ``lower_outline``
    on ``seen`` (bool mask of the window ``box`` (x0, y0, x1, y1)), by intersection over
    union: a shift of up to ``profile.stack_align_shift`` of the outline's ``side`` (pixels,
    the square root of its area) each way along x and y, and a scale about its centre by 1
    and 1 plus or minus ``profile.stack_align_scale``."""
    centre = lower_outline.mean(axis=0)
    step = profile.stack_align_shift * side / _ALIGN_STEPS
    count = np.count_nonzero(seen)
    best, best_overlap = (1.0, np.zeros(2)), -1.0
    for scale in (1 - profile.stack_align_scale, 1.0, 1 + profile.stack_align_scale):
        for shift in itertools.product(range(-_ALIGN_STEPS, _ALIGN_STEPS + 1), repeat=2):
            shape = window_mask(centre + scale * (lower_outline - centre) + step * np.array(shift), box) > 0
            common = np.count_nonzero(shape & seen)
            overlap = common / (np.count_nonzero(shape) + count - common)
            if overlap > best_overlap:
                best, best_overlap = (scale, step * np.array(shift)), overlap
    scale, shift = best
    return lambda points: centre + scale * (np.asarray(points, np.float64) - centre) + shift


def _ring_sides(seat: np.ndarray, base: np.ndarray, ring: np.ndarray, origin: np.ndarray) -> list[np.ndarray]:
    """The ``ring`` (bool mask, canvas at ``origin``) cut into its four sides: by the
    directions from the upper piece's ``seat`` (x, y) to the lower piece's ``base`` corners
    ((4, 2) (x, y)), all as seen in the image."""
    bounds = np.sort(np.arctan2(base[:, 1] - seat[1], base[:, 0] - seat[0]))
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

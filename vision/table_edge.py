"""The table's edge: where the city stands near it, the photo shows the floor beyond.

The table is estimated from what surrounds the city (:mod:`vision.colour`); the floor, a rug
or a wall beyond the table's edge is no table, and the step along the edge would stand out
as pieces. The edge is straight and runs across the photo, and beyond it lies one surface
with nothing on it: that tells it from a shadow (the table's own surface, darker) and from a
cloth's stripes (more of them on either side).
"""
from __future__ import annotations

import cv2
import numpy as np

from calibration import Profile

# a table's edge across the photo at 1/8 size: a line, of the Hough transform's strongest
# _EDGE_LINES, along which the colour steps one way at _EDGE_SUPPORT of its pixels, and at
# least that share of the photo's short side long
_EDGE_SUPPORT = 0.6
_EDGE_LINES = 64
_LINE_BIN = 3  # pixels of rho and degrees of theta within which Hough lines are one line
# pixels of the 1/8-size photo: the most a patch unlike the surface beyond a table's edge may
# cover (a piece covers 15 or more)
_BEYOND_SPECK = 6
# pixels of the 1/8-size photo a cloth's print is blurred by before lines are looked for
# again (and, in vision.colour, smooth things on it): its checks and stripes then fade to
# one colour, while a table's edge stays a step
PRINT_BLUR = 2.0
# the least change a pixel of the blurred photo, in units of ``table_threshold``, on a line
# there: a step blurred so changes less a pixel (by 0.35 where the photo's own take 0.5)
_BLURRED_STEP = 0.35


def beyond_table(small: np.ndarray, profile: Profile) -> np.ndarray:
    """What lies beyond the table's edge in ``small`` (the photo at 1/8 size, float32 (h, w,
    3)): uint8 (h, w), 0 or 1.

    Where the city stands near the table's edge, the photo shows the floor (or a rug, a
    wall) beyond it, parted from the table by a straight edge across the photo: a line along
    which the colour steps one way (:func:`_steady_steps`). It is looked for among the
    strongest straight lines through the photo's edges, and through those of the photo
    blurred by ``PRINT_BLUR``: on a busy print the print's own lines outnumber the table's
    edge, and blurred, its checks fade to one colour while the edge stays. Its smaller side
    is beyond the table where it is one surface that nothing lies on: ``beyond_table_share``
    of its pixels within ``table_threshold`` of its median, and none of the rest in a patch
    of over ``_BEYOND_SPECK`` pixels. Two pixels on the table's side of the edge, where the
    step is blurred, are counted beyond it too. A cloth's stripes part two colours along
    straight lines too, but more stripes lie on either side of each."""
    logs = np.log(small)
    h, w = logs.shape[:2]
    beyond = np.zeros((h, w), np.uint8)
    found = [_strongest_lines(logs, profile.table_threshold / 2),
             _strongest_lines(cv2.GaussianBlur(logs, (0, 0), PRINT_BLUR), _BLURRED_STEP * profile.table_threshold)]
    if not sum(map(len, found)):
        return beyond
    lines = _distinct(np.vstack(found))
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    for rho, theta in lines[_steady_steps(logs, lines, profile.table_threshold)]:
        distance = xs * np.cos(theta) + ys * np.sin(theta) - rho
        sign = 1.0 if np.count_nonzero(distance > 0) < np.count_nonzero(distance < 0) else -1.0
        if _one_surface(logs, sign * distance > 2, profile):
            beyond[sign * distance > -2] = 1
    return beyond


def _strongest_lines(logs: np.ndarray, step: float) -> np.ndarray:
    """The ``_EDGE_LINES`` strongest distinct straight lines ((L, 2) (rho, theta), see
    :func:`_distinct`) through the pixels of ``logs`` (float32 (h, w, 3)) where the colour
    changes by over ``step`` a pixel in some channel, each through at least
    ``_EDGE_SUPPORT`` of the short side's length of them."""
    steps = [cv2.magnitude(cv2.Sobel(logs[..., c], cv2.CV_32F, 1, 0), cv2.Sobel(logs[..., c], cv2.CV_32F, 0, 1))
             for c in range(3)]
    edges = np.maximum(np.maximum(steps[0], steps[1]), steps[2]) / 8 > step
    lines = cv2.HoughLines(edges.astype(np.uint8), 1, np.pi / 180, int(_EDGE_SUPPORT * min(edges.shape)))
    return np.zeros((0, 2), np.float32) if lines is None else _distinct(lines[:, 0])[:_EDGE_LINES]


def _distinct(lines: np.ndarray) -> np.ndarray:
    """Of ``lines`` ((L, 2) (rho, theta), strongest first, as the Hough transform gives
    them), the strongest of each bin of ``_LINE_BIN`` pixels and degrees: one line, not its
    neighbours in (rho, theta) that pass through the same pixels."""
    bins = np.round(np.column_stack([lines[:, 0], np.degrees(lines[:, 1])]) / _LINE_BIN).astype(np.int64)
    _, first = np.unique(bins, axis=0, return_index=True)
    return lines[np.sort(first)]


def _steady_steps(logs: np.ndarray, lines: np.ndarray, threshold: float) -> np.ndarray:
    """(L,) bool: whether the colour of ``logs`` (float32 (h, w, 3), log RGB) steps one way
    across each of ``lines`` ((L, 2) (rho, theta): the line ``x cos(theta) + y sin(theta) =
    rho``), over at least ``_EDGE_SUPPORT`` of the photo's short side: by over ``threshold``
    in the channel of the median step, and the same way, at ``_EDGE_SUPPORT`` of the pixels
    along it (every other pixel; the pixels two and a half pixels either side differenced).
    The light on the table may change along the edge, and the step with it; across a
    cloth's checks it changes sides."""
    h, w = logs.shape[:2]
    normal = np.stack([np.cos(lines[:, 1]), np.sin(lines[:, 1])], axis=1)  # (L, 2) (x, y)
    direction = np.stack([-normal[:, 1], normal[:, 0]], axis=1)
    run = np.arange(-(h + w), h + w, 2, dtype=np.float32)[None, :, None]
    points = (lines[:, :1] * normal)[:, None] + run * direction[:, None]  # (L, N, 2) along each line
    sides = [np.round(points + offset * normal[:, None]).astype(np.int32) for offset in (2.5, -2.5)]
    valid = ((np.minimum(sides[0], sides[1]) >= 0).all(axis=2) & (np.maximum(sides[0][..., 0], sides[1][..., 0]) < w)
             & (np.maximum(sides[0][..., 1], sides[1][..., 1]) < h))
    a, b = (logs[np.clip(p[..., 1], 0, h - 1), np.clip(p[..., 0], 0, w - 1)] for p in sides)
    difference = np.where(valid[..., None], a - b, np.nan)  # (L, N, 3)
    count = valid.sum(axis=1)
    ordered = np.sort(difference, axis=1)  # the missing last
    step = np.take_along_axis(ordered, (count // 2)[:, None, None].repeat(3, axis=2), axis=1)[:, 0]
    channel = np.abs(step).argmax(axis=1)  # the channel it steps most in
    rows = np.arange(len(lines))
    along_step = difference[rows, :, channel] * np.sign(step[rows, channel])[:, None]  # (L, N)
    steady = valid & (along_step > threshold)
    return ((2 * count >= _EDGE_SUPPORT * min(h, w)) & (np.abs(step).max(axis=1) > threshold)
            & (steady.sum(axis=1) >= _EDGE_SUPPORT * np.maximum(count, 1)))


def _one_surface(logs: np.ndarray, side: np.ndarray, profile: Profile) -> bool:
    """Whether the pixels of ``logs`` (float32 (h, w, 3)) in ``side`` (bool (h, w)) are one
    surface with nothing on it (see :func:`beyond_table`)."""
    if not side.any():
        return False
    values = logs[side]
    unlike = np.zeros(side.shape, np.uint8)
    unlike[side] = np.abs(values - np.median(values, axis=0)).max(axis=1) >= profile.table_threshold
    largest = cv2.connectedComponentsWithStats(unlike)[2][1:, cv2.CC_STAT_AREA].max(initial=0)
    return bool(1 - unlike[side].mean() >= profile.beyond_table_share and largest <= _BEYOND_SPECK)

"""A stack told by the line its upper piece's base draws across the lower's faces.

Two pieces of one colour stacked show no second colour, and at the working size the band of
the lower's faces below the seat may differ from the band above by little more than a
single piece's shading does. But the upper's base is an edge: its rim runs across every face
of the lower at the seat, straight and parallel to the lower's base. A finer image than the
working one shows it (a 12 MP photo has three times the working side: a millimetre there is
some four pixels). Across each face seen, the photo is averaged along lines parallel to the
base, from a little below the seat to a little above it; the step between one such line and
the next is strongest at the seat where a rim lies there, and nowhere in particular on a
single piece's face, whose shading changes smoothly and whose texture averages out along the
line.
"""
from __future__ import annotations

import cv2
import numpy as np

from .camera import Camera
from .model import cross_section, faces_seen

_SPAN = 0.18  # of the lower's height, each side of the seat, across which a face is profiled
_LOWEST, _HIGHEST = 0.04, 0.9  # the profile stays off the base's edge and the apex
_NEAR = 0.06  # the rim is looked for this near the seat (the pose is a pixel or so off)
_AWAY = 0.09  # the steps this far from the seat or farther are the face's own
_LINES = 60  # lines across the span
_ALONG = np.linspace(0.15, 0.85, 30)  # where each line is sampled: off the ridges at its ends
_DARK = 8.0  # added to each channel before its log: a dark pixel's noise does not count as steps


def seat_line_strength(detail: np.ndarray, scale: float, camera: Camera, centre: tuple[float, float],
                       side: float, turn: float, seat: float) -> float | None:
    """How clearly a line runs across the faces of the pyramid of base ``side`` (grid units)
    at ``centre`` (col, row) turned by ``turn`` (radians), seen by ``camera`` in the working
    image, at the height ``seat`` (a fraction of its height); ``detail`` is the photo at a
    finer size (uint8 (H, W, 3) RGB), ``scale`` times the working image's. Per face seen, the
    strongest step across the face within ``_NEAR`` of the seat over the 90th percentile of
    the steps elsewhere on it (their log RGB, summed over the channels); the median over the
    faces. None where no face is seen."""
    low, high = max(seat - _SPAN, _LOWEST), min(seat + _SPAN, _HIGHEST)
    below, above = (cross_section(camera, centre, side, turn, h)[:4] * scale for h in (low, high))
    base = cross_section(camera, centre, side, turn, 0.0)
    heights = low + (high - low) * (np.arange(_LINES - 1) + 0.5) / (_LINES - 1)  # of the steps
    near, away = np.abs(heights - seat) <= _NEAR, np.abs(heights - seat) >= _AWAY
    ratios = []
    for k in np.nonzero(faces_seen(base[None, :4], base[None, 4])[0])[0]:
        steps = _steps_across(detail, below[k], below[(k + 1) % 4], above[k], above[(k + 1) % 4])
        ratios.append(steps[near].max() / max(float(np.percentile(steps[away], 90)), 1e-6))
    return float(np.median(ratios)) if ratios else None


def _steps_across(detail: np.ndarray, low0: np.ndarray, low1: np.ndarray, high0: np.ndarray,
                  high1: np.ndarray) -> np.ndarray:
    """(_LINES - 1,) the step between each line across a face and the next: the lines run
    from the segment ``low0``-``low1`` to ``high0``-``high1`` ((2,) (x, y) each, in
    ``detail``), each the mean log RGB along it, the step the sum over the channels of the
    absolute change, smoothed over two steps."""
    shares = np.linspace(0.0, 1.0, _LINES)[None, :, None]
    low = low0 + (low1 - low0) * _ALONG[:, None]
    high = high0 + (high1 - high0) * _ALONG[:, None]
    points = (low[:, None] + (high - low)[:, None] * shares).astype(np.float32)  # (along, across, 2)
    samples = cv2.remap(detail, points[..., 0], points[..., 1], cv2.INTER_LINEAR).astype(np.float32)
    lines = np.log(samples + _DARK).mean(axis=0)  # (_LINES, 3)
    steps = np.abs(np.diff(lines, axis=0)).sum(axis=1)
    return np.convolve(steps, [0.5, 0.5], mode="same")

"""The shadows a low lamp casts on the table beside the pieces, told by one lamp fitted to the
photo's darkness.

Under a lamp low to one side each pyramid casts a shadow longer than its base, and the shadows
are labelled with the pieces: a candidate then holds a piece and its shadow, and is read a size
too large or as a piece of its own. A pyramid on the table casts the hull of its base and the
point its apex's shadow falls on; one lamp casts every piece's shadow the same way, each as long
as its piece is tall. So the lamp that best explains the darkness beside a reading's pieces
says where their shadows lie, and the candidates can be found again without them.

On a printed cloth the print's dark colours pass for shadow too. A shadow, though, lies on the
side of a piece away from the lamp alone, while a print is as dark on every side: darkness told
against the table across the piece tells a second lamp, and the two must agree.
"""
from __future__ import annotations

import logging

import cv2
import numpy as np

from calibration import Profile

from .camera import apply_homography
from .detection import Detection
from .model import HEIGHT_MM

logger = logging.getLogger(__name__)

_COARSE_TURNS = 3  # lamps are tried every this many turns first, then every turn round the best


def cast_shadows(detection: Detection, log_ratio: np.ndarray, profile: Profile,
                 printed: bool = False) -> np.ndarray | None:
    """The table in the shadows the pieces of ``detection`` cast (bool (H, W), True outside
    every piece's outline), or None where the lamp that best explains the darkness beside them
    is higher than ``profile.cast_shadow_max_elevation_deg`` or nothing is dark.

    ``log_ratio`` is the photo's log ratio to the table (float32 (H, W, 3), as from
    ``colour.table_relative``), in the pixels the detection was read in. A pixel is dark where
    its mean over the channels is under ``-cast_shadow_darkness``. Each lamp tried (every
    ``360 / cast_shadow_turns`` degrees round the grid, at each of
    ``cast_shadow_elevations_deg`` above the table) casts each piece on the table its
    shadow, and scores the pixels of those shadows outside the pieces: +1 - ``cast_shadow_share``
    for a dark one, -``cast_shadow_share`` for another; the best scoring lamp is the photo's.
    The turns are tried every ``_COARSE_TURNS`` first, then each one between the best of
    those and its neighbours (at every elevation): the score varies slowly with the turn.
    A stack's upper piece casts no shadow of its own (its apex is as high as its lower's).

    On a ``printed`` table a second lamp is fitted so, each shadow pixel scored as dark where
    it is darker by ``cast_shadow_darkness`` than the pixel across its piece (mirrored through
    the centre of the piece casting it), where that one lies on the table in no shadow of the
    lamp; the second lamp casts the shadows, and only where it is turned within
    ``cast_shadow_print_agreement_deg`` of the first and is at most
    ``cast_shadow_print_max_elevation_deg`` above the table: a print's own patches make each
    fit stray alone, and the short shadows of a higher lamp are not worth the risk.
    """
    h, w = log_ratio.shape[:2]
    pieces = [p for p in detection.pieces if p.level == 0]
    if not pieces:
        return None
    outlines = [np.asarray(p.outline, np.float32) for p in detection.pieces]
    at = apply_homography(np.linalg.inv(detection.homography), np.array([p.center for p in pieces]))  # (N, 2) grid
    heights = np.array([HEIGHT_MM[p.size] for p in pieces]) / detection.pitch_mm  # grid units
    turns = profile.cast_shadow_turns
    tips = {(elevation, k): _shadow_tips(detection.homography, at, heights, elevation, 2 * np.pi * k / turns)
            for elevation in profile.cast_shadow_elevations_deg for k in range(turns)}  # (elevation, turn) lamps
    corners = np.vstack([*outlines, *tips.values()])
    x0, y0 = np.clip(np.floor(corners.min(axis=0)).astype(int), 0, (w, h))
    x1, y1 = np.clip(np.ceil(corners.max(axis=0)).astype(int) + 1, 0, (w, h))
    if x1 <= x0 or y1 <= y0:
        return None
    origin = np.array([x0, y0], np.float32)
    brightness = log_ratio[y0:y1, x0:x1].mean(axis=2)
    evidence = (brightness < -profile.cast_shadow_darkness).astype(np.float32) - profile.cast_shadow_share
    free = np.ones(brightness.shape, np.uint8)
    for outline in outlines:
        cv2.fillConvexPoly(free, _hull(outline - origin), 0)
    own = [np.asarray(p.outline, np.float32) - origin for p in pieces]
    centres = np.array([p.center for p in pieces], np.float32) - origin

    def casters(lamp) -> np.ndarray:  # int32: 1 + the index of the piece casting each shadow pixel, else 0
        caster = np.zeros(brightness.shape, np.int32)
        for k, (outline, point) in enumerate(zip(own, tips[lamp] - origin)):
            cv2.fillConvexPoly(caster, _hull(np.vstack([outline, point[None]])), k + 1)
        caster[free == 0] = 0
        return caster

    def against_the_table(lamp) -> float:
        return float(evidence[casters(lamp) > 0].sum())

    def across_the_pieces(lamp) -> float:
        caster = casters(lamp)
        ys, xs = np.nonzero(caster)
        across = np.round(2 * centres[caster[ys, xs] - 1] - np.column_stack([xs, ys])).astype(np.intp)
        ax, ay = across[:, 0], across[:, 1]
        kept = (ax >= 0) & (ax < brightness.shape[1]) & (ay >= 0) & (ay < brightness.shape[0])
        ys, xs, ax, ay = ys[kept], xs[kept], ax[kept], ay[kept]
        kept = (free[ay, ax] > 0) & (caster[ay, ax] == 0)
        darker = brightness[ay[kept], ax[kept]] - brightness[ys[kept], xs[kept]] > profile.cast_shadow_darkness
        return float(darker.sum() - profile.cast_shadow_share * len(darker))

    score, lamp = _best_lamp(against_the_table, tips, turns)
    highest = profile.cast_shadow_max_elevation_deg
    if printed and score > 0:
        first = lamp
        score, lamp = _best_lamp(across_the_pieces, tips, turns)
        apart = abs((first[1] - lamp[1] + turns / 2) % turns - turns / 2) * 360 / turns
        if apart > profile.cast_shadow_print_agreement_deg:
            return None
        highest = profile.cast_shadow_print_max_elevation_deg
    if score <= 0 or lamp[0] > highest:
        return None
    logger.info("a lamp %.0f degrees above the table casts the pieces' shadows", lamp[0])
    shadows = np.zeros((h, w), bool)
    shadows[y0:y1, x0:x1] = casters(lamp) > 0
    return shadows


def _best_lamp(score, tips: dict, turns: int) -> tuple[float, tuple[float, int]]:
    """The best ``score`` (a function of a lamp (elevation, turn)) of the lamps ``tips``
    holds and its lamp: every ``_COARSE_TURNS`` turns at each elevation first, then each of
    the ``turns`` between the best of those and its neighbours."""
    coarse = range(0, turns, _COARSE_TURNS)
    best = max((score(lamp), lamp) for lamp in tips if lamp[1] in coarse)
    near = {(best[1][1] + k) % turns for k in range(1 - _COARSE_TURNS, _COARSE_TURNS)} - set(coarse)
    return max([best, *((score(lamp), lamp) for lamp in tips if lamp[1] in near)])


def _shadow_tips(H: np.ndarray, at: np.ndarray, heights: np.ndarray, elevation_deg: float,
                 turn: float) -> np.ndarray:
    """(N, 2) float32 pixels (x, y) where the apexes of pieces standing at grid points ``at``
    ((N, 2) (col, row)), ``heights`` (N,) grid units tall, cast their shadows under a lamp
    ``elevation_deg`` above the table, lit from the grid direction ``turn`` (radians); ``H``
    maps grid points to pixels."""
    length = heights / np.tan(np.radians(elevation_deg))
    away = -np.array([np.cos(turn), np.sin(turn)])
    return apply_homography(H, at + length[:, None] * away).astype(np.float32)


def _hull(points: np.ndarray) -> np.ndarray:
    """The convex hull (K, 1, 2) int32 of ``points`` ((M, 2) float32 (x, y)) for OpenCV's fill."""
    return cv2.convexHull(np.round(points).astype(np.float32)).astype(np.int32)

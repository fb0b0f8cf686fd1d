"""Round things lying beside the city: a mug, a glass, a coaster, a plate.

Seen from above, a round thing's rim is an ellipse (a circle, foreshortened by the camera's
tilt), and whatever of it stands out from the table (the rim alone, where the coffee in a
mug looks like a cloth's print; or the whole disc with the edge of its shadow) is a region
whose outer outline runs along that ellipse nearly all round. No pyramid is round: its
outline is a square, and pieces joined into one region (touching, or linked by their
shadows or a print) make an outline of corners. A region at least a few pieces across
whose outline so runs, holding nothing else inside it, is such a thing: neither it nor
anything inside its ellipse is a piece (the pieces a second look would find there are its
rim's edges and the coffee). The ring of glare a lamp's hot spot makes round part of the
city can be as round, but it holds the city's pieces.

A mug over twice as wide as every other region is left out by its width already
(:func:`vision.pieces._side_and_outsized`); this tells a smaller one (a mug about three
pitches across beside large pieces joined by their shadows), or one whose rim alone stands
out, whose width (the distance transform's peak) is the rim's.
"""
from __future__ import annotations

import cv2
import numpy as np

from calibration import Profile

_MIN_OUTLINE_POINTS = 20  # an outline shorter than this is too coarse to fit an ellipse to
_OWN_PIXELS_REACH = 1.5  # of the ellipse's size: the region's own pixels (its shadow) taken with it


def round_things(fg: np.ndarray, side: float, profile: Profile) -> np.ndarray:
    """bool (H, W): the round things in ``fg`` (bool (H, W), what stands out from the
    table), ``side`` pixels the side of a typical piece. A region of ``fg`` (8-connected) is
    one where the ellipse fitted to its outer outline is at least ``round_min_sides``
    typical sides across its narrower axis, at least ``round_fit_share`` of the outline's
    points lie within ``round_fit_tolerance`` of it (in units of its own size: its implicit
    radius, 1 on the ellipse, is within that of 1), and other regions of ``fg`` cover at
    most ``round_inside_share`` of its inside. Each such thing's mask is its ellipse filled
    and its region's pixels within ``_OWN_PIXELS_REACH`` times the ellipse's size."""
    fg = fg.astype(np.uint8)
    contours, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = np.zeros(fg.shape, bool)
    regions = None  # labelled once a region's outline is round: few photos hold one
    least = profile.round_min_sides * side
    for contour in contours:
        if len(contour) < _MIN_OUTLINE_POINTS or cv2.contourArea(contour) < 0.5 * least ** 2:
            continue
        ellipse = cv2.fitEllipse(contour)
        if min(ellipse[1]) < least or _share_on(contour, ellipse, profile.round_fit_tolerance) < profile.round_fit_share:
            continue
        if regions is None:
            regions = cv2.connectedComponents(fg, connectivity=8)[1]
        x, y = contour[0, 0]
        own, inside = regions == regions[y, x], _filled(fg.shape, ellipse, 1.0)
        if np.count_nonzero(inside & (fg > 0) & ~own) > profile.round_inside_share * np.count_nonzero(inside):
            continue
        out |= inside | (own & _filled(fg.shape, ellipse, _OWN_PIXELS_REACH))
    return out


def _filled(shape: tuple[int, int], ellipse, scale: float) -> np.ndarray:
    """bool ``shape``: ``ellipse`` (as :func:`cv2.fitEllipse` gives) scaled by ``scale``
    about its centre, filled."""
    (cx, cy), (width, height), angle = ellipse
    mask = np.zeros(shape, np.uint8)
    cv2.ellipse(mask, ((cx, cy), (scale * width, scale * height), angle), 1, -1)
    return mask > 0


def _share_on(contour: np.ndarray, ellipse, tolerance: float) -> float:
    """The share of the points of ``contour`` ((K, 1, 2) int32 (x, y)) whose implicit radius
    on ``ellipse`` (as :func:`cv2.fitEllipse` gives: centre, full axes, angle in degrees)
    is within ``tolerance`` of 1."""
    (cx, cy), (width, height), angle = ellipse
    turn = np.radians(angle)
    points = contour.reshape(-1, 2).astype(np.float64) - (cx, cy)
    along = points[:, 0] * np.cos(turn) + points[:, 1] * np.sin(turn)
    across = -points[:, 0] * np.sin(turn) + points[:, 1] * np.cos(turn)
    radius = np.hypot(along / max(width / 2, 1e-6), across / max(height / 2, 1e-6))
    return float(np.mean(np.abs(radius - 1.0) < tolerance))

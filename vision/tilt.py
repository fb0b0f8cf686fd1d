"""The camera's tilt told by the pieces' ridges, where the places they stand on cannot tell it.

A phone held at a slant sees each pyramid's apex lean away from it, at 20 degrees by as much
as a piece's side. Where the pieces stand (their anchors) fits a grid seen straight down as
well as a tilted one on a small city: the foreshortening across a few cells is within their
noise. The leans show in the photo's edges, though: a pyramid's ridges run from its base
corners to its apex. So cameras at a ladder of tilts, each looking one of several ways across
the grid, are fitted to the anchors with their tilt held; those that fit the anchors nearly as
well as the reading's own tilt (a tilt the anchors rule out is out) are scored by how much
stronger they make the edges along each piece's outline and ridges
(:func:`vision.edge_fit.outlines_strength`) than the reading's tilt does, and the best,
where most pieces gain clearly, is the tilt to read the photo with.
"""
from __future__ import annotations

import logging

import numpy as np

from calibration import Profile

from .camera import Camera, CameraPrior, anchor_misfit, camera_from_homography, intrinsics, looking_toward
from .edge_fit import EdgeTensor, outlines_strength
from .grid import cell_side
from .model import BASE_MM, base_centres

logger = logging.getLogger(__name__)

RUNG_DEG = 10.0  # the ladder's step: a tilt told nearer the reading's than this is within what it resolves
_LADDER_DEG = (RUNG_DEG, 2 * RUNG_DEG, 3 * RUNG_DEG)  # the tilts tried first, each looking each of _WAYS ways
_WAYS = 8
_REFINE_DEG = (5.0, 360.0 / _WAYS / 2)  # then those this much steeper or flatter, and turned either way
_HELD_DEG = 1.0  # a camera's tilt is held to within this (the spread of the prior on it)


def told_tilt(reading, edges: EdgeTensor, image_size: tuple[int, int], profile: Profile) -> tuple[float, float] | None:
    """The tilt the pieces' ridges tell, as :attr:`vision.camera.CameraPrior.toward`, where
    it differs from that of the camera of ``reading`` (:class:`vision.cells.CityReading`,
    of an image of ``image_size`` (w, h)); None where that camera fits as well.

    A camera is fitted to the anchors of the pieces on the table with its tilt held, and
    counts only where the anchors lie off it by at most ``profile.tilt_anchor_margin`` more
    than off the reading's tilt fitted alike (in squared units of their noise,
    ``profile.anchor_noise``), and where its tilt is a rung of the ladder or more from the
    reading's. Each such camera's gain is the median over the pieces of how much stronger (in
    log) the ``edges`` along a piece's outline are with it than with the reading's tilt: a
    true tilt lays every piece's ridges on the photo's, a shadow's edge or a cloth's line
    lined up by chance only some. The camera of the largest gain wins where that gain is over
    ``profile.tilt_edge_margin``. A city of more than ``profile.tilt_told_most_pieces``
    pieces on the table is not looked at: its anchors tell its tilt."""
    table = [p for p in reading.pieces if p.level == 0]
    if not 2 <= len(table) <= profile.tilt_told_most_pieces:
        return None
    cells = np.array([(p.col, p.row) for p in table], np.float64)
    seen = np.array([p.center for p in table], np.float64)
    sizes = np.array([p.size for p in table])
    sides = np.array([BASE_MM[size] for size in sizes]) / reading.pitch_mm
    colours = np.array([p.color_index for p in table])
    K = intrinsics(image_size, profile.hfov_deg)

    # where the bases stand, by the reading camera's leans, for every tilt: the lean the pieces
    # share is taken up by where the grid lies (see calibration/README.md, `tilt_anchor_margin`)
    anchors = base_centres(reading.camera, seen, cells, sizes, reading.pitch_mm)
    side_px = cell_side(reading.grid.H, cells.mean(axis=0))

    def held(toward: np.ndarray) -> tuple[Camera, float]:
        """The camera fitted to the anchors with its tilt held at ``toward``, and their misfit."""
        prior = CameraPrior(K, profile.anchor_noise, _HELD_DEG, tuple(toward))
        H, misfit = anchor_misfit(cells, anchors, np.ones(len(cells)), prior, [reading.grid.H], side_px)
        return camera_from_homography(H, image_size, profile.hfov_deg), misfit

    own = looking_toward(reading.camera)
    own_camera, own_misfit = held(own)  # the reading's tilt, fitted as the others are
    most = own_misfit + profile.tilt_anchor_margin

    def allowed(tilts_ways: list[tuple[float, float]]) -> list[tuple[Camera, tuple[float, float], np.ndarray]]:
        """Of the tilts (degrees), each looking a way (degrees from the grid's col axis toward
        its row axis), those a rung or more from the reading's whose camera the anchors
        allow: (camera, (tilt, way), toward)."""
        out = []
        for tilt, way in tilts_ways:
            toward = np.sin(np.radians(tilt)) * np.array([np.cos(np.radians(way)), np.sin(np.radians(way))])
            if _angle_deg(toward, own) >= RUNG_DEG:
                camera, misfit = held(toward)
                if misfit <= most:
                    out.append((camera, (tilt, way), toward))
        return out

    ways = 360.0 / _WAYS * np.arange(_WAYS)
    first = allowed([(0.0, 0.0)] + [(tilt, way) for tilt in _LADDER_DEG for way in ways])
    if not first:
        return None
    own_strengths = outlines_strength(edges, own_camera, cells, sides, colours)

    def gains(cameras: list[tuple[Camera, tuple[float, float], np.ndarray]]) -> list[tuple[float, tuple, np.ndarray]]:
        """Each of ``cameras`` (as from ``allowed``) with its gain on the edges: (gain, (tilt, way), toward)."""
        return [(_gain(outlines_strength(edges, camera, cells, sides, colours), own_strengths), tilt_way, toward)
                for camera, tilt_way, toward in cameras]

    tried = gains(first)
    _, (tilt, way), _ = max(tried, key=lambda t: t[0])
    if tilt > 0:
        step_tilt, step_way = _REFINE_DEG
        tried += gains(allowed([(t, w) for t in (tilt - step_tilt, tilt, tilt + step_tilt)
                                for w in (way - step_way, way, way + step_way) if (t, w) != (tilt, way) and t > 0]))
    gain, (tilt, way), toward = max(tried, key=lambda t: t[0])
    if gain <= profile.tilt_edge_margin:
        return None
    logger.info("the pieces' ridges tell a tilt of %.0f degrees, not %.0f", tilt, reading.camera.tilt_deg)
    return float(toward[0]), float(toward[1])


def within_rung(camera: Camera, toward: tuple[float, float]) -> bool:
    """Whether the tilt of ``camera`` is within a rung of the ladder of the tilt ``toward``
    (as :attr:`vision.camera.CameraPrior.toward`)."""
    return _angle_deg(np.asarray(toward, np.float64), looking_toward(camera)) < RUNG_DEG


def _gain(strengths: np.ndarray, own: np.ndarray) -> float:
    """How much stronger most pieces' edges are at a tilt: the median over the pieces of the
    log strengths at it, ``strengths`` (N,), less those at the reading's tilt, ``own`` (N,)."""
    return float(np.median(strengths - own))


def _angle_deg(toward: np.ndarray, other: np.ndarray) -> float:
    """The angle in degrees between the optical axes of two tilts (as
    :attr:`vision.camera.CameraPrior.toward`, (2,) each)."""
    axes = [np.append(t, -np.sqrt(max(1.0 - float(np.dot(t, t)), 0.0))) for t in (toward, other)]
    return float(np.degrees(np.arccos(np.clip(np.dot(*axes), -1.0, 1.0))))

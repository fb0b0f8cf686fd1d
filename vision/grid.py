"""Fitting the game's square grid to piece positions.

The grid is a homography ``H`` (3x3) from grid coordinates (col, row, 1), one unit per cell
pitch, to image pixels (x, y, w). Cells are found by growing a lattice from the centre of the
city outward; the camera (focal length from the assumed field of view) is recovered from
``H`` (:mod:`vision.camera`) so that pieces can be modelled in 3D (their apex leans away
from the camera).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .camera import CameraPrior, apply_homography as _apply, fit_pose
from .errors import BoardNotFound


@dataclass(frozen=True)
class GridFit:
    """``H``: (3, 3) float64 grid (col, row, 1) -> image (x, y, w). ``cells``: (N, 2) int64
    (col, row) of each input point; ``residual``: (N,) distance to the cell centre in pitches."""

    H: np.ndarray
    cells: np.ndarray
    residual: np.ndarray


def fit_grid(points: np.ndarray, spacing_hint: float, tolerance: tuple[float, float],
             weights: np.ndarray | None = None, min_pitch: float = 0.0,
             camera: CameraPrior | None = None) -> GridFit:
    """Fit the grid to piece anchor points.

    ``points``: (N, 2) image (x, y); ``spacing_hint``: rough pitch in pixels, used when there
    are too few points to measure it; ``tolerance``: how far, in pitches, a point may be off
    its lattice node at the lattice's origin, and how much more per cell away from it (where
    perspective bends the similarity lattice that starts the fit); ``weights``: (N,) how
    much each point is to be trusted (1 for a whole piece, less for a fragment); ``min_pitch``: the least plausible pitch in
    pixels (a cell holds a whole piece); ``camera``: what is known of the camera, if anything.
    With it, a perspective fit must be a square grid seen by that camera (6 degrees of freedom
    instead of 8) and a strong tilt needs strong evidence: a small city's noisy points cannot
    bend it into a skewed or steeply tilted grid.
    Raises :class:`BoardNotFound` when there are no points.
    """
    points = np.asarray(points, np.float64)
    if not len(points):
        raise BoardNotFound("no pieces were found on the table")
    weights = np.ones(len(points)) if weights is None else np.asarray(weights, np.float64)
    theta, pitch, start = _lattice_start(points, weights, spacing_hint, min_pitch, tolerance)
    seed = points[start]
    c, s = np.cos(theta), np.sin(theta)
    H = np.array([[pitch * c, -pitch * s, seed[0]], [pitch * s, pitch * c, seed[1]], [0, 0, 1]])
    radius = 2.5
    for _ in range(40):  # grow outward from the seed until every point is included
        grid = _apply(np.linalg.inv(H), points)
        near = np.linalg.norm(grid, axis=1) <= radius
        cells = np.round(grid).astype(np.int64)
        H = _fit_model(cells[near], points[near], weights[near], H, camera)
        if near.all():
            break
        radius += 1.5
    if not np.all(np.isfinite(H)):
        raise BoardNotFound("the pieces do not sit on a grid that could be found")
    for _ in range(3):
        grid = _apply(np.linalg.inv(H), points)
        cells = np.round(grid).astype(np.int64)
        residual = np.linalg.norm(grid - cells, axis=1)
        trust = weights * np.clip(1.5 - 2.5 * residual, 0.05, 1.0)
        H = _fit_model(cells, points, trust, H, camera)
    grid = _apply(np.linalg.inv(H), points)
    cells = np.round(grid).astype(np.int64)
    return GridFit(H, cells, np.linalg.norm(grid - cells, axis=1))


def moved_grid(fit: GridFit, shift: np.ndarray, points: np.ndarray) -> GridFit:
    """``fit`` with its grid moved along the table by ``shift`` (2,) (col, row), in pitches:
    each of ``points`` ((N, 2) image (x, y), the anchors ``fit`` was fitted to) kept on its
    cell, its residual measured again."""
    H = fit.H @ np.array([[1.0, 0.0, shift[0]], [0.0, 1.0, shift[1]], [0.0, 0.0, 1.0]])
    return GridFit(H, fit.cells, np.linalg.norm(_apply(np.linalg.inv(H), points) - fit.cells, axis=1))


def _lattice_start(points: np.ndarray, weights: np.ndarray, spacing_hint: float,
                   min_pitch: float, tolerance: tuple[float, float]) -> tuple[float, float, int]:
    """Grid angle (radians), pitch (pixels) and the index of the point to grow from.

    Every vector from a point to one of its three nearest neighbours proposes a lattice
    (angle, pitch, origin at that point); each is scored by the log likelihood ratio of the
    points' offsets from their nearest lattice node against offsets spread evenly over a cell.
    A lattice of half the pitch explains every point too, but each of its nodes is four
    times as likely by chance, so the true pitch wins unless fragments outnumber pieces.
    The offsets' tolerance (``tolerance``, see :func:`fit_grid`) grows away from the origin.
    Lattices finer than ``min_pitch`` are not proposed while any other is.
    """
    if len(points) < 2:
        return 0.0, spacing_hint, 0
    diff = points[None, :, :] - points[:, None, :]
    dist = np.linalg.norm(diff, axis=2)
    np.fill_diagonal(dist, np.inf)
    k = min(3, len(points) - 1)
    near = np.argsort(dist, axis=1)[:, :k]
    origin = np.repeat(np.arange(len(points)), k)
    vec = diff[origin, near.ravel()]
    pitch = np.linalg.norm(vec, axis=1)
    theta = np.mod(np.arctan2(vec[:, 1], vec[:, 0]) + np.pi / 4, np.pi / 2) - np.pi / 4
    c, s = np.cos(theta), np.sin(theta)
    rel = points[None, :, :] - points[origin][:, None, :]  # (M, N, 2)
    u = (rel[..., 0] * c[:, None] + rel[..., 1] * s[:, None]) / pitch[:, None]
    v = (-rel[..., 0] * s[:, None] + rel[..., 1] * c[:, None]) / pitch[:, None]
    off2 = (u - np.round(u)) ** 2 + (v - np.round(v)) ** 2
    tol = tolerance[0] + tolerance[1] * np.hypot(u, v)
    ratio = np.exp(-off2 / (2 * tol ** 2)) / (2 * np.pi * tol ** 2)  # node density x cell area
    score = (np.log(0.5 + ratio) * weights[None]).sum(axis=1)
    if (pitch >= min_pitch).any():
        score[pitch < min_pitch] = -np.inf
    best = int(np.argmax(score))
    return float(theta[best]), float(pitch[best]), int(origin[best])


def _fit_model(cells: np.ndarray, points: np.ndarray, weights: np.ndarray, previous: np.ndarray,
               camera: CameraPrior | None) -> np.ndarray:
    """Weighted fit of grid -> image: a homography when the cells span at least 3 x 3 with
    8 points (a camera pose when ``camera`` is given; with 2 points or more where its tilt is
    told, ``camera.toward``), an affine map with 3 non-collinear points, else a similarity.
    A fit that is degenerate or distorts the previous cell size by more than 2x is refused
    for the next simpler model."""
    cells = cells.astype(np.float64)
    spans = np.ptp(cells, axis=0) if len(cells) else np.zeros(2)
    candidates = []
    large = bool(len(cells) >= 8 and spans.min() >= 2)
    if camera is not None and (large or (camera.toward is not None and len(cells) >= 2)):
        candidates.append(lambda c, p, w: fit_pose(c, p, w, camera,
                                                   ([_weighted_homography(c, p, w)] if large else []) + [previous],
                                                   cell_side(previous, c.mean(axis=0))))
    elif large:
        candidates.append(_weighted_homography)
    if len(cells) >= 3 and spans.min() >= 1:
        candidates.append(_weighted_affine)
    for fit in candidates:
        with np.errstate(all="ignore"):
            H = fit(cells, points, weights)
        if _plausible(H, previous, cells):
            return H
    return _similarity(cells, points, previous)


def _plausible(H: np.ndarray, previous: np.ndarray, cells: np.ndarray) -> bool:
    """Finite, orientation-preserving, in front of the camera over the cells, and with a cell
    size within 2x of the previous model's."""
    if not np.all(np.isfinite(H)) or abs(np.linalg.det(H)) < 1e-12:
        return False
    w = np.hstack([cells, np.ones((len(cells), 1))]) @ H[2]
    if np.any(w * np.sign(H[2, 2] or 1.0) <= 0):
        return False
    centre = cells.mean(axis=0)
    det_h, det_prev = (_local_scale(model, centre) for model in (H, previous))
    return det_h > 0 and 0.25 < det_h / det_prev < 4


def cell_side(H: np.ndarray, colrow: np.ndarray) -> float:
    """The side in pixels of the cell of the grid ``H`` (3, 3) at ``colrow`` (col, row): the
    root of its area."""
    return float(np.sqrt(abs(_local_scale(H, np.asarray(colrow, np.float64)))))


def _local_scale(H: np.ndarray, colrow: np.ndarray) -> float:
    """Signed area in pixels of one grid cell at ``colrow`` (determinant of the Jacobian)."""
    p0 = _apply(H, colrow[None])[0]
    jac = np.stack([_apply(H, (colrow + d)[None])[0] - p0 for d in ([1.0, 0.0], [0.0, 1.0])], axis=1)
    return float(np.linalg.det(jac))


def _weighted_affine(cells, points, weights) -> np.ndarray:
    X = np.hstack([cells, np.ones((len(cells), 1))]) * np.sqrt(weights)[:, None]
    coef, *_ = np.linalg.lstsq(X, points * np.sqrt(weights)[:, None], rcond=None)
    return np.vstack([coef.T, [0, 0, 1]])


def _weighted_homography(cells, points, weights) -> np.ndarray:
    """Normalised DLT with weights; (3, 3) with H[2, 2] = 1."""
    def normaliser(p):
        m = p.mean(axis=0)
        s = np.sqrt(2) / max(np.mean(np.linalg.norm(p - m, axis=1)), 1e-9)
        return np.array([[s, 0, -s * m[0]], [0, s, -s * m[1]], [0, 0, 1]])
    Tc, Tp = normaliser(cells), normaliser(points)
    c = _apply(Tc, cells)
    p = _apply(Tp, points)
    (u, v), (x, y), w = c.T, p.T, np.sqrt(weights)
    one, zero = np.ones_like(u), np.zeros_like(u)
    rows = np.empty((2 * len(u), 9))
    rows[0::2] = w[:, None] * np.stack([u, v, one, zero, zero, zero, -x * u, -x * v, -x], axis=1)
    rows[1::2] = w[:, None] * np.stack([zero, zero, zero, u, v, one, -y * u, -y * v, -y], axis=1)
    _, _, vt = np.linalg.svd(rows, full_matrices=False)  # called with 8 points or more
    Hn = vt[-1].reshape(3, 3)
    H = np.linalg.inv(Tp) @ Hn @ Tc
    return H / H[2, 2]


def _similarity(cells, points, previous) -> np.ndarray:
    """Keep the previous scale and rotation; move the origin to fit the points."""
    H = previous.copy()
    if len(cells):
        shift = np.mean(points - _apply(previous, cells), axis=0)
        H[:2, 2] += shift * H[2, 2]
    return H

"""The phone camera behind the grid: intrinsics, pose and projection.

The grid's homography ``H`` (3x3, grid (col, row, 1) -> image (x, y, w), one unit per cell
pitch) of a square grid seen by a pinhole camera is ``K [r1 r2 t]``: the camera matrix ``K``
times the first two columns of the camera's rotation and its translation. Knowing ``K`` (from
an assumed field of view), the pose can be recovered from ``H``, or fitted directly (6
parameters instead of a free homography's 8), and pieces modelled in 3D.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class CameraPrior:
    """What is known of the camera before the grid is fitted: ``K`` (3, 3) camera matrix
    (:func:`intrinsics`); ``anchor_noise``: how far a piece's anchor may be off its cell
    centre, in pitches; ``tilt_prior_deg``: the typical tilt from straight down (a Gaussian
    prior on its sine, round ``toward``); ``toward``: the tilt expected, as where the camera
    looks across the table: the (col, row) part of its optical axis in grid units, of length
    the sine of the tilt (:func:`looking_toward`); None for straight down, a tilt that only a
    grid large enough to show its foreshortening fits (:func:`vision.grid.fit_grid`); given,
    a tilt told otherwise (:mod:`vision.tilt`), fitted on a grid of any size."""

    K: np.ndarray
    anchor_noise: float
    tilt_prior_deg: float
    toward: tuple[float, float] | None = None


@dataclass(frozen=True)
class Camera:
    """Pinhole camera looking at the table. Table coordinates: (col, row, height) in pitches,
    height positive toward the camera. ``P``: (3, 4) projection to image (x, y, w)."""

    P: np.ndarray
    center: np.ndarray

    def project(self, pts: np.ndarray) -> np.ndarray:
        """(N, 3) table (col, row, height) -> (N, 2) image (x, y)."""
        pts = np.asarray(pts, np.float64).reshape(-1, 3)
        out = pts @ self.P[:, :3].T + self.P[:, 3]
        return out[:, :2] / out[:, 2:3]

    @property
    def tilt_deg(self) -> float:
        """Angle between the optical axis and straight down, degrees."""
        axis = self.P[2, :3] / np.linalg.norm(self.P[2, :3])
        return float(np.degrees(np.arccos(min(1.0, abs(axis[2])))))


def looking_toward(camera: Camera) -> np.ndarray:
    """(2,) where ``camera`` looks across the table: the (col, row) part of its optical axis
    (a unit vector), of length the sine of its tilt (see :class:`CameraPrior`)."""
    axis = camera.P[2, :3] / np.linalg.norm(camera.P[2, :3])
    return axis[:2] * np.sign(-axis[2] or 1.0)


def intrinsics(image_size: tuple[int, int], hfov_deg: float) -> np.ndarray:
    """(3, 3) camera matrix: square pixels, the principal point at the centre of an image of
    ``image_size`` (width, height), a horizontal field of view of ``hfov_deg`` over its long
    side."""
    w, h = image_size
    f = 0.5 * max(w, h) / np.tan(np.radians(hfov_deg) / 2)
    return np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])


def apply_homography(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """(N, 2) points mapped by the (3, 3) homography ``H`` -> (N, 2)."""
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    out = np.hstack([pts, np.ones((len(pts), 1))]) @ H.T
    return out[:, :2] / out[:, 2:3]


def camera_from_homography(H: np.ndarray, image_size: tuple[int, int], hfov_deg: float) -> Camera:
    """Recover the camera from the grid homography, assuming square pixels, the principal
    point at the image centre and a horizontal field of view ``hfov_deg`` over the long side.
    ``image_size`` is (width, height)."""
    K = intrinsics(image_size, hfov_deg)
    R, t = _pose(H, K)
    center = -R.T @ t
    if center[2] < 0:  # height must grow toward the camera
        R[:, 2] = -R[:, 2]
        center = -R.T @ t
    P = K @ np.hstack([R, t[:, None]])
    return Camera(P, center)


def fit_pose(cells: np.ndarray, points: np.ndarray, weights: np.ndarray, prior: CameraPrior,
             starts: list[np.ndarray], cell_side_px: float) -> np.ndarray:
    """The homography of a square grid seen by the camera of ``prior``: its rotation and
    position (6 parameters) fitted by damped Gauss-Newton to the weighted points, from the
    best of the homographies ``starts``, with the prior on the tilt.

    ``cells``: (N, 2) float (col, row); ``points``: (N, 2) image (x, y); ``weights``: (N,);
    ``cell_side_px``: the side of a cell in pixels, which scales the anchors' noise.
    Returns (3, 3) with H[2, 2] = 1."""
    return _fit_pose(cells, points, weights, prior, starts, cell_side_px)[0]


def anchor_misfit(cells: np.ndarray, points: np.ndarray, weights: np.ndarray, prior: CameraPrior,
                  starts: list[np.ndarray], cell_side_px: float) -> tuple[np.ndarray, float]:
    """:func:`fit_pose`'s homography and how far the points lie off it: the weighted sum of
    their squared distances from their cells' projections, in units of the anchors' noise
    (the prior on the tilt not counted)."""
    H, residual = _fit_pose(cells, points, weights, prior, starts, cell_side_px)
    return H, float(residual[:-2] @ residual[:-2])


def _fit_pose(cells: np.ndarray, points: np.ndarray, weights: np.ndarray, prior: CameraPrior,
              starts: list[np.ndarray], cell_side_px: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`fit_pose`, and its residuals at the fit (2N + 2,): the points' (weighted, in
    units of the anchors' noise), then the tilt's off its prior."""
    K = prior.K
    root = np.sqrt(weights)[:, None] / max(prior.anchor_noise * cell_side_px, 1e-6)
    tilt_scale = np.sin(np.radians(prior.tilt_prior_deg))
    toward = np.zeros(2) if prior.toward is None else np.asarray(prior.toward, np.float64)

    grid, target = np.asarray(cells, np.float64).T, np.asarray(points, np.float64).T  # (2, N)
    # how a shift of the camera moves the projected points: K's columns, alike for every point
    shifts = np.broadcast_to(K.T[:, :, None], (3, 3, grid.shape[1]))

    def projection(params):
        """The rotation, its derivatives dR (3, 9) (row k: d R.ravel() / d params[k]), the
        projected points (3, N) and the seen ones (2, N) at ``params``."""
        R, dR = cv2.Rodrigues(params[:3])
        projected = K @ (R[:, :2] @ grid + params[3:, None])
        return R, dR, projected, projected[:2] / projected[2]

    def residual(params):
        """The residuals (2N + 2,) at ``params``."""
        R, _, _, seen = projection(params)
        # the optical axis's horizontal part in table coordinates is the sine of the tilt
        return np.concatenate([((seen - target) * root.T).ravel(), (R[2, :2] - toward) / tilt_scale])

    def jacobian(params):
        """The residuals' Jacobian (2N + 2, 6) at ``params``."""
        _, dR, projected, seen = projection(params)
        dR = dR.reshape(3, 3, 3)
        # how each parameter moves each projected point: a turn, then a shift (6, 3, N)
        d_projected = np.concatenate([np.einsum("ij,kjn->kin", K, dR[:, :, :2] @ grid), shifts])
        d_seen = (d_projected[:, :2] - seen * d_projected[:, 2:3]) / projected[2]  # (6, 2, N)
        d_tilt = np.vstack([dR[:, 2, :2], np.zeros((3, 2))]) / tilt_scale  # (6, 2)
        return np.hstack([(d_seen * root.T).reshape(6, -1), d_tilt]).T

    candidates = [_pose_params(H, K) for H in starts if np.all(np.isfinite(H))]
    params = candidates[0] if len(candidates) == 1 else min(candidates, key=lambda p: float(np.sum(residual(p) ** 2)))
    damping = 1e-3
    r, jac = residual(params), jacobian(params)
    for _ in range(20):
        jtj = jac.T @ jac
        delta = np.linalg.solve(jtj + damping * np.diag(np.diag(jtj) + 1e-12), -jac.T @ r)
        trial = residual(params + delta)
        if trial @ trial < r @ r:
            gain = r @ r - trial @ trial
            params, r, damping = params + delta, trial, damping / 3
            if gain < 1e-6 * (r @ r) + 1e-9:  # converged: no longer worth a step
                break
            jac = jacobian(params)
        else:
            damping *= 5
    H = _pose_homography(params, K)
    return H / H[2, 2], r


def _pose(H: np.ndarray, K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotation (3, 3) and translation (3,) of the camera ``K`` nearest the homography ``H``
    (grid pitch as the unit of length)."""
    M = np.linalg.inv(K) @ H
    scale = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
    if M[2, 2] * scale < 0:  # the table must lie in front of the camera
        scale = -scale
    r1, r2, t = M[:, 0] * scale, M[:, 1] * scale, M[:, 2] * scale
    r3 = np.array([r1[1] * r2[2] - r1[2] * r2[1], r1[2] * r2[0] - r1[0] * r2[2],  # r1 x r2: np.cross is
                   r1[0] * r2[1] - r1[1] * r2[0]])  # slow on one pair
    u, _, vt = np.linalg.svd(np.stack([r1, r2, r3], axis=1))
    return u @ vt, t


def _pose_params(H: np.ndarray, K: np.ndarray) -> np.ndarray:
    """(6,) rotation vector and translation of the camera nearest the homography ``H``."""
    R, t = _pose(H, K)
    return np.concatenate([cv2.Rodrigues(R)[0].ravel(), t])


def _pose_homography(params: np.ndarray, K: np.ndarray) -> np.ndarray:
    """Grid (col, row, 1) -> image homography of the camera pose ``params`` (see
    :func:`_pose_params`); the grid pitch is the unit of the translation."""
    R = cv2.Rodrigues(params[:3])[0]
    return K @ np.stack([R[:, 0], R[:, 1], params[3:]], axis=1)

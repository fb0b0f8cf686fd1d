"""Pinhole phone camera over the table.

World frame (mm): table plane z = 0, z up, +y away from the player (the top of the photo),
+x to the player's right. Camera frame: x right in the image, y down, z forward (OpenCV).
Pixel coordinates are (x, y) = (col, row) with pixel centres at integers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PHONE_SIZES = ((3264, 2448), (4000, 3000), (4032, 3024))


@dataclass(frozen=True)
class Camera:
    """K: 3x3 float64 intrinsics; R: 3x3 world->camera rotation; t: (3,) so x_cam = R X + t.
    width, height: image size in pixels (upright)."""

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    width: int
    height: int

    @property
    def center(self) -> np.ndarray:
        """Camera centre in world mm, shape (3,)."""
        return -self.R.T @ self.t

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World points (N, 3) mm -> pixel (N, 2) float64 (x, y)."""
        pc = np.asarray(pts, float) @ self.R.T + self.t
        uv = pc @ self.K.T
        return uv[:, :2] / uv[:, 2:3]

    def depth(self, pts: np.ndarray) -> np.ndarray:
        """Camera-frame z (mm) of world points (N, 3) -> (N,)."""
        return (np.asarray(pts, float) @ self.R.T + self.t)[:, 2]

    def homography(self) -> np.ndarray:
        """3x3 table-plane homography: (X, Y, 1) mm on z = 0 -> homogeneous pixel (x, y, 1)."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return H / H[2, 2]

    def scaled(self, s: float) -> "Camera":
        """Same pose, image resized by factor s (pixel-centre convention kept)."""
        S = np.array([[s, 0, 0.5 * s - 0.5], [0, s, 0.5 * s - 0.5], [0, 0, 1.0]])
        return Camera(S @ self.K, self.R, self.t, int(round(self.width * s)),
                      int(round(self.height * s)))

    def as_dict(self) -> dict:
        return {"K": self.K.tolist(), "R": self.R.tolist(), "t": self.t.tolist(),
                "center_mm": self.center.tolist(), "homography": self.homography().tolist()}


def look_from(center: np.ndarray, target: np.ndarray, roll_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """Rotation R (world->camera) and t for a camera at ``center`` looking at ``target``,
    with image 'up' pointing toward +y (far side), then rolled by roll_deg about the axis."""
    z = target - center
    z = z / np.linalg.norm(z)
    x = np.cross(z, np.array([0.0, 1.0, 0.0]))  # image right; camera never looks along +-y
    x = x / np.linalg.norm(x)
    y = np.cross(z, x)  # image down, toward the player
    R = np.stack([x, y, z])
    a = np.deg2rad(roll_deg)
    Rr = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    R = Rr @ R
    return R, -R @ center


def intrinsics(width: int, height: int, hfov_deg: float, pp_offset: np.ndarray) -> np.ndarray:
    """K for a given field of view along the long side; pp_offset (2,) pixels from centre."""
    f = 0.5 * max(width, height) / np.tan(np.deg2rad(hfov_deg) / 2)
    return np.array([[f, 0, (width - 1) / 2 + pp_offset[0]],
                     [0, f, (height - 1) / 2 + pp_offset[1]], [0, 0, 1.0]])


ARM_REACH_MM = 600.0  # the farthest a phone's main lens is held from the city
MAIN_LENS_HFOV_DEG = 70.0  # a phone main lens's horizontal field of view (its middle)


def sample_camera(rng: np.random.Generator, pts: np.ndarray, portrait: bool,
                  scale: float = 1.0, margin: float = 0.05, tries: int = 200,
                  hfov_deg: float | None = None) -> tuple[Camera, dict]:
    """Sample a phone pose that sees every point in ``pts`` (N, 3) world mm with a margin.
    The lens is the phone's main one (a horizontal field of view of 65-75 degrees over the
    long side), or one of ``hfov_deg`` (a zoomed or ultra-wide lens; the rest is drawn as
    for the main one, so the scene differs in its lens and how far away it is shot from).
    The main lens is held within arm's length (600 mm) of the city; a narrower one from as
    much further as it narrows the view (a player who zooms steps back to fit the city in).

    The city is assumed centred near the origin. Returns (camera at full phone size times
    ``scale``, params dict with tilt_deg, distance_mm, roll_deg, hfov_deg).
    """
    W, H = PHONE_SIZES[rng.integers(len(PHONE_SIZES))]
    if portrait:
        W, H = H, W
    W, H = int(round(W * scale)), int(round(H * scale))
    main_lens = rng.uniform(65, 75)  # drawn for any lens: the draws after it stay the same
    hfov = main_lens if hfov_deg is None else hfov_deg
    reach = ARM_REACH_MM
    if hfov_deg is not None:
        reach *= max(1.0, np.tan(np.deg2rad(MAIN_LENS_HFOV_DEG) / 2) / np.tan(np.deg2rad(hfov_deg) / 2))
    K = intrinsics(W, H, hfov, rng.normal(0, 0.004, 2) * max(W, H))
    tilt = rng.uniform(0, 30) if rng.random() < 0.85 else 0.0
    extent = np.ptp(pts[:, :2], axis=0).max()
    for i in range(tries):
        f_short = K[0, 0] / (0.5 * min(W, H))
        d_min = min(reach, max(250.0, 0.5 * extent * f_short * 1.25 + 50.0 + 8.0 * i))
        dist = d_min + (max(d_min, reach) - d_min) * rng.random() ** 2  # favour close-ups
        roll = rng.normal(0, 2.5)
        aim = np.array([*rng.normal(0, 0.05 * extent + 5, 2), 0.0])
        a = np.deg2rad(tilt)
        C = aim + dist * np.array([0.0, -np.sin(a), np.cos(a)])
        R, t = look_from(C, aim, roll)
        cam = Camera(K, R, t, W, H)
        if np.any(cam.depth(pts) <= 1):
            continue
        uv = cam.project(pts)
        m = margin * min(W, H)
        if (uv.min(0) > m).all() and (uv.max(0) < np.array([W, H]) - m).all():
            return cam, {"tilt_deg": float(tilt), "distance_mm": float(dist), "roll_deg": float(roll),
                         "hfov_deg": float(hfov)}
    raise RuntimeError("could not frame the city")

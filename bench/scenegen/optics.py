"""Lens effects applied to the linear render before the sensor: depth of field, hand shake,
lateral chromatic aberration. All work at the render resolution on (h, w, 3) float32."""
from __future__ import annotations

import cv2
import numpy as np

from .camera import Camera


def table_depth(cam: Camera) -> np.ndarray:
    """Camera-frame depth (mm) of the table plane seen at every pixel, (h, w) float32."""
    ys, xs = np.ogrid[0:cam.height, 0:cam.width]
    Kinv = np.linalg.inv(cam.K)
    n = cam.R[:, 2]  # world +z in camera coordinates
    a, b, c = n @ Kinv  # n . (K^-1 [x, y, 1])
    return (float(n @ cam.t) / (a * xs + b * ys + c)).astype(np.float32)


def depth_of_field(img: np.ndarray, cam: Camera, focus_mm: float, aperture_mm: float) -> np.ndarray:
    """Blur growing with the distance from the focus plane (thin lens): circle of
    confusion = aperture * f_px * |d - focus| / (focus * d) pixels, d the table depth."""
    d = table_depth(cam)
    coc = aperture_mm * cam.K[0, 0] * np.abs(d - focus_mm) / (focus_mm * d)
    sigma = coc / 2.5
    levels = [0.0, 0.8, 1.6, 3.2]
    if float(sigma.max()) < 0.3:
        return img
    out = np.zeros_like(img)
    prev = img
    top = float(sigma.max())
    for lo, hi in zip(levels[:-1], levels[1:]):
        if lo > top:
            break
        nxt = cv2.GaussianBlur(img, (0, 0), hi)
        w = np.clip((sigma - lo) / (hi - lo), 0, 1)[..., None]
        inside = ((sigma >= lo) & (sigma < hi) if hi < levels[-1] else sigma >= lo)[..., None]
        out += inside * (prev * (1 - w) + nxt * w)
        prev = nxt
    return out


def shake(img: np.ndarray, length_px: float, angle_deg: float) -> np.ndarray:
    """Straight motion blur of ``length_px`` pixels at ``angle_deg``."""
    if length_px < 0.5:
        return img
    k = int(np.ceil(length_px)) * 2 + 1
    kern = np.zeros((k, k), np.float32)
    c = k // 2
    dx, dy = np.cos(np.deg2rad(angle_deg)) * length_px / 2, np.sin(np.deg2rad(angle_deg)) * length_px / 2
    cv2.line(kern, (int(round((c - dx) * 16)), int(round((c - dy) * 16))),
             (int(round((c + dx) * 16)), int(round((c + dy) * 16))), 1.0, 1, cv2.LINE_AA, 4)
    return cv2.filter2D(img, -1, kern / kern.sum(), borderType=cv2.BORDER_REFLECT)


def chromatic_aberration(img: np.ndarray, amount: float) -> np.ndarray:
    """Red magnified by (1 + amount), blue shrunk by (1 - amount) about the centre."""
    h, w = img.shape[:2]
    out = img.copy()
    for ch, s in ((0, 1 + amount), (2, 1 - amount)):
        M = np.array([[s, 0, (1 - s) * (w - 1) / 2], [0, s, (1 - s) * (h - 1) / 2]], np.float32)
        out[..., ch] = cv2.warpAffine(np.ascontiguousarray(img[..., ch]), M, (w, h),
                                      flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return out


def sample_params(rng: np.random.Generator, distance_mm: float) -> dict:
    """Lens settings for one scene: focus near the city, phone aperture, shake in 30 % of
    scenes (length in pixels of a 4032-wide image), chromatic aberration."""
    return {"focus_mm": float(distance_mm * rng.uniform(0.93, 1.07)),
            "aperture_mm": float(rng.uniform(1.8, 3.0)),
            "shake_px": float(rng.uniform(0.8, 4.0)) if rng.random() < 0.3 else 0.0,
            "shake_deg": float(rng.uniform(0, 180)), "ca": float(rng.uniform(0, 6e-4))}


def apply(img: np.ndarray, cam: Camera, prm: dict) -> np.ndarray:
    """All lens effects for a render by ``cam`` (any resolution)."""
    img = depth_of_field(img, cam, prm["focus_mm"], prm["aperture_mm"])
    img = shake(img, prm["shake_px"] * max(cam.width, cam.height) / 4032, prm["shake_deg"])
    return chromatic_aberration(img, prm["ca"])

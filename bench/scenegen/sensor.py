"""Phone camera pipeline: exposure, vignetting, defocus, noise, tone curve, JPEG + EXIF."""
from __future__ import annotations

import io

import cv2
import numpy as np
from PIL import Image

from .materials import linear_to_srgb


def sample_params(rng: np.random.Generator) -> dict:
    """Random sensor settings for one scene (plain floats/ints, JSON-ready)."""
    return {"ev": float(rng.uniform(-1, 1)), "vignette": float(rng.uniform(0.1, 0.4)),
            "blur_px": float(rng.uniform(0.3, 0.8)), "shot": float(10 ** rng.uniform(-4.2, -3.0)),
            "read": float(10 ** rng.uniform(-6, -4.7)), "sharpen": float(rng.uniform(0.3, 0.8)),
            "saturation": float(rng.uniform(1.0, 1.2)), "jpeg_quality": int(rng.integers(80, 96))}


def _tone_lut(size: int = 65536, top: float = 4.0) -> np.ndarray:
    """uint8 LUT: linear value i * top / (size - 1) -> highlight roll-off -> sRGB."""
    x = np.linspace(0, top, size, dtype=np.float32)
    y = (1 - np.exp(-1.3 * x)) / (1 - np.exp(-1.3))
    return np.round(linear_to_srgb(y) * 255).astype(np.uint8)


TONE_LUT = _tone_lut()


def develop(linear: np.ndarray, out_size: tuple[int, int], prm: dict,
            rng: np.random.Generator) -> np.ndarray:
    """Linear radiance (h, w, 3) float32 -> developed sRGB uint8 (H, W, 3) with
    out_size = (W, H). Meters on the median luminance (partially), applies ``prm``.
    Exposure, vignetting and saturation are applied at the render resolution; defocus,
    noise, tone curve and sharpening at the output resolution."""
    W, H = out_size
    wts = np.array([0.2126, 0.7152, 0.0722], np.float32)
    med = float(np.median(linear[::8, ::8] @ wts)) + 1e-4
    # partial auto-exposure: dark tables stay darker, white ones are pulled down to ~0.35
    target = 0.3 * (med / 0.3) ** (0.6 if med < 0.3 else 0.15)
    gain = target / med * 2 ** prm["ev"]
    h, w = linear.shape[:2]
    yy, xx = np.ogrid[0:h, 0:w]
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    img = linear * (gain * (1 - prm["vignette"] * r2) ** 1.5).astype(np.float32)[..., None]
    gray = (img @ wts)[..., None]
    img = gray + prm["saturation"] * (img - gray)
    if (w, h) != (W, H):
        img = cv2.resize(img, (W, H), interpolation=cv2.INTER_CUBIC)
    img = cv2.GaussianBlur(img, (0, 0), prm["blur_px"] * max(W, H) / 4032)
    np.maximum(img, 0, out=img)
    sd = img * np.float32(prm["shot"])
    sd += np.float32(prm["read"])
    np.sqrt(sd, out=sd)
    sd *= rng.standard_normal(img.shape, dtype=np.float32)
    img += sd
    del sd
    img *= np.float32((len(TONE_LUT) - 1) / 4.0)
    np.clip(img, 0, len(TONE_LUT) - 1, out=img)
    out = TONE_LUT[img.astype(np.uint16)]
    del img
    if prm["sharpen"] > 0:
        soft = cv2.GaussianBlur(out, (0, 0), 2.0 * max(W, H) / 4032)
        out = cv2.addWeighted(out, 1 + prm["sharpen"], soft, -prm["sharpen"], 0)
    return out


def focal_length_35mm(hfov_deg: float, width: int, height: int) -> int:
    """The 35 mm equivalent focal length (whole mm, as EXIF stores it) of a lens of
    ``hfov_deg`` degrees over the long side of a ``width`` x ``height`` photo: the one that
    gives a 36 x 24 mm frame the photo's diagonal field of view."""
    long_side_mm = np.hypot(36.0, 24.0) * max(width, height) / np.hypot(width, height)
    return int(round(long_side_mm / (2 * np.tan(np.deg2rad(hfov_deg) / 2))))


def encode_jpeg(rgb: np.ndarray, quality: int, exif_orientation: int | None,
                focal_35mm: int | None = None) -> bytes:
    """Encode an upright uint8 RGB image. With exif_orientation 6 or 8 the pixels are stored
    in sensor layout and tagged so that applying the tag gives back ``rgb``; with
    ``focal_35mm``, the lens's 35 mm equivalent focal length is recorded (EXIF
    FocalLengthIn35mmFilm)."""
    if exif_orientation == 6:      # viewer rotates stored 90 deg clockwise
        rgb = np.rot90(rgb, 1)
    elif exif_orientation == 8:    # viewer rotates stored 90 deg counter-clockwise
        rgb = np.rot90(rgb, -1)
    im = Image.fromarray(np.ascontiguousarray(rgb))
    buf = io.BytesIO()
    kw = {}
    if exif_orientation or focal_35mm:
        ex = Image.Exif()
        if exif_orientation:
            ex[0x0112] = exif_orientation
        if focal_35mm:
            ex.get_ifd(0x8769)[0xA405] = focal_35mm  # Exif sub-IFD: FocalLengthIn35mmFilm
        kw["exif"] = ex.tobytes()
    im.save(buf, format="JPEG", quality=quality, **kw)
    return buf.getvalue()

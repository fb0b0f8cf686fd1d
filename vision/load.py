"""Decoding photo bytes into the pipeline's image: uint8 HxWx3 RGB, EXIF orientation applied.

JPEG is decoded straight at a reduced scale (the decoder skips the fine DCT detail), other
formats (PNG, WebP, HEIC) are decoded by Pillow and shrunk. Either way the long side ends up
at most ``max_side`` pixels, which is all the later stages need. What the phone recorded of
its lens (its field of view) is read from the EXIF too (:func:`field_of_view`).
"""
from __future__ import annotations

import io
import logging
import warnings

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from .errors import PhotoError

log = logging.getLogger(__name__)

MAX_PIXELS = 80_000_000  # larger images are refused as decompression bombs
_EXIF_IFD, _FOCAL_LENGTH_35MM = 0x8769, 0xA405  # EXIF tags: the Exif sub-IFD, FocalLengthIn35mmFilm
_PIXEL_X, _PIXEL_Y = 0xA002, 0xA003  # EXIF PixelXDimension, PixelYDimension: the size as shot
_CROPPED_ASPECT = 0.01  # an aspect ratio this far (relative) from the one shot: the photo was cropped
_FULL_FRAME_DIAGONAL_MM = float(np.hypot(36.0, 24.0))  # what a 35 mm equivalent focal length refers to
# 35 mm equivalent focal lengths believed: from a phone's widest lens (about 13 mm) to a long
# telephoto; a value outside is a placeholder (0 means unknown)
_FOCAL_35MM_RANGE = (10, 300)
_REDUCED = ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
            (2, cv2.IMREAD_REDUCED_COLOR_2), (1, cv2.IMREAD_COLOR))
# A JPEG decoded at a reduced scale whose long side falls this little short of the working
# side is used as it is: decoding at twice the scale and resizing takes about 35 ms more
# (a 4000-pixel photo: 1000 pixels at 1/4, against 2000 at 1/2 resized to 1008).
_REDUCED_SHORTFALL = 0.05

try:  # HEIC support is optional at import time; without it HEIC is refused with a reason
    import pillow_heif

    pillow_heif.register_heif_opener()
except ImportError:  # pragma: no cover - pillow-heif is a declared dependency
    log.info("pillow-heif not available: HEIC photos cannot be read")


def load_photo(data: bytes, max_side: int = 1600) -> np.ndarray:
    """Decode photo bytes to an RGB image whose long side is at most ``max_side`` (a JPEG's
    may fall up to ``_REDUCED_SHORTFALL`` of it short: decoded at a reduced scale).

    Returns uint8 array of shape (H, W, 3), RGB, upright (EXIF orientation applied).
    Raises :class:`PhotoError` for empty data, non-images, truncated files and images over
    80 megapixels.
    """
    if not data:
        raise PhotoError("the upload is empty")
    image, size = _open(data)
    if image.format == "JPEG":
        rgb = _decode_jpeg(data, size, max_side)
    else:
        rgb = _decode_other(image, max_side)
    h, w = rgb.shape[:2]
    if max(h, w) > max_side:
        scale = max_side / max(h, w)
        rgb = cv2.resize(rgb, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(rgb)


def field_of_view(data: bytes) -> float | None:
    """The horizontal field of view, in degrees over the photo's long side, of the camera
    that took the photo ``data``, from its EXIF 35 mm equivalent focal length
    (FocalLengthIn35mmFilm, which phones write for each lens: about 26 mm for the main one,
    52 mm at 2x zoom); None where the photo has none, or one out of
    ``_FOCAL_35MM_RANGE``, or cannot be read, or was cropped (its aspect ratio is not the one
    its EXIF records it was shot at: a crop sees less than the lens did). The equivalent
    focal length is the one that gives a 36 x 24 mm frame the photo's diagonal field of
    view; the long side takes its share of that diagonal by the photo's aspect ratio."""
    try:
        image, (w, h) = _open(data)
        exif = image.getexif().get_ifd(_EXIF_IFD)
    except (PhotoError, OSError, ValueError, SyntaxError):  # not a photo to read: load_photo says why
        return None
    focal, shot = exif.get(_FOCAL_LENGTH_35MM), (exif.get(_PIXEL_X), exif.get(_PIXEL_Y))
    if not isinstance(focal, (int, float)) or not _FOCAL_35MM_RANGE[0] <= focal <= _FOCAL_35MM_RANGE[1]:
        return None
    if all(isinstance(n, int) and n > 0 for n in shot) and abs(
            max(shot) / min(shot) / (max(w, h) / min(w, h)) - 1) > _CROPPED_ASPECT:
        log.info("the photo was cropped from %d x %d: its lens's field of view does not hold", *shot)
        return None
    long_side_mm = _FULL_FRAME_DIAGONAL_MM * max(w, h) / np.hypot(w, h)
    return float(np.degrees(2 * np.arctan(long_side_mm / (2 * float(focal)))))


def _open(data: bytes) -> tuple[Image.Image, tuple[int, int]]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            w, h = image.size
    except (UnidentifiedImageError, Image.DecompressionBombWarning, Image.DecompressionBombError):
        raise PhotoError("this file is not a photo citycam can read (JPEG, PNG, WebP or HEIC)") from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise PhotoError(f"the photo could not be read ({exc})") from None
    if w * h > MAX_PIXELS:
        raise PhotoError(f"the image is {w} x {h} pixels, too large to be a phone photo")
    return image, (w, h)


def _decode_jpeg(data: bytes, size: tuple[int, int], max_side: int) -> np.ndarray:
    least = (1 - _REDUCED_SHORTFALL) * max_side
    factor, flag = next((f, fl) for f, fl in _REDUCED if max(size) / f >= least or f == 1)
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), flag)  # applies EXIF orientation
    if bgr is None:
        raise PhotoError("the JPEG could not be decoded (is the file complete?)")
    if _looks_truncated(data):
        raise PhotoError("the JPEG is truncated: the file ends before the image does")
    log.debug("decoded JPEG %s at 1/%d scale", size, factor)
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def _looks_truncated(data: bytes) -> bool:
    return not data.rstrip(b"\x00").endswith(b"\xff\xd9")


def _decode_other(image: Image.Image, max_side: int) -> np.ndarray:
    try:
        image.draft("RGB", (max_side, max_side))
        image = ImageOps.exif_transpose(image)
        image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
        return np.asarray(image.convert("RGB"))
    except (OSError, ValueError, SyntaxError) as exc:
        raise PhotoError(f"the photo could not be decoded ({exc}); is the file complete?") from None

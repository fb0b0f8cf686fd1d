"""Photos on disk, under names the server makes up (never the uploaded file name).

A photo is stored as the image vision analysed (EXIF orientation applied, metadata such as
the GPS position dropped), re-encoded as JPEG, so the page's overlay matches it pixel for pixel.
"""
from __future__ import annotations

import logging
import os
import re
import time
import uuid

import numpy as np
from PIL import Image

log = logging.getLogger(__name__)

NAME = re.compile(r"^[0-9a-f]{32}\.jpg$")
JPEG_QUALITY = 88
UNSAVED_PHOTO_LIFETIME_S = 2 * 24 * 3600


def save_photo(rgb: np.ndarray, photo_dir: str) -> str:
    """Write an RGB image as JPEG under a fresh random name; returns the name."""
    name = f"{uuid.uuid4().hex}.jpg"
    tmp = os.path.join(photo_dir, f".{name}.part")
    Image.fromarray(rgb).save(tmp, "JPEG", quality=JPEG_QUALITY)
    os.replace(tmp, os.path.join(photo_dir, name))
    return name


def is_photo_name(name: str) -> bool:
    return bool(NAME.match(name))


def photo_exists(photo_dir: str, name: str) -> bool:
    return is_photo_name(name) and os.path.isfile(os.path.join(photo_dir, name))


def delete_photos(photo_dir: str, names) -> None:
    for name in names:
        if is_photo_name(name):
            try:
                os.remove(os.path.join(photo_dir, name))
            except FileNotFoundError:
                pass


def prune_unsaved(photo_dir: str, saved: set[str], now: float | None = None) -> int:
    """Remove photos analysed but never saved with a game, once they are two days old."""
    now = time.time() if now is None else now
    removed = 0
    for entry in os.scandir(photo_dir):
        if is_photo_name(entry.name) and entry.name not in saved \
                and now - entry.stat().st_mtime > UNSAVED_PHOTO_LIFETIME_S:
            os.remove(entry.path)
            removed += 1
    if removed:
        log.info("removed %d photos never saved with a game", removed)
    return removed

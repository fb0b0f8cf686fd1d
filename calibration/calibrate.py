"""``citycam calibrate``: a profile from one photo of the calibration layout.

The layout: one small, medium and large piece of each colour in a block of 5 rows and 3
columns, rows red, yellow, green, blue, black from the far side of the table, columns small,
medium, large from the left. The photo is read with the starting profile's geometry; the
colour prototypes are refitted to the pieces' true colours on this table and light (the
table gain is kept: one photo shows one table), and the report says how well colours and
sizes separate.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from .fit import separation
from .profile import COLOR_ORDER, PROFILE_DIR, ColorModel, Profile, ProfileError, save_profile

LAYOUT_ROWS = COLOR_ORDER
LAYOUT_COLS = (1, 2, 3)


def calibrate_from_photo(rgb: np.ndarray, profile: Profile, out: str) -> tuple[Path, str]:
    """Fit a profile to ``rgb`` (uint8 (H, W, 3) RGB of the layout) and save it as ``out``
    (a bundled name or a .json path). Returns the path and a plain-text report."""
    import vision
    from vision.colour import table_chroma, table_relative
    from vision.pieces import outline_mask

    try:
        detection = vision.analyze(rgb, profile)
    except vision.VisionError as exc:
        raise ProfileError(f"the calibration photo could not be read: {exc}") from None
    pieces = [p for p in detection.pieces if p.level == 0]
    city = detection.city
    if len(pieces) != 15 or (city.height, city.width) != (5, 3):
        raise ProfileError(f"expected the 5 x 3 calibration block (15 pieces), found {len(pieces)} pieces "
                           f"in {city.height} rows and {city.width} columns")
    log_ratio, table = table_relative(rgb, profile)
    features, chromas, colors = [], [], []
    for p in pieces:
        mask = outline_mask(rgb.shape[:2], p.outline)
        features.append(np.median(log_ratio[mask], axis=0))
        chromas.append(table_chroma(table[mask]))
        colors.append(LAYOUT_ROWS[p.row])
    features, chromas = np.array(features), np.array(chromas)
    gain = np.array(profile.colors.table_gain)
    adjusted = features - chromas @ gain.T
    prototypes = {c: tuple(np.round(np.median(adjusted[[k for k, x in enumerate(colors) if x == c]], axis=0), 4))
                  for c in COLOR_ORDER}
    residual = [np.linalg.norm(adjusted[k] - prototypes[c]) for k, c in enumerate(colors)]
    model = ColorModel(prototypes, profile.colors.table_gain, round(max(float(np.median(residual)), 0.05), 4),
                       profile.colors.brightness_weight)
    name = Path(out).stem
    fitted = dataclasses.replace(profile, name=name, colors=model)
    path = Path(out) if out.endswith(".json") or "/" in out else PROFILE_DIR / f"{out}.json"
    save_profile(fitted, path)
    colour_report = separation(features, chromas, colors, model)
    sizes_right = sum(p.size == LAYOUT_COLS[p.col] for p in pieces)
    report = (f"colours: {colour_report['accuracy'] * 15:.0f}/15 separated, worst margin "
              f"{colour_report['min_margin']:.2f} (in spreads; above 1 is comfortable)\n"
              f"sizes: {sizes_right}/15 read as laid out")
    return path, report

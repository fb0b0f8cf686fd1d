"""``citycam calibrate``: a profile from one photo of the calibration layout.

The layout: one small, medium and large piece of each colour in a block of 5 rows and 3
columns, rows red, yellow, green, blue, black from the far side of the table; the sizes go
small, medium, large from the left in the first row and shift one place each row (the second
row medium, large, small), so that no two pieces of a size touch: the layout is a legal city,
and the rules the reading leans on hold for it. The photo is read with the starting
profile's geometry; the colour prototypes, and the piece model's means, are refitted to the
pieces' true colours on this table and light (how colours move with the table is kept: one
photo shows one table), and the report says how well colours and sizes separate.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from .fit import refit_piece_means, separation
from .profile import COLOR_ORDER, PROFILE_DIR, ColorModel, Profile, ProfileError, save_profile

LAYOUT_ROWS = COLOR_ORDER


def layout_size(row: int, col: int) -> int:
    """The size (1..3) laid out at (row, col) of the calibration block."""
    return (row + col) % 3 + 1


def layout_city() -> dict:
    """The calibration layout as a city (design.md section 2)."""
    return {"game": "zoning-out", "variant": "standard", "rules": [],
            "pieces": [{"row": r, "col": c, "color": color, "size": layout_size(r, c), "level": 0}
                       for r, color in enumerate(LAYOUT_ROWS) for c in range(3)]}


def calibrate_from_photo(rgb: np.ndarray, profile: Profile, out: str) -> tuple[Path, str]:
    """Fit a profile to ``rgb`` (uint8 (H, W, 3) RGB of the layout) and save it as ``out``
    (a bundled name or a .json path). Returns the path and a plain-text report."""
    import vision

    from .samples import candidate_samples, outline_samples

    try:
        detection = vision.analyze(rgb, profile)
    except vision.VisionError as exc:
        raise ProfileError(f"the calibration photo could not be read: {exc}") from None
    pieces = [p for p in detection.pieces if p.level == 0]
    city = detection.city
    if len(pieces) != 15 or (city.height, city.width) != (5, 3):
        raise ProfileError(f"expected the 5 x 3 calibration block (15 pieces), found {len(pieces)} pieces "
                           f"in {city.height} rows and {city.width} columns")
    outlines = [p.outline for p in pieces]
    colors = [LAYOUT_ROWS[p.row] for p in pieces]
    samples = outline_samples(rgb, outlines, profile)
    features, chromas = np.array([s[1] for s in samples]), np.array([s[2] for s in samples])
    sample_colors = [colors[s[0]] for s in samples]
    try:
        model = _pixel_model(features, chromas, sample_colors, profile.colors)
    except ValueError as exc:
        raise ProfileError(f"the calibration photo could not be read: {exc}") from None
    fitted = dataclasses.replace(profile, name=Path(out).stem, colors=model)
    # the piece model reads the candidates (and offset) that the refitted pixel model finds
    try:
        found = vision.find_candidates(rgb, fitted)
    except vision.VisionError as exc:
        raise ProfileError(f"the calibration photo could not be read with its own colours: {exc}") from None
    candidates = candidate_samples(found, outlines, np.array([p.center for p in pieces]), fitted)
    piece_model = refit_piece_means(profile.piece_colors, *(np.array([s[k] for s in candidates]) for k in (1, 2, 3)),
                                    [colors[s[0]] for s in candidates])
    fitted = dataclasses.replace(fitted, piece_colors=piece_model)
    path = Path(out) if out.endswith(".json") or "/" in out else PROFILE_DIR / f"{out}.json"
    save_profile(fitted, path)
    colour_report = separation(features, chromas, sample_colors, model)
    read = piece_model.costs(*(np.array([s[k] for s in candidates]).reshape(len(candidates), -1)
                               for k in (1, 2, 3))).argmin(axis=1)
    whole_right = sum(COLOR_ORDER[r] == colors[s[0]] for r, s in zip(read, candidates))
    unseen = sorted(set(COLOR_ORDER) - {colors[s[0]] for s in candidates}, key=COLOR_ORDER.index)
    sizes_right = sum(p.size == layout_size(p.row, p.col) for p in pieces)
    report = (f"colours: {colour_report['accuracy'] * 15:.0f}/15 separated, worst margin "
              f"{colour_report['min_margin']:.2f} (in spreads; above 1 is comfortable); "
              f"{whole_right}/{len(candidates)} candidates read whole as their colour"
              + (f" ({', '.join(unseen)}: none stood out; kept as it was)" if unseen else "") + "\n"
              f"sizes: {sizes_right}/15 read as laid out")
    return path, report


def _pixel_model(features: np.ndarray, chromas: np.ndarray, colors: list[str], start: ColorModel) -> ColorModel:
    """``start`` with its prototypes refitted to one photo's pieces (``features``, ``chromas``
    (N, 3), ``colors`` N names); its table gain and brightness weights are kept. Raises
    ValueError if a colour has no piece."""
    missing = [c for c in COLOR_ORDER if c not in colors]
    if missing:
        raise ValueError(f"no sample of {', '.join(missing)}")
    adjusted = features - chromas @ np.array(start.table_gain).T
    prototypes = {c: tuple(np.round(np.median(adjusted[[k for k, x in enumerate(colors) if x == c]], axis=0), 4))
                  for c in COLOR_ORDER}
    residual = [np.linalg.norm(adjusted[k] - prototypes[c]) for k, c in enumerate(colors)]
    return ColorModel(prototypes, start.table_gain, round(max(float(np.median(residual)), 0.05), 4),
                      start.brightness_weight)

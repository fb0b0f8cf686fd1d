"""Fit the colour models of a profile from photos with ground truth (rendered or annotated).

Ground truth is the scene JSON of ``bench.scenegen``: per piece its colour and the pixel
outline (``base_corners_xy`` and ``apex_xy``). The pixel model (``colors``) is fitted to the
median of each piece's outline; the piece model (``piece_colors``) to the candidates the
pipeline itself finds on plain tables, each matched to the piece it lies on. Run:
``python -m calibration.from_renders DIR... [--count N] [--fit colors|piece_colors|both]
[--jobs J] --base default --out calibration/profiles/default.json``
"""
from __future__ import annotations

import argparse
import dataclasses
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from vision import VisionError, find_candidates
from vision.load import load_photo

from .fit import fit_color_model, fit_piece_colors, separation
from .profile import COLOR_ORDER, Profile, load_profile, save_profile
from .samples import candidate_samples, outline_samples


def photo_samples(photo: Path, profile: Profile, pixel: bool, piece: bool) -> tuple[list, list]:
    """Samples of one photo with its ground truth beside it (``.json``): for the pixel model
    (feature, chroma, colour) if ``pixel``, for the piece model (feature, chroma, level,
    colour) if ``piece`` (plain tables only)."""
    truth = json.loads(photo.with_suffix(".json").read_text())
    rgb = load_photo(photo.read_bytes(), profile.working_side)
    scale = rgb.shape[1] / truth["image"]["width"]
    stacked = {(p["col"], p["row"]) for p in truth["pieces"] if p.get("level", 0)}
    alone = [p for p in truth["pieces"] if not p.get("level", 0) and (p["col"], p["row"]) not in stacked]
    outlines = [np.array(p["base_corners_xy"] + [p["apex_xy"]]) * scale for p in alone]
    pixel_samples, piece_samples = [], []
    if pixel:
        pixel_samples = [(f, c, alone[k]["color"]) for k, f, c, _ in outline_samples(rgb, outlines, profile)]
    if piece:
        try:
            found = find_candidates(rgb, profile)
        except VisionError:
            found = None
        if found is not None and found.plain:
            centres = np.array([p["base_center_xy"] for p in alone]) * scale
            piece_samples = [(f, c, lv, alone[k]["color"])
                             for k, f, c, lv, _ in candidate_samples(found, outlines, centres, profile)]
    return pixel_samples, piece_samples


def _photo_samples(args: tuple[Path, Profile, bool, bool]) -> tuple[list, list]:
    cv2.setNumThreads(1)
    return photo_samples(*args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directories", type=Path, nargs="+")
    parser.add_argument("--count", type=int, default=1000, help="photos used from each directory")
    parser.add_argument("--fit", choices=("colors", "piece_colors", "both"), default="both")
    parser.add_argument("--base", default="default")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    profile = load_profile(args.base)
    photos = [p for d in args.directories for p in sorted(d.glob("scene_*.jpg"))[:args.count]]
    pixel, piece = args.fit in ("colors", "both"), args.fit in ("piece_colors", "both")
    pixel_samples, piece_samples = [], []
    with ProcessPoolExecutor(args.jobs) as pool:
        for done, (a, b) in enumerate(pool.map(_photo_samples, [(p, profile, pixel, piece) for p in photos]), 1):
            pixel_samples += a
            piece_samples += b
            if done % 50 == 0 or done == len(photos):
                print(f"{done}/{len(photos)} photos read", flush=True)
    if pixel:
        features, chromas, colors = (np.array([s[k] for s in pixel_samples]) for k in range(3))
        model = fit_color_model(features, chromas, list(colors), profile.colors.brightness_weight)
        report = separation(features, chromas, list(colors), model)
        profile = dataclasses.replace(profile, colors=model)
        print(f"pixel model: {len(colors)} pieces; accuracy {report['accuracy']:.4f}, "
              f"min margin {report['min_margin']:.2f}, median margin {report['median_margin']:.2f}")
    if piece:
        features, chromas, levels, colors = (np.array([s[k] for s in piece_samples]) for k in range(4))
        piece_model = fit_piece_colors(features, chromas, levels, list(colors), profile.piece_colors)
        read = np.array(COLOR_ORDER)[piece_model.costs(features, chromas, levels).argmin(axis=1)]
        profile = dataclasses.replace(profile, piece_colors=piece_model)
        print(f"piece model: {len(colors)} candidates on plain tables; {np.mean(read == colors):.4f} read right")
    save_profile(profile, args.out)
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()

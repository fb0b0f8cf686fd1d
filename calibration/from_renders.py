"""Fit the colour model of a profile from photos with ground truth (rendered or annotated).

Ground truth is the scene JSON of ``bench.scenegen``: per piece its colour and the pixel
outline (``base_corners_xy`` and ``apex_xy``). Run:
``python -m calibration.from_renders DIR [--count N] --base default --out calibration/profiles/default.json``
"""
from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import numpy as np

from vision.colour import table_chroma, table_relative
from vision.load import load_photo
from vision.pieces import outline_mask

from .fit import fit_color_model, separation
from .profile import Profile, load_profile, save_profile


def piece_samples(photo: Path, truth: dict, profile: Profile):
    """Yield (feature (3,), table chroma (3,), colour) for each piece of one photo."""
    rgb = load_photo(photo.read_bytes(), profile.working_side)
    scale = rgb.shape[1] / truth["image"]["width"]
    log_ratio, table = table_relative(rgb, profile)
    for piece in truth["pieces"]:
        if piece.get("level", 0):
            continue  # a stacked piece's outline is shared with the one below
        outline = np.array(piece["base_corners_xy"] + [piece["apex_xy"]]) * scale
        mask = outline_mask(rgb.shape[:2], outline)
        if mask.sum() < 10:
            continue
        yield np.median(log_ratio[mask], axis=0), table_chroma(table[mask]), piece["color"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--base", default="default")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    profile = load_profile(args.base)
    features, chromas, colors = [], [], []
    for photo in sorted(args.directory.glob("scene_*.jpg"))[:args.count]:
        truth = json.loads(photo.with_suffix(".json").read_text())
        for f, t, c in piece_samples(photo, truth, profile):
            features.append(f)
            chromas.append(t)
            colors.append(c)
    model = fit_color_model(np.array(features), np.array(chromas), colors, profile.colors.brightness_weight)
    report = separation(np.array(features), np.array(chromas), colors, model)
    save_profile(dataclasses.replace(profile, colors=model), args.out)
    print(f"{len(colors)} pieces; accuracy {report['accuracy']:.4f}, "
          f"min margin {report['min_margin']:.2f}, median margin {report['median_margin']:.2f} -> {args.out}")


if __name__ == "__main__":
    main()

"""Benchmark: read a rendered benchmark set and report accuracy, errors, speed and memory.

Renders the set first if it is not cached (``bench/cache/``, reproducible from its seed).
Each photo is read knowing the special rules its player chose (the scene's own, as the phone
site tells the reader those of the game). Figures: share of photos whose whole city is
exactly right (translation-aligned), per-piece errors by kind, seconds per photo end to end
(:func:`vision.read_photo`: decoding and every reading made) on one core with median and p95,
the same files' bare full-size ``cv2.imdecode`` time (the fastest of three decodes of each
file: one decode's median swung between 0.031 and 0.051 s from run to run on the same files),
and peak memory. The seconds are the CPU time of this process, its numerical libraries held
to one thread, so that other work on the machine counts little: wall-clock seconds swing with
it (on set 20261202, 0.27 s a photo on the machine alone and 0.35 s beside two other readers,
where the CPU time stayed at 0.25 to 0.26 s) and are given too; photos read exactly and
errors per piece by each condition the generator varies (table, lamp elevation, camera tilt,
the phone's shadow, the lens and whether the photo records it); and how the marks the player
is asked to check (pieces under the profile's ``max_uncertain_confidence``) fall on wrong and
right pieces; and how steady the readings are: each photo is read again at a working size 2%
smaller (outside the timing), and the photos whose errors change are counted; and how far the
camera tilt fitted to the grid is from the true one (a small city's few anchors can be fitted
flat under a tilted phone).
Run: ``python -m bench.vision [--seed S] [--count N] [--profile P]``; writes
``bench/results/vision.json``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import time
from collections import Counter
from pathlib import Path

for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one core: set before they load
    os.environ.setdefault(_threads, "1")

import cv2
import numpy as np

import vision
from calibration import load_profile

from .compare import ERROR_KINDS, assess, compare

ROOT = Path(__file__).parent
RESULTS = ROOT / "results" / "vision.json"
SECOND_SIZE = 0.98  # the working size of each photo's second reading, as a share of the profile's
TILT_OFF_DEG = 8.0  # a fitted tilt this far from the true one counts as off


def ensure_set(seed: int, count: int) -> Path:
    from .scenegen.make_set import make_set

    out = ROOT / "cache" / f"set-{seed}"
    make_set(seed, list(range(count)), out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20270210, help="benchmark set seed (never tuned on)")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--profile", default=None)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--directory", type=Path, default=None, help="an existing set instead")
    parser.add_argument("--failures", action="store_true", help="list the photos not read exactly")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    profile = load_profile(args.profile)
    directory = ensure_set(args.seed, args.count) if args.directory is None else args.directory
    photos = sorted(directory.glob("scene_*.jpg"))[:args.count]
    totals, exact, seconds, wall, decode, pieces, outcomes, marked = Counter(), 0, [], [], [], 0, [], Counter()
    second_side, pairs, tilts = round(SECOND_SIZE * profile.working_side), [], []
    set_seed = None
    for k, photo in enumerate(photos):
        truth = json.loads(photo.with_suffix(".json").read_text())
        scene = truth["scene"]
        set_seed = scene["seed"][0]
        data = photo.read_bytes()
        decode.append(_bare_decode_seconds(data))
        game = truth["city"]["rules"], truth["city"]["variant"]
        found, cpu, elapsed = timed(lambda: _read(data, profile.working_side, profile, game))
        seconds.append(cpu)
        wall.append(elapsed)
        errors, marked_here = assess(truth["city"]["pieces"], found["pieces"], profile.max_uncertain_confidence,
                                     found["doubtful_empty"])
        pairs.append((errors, compare(truth["city"]["pieces"], _read(data, second_side, profile, game)["pieces"])))
        totals += errors
        marked += _checkable(marked_here, not errors)
        pieces += len(truth["city"]["pieces"])
        ok = not errors
        exact += ok
        tilts.append((scene["tilt_deg"], found["grid"]["tilt_deg"] if "grid" in found else None, ok))
        outcomes.append((conditions(scene), ok, sum(errors.values()), len(truth["city"]["pieces"])))
        if args.failures and not ok:
            print(f"  {photo.name}: {dict(errors)} ({scene['table']}, tilt {scene['tilt_deg']:.0f})")
        print(f"\r{k + 1}/{len(photos)} photos, {exact} exact", end="", flush=True)
    print()
    groups = by_condition(outcomes)
    result = {
        "benchmark": "vision", "seed": set_seed, "photos": len(photos), "pieces": pieces,
        "exact_share": round(exact / len(photos), 4),
        "errors": {kind: totals[kind] for kind in ERROR_KINDS},
        "piece_error_rate": round(sum(totals.values()) / max(pieces, 1), 5),
        "exact_by_table": {table: group["exact"] for table, group in groups["table"].items()},
        "by_condition": groups,
        "marks": _marks_summary(marked, len(photos), profile.max_uncertain_confidence),
        "steadiness": dict(second_working_side=second_side, **steadiness(pairs)),
        "camera_tilt": tilt_summary(tilts),
        "seconds_median": round(float(np.median(seconds)), 3),
        "seconds_p95": round(float(np.percentile(seconds, 95)), 3),
        "wall_seconds_median": round(float(np.median(wall)), 3),
        "decode_seconds_median": round(float(np.median(decode)), 3),
        "ratio_to_decode": round(float(np.median(seconds) / np.median(decode)), 2),
        "peak_memory_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "profile": profile.name,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


def read_errors(data: bytes, city: dict, profile) -> Counter:
    """The errors (:func:`compare.compare`) of the photo ``data`` as :func:`vision.read_photo`
    reads it with ``profile``, told the special rules and the variant of its true ``city``
    (design.md section 2), against that city's pieces; a photo no reading finds a city in has
    every piece missed."""
    found = _read(data, profile.working_side, profile, (city["rules"], city["variant"]))
    return compare(city["pieces"], found["pieces"])


def _read(data: bytes, side: int, profile, game: tuple) -> dict:
    """The ``detect --json`` object of the photo ``data`` (its ``pieces``, ``doubtful_empty``
    cells and ``grid`` among the rest) as read by :func:`vision.read_photo`, first worked on
    at ``side`` pixels, the ``game`` (the special rules in play and the variant) told as the
    player tells it; where no city is found, no pieces nor cells, and no ``grid``."""
    try:
        return vision.read_photo(data, dataclasses.replace(profile, working_side=side), *game)[1].to_json()
    except vision.VisionError:
        return {"pieces": [], "doubtful_empty": []}


def steadiness(pairs: list[tuple[Counter, Counter]]) -> dict:
    """How much the readings hang on the working size, from ``pairs``: per photo its errors
    (:func:`compare.compare`) at the profile's working size and at the second one. A reading
    that a 2% change of scale upsets is one a real photo's differences could upset too."""
    return {
        "photos_exact_at_one_size_only": sum((not first) != (not second) for first, second in pairs),
        "photos_whose_errors_change": sum(first != second for first, second in pairs),
        "errors_at_second_size": sum(sum(second.values()) for _, second in pairs),
    }


def tilt_summary(tilts: list[tuple[float, float | None, bool]]) -> dict:
    """How far the fitted camera tilt is from the true one, from ``tilts``: per photo the
    true tilt and the one read (degrees; None where no city was found), and whether the
    photo was read exactly. Median and 95th percentile of the difference, the photos read
    more than ``TILT_OFF_DEG`` off, and how many of those were read exactly."""
    read = [(abs(fitted - true), ok) for true, fitted, ok in tilts if fitted is not None]
    off = [ok for difference, ok in read if difference > TILT_OFF_DEG]
    differences = [difference for difference, _ in read] or [0.0]
    return {
        "median_error_deg": round(float(np.median(differences)), 1),
        "p95_error_deg": round(float(np.percentile(differences, 95)), 1),
        f"photos_off_by_over_{TILT_OFF_DEG:g}_deg": f"{len(off)}/{len(read)}",
        "exact_among_them": f"{sum(off)}/{len(off)}",
    }


def conditions(scene: dict) -> dict[str, str]:
    """The rendering conditions a photo is grouped by, from its ground truth's ``scene``:
    table, lamp elevation (a low lamp casts long shadows), camera tilt, the phone's shadow,
    the lens (the main one, a 2x zoom, or one the set was made with) and whether the photo
    records it in its EXIF."""
    fixed = scene.get("fixed_hfov_deg")
    return {
        "table": scene["table"],
        "lamp": "under 45 deg" if scene["light"]["elevation_deg"] < 45 else "45 deg and over",
        "tilt": "under 15 deg" if scene["tilt_deg"] < 15 else "15 deg and over",
        "phone_shadow": "yes" if scene.get("phone_shadow") else "no",
        "lens": f"{fixed:g} deg" if fixed is not None else "2x zoom" if scene.get("zoomed") else "main",
        "lens_recorded": "yes" if scene.get("recorded_focal_35mm") else "no",
    }


def by_condition(outcomes: list[tuple[dict[str, str], bool, int, int]]) -> dict:
    """Per condition and value, photos read exactly (``"a/n"``) and errors per piece, from
    ``outcomes``: per photo its :func:`conditions`, whether it was read exactly, its number
    of errors and of pieces."""
    groups: dict[str, dict[str, list[int]]] = {}
    for found, ok, errors, pieces in outcomes:
        for name, value in found.items():
            row = groups.setdefault(name, {}).setdefault(value, [0, 0, 0, 0])
            row[0] += ok
            row[1] += 1
            row[2] += errors
            row[3] += pieces
    return {name: {value: {"exact": f"{a}/{n}", "errors_per_piece": round(e / max(p, 1), 4)}
                   for value, (a, n, e, p) in sorted(values.items())}
            for name, values in groups.items()}


def _checkable(counts: Counter, exact: bool) -> Counter:
    """One photo's :func:`compare.marks` counts, plus ``photos_not_exact`` and
    ``photos_checkable``: a photo not read exactly whose every wrong piece is marked and
    whose every piece missed from a cell read empty is on a doubtful cell, so that checking
    the marks finds every error."""
    counts = Counter(counts)
    if not exact:
        counts["photos_not_exact"] += 1
        counts["photos_checkable"] += (counts["wrong_marked"] == counts["wrong"]
                                       and counts["unmarkable_checked"] == counts["unmarkable"])
    return counts


def _marks_summary(marked: Counter, photos: int, below: float) -> dict:
    """The marks for the player to check over the set (see :func:`compare.marks`): pieces
    and doubtful empty cells."""
    shown = marked["wrong_marked"] + marked["right_marked"] + marked["unmarkable_checked"] + marked["empty_checked"]
    return {
        "below_confidence": below,
        "wrong_pieces_marked": f"{marked['wrong_marked']}/{marked['wrong']}",
        "right_pieces_marked": f"{marked['right_marked']}/{marked['right']}",
        "missed_pieces_on_doubtful_cells": f"{marked['unmarkable_checked']}/{marked['unmarkable']}",
        "doubtful_cells_empty": marked["empty_checked"],
        "marks_per_photo": round(shown / max(photos, 1), 2),
        "photos_whose_errors_are_all_marked": f"{marked['photos_checkable']}/{marked['photos_not_exact']}",
    }


def timed(work):
    """``work()``'s result, the CPU seconds this process spent on it (all its threads) and
    the wall-clock seconds it took."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = work()
    return result, time.process_time() - cpu, time.perf_counter() - wall


def _bare_decode_seconds(data: bytes, repeats: int = 3) -> float:
    """The fastest of ``repeats`` full-size ``cv2.imdecode`` runs on ``data``, in CPU
    seconds (see :func:`timed`)."""
    return min(timed(lambda: cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR))[1]
               for _ in range(repeats))


if __name__ == "__main__":
    main()

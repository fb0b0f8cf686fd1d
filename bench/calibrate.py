"""Benchmark: what a player's own pieces cost the reading, and what calibrating to them gains.

A player's pieces need not be the plastics the default profile was fitted to, and
``citycam calibrate`` refits a profile to one photo of the calibration layout
(``calibration/README.md``). For each set of plastics (``bench.scenegen.materials.PLASTICS``)
the same scenes are rendered with those pieces, and for each table kind one photo of the
calibration layout on such a table, under its own light and camera (a player calibrates once
and plays on, by day and by lamp; a cloth's print and a wood's grain differ from photo to
photo here, as they would not at one player's table). Each photo is read, knowing the rules
and the variant as :mod:`bench.vision` reads it, with the default profile and with the
profile calibrated on the layout photo of its table kind (with the default where that photo
gives none). Figures: photos read exactly and errors by kind, per table kind, for each
plastics and profile; each calibration's report.
Run: ``python -m bench.calibrate [--seed S] [--count N] [--plastics a,b] [--tables a,b]
[--jobs J]``; writes ``bench/results/calibration.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections import Counter
from multiprocessing import get_context
from pathlib import Path

for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one core a reader
    os.environ.setdefault(_threads, "1")

import cv2

import vision
from calibration import ProfileError, load_profile
from calibration.calibrate import calibrate_from_photo, layout_city

from .compare import ERROR_KINDS
from .scenegen.make_set import cached_truth, make_set
from .scenegen.materials import PLASTICS
from .scenegen.scene import make_scene, sample_scene
from .scenegen.textures import TABLE_KINDS
from .vision import read_errors

ROOT = Path(__file__).parent
RESULTS = ROOT / "results" / "calibration.json"
FIRST_LAYOUT_SCENE = 1000  # layout photos are drawn from this scene index on, apart from the set's


def layout_scene(seed: int, table: str) -> int:
    """The first scene index from ``FIRST_LAYOUT_SCENE`` of set ``seed`` whose calibration
    layout is drawn on a ``table`` of that kind (drawing a scene is cheap; rendering is not)."""
    index = FIRST_LAYOUT_SCENE
    while sample_scene(seed, index, city=layout_city()).gt["scene"]["table"] != table:
        index += 1
    return index


def ensure_layout(directory: Path, seed: int, table: str, plastics: str, scale: float) -> Path:
    """The JPEG of the calibration layout on a ``table`` of that kind, with pieces of the
    ``plastics`` named, rendered into ``directory`` unless it is there already."""
    stem = directory / f"layout_{table}"
    index = layout_scene(seed, table)
    if cached_truth(stem, seed, index, scale, None, plastics) is None:
        jpeg, gt = make_scene(seed, index, scale, city=layout_city(), plastics=plastics)
        stem.with_suffix(".jpg").write_bytes(jpeg)
        stem.with_suffix(".json").write_text(json.dumps(gt, indent=1))
    return stem.with_suffix(".jpg")


def calibrated(layout: Path, out: Path) -> tuple[Path | None, str]:
    """The profile ``citycam calibrate`` makes from the ``layout`` photo, saved as ``out``,
    and its report; None and the reason where the photo gives none."""
    profile = load_profile()
    rgb = vision.load_photo(layout.read_bytes(), profile.working_side)
    try:
        return calibrate_from_photo(rgb, profile, str(out))
    except ProfileError as exc:
        return None, f"no profile: {exc}"


def _errors(task: tuple[Path, str | None]) -> dict:
    """The errors by kind of one photo read with the profile at the path given (None: the
    default); a photo no reading finds a city in has every piece missed."""
    photo, profile = task
    cv2.setNumThreads(1)
    city = json.loads(photo.with_suffix(".json").read_text())["city"]
    return dict(read_errors(photo.read_bytes(), city, load_profile(profile)))


def _read_all(tasks: list[tuple[Path, str | None]], jobs: int) -> list[dict]:
    """:func:`_errors` of each task, in ``jobs`` fresh processes (spawned: a forked copy of a
    process whose OpenCV has run threads can hang) or, for one job, in this one."""
    if jobs <= 1:
        return [_errors(task) for task in tasks]
    with get_context("spawn").Pool(jobs) as pool:
        return pool.map(_errors, tasks, chunksize=1)


def summary(outcomes: list[tuple[str, dict]]) -> dict:
    """Photos read exactly, errors and errors by kind, overall and per table kind, from
    ``outcomes``: per photo its table kind and its errors by kind."""
    def of(rows):
        kinds = sum((Counter(errors) for _, errors in rows), Counter())
        return {"exact": f"{sum(not errors for _, errors in rows)}/{len(rows)}", "errors": sum(kinds.values()),
                "by_kind": {kind: kinds[kind] for kind in ERROR_KINDS}}

    tables = sorted({table for table, _ in outcomes})
    return {**of(outcomes), "by_table": {table: of([row for row in outcomes if row[0] == table])
                                         for table in tables}}


def figures(directory: Path, seed: int, count: int, plastics: str, tables: list[str], scale: float, jobs: int,
            profiles: Path) -> dict:
    """The figures of the set rendered in ``directory`` (its first ``count`` photos, those on
    the ``tables`` named), its pieces of the ``plastics`` named: each table's calibration
    report (the profiles saved in ``profiles``), and :func:`summary` of the photos read with
    the default profile and with their table's calibrated one."""
    table_of = {p: json.loads(p.with_suffix(".json").read_text())["scene"]["table"]
                for p in sorted(directory.glob("scene_*.jpg"))[:count]}
    photos = [p for p in table_of if table_of[p] in tables]
    made = {table: calibrated(ensure_layout(directory, seed, table, plastics, scale),
                              profiles / f"{plastics}-{table}.json") for table in sorted({table_of[p] for p in photos})}
    result = {"calibration": {table: report for table, (_, report) in made.items()}}
    paths = {table: str(path) if path else None for table, (path, _) in made.items()}
    for label in ("default", "calibrated"):
        tasks = [(p, paths[table_of[p]] if label == "calibrated" else None) for p in photos]
        result[label] = summary([(table_of[p], e) for p, e in zip(photos, _read_all(tasks, jobs))])
        print(f"{plastics} plastics, {label} profile: {result[label]['errors']} errors, "
              f"{result[label]['exact']} exact", flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20270303, help="set seed (never tuned on)")
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--plastics", default=",".join(PLASTICS), help="comma-separated, of: " + ", ".join(PLASTICS))
    parser.add_argument("--tables", default=",".join(TABLE_KINDS),
                        help="comma-separated, of: " + ", ".join(TABLE_KINDS))
    parser.add_argument("--scale", type=float, default=1.0, help="photo size factor (small ones for a quick try)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    plastics = [p.strip() for p in args.plastics.split(",")]
    tables = [t.strip() for t in args.tables.split(",")]
    unknown = [p for p in plastics if p not in PLASTICS] + [t for t in tables if t not in TABLE_KINDS]
    if unknown:
        parser.error(f"unknown plastics or table(s): {', '.join(unknown)}")
    suffix = "" if args.scale == 1 else f"-{args.scale:g}"
    directories = {name: ROOT / "cache" / f"set-{args.seed}-{name}{suffix}" for name in plastics}
    for name, directory in directories.items():  # first: its workers fork this process before it runs OpenCV
        make_set(args.seed, list(range(args.count)), directory, args.scale, args.jobs, plastics=name)
    with tempfile.TemporaryDirectory() as profiles:
        results = {name: figures(directory, args.seed, args.count, name, tables, args.scale, args.jobs,
                                 Path(profiles)) for name, directory in directories.items()}
    report = {"benchmark": "calibration", "seed": args.seed, "photos": args.count, "scale": args.scale,
              "plastics": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

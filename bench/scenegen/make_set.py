"""CLI: render a set of synthetic scenes.

    python -m bench.scenegen.make_set --seed S --count N --out DIR [--scale F] [--jobs J]
    python -m bench.scenegen.make_set --seed S --only 3,17,42 --out DIR [--scale F] [--hfov DEG]
        [--plastics NAME]

Writes DIR/scene_0000.jpg + DIR/scene_0000.json ... and DIR/index.json. A scene whose
JSON already records the same seed, index, scale, lens, plastics and generator version is
kept (cache). ``--hfov`` shoots every scene with a lens of that field of view (degrees over
the long side: about 38 at a phone's 2x zoom) instead of the main lens, recorded in each
photo's EXIF. ``--plastics`` makes the pieces of another set of plastics
(``materials.PLASTICS``).
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from .materials import PLASTICS
from .scene import VERSION, make_scene

def scene_name(i: int) -> str:
    return f"scene_{i:04d}"


def cached_truth(stem: Path, seed: int, i: int, scale: float, hfov: float | None, plastics: str | None) -> dict | None:
    """The ground truth of the scene rendered as ``stem``.jpg with ``stem``.json beside it,
    where that JSON records scene ``i`` of set ``seed`` at this ``scale``, lens, ``plastics``
    and generator version; else None (missing, unreadable or another scene: render it)."""
    js, jpg = stem.with_suffix(".json"), stem.with_suffix(".jpg")
    if not (js.exists() and jpg.exists()):
        return None
    try:
        gt = json.loads(js.read_text())
    except (OSError, ValueError):
        return None
    sc = gt.get("scene", {})
    same = (sc.get("seed") == [seed, i] and sc.get("scale") == scale and sc.get("version") == VERSION
            and sc.get("fixed_hfov_deg") == hfov and sc.get("plastics") == plastics)
    return gt if same else None


def render_one(out: Path, seed: int, i: int, scale: float, hfov: float | None = None,
               plastics: str | None = None) -> dict:
    """Render scene i into ``out`` (JPEG + JSON), with a lens of ``hfov`` degrees and pieces
    of the ``plastics`` named if given; return its ground truth."""
    jpeg, gt = make_scene(seed, i, scale, hfov_deg=hfov, plastics=plastics)
    (out / f"{scene_name(i)}.jpg").write_bytes(jpeg)
    (out / f"{scene_name(i)}.json").write_text(json.dumps(gt, indent=1))
    return gt


def _summary(i: int, gt: dict) -> dict:
    sc = gt["scene"]
    return {"name": scene_name(i), "index": i, "pieces": len(gt["pieces"]), "table": sc["table"],
            "legal": gt["legal"], "stacks": sc["stacks"], "tilt_deg": round(sc["tilt_deg"], 1),
            "kelvin": round(sc["light"]["kelvin"]), "exif_orientation": sc["exif_orientation"],
            "width": gt["image"]["width"], "height": gt["image"]["height"]}


def make_set(seed: int, indices: list[int], out: Path, scale: float = 1.0, jobs: int = 1,
             hfov: float | None = None, plastics: str | None = None) -> list[dict]:
    """Render (or reuse) the scenes ``indices`` of set ``seed`` (with a lens of ``hfov``
    degrees and pieces of the ``plastics`` named if given); write and return the index."""
    out.mkdir(parents=True, exist_ok=True)
    entries: dict[int, dict] = {}
    todo = []
    count = len(indices)
    for i in indices:
        gt = cached_truth(out / scene_name(i), seed, i, scale, hfov, plastics)
        if gt is None:
            todo.append(i)
        else:
            entries[i] = _summary(i, gt)
    print(f"{len(entries)}/{count} scenes cached, rendering {len(todo)}", flush=True)
    t0 = time.perf_counter()

    def done(i, gt, n):
        entries[i] = _summary(i, gt)
        dt = (time.perf_counter() - t0) / n
        print(f"{len(entries)}/{count} scenes, {dt:.1f} s/scene", flush=True)

    if jobs <= 1:
        for n, i in enumerate(todo, 1):
            done(i, render_one(out, seed, i, scale, hfov, plastics), n)
    else:
        with ProcessPoolExecutor(jobs) as ex:
            futs = {i: ex.submit(render_one, out, seed, i, scale, hfov, plastics) for i in todo}
            for n, i in enumerate(todo, 1):
                done(i, futs[i].result(), n)
    index = [entries[i] for i in indices]
    (out / "index.json").write_text(json.dumps({"seed": seed, "count": count, "scale": scale,
                                                "scenes": index}, indent=1))
    return index


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--count", type=int, help="render scenes 0..N-1")
    group.add_argument("--only", help="comma-separated scene indices to render")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--scale", type=float, default=1.0, help="output size factor (0.25 -> ~1000x750)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--hfov", type=float, help="a lens of this field of view (degrees over the long side) "
                                               "instead of the phone's main lens")
    ap.add_argument("--plastics", choices=sorted(PLASTICS), help="the pieces' plastics (default: the measured ones)")
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    indices = [int(v) for v in a.only.split(",")] if a.only else list(range(a.count))
    make_set(a.seed, indices, a.out, a.scale, a.jobs, a.hfov, a.plastics)
    return 0


if __name__ == "__main__":
    sys.exit(main())

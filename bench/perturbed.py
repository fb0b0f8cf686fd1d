"""Benchmark: how the reading holds up on photos unlike the renders.

Real players' photos will differ from anything rendered. Each change here is painted over
the photos of a benchmark set (seeded by the photo's number, so a run is reproducible),
which are then read (:func:`vision.read_photo`, knowing the rules in play and the variant,
as :mod:`bench.vision` reads them) and compared with the truth: errors by kind and photos
read exactly, for each change and for the photos as rendered (re-encoded alike).
The changes: the floor beyond the table's edge, which the renders never show (dark across
the top, light grey beside a slanted edge on the left, dark brown across the bottom, grey
beyond two edges round the table's corner; each edge at least a pitch clear of the city,
which stands on the table); a hand reaching in from the bottom edge; a mug
beside the city (white, red, blue or green, with coffee in it and a soft shadow); a lamp on
one side and daylight on the other (a white-balance ramp); light falling off across the
table; a dim, noisy exposure; a half-size photo saved at JPEG quality 55; defocus blur.
Run: ``python -m bench.perturbed [--seed S] [--count N] [--changes a,b] [--jobs J]``; writes
``bench/results/perturbed.json``.
"""
from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one core a reader
    os.environ.setdefault(_threads, "1")

import cv2
import numpy as np

from calibration import Profile, load_profile

from .compare import ERROR_KINDS
from .vision import ensure_set, read_errors

RESULTS = Path(__file__).parent / "results" / "perturbed.json"
QUALITY = 92  # JPEG quality the changed photos are saved at


def _floor(rgb: np.ndarray, centres: np.ndarray, edges, colour, noise: float, rng) -> np.ndarray:
    """``rgb`` (float32 (H, W, 3)) with a textured floor of ``colour`` (RGB) beyond the
    table's ``edges``, parted from the table by a sharp edge. Each edge is a function of
    pixel (x, y) arrays, the photo's width and height giving the signed distance (pixels,
    about) to the edge, negative beyond it; the edge is moved out until it is a pitch clear
    of every piece's base centre (``centres``, (N, 2) (x, y) pixels): a city stands on the
    table, and a floor painted over its pieces would hide them."""
    h, w = rgb.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    pitch = _pitch(centres, (h, w))
    beyond = np.zeros((h, w), bool)
    for edge in edges:
        clear = min(float(edge(centres[:, 0], centres[:, 1], w, h).min()), pitch) if len(centres) else pitch
        beyond |= edge(xs, ys, w, h) < clear - pitch
    texture = colour + rng.normal(0, noise, (h, w, 1)).astype(np.float32)
    surface = cv2.GaussianBlur(texture, (0, 0), 2)
    share = cv2.GaussianBlur(beyond.astype(np.float32), (0, 0), 1.5)[..., None]
    return rgb * (1 - share) + surface * share


def _pitch(centres: np.ndarray, shape: tuple[int, int]) -> float:
    """The city's pitch in pixels: the median distance from each of the pieces' base
    ``centres`` ((N, 2) (x, y)) to its nearest; 5% of the long side of a photo of ``shape``
    (H, W) where there is one piece or none."""
    if len(centres) < 2:
        return 0.05 * max(shape)
    apart = np.linalg.norm(centres[:, None] - centres[None], axis=2) + np.diag(np.full(len(centres), np.inf))
    return float(np.median(apart.min(axis=1)))


def floor_top(rgb, rng, centres):
    """A dark floor across the top 12%."""
    return _floor(rgb, centres, [lambda x, y, w, h: y - 0.12 * h], np.array([46, 40, 36], np.float32), 8, rng)


def floor_side(rgb, rng, centres):
    """A light grey floor beside a slanted edge on the left (12-22% of the width)."""
    return _floor(rgb, centres, [lambda x, y, w, h: x - (0.22 - 0.1 * y / h) * w],
                  np.array([185, 170, 150], np.float32), 10, rng)


def floor_bottom(rgb, rng, centres):
    """A dark brown floor across the bottom 8-12%."""
    return _floor(rgb, centres, [lambda x, y, w, h: (0.88 + 0.04 * x / w) * h - y],
                  np.array([70, 45, 30], np.float32), 6, rng)


def floor_corner(rgb, rng, centres):
    """The table's corner: a grey carpet beyond two edges, over the left 14-18% and the top
    10-13%."""
    return _floor(rgb, centres, [lambda x, y, w, h: x - (0.14 + 0.04 * y / h) * w,
                                 lambda x, y, w, h: y - (0.13 - 0.03 * x / w) * h],
                  np.array([115, 110, 105], np.float32), 10, rng)


def hand(rgb, rng):
    """A hand reaching in from the bottom edge, left of the middle, lit from above."""
    h, w = rgb.shape[:2]
    reach = np.zeros((h, w), np.float32)
    cv2.ellipse(reach, (int(0.2 * w), h), (int(0.12 * w), int(0.3 * h)), 15, 0, 360, 1, -1)
    share = cv2.GaussianBlur(reach, (0, 0), 3)[..., None]
    skin = np.array([215, 165, 135], np.float32) * (0.7 + 0.3 * np.linspace(0, 1, h, dtype=np.float32))[:, None, None]
    return rgb * (1 - share) + skin * share


def lamp_and_daylight(rgb, rng):
    """Warm light from the left, cool from the right: red 1.2 -> 0.85, blue 0.85 -> 1.2."""
    across = np.linspace(0, 1, rgb.shape[1], dtype=np.float32)[None, :]
    out = rgb.copy()
    out[..., 0] *= 1.2 - 0.35 * across
    out[..., 2] *= 0.85 + 0.35 * across
    return out


def uneven_light(rgb, rng):
    """The light falls to 0.45 across the photo."""
    return rgb * (0.45 + 0.55 * np.linspace(0, 1, rgb.shape[1], dtype=np.float32)[None, :, None])


def dim(rgb, rng):
    """Under-exposed by 1.5 stops, with sensor noise."""
    return rgb * 0.35 + rng.normal(0, 4, rgb.shape).astype(np.float32)


def blurred(rgb, rng):
    """Out of focus (Gaussian, sigma 3 pixels of the full photo)."""
    return cv2.GaussianBlur(rgb, (0, 0), 3.0)


MUG_COLOURS = ((235, 235, 230), (190, 40, 35), (40, 70, 160), (60, 130, 60))  # white, red, blue, green


def mug(rgb, rng, centres):
    """A mug seen from above beside the city (whose pieces' base centres are ``centres``,
    (N, 2) (x, y) pixels): a disc about 3 pitches across, white, red, blue or green, with
    coffee in it and a soft shadow, its rim a pitch clear of every piece's centre, on the
    first side of the city (of 8, in a seeded order) where it fits in the photo."""
    h, w = rgb.shape[:2]
    middle = centres.mean(axis=0)
    pitch = _pitch(centres, (h, w))
    radius = 1.4 * pitch
    colour = np.array(MUG_COLOURS[rng.integers(len(MUG_COLOURS))], np.float32)
    for angle in rng.permutation(8) * np.pi / 4:
        way = np.array([np.cos(angle), np.sin(angle)])
        centre = middle.copy()
        while np.linalg.norm(centres - centre, axis=1).min() < radius + pitch:
            centre += 0.1 * pitch * way
        if radius < centre[0] < w - radius and radius < centre[1] < h - radius:
            break
    else:
        return rgb
    out = rgb * (1 - 0.45 * _disc((h, w), centre + 0.25 * radius, radius, 0.2 * radius))
    for fill, share in ((colour, 1.0), (np.array([60, 35, 20], np.float32), 0.82)):
        cover = _disc((h, w), centre, share * radius, 2)
        out = out * (1 - cover) + fill * cover
    return out


def _disc(shape, centre, radius, blur):
    """float32 (H, W, 1): a disc of ``radius`` at ``centre`` (x, y), its edge blurred by
    ``blur`` pixels."""
    disc = np.zeros(shape, np.float32)
    cv2.circle(disc, (int(centre[0]), int(centre[1])), int(radius), 1, -1)
    return cv2.GaussianBlur(disc, (0, 0), blur)[..., None]


# each change painted over the photo's pixels (float32 (H, W, 3) RGB, and a seeded generator)
PAINTED = {"as rendered": lambda rgb, rng: rgb, "hand": hand, "lamp and daylight": lamp_and_daylight,
           "uneven light": uneven_light, "dim": dim, "blurred": blurred}
# each change painted beside the city (its pieces' base centres, (N, 2) (x, y) pixels, too)
BESIDE_CITY = {"floor top": floor_top, "floor side": floor_side, "floor bottom": floor_bottom,
               "floor corner": floor_corner, "mug beside the city": mug}
SMALLER = "small and low quality"  # the photo saved at half its size, JPEG quality 55
CHANGES = (*PAINTED, *BESIDE_CITY, SMALLER)


def changed(data: bytes, change: str, number: int, centres: np.ndarray | None = None) -> bytes:
    """The photo ``data`` (JPEG bytes) with ``change`` painted over it, as JPEG bytes; the
    noise it paints is seeded by the photo's ``number``. A change beside the city needs its
    pieces' base ``centres`` ((N, 2) (x, y) pixels of the photo)."""
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if change == SMALLER:
        small = cv2.resize(bgr, (bgr.shape[1] // 2, bgr.shape[0] // 2), interpolation=cv2.INTER_AREA)
        return cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 55])[1].tobytes()
    rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB).astype(np.float32)
    rng = np.random.default_rng(number)
    if change in BESIDE_CITY:
        if centres is None or not len(centres):
            raise ValueError(f"{change!r} is painted beside the city: give its pieces' centres")
        out = BESIDE_CITY[change](rgb, rng, np.asarray(centres, np.float64))
    else:
        out = PAINTED[change](rgb, rng)
    bgr = cv2.cvtColor(np.clip(out, 0, 255).astype(np.uint8), cv2.COLOR_RGB2BGR)
    return cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])[1].tobytes()


def _errors(task: tuple[Path, str, Profile]) -> dict:
    """The errors by kind of one photo read with one change (a photo no reading finds a city
    in has every piece missed)."""
    photo, change, profile = task
    record = json.loads(photo.with_suffix(".json").read_text())
    centres = np.array([p["base_center_xy"] for p in record["pieces"]])
    data = changed(photo.read_bytes(), change, int(photo.stem.split("_")[-1]), centres)
    return dict(read_errors(data, record["city"], profile))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20261229, help="benchmark set seed")
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--changes", default=",".join(CHANGES), help="comma-separated, of: " + ", ".join(CHANGES))
    parser.add_argument("--profile", default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    changes = [c.strip() for c in args.changes.split(",")]
    unknown = [c for c in changes if c not in CHANGES]
    if unknown:
        parser.error(f"unknown change(s): {', '.join(unknown)}")
    photos = sorted(ensure_set(args.seed, args.count).glob("scene_*.jpg"))[:args.count]
    profile = load_profile(args.profile)
    results = {}
    with Pool(args.jobs) as pool:
        for change in changes:
            per_photo = pool.map(_errors, [(p, change, profile) for p in photos], chunksize=1)
            kinds = sum((Counter(e) for e in per_photo), Counter())
            results[change] = {"errors": sum(kinds.values()), "exact": sum(not e for e in per_photo),
                               "by_kind": {k: kinds[k] for k in ERROR_KINDS}}
            print(f"{change}: {results[change]['errors']} errors, {results[change]['exact']}/{len(photos)} exact",
                  flush=True)
    report = {"benchmark": "perturbed", "seed": args.seed, "photos": len(photos), "changes": results,
              "profile": args.profile or "default"}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()

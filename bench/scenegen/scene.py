"""One synthetic scene: sample everything from a seed, render, develop, ground truth.

Seeds: scene ``index`` of set seed ``set_seed`` uses ``np.random.SeedSequence([set_seed, index])``
and every random choice comes from that generator, so output bytes are reproducible. The lens
the phone shoots with is drawn from a stream of its own (:func:`sample_lens`), so that a
scene shot at zoom is otherwise the scene its main lens would shoot.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import cv2
import numpy as np

from . import optics, sensor
from .camera import Camera, sample_camera
from .city import sample_city
from .geometry import Pyramid, quads_overlap
from .lighting import Light, sample_light
from .materials import BASE_MM, HEIGHT_MM, PLASTICS, plastic
from .render import render
from .table import sample_cards, table_for
from .textures import TABLE_KINDS

log = logging.getLogger(__name__)
INTERNAL_PIXELS = 3.2e6  # render budget before upsampling (>= half linear size at 12 MP)
VERSION = 9  # bump whenever the output for a given seed changes (invalidates cached sets)
ZOOM_SHARE = 0.15  # photos taken at a phone's 2x zoom, whose view is ZOOM_HFOV_DEG across
ZOOM_HFOV_DEG = (36.0, 41.0)  # near 2 atan(tan(h / 2) / 2) of a main lens's h of 65-75 degrees (35-42)
UNRECORDED_SHARE = 0.2  # photos whose EXIF records no lens (stripped by a messenger or an editor)
_LENS_STREAM = 1  # the lens's own random stream: SeedSequence([set_seed, index, _LENS_STREAM])
_RULES_STREAM = 2  # the special rules' own random stream, as the lens's
RULES_IN_PLAY = {"standard": 3, "small-city": 2}  # special rules a game of each variant plays with
CANADIAN_SHARE = 1 / 6  # games played with Canadian Style: three rules of the 18 drawn at random


def layout(rng: np.random.Generator, city: dict, pitch: float, rot_deg: float,
           mats: dict) -> list[Pyramid]:
    """3-D pyramids (world mm, city centred at the origin) for the city's pieces, same order.

    Each level-0 piece sits up to 3 mm off its cell centre, turned up to 15 deg, never
    intersecting its neighbours; a level-1 piece nests over the apex of the piece below.
    """
    pcs = city["pieces"]
    rows = np.array([p["row"] for p in pcs], float)
    cols = np.array([p["col"] for p in pcs], float)
    cx, cy = (cols.min() + cols.max()) / 2, (rows.min() + rows.max()) / 2
    th = np.deg2rad(rot_deg)
    Rz = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    out: list[Pyramid | None] = [None] * len(pcs)
    placed: list[np.ndarray] = []
    for i in sorted(range(len(pcs)), key=lambda k: pcs[k]["level"]):
        p = pcs[i]
        half, height = BASE_MM[p["size"]] / 2, HEIGHT_MM[p["size"]]
        mat = dict(mats[p["color"]])  # pieces of one colour differ slightly (moulding)
        mat["absorb"] = mat["absorb"] * rng.uniform(0.93, 1.07)
        if p["level"] == 0:
            cell = Rz @ np.array([(p["col"] - cx) * pitch, -(p["row"] - cy) * pitch])
            for k in range(30):
                shrink = max(0.0, 1 - k / 20)
                off = rng.normal(0, 1.2, 2) * shrink
                off *= min(1.0, 3.0 / (np.hypot(*off) + 1e-9))
                yaw = th + np.deg2rad(rng.uniform(-15, 15) * shrink)
                pyr = Pyramid(np.array([*(cell + off), 0.0]), half, height, yaw, mat, p["size"])
                quad = pyr.corners()[:, :2]
                if not any(quads_overlap(quad, q) for q in placed):
                    break
            placed.append(quad)
        else:
            low = next(out[j] for j in range(len(pcs)) if pcs[j]["level"] == 0
                       and (pcs[j]["row"], pcs[j]["col"]) == (p["row"], p["col"]))
            dyaw = np.deg2rad(rng.uniform(-6, 6))
            phi = abs(dyaw) % (np.pi / 2)
            # the turned base square must contain the lower pyramid's cross-section
            seat_half = half / (np.cos(phi) + np.sin(phi))
            z = low.height * (1 - seat_half / low.half)
            pyr = Pyramid(np.array([low.base[0], low.base[1], z]), half, height, low.yaw + dyaw,
                          mat, p["size"])
        out[i] = pyr
    return out  # type: ignore[return-value]


def paint_order(city: dict, pyrs: list[Pyramid], cam: Camera) -> list[tuple[int, bool]]:
    """Back-to-front (pyramid index, front faces?) list. Cells far from the camera first;
    in a stack: upper back, lower back, lower front, upper front."""
    pcs = city["pieces"]
    by_cell: dict = {}
    for i, p in enumerate(pcs):
        by_cell.setdefault((p["row"], p["col"]), []).append(i)
    cells = sorted(by_cell, key=lambda c: -float(np.linalg.norm(pyrs[by_cell[c][0]].base - cam.center)))
    order = []
    for c in cells:
        ids = sorted(by_cell[c], key=lambda i: pcs[i]["level"])
        if len(ids) == 1:
            order += [(ids[0], False), (ids[0], True)]
        else:
            lo, up = ids
            order += [(up, False), (lo, False), (lo, True), (up, True)]
    return order


@dataclass
class Scene:
    """Everything sampled for one scene before any pixel is rendered.

    gt: the ground-truth dict written beside the image; the other fields drive rendering.
    """

    gt: dict
    cam: Camera
    pyrs: list[Pyramid]
    light: Light
    sensor: dict
    texture_seed: int
    noise_seed: int


def sample_lens(set_seed: int, index: int) -> tuple[float | None, bool]:
    """The lens scene ``index`` of set ``set_seed`` is shot with, from its own random stream:
    the field of view (degrees across the long side) of a 2x zoom, for ``ZOOM_SHARE`` of
    the scenes, or None for the phone's main lens; and whether the photo records it in its
    EXIF (all but ``UNRECORDED_SHARE`` of them)."""
    rng = np.random.default_rng(np.random.SeedSequence([set_seed, index, _LENS_STREAM]))
    zoom = float(rng.uniform(*ZOOM_HFOV_DEG)) if rng.random() < ZOOM_SHARE else None
    return zoom, bool(rng.random() >= UNRECORDED_SHARE)


def sample_rules(rng: np.random.Generator, city: dict, canadian: bool) -> list[str]:
    """The special rules (ids) the player of ``city`` chose, drawn by ``rng`` (the rules' own
    random stream, :func:`rules_stream`: the photo does not show them): as many as the
    city's variant plays with, Canadian Style among them where ``canadian`` (drawn first,
    :func:`rules_stream`: the city was grown knowing it) and not elsewhere, Mixed-Use
    Development wherever the city holds a stack (stacks are legal under it alone), the rest
    at random."""
    from scorer import CANADIAN_STYLE, MIXED_USE, RULES
    stacked = any(p.get("level", 0) for p in city["pieces"])
    chosen = [MIXED_USE] * stacked + [CANADIAN_STYLE] * canadian
    pool = sorted(set(RULES) - {CANADIAN_STYLE} - set(chosen))
    chosen += [str(r) for r in rng.choice(pool, RULES_IN_PLAY[city["variant"]] - len(chosen), replace=False)]
    return sorted(chosen)


def rules_stream(set_seed: int, index: int) -> tuple[np.random.Generator, bool]:
    """The special rules' own random stream for scene ``index`` of set ``set_seed``, and
    whether Canadian Style is among them (drawn first from it, at ``CANADIAN_SHARE``: the
    city is grown knowing it, as a player places larges together under it)."""
    rng = np.random.default_rng(np.random.SeedSequence([set_seed, index, _RULES_STREAM]))
    return rng, bool(rng.random() < CANADIAN_SHARE)


def sample_scene(set_seed: int, index: int, scale: float = 1.0, city: dict | None = None,
                 hfov_deg: float | None = None, plastics: str | None = None) -> Scene:
    """Sample scene ``index`` of set ``set_seed`` (cheap: no rendering).

    Args:
        scale: output linear size relative to the phone's (0.25 -> about 1000x750).
        city: a city dict (design.md section 2) to lay out instead of a sampled one (the
            calibration layout, say); everything else is sampled as for a sampled city.
        hfov_deg: the lens's field of view (degrees over the long side) instead of the
            one drawn (:func:`sample_lens`); the photo then records it in its EXIF, and the
            ground truth in ``scene.fixed_hfov_deg``.
        plastics: the pieces' plastics, by name (:data:`materials.PLASTICS`), instead of
            the measured ones; recorded in the ground truth as ``scene.plastics``. The scene
            is otherwise the one drawn with the measured plastics.

    The lens drawn is the phone's main one (:func:`camera.sample_camera`) or a 2x zoom
    (held further back: it frames every city the generator lays out). The photo records it
    as phones do (EXIF FocalLengthIn35mmFilm), unless it is one of the photos drawn to
    record none; the ground truth holds ``scene.zoomed`` and ``scene.recorded_focal_35mm``
    (None where none is recorded).
    """
    rng = np.random.default_rng(np.random.SeedSequence([set_seed, index]))
    rules_rng, canadian = rules_stream(set_seed, index)
    sampled, legality = sample_city(rng, larges_touch=canadian and city is None)  # a city given: as ever
    if city is None:
        city = dict(sampled, rules=sample_rules(rules_rng, sampled, canadian))
    else:
        legality = _legality(city)
    pitch = float(rng.uniform(27, 40))
    rot = float(rng.uniform(-40, 40))
    faces = PLASTICS[plastics or "measured"]
    mats = {c: plastic(c, rng, faces) for c in ("red", "yellow", "green", "blue", "black")}
    pyrs = layout(rng, city, pitch, rot, mats)
    exif = int(rng.choice([6, 8])) if rng.random() < 0.1 else 0
    portrait = bool(exif) or rng.random() < 0.2
    pts = np.vstack([np.vstack([p.corners(), p.apex()[None]]) for p in pyrs])
    lens_hfov, recorded = (hfov_deg, True) if hfov_deg is not None else sample_lens(set_seed, index)
    cam, cam_prm = sample_camera(rng, pts, portrait, scale, hfov_deg=lens_hfov)
    light, light_prm = sample_light(rng)
    kind = str(TABLE_KINDS[rng.integers(len(TABLE_KINDS))])
    gloss = float(rng.uniform(0, {"wood": 0.06, "white": 0.05, "dark": 0.06, "cloth": 0.0}[kind]))
    rough = float(rng.uniform(0.02, 0.15))
    cards = sample_cards(rng, pyrs)
    prm = sensor.sample_params(rng)
    lens = optics.sample_params(rng, cam_prm["distance_mm"])
    phone_shadow = bool(rng.random() < 0.2)
    tex_seed, noise_seed = (int(v) for v in rng.integers(0, 2 ** 62, 2))
    gt = ground_truth(city, pyrs, cam)
    gt["grid"] = {"pitch_mm": pitch, "rotation_deg": rot}
    for card in cards:
        card["corners_xy"] = cam.project(np.column_stack([card["corners_mm"], np.zeros(4)])).tolist()
    gt["cards"] = cards
    gt["legal"] = legality["legal"]
    gt["illegal"] = ({"reason": legality["illegal_reason"], "cells": legality["illegal_cells"]}
                     if not legality["legal"] else None)
    gt["scene"] = {"seed": [int(set_seed), int(index)], "scale": scale, "version": VERSION,
                   "table": kind,
                   "table_gloss": [gloss, rough],
                   "light": light_prm, **cam_prm, "exif_orientation": exif,
                   "jpeg_quality": prm["jpeg_quality"], "sensor": prm, "lens": lens,
                   "phone_shadow": phone_shadow,
                   "stacks": sum(p["level"] for p in city["pieces"]),
                   "zoomed": hfov_deg is None and lens_hfov is not None,
                   "recorded_focal_35mm": (sensor.focal_length_35mm(cam_prm["hfov_deg"], cam.width, cam.height)
                                           if recorded else None)}
    if hfov_deg is not None:
        gt["scene"]["fixed_hfov_deg"] = float(hfov_deg)
    if plastics is not None:
        gt["scene"]["plastics"] = plastics
    return Scene(gt, cam, pyrs, light, prm, tex_seed, noise_seed)


def render_scene(sc: Scene) -> bytes:
    """Render, develop and encode a sampled scene; returns the JPEG bytes (with EXIF
    Orientation when ``sc.gt["scene"]["exif_orientation"]`` is 6 or 8)."""
    t0 = time.perf_counter()
    cam = sc.cam
    s_int = min(1.0, max(0.5, np.sqrt(INTERNAL_PIXELS / (cam.width * cam.height))))
    cam_int = cam.scaled(s_int)
    tex, tex_to_mm = table_for(np.random.default_rng(sc.texture_seed), sc.gt["scene"]["table"], cam_int,
                               sc.gt["cards"])
    order = paint_order(sc.gt["city"], sc.pyrs, cam_int)
    lin = render(cam_int, tex, tex_to_mm, sc.pyrs, order, sc.light, *sc.gt["scene"]["table_gloss"],
                 phone_shadow=sc.gt["scene"]["phone_shadow"])
    lin = optics.apply(lin, cam_int, sc.gt["scene"]["lens"])
    del tex
    rgb = sensor.develop(lin, (cam.width, cam.height), sc.sensor, np.random.default_rng(sc.noise_seed))
    jpeg = sensor.encode_jpeg(rgb, sc.sensor["jpeg_quality"], sc.gt["scene"]["exif_orientation"] or None,
                              sc.gt["scene"]["recorded_focal_35mm"])
    log.debug("scene %s rendered in %.1f s", sc.gt["scene"]["seed"], time.perf_counter() - t0)
    return jpeg


def make_scene(set_seed: int, index: int, scale: float = 1.0, city: dict | None = None,
               hfov_deg: float | None = None, plastics: str | None = None) -> tuple[bytes, dict]:
    """Sample and render one scene: (JPEG bytes, ground truth). All pixel coordinates in
    the ground truth are (x, y) in the upright (EXIF-applied) image. ``city``, ``hfov_deg``,
    ``plastics``: see :func:`sample_scene`."""
    sc = sample_scene(set_seed, index, scale, city, hfov_deg, plastics)
    return render_scene(sc), sc.gt


def _legality(city: dict) -> dict:
    """The legality info of :func:`city.sample_city` for a given city: its first problem."""
    from scorer import City, Piece, check_legality
    problems = check_legality(City([Piece(p["row"], p["col"], p["color"], p["size"], p["level"])
                                    for p in city["pieces"]]))
    if not problems:
        return {"legal": True, "illegal_reason": None, "illegal_cells": []}
    return {"legal": False, "illegal_reason": problems[0].reason,
            "illegal_cells": [list(c) for c in problems[0].cells]}


def occlusion(city: dict, pyrs: list[Pyramid], cam: Camera, q: float = 0.25) -> list[float]:
    """Per piece, the fraction (0..1) of its outline in the image covered by pieces nearer
    the camera (painted later), measured on a grid at ``q`` times the image size."""
    h, w = max(1, int(cam.height * q)), max(1, int(cam.width * q))
    hulls = []
    for pyr in pyrs:
        uv = cam.project(np.vstack([pyr.corners(), pyr.apex()[None]])) * q
        mask = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(mask, cv2.convexHull(np.round(uv * 16).astype(np.int32)), 1, cv2.LINE_8, 4)
        hulls.append(mask.astype(bool))
    later = np.zeros((h, w), bool)
    out = [0.0] * len(pyrs)
    fronts = [i for i, front in paint_order(city, pyrs, cam) if front]
    for i in reversed(fronts):
        area = int(hulls[i].sum())
        out[i] = float((hulls[i] & later).sum() / area) if area else 0.0
        later |= hulls[i]
    return out


def ground_truth(city: dict, pyrs: list[Pyramid], cam: Camera) -> dict:
    """City plus per-piece pixel geometry and the camera, in upright pixel coordinates."""
    pieces = []
    for p, pyr, occ in zip(city["pieces"], pyrs, occlusion(city, pyrs, cam)):
        q = dict(p)
        q["base_center_xy"] = cam.project(pyr.base[None])[0].tolist()
        q["apex_xy"] = cam.project(pyr.apex()[None])[0].tolist()
        q["base_corners_xy"] = cam.project(pyr.corners()).tolist()
        q["base_center_mm"] = pyr.base.tolist()
        q["yaw_deg"] = float(np.rad2deg(pyr.yaw))
        q["occluded_fraction"] = round(occ, 4)
        pieces.append(q)
    return {"city": {**city, "pieces": [dict(p) for p in city["pieces"]]},
            "pieces": pieces, "image": {"width": cam.width, "height": cam.height},
            "camera": cam.as_dict()}

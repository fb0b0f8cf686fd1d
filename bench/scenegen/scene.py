"""One synthetic scene: sample everything from a seed, render, develop, ground truth.

Seeds: scene ``index`` of set seed ``set_seed`` uses ``np.random.SeedSequence([set_seed, index])``
and every random choice comes from that generator, so output bytes are reproducible.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np

from . import sensor
from .camera import Camera, sample_camera
from .city import sample_city
from .materials import BASE_MM, HEIGHT_MM, kelvin_rgb, plastic
from .render import Light, Pyramid, render
from .textures import CARD_MM, TABLE_KINDS, draw_card, table_texture

log = logging.getLogger(__name__)
INTERNAL_PIXELS = 3.2e6  # render budget before upsampling (>= half linear size at 12 MP)


def _squares_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Separating-axis test for two convex quads (4, 2)."""
    for poly in (a, b):
        for i in range(4):
            e = poly[(i + 1) % 4] - poly[i]
            ax = np.array([-e[1], e[0]])
            pa, pb = a @ ax, b @ ax
            if pa.max() < pb.min() or pb.max() < pa.min():
                return False
    return True


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
                if not any(_squares_overlap(quad, q) for q in placed):
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


def sample_light(rng: np.random.Generator) -> tuple[Light, dict]:
    """Soft main light + sky fill; colours partly white-balanced like a phone would."""
    kelvin = float(rng.uniform(2700, 6500))
    elev = np.deg2rad(rng.uniform(35, 90))
    azim = rng.uniform(0, 2 * np.pi)
    spread = float(rng.uniform(0.04, 0.22))
    L0 = np.array([np.cos(elev) * np.cos(azim), np.cos(elev) * np.sin(azim), np.sin(elev)])
    u = np.cross(L0, [0.3, 0.5, 0.8])
    u /= np.linalg.norm(u)
    v = np.cross(L0, u)
    n = 16
    k = np.arange(n) + 0.5
    rad = spread * np.sqrt(k / n)
    ang = k * 2.39996 + rng.uniform(0, 2 * np.pi)
    main = L0 + rad[:, None] * (np.cos(ang)[:, None] * u + np.sin(ang)[:, None] * v)
    main /= np.linalg.norm(main, axis=1, keepdims=True)
    m = 24
    k = np.arange(m) + 0.5
    el = np.arcsin(np.sqrt(0.4 + 0.6 * k / m))
    az = k * 2.39996 + rng.uniform(0, 2 * np.pi)
    fill = np.column_stack([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])
    wb = rng.uniform(0.55, 0.9)
    col = kelvin_rgb(kelvin) ** (1 - wb)
    col /= col @ np.array([0.2126, 0.7152, 0.0722])
    ratio = rng.uniform(0.15, 0.6)
    sky = kelvin_rgb(rng.uniform(min(kelvin, 5000), 7000)) ** (1 - wb)
    sky /= sky @ np.array([0.2126, 0.7152, 0.0722])
    distance = float(rng.uniform(800, 3000))
    light = Light(main, fill, (col * (1 - ratio * 0.5)).astype(np.float32),
                  (sky * ratio * 0.6 + col * ratio * 0.4).astype(np.float32), spread, distance)
    return light, {"kelvin": kelvin, "elevation_deg": float(np.rad2deg(elev)), "distance_mm": distance,
                   "azimuth_deg": float(np.rad2deg(azim)), "softness_rad": spread,
                   "fill_ratio": float(ratio), "white_balance": float(wb)}


def sample_cards(rng: np.random.Generator, pyrs: list[Pyramid]) -> list[dict]:
    """0-3 rule cards flat on the table around (never under) the city.
    Each: {"centre_mm": [x, y], "angle_deg": a, "corners_mm": 4x[x, y]}."""
    n = 0 if rng.random() < 0.5 else int(rng.integers(1, 4))
    radius = max(float(np.abs(p.corners()[:, :2]).max()) for p in pyrs) * np.sqrt(2)
    half_diag = float(np.hypot(*CARD_MM)) / 2
    cards: list[dict] = []
    for _ in range(20 * n):
        if len(cards) == n:
            break
        phi = rng.uniform(0, 2 * np.pi)
        centre = (radius + half_diag + rng.uniform(3, 60)) * np.array([np.cos(phi), np.sin(phi)])
        ang = rng.uniform(-np.pi, np.pi)
        c, s = np.cos(ang), np.sin(ang)
        loc = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * np.array(CARD_MM) / 2
        corners = loc @ np.array([[c, s], [-s, c]]) + centre
        if not any(_squares_overlap(corners, np.array(k["corners_mm"])) for k in cards):
            cards.append({"centre_mm": centre.tolist(), "angle_deg": float(np.rad2deg(ang)),
                          "corners_mm": corners.tolist()})
    return cards


def table_for(rng: np.random.Generator, kind: str, cam: Camera,
              cards: list[dict] = ()) -> tuple[np.ndarray, np.ndarray]:
    """Texture (h, w, 3) covering the camera's view of the table (with ``cards`` painted
    on it), and its 3x3 texture-px -> table-mm affine map (random rotation of the pattern)."""
    Hinv = np.linalg.inv(cam.homography())
    corners = np.array([[0, 0, 1], [cam.width, 0, 1], [cam.width, cam.height, 1], [0, cam.height, 1.0]])
    mm = corners @ Hinv.T
    mm = mm[:, :2] / mm[:, 2:3]
    ang = rng.uniform(0, np.pi)
    c, s = np.cos(ang), np.sin(ang)
    R = np.array([[c, -s], [s, c]])
    loc = mm @ R  # table -> texture-aligned frame (R^T applied to rows)
    lo, hi = loc.min(0) - 5, loc.max(0) + 5
    centre_px_mm = float(cam.depth(np.zeros((1, 3)))[0] / cam.K[0, 0])
    res = max(centre_px_mm * 1.2, float((hi - lo).max()) / 3500)
    shape = (int(np.ceil((hi[1] - lo[1]) / res)), int(np.ceil((hi[0] - lo[0]) / res)))
    tex = table_texture(kind, rng, shape, res)
    A = np.array([[res, 0, lo[0]], [0, res, lo[1]], [0, 0, 1.0]])
    Rh = np.eye(3)
    Rh[:2, :2] = R
    tex_to_mm = Rh @ A
    for card in cards:
        draw_card(tex, np.linalg.inv(tex_to_mm), np.array(card["centre_mm"]),
                  np.deg2rad(card["angle_deg"]), rng)
    return tex, tex_to_mm


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


def sample_scene(set_seed: int, index: int, scale: float = 1.0) -> Scene:
    """Sample scene ``index`` of set ``set_seed`` (cheap: no rendering).

    Args:
        scale: output linear size relative to the phone's (0.25 -> about 1000x750).
    """
    rng = np.random.default_rng(np.random.SeedSequence([set_seed, index]))
    city, legality = sample_city(rng)
    pitch = float(rng.uniform(27, 40))
    rot = float(rng.uniform(-40, 40))
    mats = {c: plastic(c, rng) for c in ("red", "yellow", "green", "blue", "black")}
    pyrs = layout(rng, city, pitch, rot, mats)
    exif = int(rng.choice([6, 8])) if rng.random() < 0.1 else 0
    portrait = bool(exif) or rng.random() < 0.2
    pts = np.vstack([np.vstack([p.corners(), p.apex()[None]]) for p in pyrs])
    cam, cam_prm = sample_camera(rng, pts, portrait, scale)
    light, light_prm = sample_light(rng)
    kind = str(TABLE_KINDS[rng.integers(len(TABLE_KINDS))])
    gloss = float(rng.uniform(0, {"wood": 0.06, "white": 0.05, "dark": 0.06, "cloth": 0.0}[kind]))
    rough = float(rng.uniform(0.02, 0.15))
    cards = sample_cards(rng, pyrs)
    prm = sensor.sample_params(rng)
    tex_seed, noise_seed = (int(v) for v in rng.integers(0, 2 ** 62, 2))
    gt = ground_truth(city, pyrs, cam)
    gt["grid"] = {"pitch_mm": pitch, "rotation_deg": rot}
    for card in cards:
        card["corners_xy"] = cam.project(np.column_stack([card["corners_mm"], np.zeros(4)])).tolist()
    gt["cards"] = cards
    gt["legal"] = legality["legal"]
    gt["illegal"] = ({"reason": legality["illegal_reason"], "cells": legality["illegal_cells"]}
                     if not legality["legal"] else None)
    gt["scene"] = {"seed": [int(set_seed), int(index)], "scale": scale, "table": kind,
                   "table_gloss": [gloss, rough],
                   "light": light_prm, **cam_prm, "exif_orientation": exif,
                   "jpeg_quality": prm["jpeg_quality"], "sensor": prm,
                   "stacks": sum(p["level"] for p in city["pieces"])}
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
    lin = render(cam_int, tex, tex_to_mm, sc.pyrs, paint_order(sc.gt["city"], sc.pyrs, cam_int), sc.light,
                 *sc.gt["scene"]["table_gloss"])
    del tex
    rgb = sensor.develop(lin, (cam.width, cam.height), sc.sensor, np.random.default_rng(sc.noise_seed))
    jpeg = sensor.encode_jpeg(rgb, sc.sensor["jpeg_quality"], sc.gt["scene"]["exif_orientation"] or None)
    log.debug("scene %s rendered in %.1f s", sc.gt["scene"]["seed"], time.perf_counter() - t0)
    return jpeg


def make_scene(set_seed: int, index: int, scale: float = 1.0) -> tuple[bytes, dict]:
    """Sample and render one scene: (JPEG bytes, ground truth). All pixel coordinates in
    the ground truth are (x, y) in the upright (EXIF-applied) image."""
    sc = sample_scene(set_seed, index, scale)
    return render_scene(sc), sc.gt


def ground_truth(city: dict, pyrs: list[Pyramid], cam: Camera) -> dict:
    """City plus per-piece pixel geometry and the camera, in upright pixel coordinates."""
    pieces = []
    for p, pyr in zip(city["pieces"], pyrs):
        q = dict(p)
        q["base_center_xy"] = cam.project(pyr.base[None])[0].tolist()
        q["apex_xy"] = cam.project(pyr.apex()[None])[0].tolist()
        q["base_corners_xy"] = cam.project(pyr.corners()).tolist()
        q["base_center_mm"] = pyr.base.tolist()
        q["yaw_deg"] = float(np.rad2deg(pyr.yaw))
        pieces.append(q)
    return {"city": {**city, "pieces": [dict(p) for p in city["pieces"]]},
            "pieces": pieces, "image": {"width": cam.width, "height": cam.height},
            "camera": cam.as_dict()}

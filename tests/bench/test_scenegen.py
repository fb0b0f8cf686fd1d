"""Fast checks of the synthetic photo generator (bench/scenegen)."""
import io
from collections import Counter

import cv2
import numpy as np
import pytest
from PIL import Image, ImageOps

from bench.scenegen.camera import Camera
from bench.scenegen.city import sample_city
from bench.scenegen.materials import BASE_MM, HEIGHT_MM, plastic
from bench.scenegen.render import Pyramid
from bench.scenegen.scene import (UNRECORDED_SHARE, ZOOM_HFOV_DEG, ZOOM_SHARE, layout, make_scene,
                                   sample_lens)
from bench.scenegen.sensor import encode_jpeg
from vision.load import field_of_view

STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))


def violations(city):
    """Independent rule checker: list of (reason, cells) for a city dict."""
    per = 2 if city["variant"] == "small-city" else 3
    out = []
    counts = Counter((p["color"], p["size"]) for p in city["pieces"])
    out += [("too-many", k) for k, n in counts.items() if n > per]
    cells = {}
    for p in city["pieces"]:
        cells.setdefault((p["row"], p["col"]), []).append(p)
    for cell, ps in cells.items():
        levels = sorted(p["level"] for p in ps)
        if levels not in ([0], [0, 1]):
            out.append(("levels", cell))
        if len(ps) == 2:
            lo = next(p for p in ps if p["level"] == 0)
            up = next(p for p in ps if p["level"] == 1)
            if up["size"] >= lo["size"]:
                out.append(("stack-order", cell))
        for dr, dc in STEPS[:2]:
            nb = (cell[0] + dr, cell[1] + dc)
            if {p["size"] for p in ps} & {p["size"] for p in cells.get(nb, [])}:
                out.append(("same-size", (cell, nb)))
    comps, seen = [], set()
    for start in cells:
        if start in seen:
            continue
        comp, todo = [], [start]
        while todo:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            comp.append(c)
            todo += [(c[0] + dr, c[1] + dc) for dr, dc in STEPS if (c[0] + dr, c[1] + dc) in cells]
        comps.append(sorted(comp))
    comps.sort(key=len)
    if len(comps) > 1:
        out.append(("disconnected", [c for comp in comps[:-1] for c in comp]))
    return out


def test_sampled_cities_follow_rules_and_supply():
    n_illegal = n_stacked = 0
    for seed in range(300):
        city, info = sample_city(np.random.default_rng(seed))
        pcs = city["pieces"]
        assert city["game"] == "zoning-out" and city["rules"] == []
        assert min(p["row"] for p in pcs) == 0 and min(p["col"] for p in pcs) == 0
        assert 2 <= len(pcs) <= (30 if city["variant"] == "small-city" else 45)
        bad = violations(city)
        assert all(r not in ("too-many", "levels", "stack-order") for r, _ in bad)
        if info["legal"]:
            assert bad == []
        else:
            n_illegal += 1
            assert len(bad) == 1 and bad[0][0] == info["illegal_reason"]
        n_stacked += any(p["level"] for p in pcs)
    assert 10 <= n_illegal <= 60 and 30 <= n_stacked <= 100


@pytest.mark.parametrize("kind", ["same-size", "disconnected"])
def test_forced_illegal_cities_are_illegal(kind):
    for seed in range(20):
        city, info = sample_city(np.random.default_rng(seed), illegal=kind)
        bad = violations(city)
        assert not info["legal"] and len(bad) == 1
        assert bad[0][0] == info["illegal_reason"]
        flat = bad[0][1] if kind == "disconnected" else list(bad[0][1])
        assert sorted(map(tuple, info["illegal_cells"])) == sorted(map(tuple, flat))


def test_stacks_nest_on_the_lower_pyramid():
    rng = np.random.default_rng(4)
    for lo, up in ((3, 1), (3, 2), (2, 1)):
        city = {"pieces": [{"row": 0, "col": 0, "color": "red", "size": lo, "level": 0},
                           {"row": 0, "col": 0, "color": "blue", "size": up, "level": 1}]}
        mats = {c: plastic(c, rng) for c in ("red", "blue")}
        low, top = layout(rng, city, 32.0, 10.0, mats)
        assert np.allclose(low.base[:2], top.base[:2])
        aligned = HEIGHT_MM[lo] * (1 - BASE_MM[up] / BASE_MM[lo])
        worst = HEIGHT_MM[lo] * (1 - BASE_MM[up] / BASE_MM[lo] / (np.cos(0.105) + np.sin(0.105)))
        assert aligned - 1e-9 <= top.base[2] <= worst
        # the lower pyramid's cross-section at the seat fits inside the upper base square
        # and touches its rim
        c, s = np.cos(top.yaw), np.sin(top.yaw)
        half_at_seat = low.half * (1 - top.base[2] / low.height)
        section = Pyramid(top.base, half_at_seat, 1.0, low.yaw, low.mat).corners()[:, :2]
        loc = (section - top.base[:2]) @ np.array([[c, -s], [s, c]])
        assert np.abs(loc).max() == pytest.approx(top.half, abs=1e-6)


def test_ground_truth_matches_camera_and_homography():
    jpeg, gt = make_scene(11, 3, scale=0.2)
    cam = gt["camera"]
    K, R, t = (np.array(cam[k]) for k in ("K", "R", "t"))
    H = np.array(cam["homography"])
    P = K @ np.column_stack([R, t])
    im = ImageOps.exif_transpose(Image.open(io.BytesIO(jpeg)))
    assert im.size == (gt["image"]["width"], gt["image"]["height"])
    for p in gt["pieces"]:
        X = np.array(p["base_center_mm"])
        ap = P @ np.append(X + [0, 0, HEIGHT_MM[p["size"]]], 1)
        assert np.allclose(ap[:2] / ap[2], p["apex_xy"], atol=1e-6)
        if p["level"] == 0:
            b = H @ np.array([X[0], X[1], 1.0])
            assert np.allclose(b[:2] / b[2], p["base_center_xy"], atol=1e-6)
        for xy in p["base_corners_xy"]:
            assert 0 <= xy[0] < im.size[0] and 0 <= xy[1] < im.size[1]
        centre = np.mean(p["base_corners_xy"], axis=0)
        assert np.linalg.norm(centre - p["base_center_xy"]) < 2.0  # perspective shift only


def test_same_seed_same_bytes_and_scale():
    a, ga = make_scene(2, 5, scale=0.15)
    b, gb = make_scene(2, 5, scale=0.15)
    c, _ = make_scene(2, 6, scale=0.15)
    assert a == b and a != c
    w, h = ga["image"]["width"], ga["image"]["height"]
    assert max(w, h) in (490, 600, 605) and abs(max(w, h) / min(w, h) - 4 / 3) < 0.01


def test_a_lens_given_shoots_the_same_scene_and_the_photo_records_it():
    """A zoomed lens (38 degrees across the long side, a phone's 2x) shoots the city the
    main lens would, from further away, and the JPEG records it as phones do."""
    main, main_gt = make_scene(11, 3, scale=0.2)
    zoomed, gt = make_scene(11, 3, scale=0.2, hfov_deg=38.0)
    assert gt["city"] == main_gt["city"] and gt["scene"]["table"] == main_gt["scene"]["table"]
    assert gt["scene"]["fixed_hfov_deg"] == 38.0 and "fixed_hfov_deg" not in main_gt["scene"]
    K, width, height = np.array(gt["camera"]["K"]), gt["image"]["width"], gt["image"]["height"]
    assert np.degrees(2 * np.arctan(0.5 * max(width, height) / K[0, 0])) == pytest.approx(38.0)
    assert gt["scene"]["distance_mm"] > main_gt["scene"]["distance_mm"]
    assert field_of_view(zoomed) == pytest.approx(38.0, abs=0.5)  # the focal length is whole mm
    assert field_of_view(main) == pytest.approx(main_gt["scene"]["hfov_deg"], abs=1.0)


def test_the_lens_drawn_is_mostly_the_main_one_and_mostly_recorded():
    """Of 1000 scenes, about ZOOM_SHARE are shot at a 2x zoom and about UNRECORDED_SHARE
    record no lens, each drawn apart from the rest of the scene."""
    lenses = [sample_lens(11, i) for i in range(1000)]
    zooms = [zoom for zoom, _ in lenses if zoom is not None]
    assert abs(len(zooms) / 1000 - ZOOM_SHARE) < 0.04
    assert all(ZOOM_HFOV_DEG[0] <= zoom <= ZOOM_HFOV_DEG[1] for zoom in zooms)
    assert abs(sum(not recorded for _, recorded in lenses) / 1000 - UNRECORDED_SHARE) < 0.04


def test_a_scene_drawn_at_zoom_is_its_main_scene_shot_through_that_lens():
    zoom, recorded = sample_lens(11, 12)
    assert zoom is not None and recorded
    drawn, gt = make_scene(11, 12, scale=0.1)
    asked, _ = make_scene(11, 12, scale=0.1, hfov_deg=zoom)
    assert drawn == asked and gt["scene"]["zoomed"]
    assert field_of_view(drawn) == pytest.approx(zoom, abs=0.5)


def test_a_photo_drawn_to_record_no_lens_has_no_focal_length_in_its_exif():
    assert sample_lens(11, 1) == (None, False)
    jpeg, gt = make_scene(11, 1, scale=0.1)
    assert field_of_view(jpeg) is None and gt["scene"]["recorded_focal_35mm"] is None
    assert not gt["scene"]["zoomed"]


@pytest.mark.parametrize("orientation", [6, 8])
def test_exif_orientation_restores_upright(orientation):
    rgb = np.zeros((40, 30, 3), np.uint8)
    rgb[:10, :5] = 255  # bright top-left corner when upright
    data = encode_jpeg(rgb, 95, orientation)
    raw = Image.open(io.BytesIO(data))
    assert raw.size == (40, 30) and raw.getexif()[0x0112] == orientation
    up = np.asarray(ImageOps.exif_transpose(raw))
    assert up.shape == rgb.shape and up[:10, :5].mean() > 200 and up[20:, 15:].mean() < 30


def test_camera_homography_is_plane_projection():
    rng = np.random.default_rng(0)
    from bench.scenegen.camera import look_from, intrinsics
    R, t = look_from(np.array([20.0, -200, 400]), np.zeros(3), 3.0)
    cam = Camera(intrinsics(400, 300, 70, np.zeros(2)), R, t, 400, 300)
    X = np.column_stack([rng.uniform(-50, 50, (10, 2)), np.zeros(10)])
    h = np.column_stack([X[:, :2], np.ones(10)]) @ cam.homography().T
    assert np.allclose(h[:, :2] / h[:, 2:], cam.project(X))
    assert np.allclose(cam.scaled(2.0).project(X), (cam.project(X) + 0.5) * 2 - 0.5)


def test_exif_scene_decodes_upright_and_cards_stay_off_the_city():
    from bench.scenegen.scene import sample_scene
    found = next(i for i in range(200) if sample_scene(21, i, 0.1).gt["scene"]["exif_orientation"])
    jpeg, gt = make_scene(21, found, scale=0.1)
    raw = Image.open(io.BytesIO(jpeg))
    up = ImageOps.exif_transpose(raw)
    assert raw.size == up.size[::-1]
    assert up.size == (gt["image"]["width"], gt["image"]["height"]) and up.size[1] > up.size[0]
    n_cards = 0
    for i in range(40):
        g = sample_scene(21, i, 0.1).gt
        for card in g["cards"]:
            n_cards += 1
            quad = np.array(card["corners_mm"])
            for p in g["pieces"]:
                x, y = p["base_center_mm"][:2]
                # signed distance (negative = outside) from the base centre to the card
                dist = cv2.pointPolygonTest(quad.astype(np.float32), (float(x), float(y)), True)
                assert dist < -BASE_MM[p["size"]] / np.sqrt(2)
    assert n_cards > 5


def test_make_set_writes_index_and_reuses_cached_scenes(tmp_path, capsys):
    import json

    from bench.scenegen.make_set import main
    assert main(["--seed", "5", "--count", "2", "--out", str(tmp_path), "--scale", "0.08"]) == 0
    first = (tmp_path / "scene_0001.jpg").read_bytes()
    index = json.loads((tmp_path / "index.json").read_text())
    assert [s["name"] for s in index["scenes"]] == ["scene_0000", "scene_0001"]
    assert main(["--seed", "5", "--only", "1", "--out", str(tmp_path), "--scale", "0.08"]) == 0
    assert "1/1 scenes cached, rendering 0" in capsys.readouterr().out
    assert (tmp_path / "scene_0001.jpg").read_bytes() == first


def test_occlusion_of_stacked_pieces():
    from bench.scenegen.scene import sample_scene
    gt = next(g for g in (sample_scene(8, i, 0.1).gt for i in range(100)) if g["scene"]["stacks"])
    cells = {}
    for p in gt["pieces"]:
        assert 0.0 <= p["occluded_fraction"] <= 1.0
        cells.setdefault((p["row"], p["col"]), []).append(p)
    for ps in cells.values():
        if len(ps) == 2:
            lower = next(p for p in ps if p["level"] == 0)
            upper = next(p for p in ps if p["level"] == 1)
            assert lower["occluded_fraction"] > 0.2 and upper["occluded_fraction"] < lower["occluded_fraction"]


def test_each_city_holds_the_special_rules_its_player_chose():
    """As many as its variant plays with; Mixed-Use Development among them wherever the city
    holds a stack (the only rule that allows one); Canadian Style in about one game in six,
    its larges then free to touch (elsewhere they never do); the rest at random."""
    from bench.scenegen.scene import RULES_IN_PLAY, sample_scene
    from scorer import CANADIAN_STYLE, MIXED_USE, RULES
    cities = [sample_scene(8, i, 0.1).gt for i in range(90)]
    touching = []
    for gt in cities:
        rules = gt["city"]["rules"]
        assert len(set(rules)) == len(rules) == RULES_IN_PLAY[gt["city"]["variant"]] and set(rules) <= set(RULES)
        assert (MIXED_USE in rules) >= bool(gt["scene"]["stacks"])
        larges = {(p["row"], p["col"]) for p in gt["city"]["pieces"] if p["size"] == 3 and p["level"] == 0}
        pairs = sum((r, c + 1) in larges or (r + 1, c) in larges for r, c in larges)
        if CANADIAN_STYLE in rules:
            touching.append(pairs)
        elif not gt["illegal"]:
            assert pairs == 0
    assert 5 <= len(touching) <= 30 and sum(touching) > 0
    assert any(gt["scene"]["stacks"] for gt in cities) and any(MIXED_USE not in gt["city"]["rules"] for gt in cities)
    assert len({tuple(gt["city"]["rules"]) for gt in cities}) > 40  # drawn, not fixed


def test_larges_touch_only_where_the_city_is_grown_so():
    rng = np.random.default_rng(3)
    for larges_touch in (False, True):
        pairs = 0
        for _ in range(20):
            city, info = sample_city(rng, n_pieces=40, small_city=False, illegal=None, larges_touch=larges_touch)
            larges = {(p["row"], p["col"]) for p in city["pieces"] if p["size"] == 3 and p["level"] == 0}
            pairs += sum((r, c + 1) in larges or (r + 1, c) in larges for r, c in larges)
            assert info["legal"]
        assert (pairs > 0) == larges_touch

"""The whole pipeline on the committed sample photos (rendered, with ground truth)."""
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import vision
from calibration import load_profile
from vision.cast_shadows import cast_shadows
from vision.second_readings import broken_rules

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"
PROFILE = load_profile()
# Sample photos read exactly today; the vision issue tracks the rest (see bench/vision.py).
EXACT = ["scene_0002.jpg", "scene_0029.jpg", "scene_0039.jpg", "scene_0057.jpg", "scene_0069.jpg",
         "scene_0099.jpg", "scene_0140.jpg", "scene_0179.jpg", "zoom/scene_0213.jpg", "zoom/scene_0220.jpg"]


def read(name):
    return vision.read_photo((SAMPLES / name).read_bytes(), PROFILE)


def truth(name):
    return json.loads((SAMPLES / name).with_suffix(".json").read_text())


def key(pieces):
    return sorted((p["row"], p["col"], p.get("level", 0), p["color"], p["size"]) for p in pieces)


@pytest.mark.parametrize("name", EXACT)
def test_sample_read_exactly(name):
    detected = read(name)[1].to_json()
    assert key(detected["pieces"]) == key(truth(name)["city"]["pieces"])


def test_a_photo_showing_the_floor_beyond_the_table_s_edge_is_read_as_without_it():
    """Shot near the table's edge, the photo shows a dark floor across its top, parted from
    the table by a straight edge (painted as the robustness benchmark paints it); the city is
    read as it is without it. Taken for table, the floor drew the table estimate round it,
    and the step along its edge stood out as pieces: the city was read with 58 errors."""
    from bench.perturbed import changed

    name = "scene_0069.jpg"
    centres = np.array([p["base_center_xy"] for p in truth(name)["pieces"]])
    data = changed((SAMPLES / name).read_bytes(), "floor top", 69, centres)
    assert np.median(vision.load_photo(data, 1000)[:60]) < 60  # the dark floor, clear of the city
    assert key(vision.read_photo(data, PROFILE)[1].to_json()["pieces"]) == key(truth(name)["city"]["pieces"])


@pytest.mark.parametrize("name", ["scene_0002.jpg", "scene_0039.jpg", "scene_0057.jpg"])
def test_a_mug_beside_the_city_is_no_piece(name):
    """A mug beside the city (painted as the robustness benchmark paints it) is left out: it
    set the size pieces were looked for at (scene 39: every piece missed), or was read as
    pieces (scene 2: 6 phantoms; scene 57, where the mug, 2.6 pieces across, is under twice
    as wide as two pieces joined beside it: 4 phantoms, until told by its round outline)."""
    from bench.perturbed import changed

    centres = np.array([p["base_center_xy"] for p in truth(name)["pieces"]])
    data = changed((SAMPLES / name).read_bytes(), "mug beside the city", int(name[6:10]), centres)
    assert key(vision.read_photo(data, PROFILE)[1].to_json()["pieces"]) == key(truth(name)["city"]["pieces"])


@pytest.mark.parametrize("rules", [("little-boxes", "mixed-use-development", "piazzas"), None],
                         ids=["mixed-use-in-play", "rules-not-known"])
def test_stacks_hinted_at_by_faces_are_read_where_the_rules_allow_stacks(rules):
    """Scene 29's two stacks show no second colour in their cells: a blue small on a blue
    large, and a black small on a yellow large, dark enough to read black over it. Only the
    lower pieces' faces, differing across the seat, tell them."""
    data = (SAMPLES / "scene_0029.jpg").read_bytes()
    detected = vision.read_photo(data, PROFILE, rules)[1].to_json()
    assert key(detected["pieces"]) == key(truth("scene_0029.jpg")["city"]["pieces"])


def test_no_stack_is_read_from_hints_where_the_rules_allow_none():
    """Without Mixed-Use Development in play the player has stacked no piece, and the hints
    that told scene 29's two stacks (above) are taken for one piece's shading: one piece is
    read on each of those cells (on the blue stack its large lower piece, on the other the
    black seen), the rest of the city as before."""
    data = (SAMPLES / "scene_0029.jpg").read_bytes()
    detected = vision.read_photo(data, PROFILE, ("little-boxes", "linear-park", "piazzas"))[1].to_json()["pieces"]
    stacked = {(0, 3), (2, 5)}
    assert sorted((p["row"], p["col"]) for p in detected if (p["row"], p["col"]) in stacked) == sorted(stacked)
    assert [(p["color"], p["size"], p["level"]) for p in detected if (p["row"], p["col"]) == (0, 3)] == [("blue", 3, 0)]
    elsewhere = [p for p in truth("scene_0029.jpg")["city"]["pieces"] if (p["row"], p["col"]) not in stacked]
    assert key(p for p in detected if (p["row"], p["col"]) not in stacked) == key(elsewhere)


def test_touching_larges_are_read_where_the_rules_in_play_let_them_touch():
    """Under Canadian Style large pieces may touch. A city with two such pairs (rendered
    here by the benchmark's generator, on wood) is read exactly with that rule told; told
    other rules, under which two larges may not touch, the size reading yields to that rule
    and reads one of them a size down."""
    from bench.scenegen.scene import make_scene

    placed = [(0, 0, "red", 3), (0, 1, "blue", 3), (0, 2, "green", 1), (0, 3, "black", 2), (1, 0, "yellow", 1),
              (1, 1, "green", 3), (1, 2, "red", 2), (1, 3, "yellow", 3), (2, 0, "blue", 2), (2, 1, "red", 1),
              (2, 2, "black", 3)]
    city = {"game": "zoning-out", "variant": "standard", "rules": ["canadian-style", "little-boxes", "piazzas"],
            "pieces": [{"row": r, "col": c, "color": k, "size": s, "level": 0} for r, c, k, s in placed]}
    jpeg, _ = make_scene(5, 1, 0.5, city=city)
    told = vision.read_photo(jpeg, PROFILE, city["rules"])[1].to_json()["pieces"]
    assert key(told) == key(city["pieces"])
    other = vision.read_photo(jpeg, PROFILE, ("little-boxes", "piazzas", "clusters"))[1].to_json()["pieces"]
    assert sum(p["size"] < q["size"] for p, q in zip(sorted(other, key=lambda p: (p["row"], p["col"])),
                                                     sorted(city["pieces"], key=lambda p: (p["row"], p["col"])))) == 1


def test_a_reading_that_breaks_the_rules_is_mended_by_one_at_another_size():
    """At the working size three pieces of this photo are misread and the city breaks a
    rule; so it does at 0.8 times that size, while at 1.3 times it keeps them, and is right
    (the shadows of its low lamp kept: see the next test)."""
    data = (SAMPLES / "scene_0099.jpg").read_bytes()
    first = vision.analyze(vision.load_photo(data, PROFILE.working_side), PROFILE)
    assert broken_rules(first, ()) > 0
    assert key(first.to_json()["pieces"]) != key(truth("scene_0099.jpg")["city"]["pieces"])
    with_shadows = dataclasses.replace(PROFILE, cast_shadow_rounds=0)
    rgb, detection = vision.read_photo(data, with_shadows)
    assert max(rgb.shape) == round(1.3 * PROFILE.working_side)
    assert key(detection.to_json()["pieces"]) == key(truth("scene_0099.jpg")["city"]["pieces"])


def test_the_shadows_of_a_low_lamp_left_out_the_working_size_reads_the_city_right():
    """This photo's lamp is 37 degrees above the table; its shadows, labelled with the
    pieces, make three of them read a size too large at the working size. Fitted to the
    darkness beside the pieces, the lamp places the shadows, and without them the working
    size reads the city right."""
    data = (SAMPLES / "scene_0099.jpg").read_bytes()
    rgb = vision.load_photo(data, PROFILE.working_side)
    first = vision.analyze(rgb, PROFILE)
    log_ratio, _, _, plain, _ = vision._table_view(rgb, PROFILE)
    shadows = cast_shadows(first, log_ratio, PROFILE)
    assert plain and shadows is not None
    again = vision.analyze(rgb, PROFILE, shadows)
    assert key(again.to_json()["pieces"]) == key(truth("scene_0099.jpg")["city"]["pieces"])
    assert max(read("scene_0099.jpg")[0].shape) == PROFILE.working_side


def test_a_zoomed_photo_is_read_with_the_lens_it_records(monkeypatch):
    """Shot at a phone's 2x zoom (38 degrees across, recorded in the photo's EXIF), the
    city is read exactly with the camera modelled by that lens; with the main lens's 70
    degrees assumed instead, where pieces lean and how large they look are off, and it is
    read with three errors. (Its lamp, 43 degrees above the table, casts shadows that are
    kept here: left out, the sizes no longer hang on them, and either lens reads it right.)"""
    name = "zoom/scene_0220.jpg"
    data = (SAMPLES / name).read_bytes()
    with_shadows = dataclasses.replace(PROFILE, cast_shadow_rounds=0)
    assert key(vision.read_photo(data, with_shadows)[1].to_json()["pieces"]) == key(truth(name)["city"]["pieces"])
    monkeypatch.setattr(vision, "field_of_view", lambda data: None)
    assert key(vision.read_photo(data, with_shadows)[1].to_json()["pieces"]) != key(truth(name)["city"]["pieces"])
    assert key(read(name)[1].to_json()["pieces"]) == key(truth(name)["city"]["pieces"])


@pytest.mark.parametrize("name", sorted(str(p.relative_to(SAMPLES)) for p in SAMPLES.rglob("*.jpg")))
def test_every_sample_gives_a_contract_result_or_a_reason(name):
    try:
        rgb, detection = read(name)
    except vision.VisionError as exc:
        assert str(exc)
        return
    out = detection.to_json(["canadian-style"])
    assert set(out) >= {"game", "variant", "rules", "pieces", "illegal", "warnings", "doubtful_empty"}
    assert not {(r, c) for r, c in out["doubtful_empty"]} & {(p["row"], p["col"]) for p in out["pieces"]}
    w, h = out["image"]["width"], out["image"]["height"]
    for p in out["pieces"]:
        assert 0 <= p["confidence"] <= 1 and p["size"] in (1, 2, 3)
        assert 0 <= p["x"] < w and 0 <= p["y"] < h
    assert min(p["row"] for p in out["pieces"]) == 0 and min(p["col"] for p in out["pieces"]) == 0
    overlay = vision.draw_overlay(rgb, detection)
    assert overlay.shape == (h, w, 3) == rgb.shape
    beside = (-1, -1)  # a cell off the city's corner, marked as one to check
    doubted = vision.draw_overlay(rgb, dataclasses.replace(detection, doubtful_empty=[beside]))
    x, y, z = detection.homography @ (beside[1], beside[0], 1.0)
    x, y = int(x / z), int(y / z)
    near = (slice(max(y - 20, 0), y + 20), slice(max(x - 20, 0), x + 20))
    assert not 0 <= x < w or not 0 <= y < h or (doubted[near] != overlay[near]).any()


def test_a_patterned_table_is_warned_of_a_plain_one_not():
    """On a printed cloth, pieces of the print's own colours can pass for it: the player is
    told to check the empty cells beside the city. A wood table, and a cloth whose fine print
    blurs into one colour (read as a plain table), are not warned of."""
    assert vision.PATTERNED_TABLE_WARNING in read("scene_0191.jpg")[1].warnings
    assert vision.PATTERNED_TABLE_WARNING not in read("scene_0002.jpg")[1].warnings
    assert vision.PATTERNED_TABLE_WARNING not in read("scene_0179.jpg")[1].warnings


def test_a_photo_of_an_empty_table_says_so():
    rng = np.random.default_rng(5)
    table = np.clip(np.array([170, 140, 110]) + rng.normal(0, 6, (600, 800, 3)), 0, 255).astype(np.uint8)
    with pytest.raises(vision.BoardNotFound, match="no pieces"):
        vision.analyze(table, PROFILE)


def test_a_city_cut_off_by_the_photo_s_edge_is_warned_of():
    """A photo framed too tightly cuts the city: the pieces at its edge are warned of, so
    that the player photographs it whole. Framed as rendered, nothing is."""
    import cv2

    rgb, whole = read("scene_0002.jpg")
    assert not [w for w in whole.warnings if "photo's edge" in w]
    rightmost = max(p.center[0] for p in whole.pieces)
    cut = np.ascontiguousarray(rgb[:, :int(rightmost)])  # through the rightmost pieces' middles
    data = cv2.imencode(".png", cv2.cvtColor(cut, cv2.COLOR_RGB2BGR))[1].tobytes()
    warned = [w for w in vision.read_photo(data, PROFILE)[1].warnings if "photo's edge" in w]
    assert warned and "photograph the whole city" in warned[0]


def test_a_piece_placed_far_apart_from_the_city_is_read_on_its_cell():
    """Scene 2's red medium on (3, 3) copied five cells to its right, with the table round
    it, well past the edges looked at round the city: the copy, a piece not connected to
    the others, is read on its cell (it was lost where the edges round the city alone were
    taken, its outline then lying on none)."""
    import cv2

    name = "scene_0002.jpg"
    found = truth(name)
    pieces = found["pieces"]
    # the table (mm) at each cell (col, row), by the pieces' own places; the photo's pixels by the homography
    to_mm = np.linalg.lstsq(np.array([[p["col"], p["row"], 1.0] for p in pieces]),
                            np.array([p["base_center_mm"][:2] for p in pieces]), rcond=None)[0]
    homography = np.array(found["camera"]["homography"])

    def pixel(col, row):
        x, y, w = homography @ np.append(np.array([col, row, 1.0]) @ to_mm, 1.0)
        return np.array([x / w, y / w])

    red = next(p for p in pieces if (p["row"], p["col"]) == (3, 3))
    half = int(0.55 * np.linalg.norm(pixel(4, 3) - pixel(3, 3)))
    (sx, sy), (dx, dy) = (np.round(pixel(col, 3)).astype(int) for col in (3, 8))
    bgr = cv2.imread(str(SAMPLES / name))
    bgr[dy - half:dy + half, dx - half:dx + half] = bgr[sy - half:sy + half, sx - half:sx + half]
    data = cv2.imencode(".png", bgr)[1].tobytes()
    copy = dict(red, col=8)
    assert key(vision.read_photo(data, PROFILE)[1].to_json()["pieces"]) == key(found["city"]["pieces"] + [copy])


def test_another_maker_s_more_deeply_dyed_pieces_are_read_by_the_depth_of_their_tint():
    """Pieces of other plastics (``make_scene(..., plastics="vivid")``: a blue dyed about twice
    as deeply) on a white table, rendered small: the default profile reads the city exactly,
    letting a tint be deeper than its mean; without that (``tint_depth_spread`` 0) two blue
    smalls read yellow."""
    import cv2

    from bench.compare import compare
    from bench.scenegen.scene import make_scene

    cv2.setNumThreads(1)
    photo, scene = make_scene(5, 6, scale=0.3, plastics="vivid")
    city = scene["city"]
    shallow = dataclasses.replace(PROFILE, piece_colors=dataclasses.replace(PROFILE.piece_colors, tint_depth_spread=0.0))

    def errors(profile):
        return compare(city["pieces"], vision.read_photo(photo, profile, city["rules"], city["variant"])[1].to_json()["pieces"])
    assert errors(PROFILE) == {}
    assert errors(shallow) == {"wrong_color": 2}

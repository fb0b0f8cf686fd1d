"""``citycam calibrate`` on rendered photos of the calibration layout (seeded, small)."""
import json
import re

import cv2
import numpy as np
import pytest

import vision
from bench.scenegen.scene import make_scene
from calibration import load_profile
from calibration.calibrate import LAYOUT_ROWS, calibrate_from_photo, layout_city
from vision.load import load_photo

LAYOUT = layout_city()


def _all_read_right(report: str) -> bool:
    """Whether the report reads every candidate on the layout's pieces as its piece's colour."""
    read, candidates = re.search(r"colours: (\d+)/(\d+) candidates read whole as their colour", report).groups()
    return read == candidates and int(candidates) >= 15


def layout_photo(index: int) -> tuple[np.ndarray, dict]:
    """The layout rendered as scene ``index`` of seed 5 (small), read at the working size, and its truth."""
    cv2.setNumThreads(1)
    jpeg, truth = make_scene(5, index, scale=0.3, city=LAYOUT)
    return load_photo(jpeg, load_profile().working_side), truth


def test_the_layout_is_a_legal_city_with_one_of_each_kind():
    _, truth = layout_photo(0)
    assert truth["legal"]
    assert sorted((p["color"], p["size"]) for p in LAYOUT["pieces"]) == sorted(
        (c, s) for c in LAYOUT_ROWS for s in (1, 2, 3))


@pytest.mark.parametrize("index, table", [(0, "white"), (5, "dark")])
def test_a_profile_made_from_the_layout_reads_the_layout(tmp_path, index, table):
    rgb, truth = layout_photo(index)
    assert truth["scene"]["table"] == table
    path, report = calibrate_from_photo(rgb, load_profile(), str(tmp_path / "mine.json"))
    assert _all_read_right(report) and "sizes: 15/15 read as laid out" in report
    profile = load_profile(str(path))
    assert profile.name == "mine" and profile.piece_colors != load_profile().piece_colors
    assert profile.colors == load_profile().colors  # one photo's colour prototypes read other photos worse
    read = vision.analyze(rgb, profile).city
    assert sorted((p.row, p.col, p.color, p.size) for p in read.pieces) == sorted(
        (p["row"], p["col"], p["color"], p["size"]) for p in LAYOUT["pieces"])
    json.loads(path.read_text())  # a profile file a person can read


def test_a_piece_read_beside_the_block_is_left_out(tmp_path):
    """A stray piece two cells right of the block (or anything read as a piece there) does
    not stop the calibration: the block is found among the pieces read and the rest left out."""
    cv2.setNumThreads(1)
    city = dict(LAYOUT, pieces=LAYOUT["pieces"] + [{"row": 1, "col": 5, "color": "red", "size": 2, "level": 0}])
    jpeg, _ = make_scene(5, 0, scale=0.3, city=city)
    rgb = load_photo(jpeg, load_profile().working_side)
    assert len(vision.analyze(rgb, load_profile()).pieces) == 16
    path, report = calibrate_from_photo(rgb, load_profile(), str(tmp_path / "mine.json"))
    assert _all_read_right(report) and "sizes: 15/15 read as laid out" in report
    assert "1 piece(s) outside the block left out" in report
    assert load_profile(str(path)).piece_colors != load_profile().piece_colors


def test_a_profile_calibrated_to_another_maker_s_pieces_reads_their_colours(tmp_path):
    """Pieces of other plastics (``make_scene(..., plastics="vivid")``) on a white table: the
    default profile misreads two colours of this city, the profile calibrated on a photo of
    those pieces' layout (another photo: its own light and camera) reads it exactly."""
    from bench.calibrate import layout_scene
    from bench.compare import compare

    cv2.setNumThreads(1)
    layout, _ = make_scene(5, layout_scene(5, "white"), scale=0.3, city=LAYOUT, plastics="vivid")
    path, report = calibrate_from_photo(load_photo(layout, load_profile().working_side), load_profile(),
                                        str(tmp_path / "vivid.json"))
    assert _all_read_right(report)
    photo, truth = make_scene(5, 19, scale=0.3, plastics="vivid")
    assert truth["scene"]["table"] == "white"
    city = truth["city"]

    def errors(profile):
        found = vision.read_photo(photo, profile, city["rules"], city["variant"])[1].to_json()["pieces"]
        return compare(city["pieces"], found)
    assert errors(load_profile()) == {"wrong_color": 2}
    assert errors(load_profile(str(path))) == {}

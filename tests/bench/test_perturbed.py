"""The changes the robustness benchmark paints over rendered photos, and one photo read so."""
from pathlib import Path

import cv2
import numpy as np
import pytest

from bench.perturbed import CHANGES, SMALLER, _errors, changed
from calibration import load_profile

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"


SQUARE = np.array([[160.0, 120.0]])  # the red square's centre (x, y)


def _photo(h=240, w=320):
    """A plain mid-grey table with a red square (a piece at ``SQUARE``), as JPEG bytes."""
    rgb = np.full((h, w, 3), 150, np.uint8)
    rgb[100:140, 140:180] = (200, 40, 40)
    return cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))[1].tobytes()


def _decoded(data):
    return cv2.cvtColor(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB).astype(float)


@pytest.mark.parametrize("change", CHANGES)
def test_every_change_gives_a_photo_of_the_same_view_and_is_seeded(change):
    data = _photo()
    out = _decoded(changed(data, change, 7, SQUARE))
    assert out.shape == ((120, 160, 3) if change == SMALLER else (240, 320, 3))
    assert changed(data, change, 7, SQUARE) == changed(data, change, 7, SQUARE)
    assert "," not in change  # the command line takes them comma-separated


def test_a_floor_is_painted_beyond_the_table_s_edge_and_the_table_is_left_as_it_was():
    before, after = _decoded(_photo()), _decoded(changed(_photo(), "floor top", 3, SQUARE))
    assert after[:20].mean() < 60  # the dark floor
    assert np.abs(after[60:] - before[60:]).mean() < 2  # the table and the piece, but for the JPEG


def test_round_the_table_s_corner_the_floor_lies_beyond_two_edges():
    before, after = _decoded(_photo()), _decoded(changed(_photo(), "floor corner", 3, SQUARE))
    floor = np.abs(after - before).max(axis=2) > 20
    assert floor[:20].mean() > 0.9 and floor[:, :40].mean() > 0.9  # across the top and down the left
    assert not floor[40:, 70:].any()  # the rest of the table and the piece


def test_the_table_s_edge_keeps_a_pitch_clear_of_the_city():
    """A piece 20 pixels from the top, another 40 pixels below it: the floor across the top
    (nominally 29 pixels deep) is moved up, its edge a pitch (40) clear of the piece's centre,
    and so is a floor beyond the corner's top edge; the left one stays as it was."""
    rgb = np.full((240, 320, 3), 150, np.uint8)
    rgb[10:30, 150:170] = rgb[50:70, 150:170] = (200, 40, 40)
    data = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))[1].tobytes()
    before = _decoded(changed(data, "as rendered", 3))  # encoded alike
    for change in ("floor top", "floor corner"):
        after = _decoded(changed(data, change, 3, [[160, 20], [160, 60]]))
        assert np.abs(after[5:35, 145:175] - before[5:35, 145:175]).mean() < 2  # the piece as it was
    floor = np.abs(after - before).max(axis=2) > 20
    assert floor[100:, :40].mean() > 0.9 and not floor[:, 60:].any()  # the left edge only


def test_a_mug_is_painted_beside_the_city_and_not_over_it():
    """Two pieces 40 pixels apart (24 across) and a mug 112 across, its rim a pitch clear."""
    rgb = np.full((480, 640, 3), 150, np.uint8)
    rgb[228:252, 288:312] = rgb[228:252, 328:352] = (200, 40, 40)
    data = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))[1].tobytes()
    before, after = _decoded(data), _decoded(changed(data, "mug beside the city", 5, [[300, 240], [340, 240]]))
    # the pieces are left as they were, but for the edge of the mug's soft shadow
    assert np.abs(after[228:252, 288:352] - before[228:252, 288:352]).mean() < 4
    coffee = np.all(np.abs(after - (60, 35, 20)) < 25, axis=2)
    assert coffee.sum() > 0.8 * np.pi * (0.82 * 56) ** 2  # its coffee, 0.82 of its radius
    ys, xs = np.nonzero(coffee)
    assert np.hypot(xs.mean() - 320, ys.mean() - 240) > 100


def test_a_change_beside_the_city_needs_the_city():
    with pytest.raises(ValueError, match="centres"):
        changed(_photo(), "mug beside the city", 5)


def test_the_light_of_a_lamp_on_one_side_and_of_daylight_on_the_other_differ_in_colour():
    after = _decoded(changed(_photo(), "lamp and daylight", 0))
    left, right = after[:, :40].mean(axis=(0, 1)), after[:, -40:].mean(axis=(0, 1))
    assert left[0] > right[0] + 30 and right[2] > left[2] + 30


def test_a_sample_photo_as_rendered_is_read_exactly():
    assert _errors((SAMPLES / "scene_0069.jpg", "as rendered", load_profile())) == {}

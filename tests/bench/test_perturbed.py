"""The changes the robustness benchmark paints over rendered photos, and one photo read so."""
from pathlib import Path

import cv2
import numpy as np
import pytest

from bench.perturbed import CHANGES, SMALLER, _errors, changed
from calibration import load_profile

SAMPLES = Path(__file__).resolve().parents[2] / "sample_images"


def _photo(h=240, w=320):
    """A plain mid-grey table with a red square, as JPEG bytes."""
    rgb = np.full((h, w, 3), 150, np.uint8)
    rgb[100:140, 140:180] = (200, 40, 40)
    return cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))[1].tobytes()


def _decoded(data):
    return cv2.cvtColor(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB).astype(float)


@pytest.mark.parametrize("change", CHANGES)
def test_every_change_gives_a_photo_of_the_same_view_and_is_seeded(change):
    data = _photo()
    out = _decoded(changed(data, change, 7))
    assert out.shape == ((120, 160, 3) if change == SMALLER else (240, 320, 3))
    assert changed(data, change, 7) == changed(data, change, 7)
    assert "," not in change  # the command line takes them comma-separated


def test_a_floor_is_painted_beyond_the_table_s_edge_and_the_table_is_left_as_it_was():
    before, after = _decoded(_photo()), _decoded(changed(_photo(), "floor top", 3))
    assert after[:20].mean() < 60  # the dark floor
    assert np.abs(after[60:] - before[60:]).mean() < 2  # the table and the piece, but for the JPEG


def test_the_light_of_a_lamp_on_one_side_and_of_daylight_on_the_other_differ_in_colour():
    after = _decoded(changed(_photo(), "lamp and daylight", 0))
    left, right = after[:, :40].mean(axis=(0, 1)), after[:, -40:].mean(axis=(0, 1))
    assert left[0] > right[0] + 30 and right[2] > left[2] + 30


def test_a_sample_photo_as_rendered_is_read_exactly():
    assert _errors((SAMPLES / "scene_0069.jpg", "as rendered", load_profile())) == {}

import numpy as np
import pytest

from vision.camera import Camera
from vision.model import BASE_MM, outline, polygon_area_centroid, seat_height_mm


def overhead_camera(height=10.0, f=100.0):
    """Straight down from ``height`` pitches over grid (0, 0), image centre (500, 500)."""
    K = np.array([[f, 0, 500], [0, f, 500], [0, 0, 1]])
    R = np.diag([1.0, 1.0, -1.0])
    t = -R @ np.array([0, 0, height])
    return Camera(K @ np.hstack([R, t[:, None]]), np.array([0, 0, height]))


def test_overhead_pyramid_is_its_base_square():
    shape = outline(overhead_camera(), np.array([0.0, 0.0]), 3, pitch_mm=25.4)
    area, centre = polygon_area_centroid(shape)
    assert area == pytest.approx(100 ** 2 / 10 ** 2, rel=1e-6)  # one pitch at 10 pitches away, f 100
    assert centre == pytest.approx([500, 500])


def test_off_centre_pyramid_leans_outward():
    shape = outline(overhead_camera(), np.array([3.0, 0.0]), 2, pitch_mm=30)
    _, centre = polygon_area_centroid(shape)
    base_x = 500 + 100 * 3 / 10
    assert centre[0] > base_x  # the apex leans away from the camera's foot


def test_seat_height_of_a_small_on_a_large():
    assert seat_height_mm(3, 1) == pytest.approx(44.5 * (1 - BASE_MM[1] / BASE_MM[3]))

import cv2
import numpy as np
import pytest

from vision.camera import Camera, camera_from_homography, intrinsics
from vision.model import BASE_MM, outline, pyramid_points, seat_height_mm, silhouettes, size_outlines


def overhead_camera(height=10.0, f=100.0):
    """Straight down from ``height`` pitches over grid (0, 0), image centre (500, 500)."""
    K = np.array([[f, 0, 500], [0, f, 500], [0, 0, 1]])
    R = np.diag([1.0, 1.0, -1.0])
    t = -R @ np.array([0, 0, height])
    return Camera(K @ np.hstack([R, t[:, None]]), np.array([0, 0, height]))


def area_centroid(shape):
    moments = cv2.moments(shape.astype(np.float32))
    return moments["m00"], np.array([moments["m10"], moments["m01"]]) / moments["m00"]


def test_overhead_pyramid_is_its_base_square():
    shape = outline(overhead_camera(), np.array([0.0, 0.0]), 3, pitch_mm=25.4)
    area, centre = area_centroid(shape)
    assert area == pytest.approx(100 ** 2 / 10 ** 2, rel=1e-5)  # one pitch at 10 pitches away, f 100
    assert centre == pytest.approx([500, 500])


def test_off_centre_pyramid_leans_outward():
    shape = outline(overhead_camera(), np.array([3.0, 0.0]), 2, pitch_mm=30)
    _, centre = area_centroid(shape)
    base_x = 500 + 100 * 3 / 10
    assert centre[0] > base_x  # the apex leans away from the camera's foot


def test_silhouettes_measure_the_outlines_of_tilted_raised_pieces():
    rng = np.random.default_rng(3)
    K = intrinsics((1200, 900), 70.0)
    R = cv2.Rodrigues(np.array([0.45, -0.2, 0.7]))[0]
    H = K @ np.stack([R[:, 0], R[:, 1], [0.5, -1.0, 12.0]], axis=1)
    camera = camera_from_homography(H / H[2, 2], (1200, 900), 70.0)
    cells = rng.integers(-5, 6, (12, 2)).astype(np.float64)
    sizes, lifts = rng.integers(1, 4, 12), rng.uniform(0, 20, 12)
    areas, centroids = silhouettes(camera, cells, sizes, 33.0, lifts)
    for cell, size, lift, area, centroid in zip(cells, sizes, lifts, areas, centroids):
        expected_area, expected_centroid = area_centroid(outline(camera, cell, int(size), 33.0, lift))
        assert area == pytest.approx(expected_area, rel=1e-4)
        assert centroid == pytest.approx(expected_centroid, abs=1e-2)


def test_seat_height_of_a_small_on_a_large():
    assert seat_height_mm(3, 1) == pytest.approx(44.5 * (1 - BASE_MM[1] / BASE_MM[3]))


def test_pyramid_points_hull_is_the_outline_at_each_pitch():
    camera = overhead_camera()
    points = pyramid_points(camera, (2.0, -1.0), [24.0, 30.0])
    assert points.shape == (2, 3, 5, 2)
    for p, pitch in enumerate([24.0, 30.0]):
        for size in (1, 2, 3):
            shape = outline(camera, np.array([2.0, -1.0]), size, pitch)
            hull = cv2.convexHull(points[p, size - 1].astype(np.float32))[:, 0]
            assert cv2.contourArea(hull) == pytest.approx(cv2.contourArea(shape.astype(np.float32)), rel=1e-6)
    assert cv2.contourArea(points[0, 2, :4].astype(np.float32)) > cv2.contourArea(points[1, 2, :4].astype(np.float32))


def test_the_outlines_of_the_sizes_are_each_sizes_outline():
    K = intrinsics((1200, 900), 70.0)
    R = cv2.Rodrigues(np.array([0.3, 0.25, -0.4]))[0]
    H = K @ np.stack([R[:, 0], R[:, 1], [-1.0, 0.5, 14.0]], axis=1)
    camera = camera_from_homography(H / H[2, 2], (1200, 900), 70.0)
    shapes = size_outlines(camera, np.array([3.0, -2.0]), 31.0)
    assert len(shapes) == 3
    for size, shape in zip((1, 2, 3), shapes):
        assert np.allclose(shape, outline(camera, np.array([3.0, -2.0]), size, 31.0))

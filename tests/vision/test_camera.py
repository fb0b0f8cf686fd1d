import cv2
import numpy as np
import pytest

from vision.camera import (CameraPrior, anchor_misfit, apply_homography, camera_from_homography, fit_pose, intrinsics,
                           looking_toward)

SIZE = (1600, 1200)


def grid_homography(tilt_deg, yaw_deg, distance=12.0):
    """H = K [r1 r2 t] of a camera ``distance`` pitches from the grid origin, tilted by
    ``tilt_deg`` about the image x axis and turned by ``yaw_deg`` about the table normal."""
    K = intrinsics(SIZE, 70.0)
    R = cv2.Rodrigues(np.array([np.radians(tilt_deg), 0.0, 0.0]))[0] @ \
        cv2.Rodrigues(np.array([0.0, 0.0, np.radians(yaw_deg)]))[0]
    t = np.array([0.3, -0.2, distance])
    H = K @ np.stack([R[:, 0], R[:, 1], t], axis=1)
    return H / H[2, 2]


def test_the_camera_is_recovered_from_its_grid():
    H = grid_homography(20, 35)
    camera = camera_from_homography(H, SIZE, 70.0)
    assert camera.tilt_deg == pytest.approx(20, abs=0.01)
    cells = np.array([[0, 0], [3, 1], [-2, 4]], np.float64)
    on_table = np.hstack([cells, np.zeros((3, 1))])
    np.testing.assert_allclose(camera.project(on_table), apply_homography(H, cells), atol=1e-6)
    assert camera.center[2] > 0  # the camera is above the table


def test_the_pose_fit_finds_the_tilt_from_a_rough_start():
    H = grid_homography(25, -10)
    cells = np.array([(c, r) for r in range(-2, 3) for c in range(-3, 3)], np.float64)
    points = apply_homography(H, cells)
    rough = H.copy()
    rough[:2] *= 1.05  # a bit too big and without perspective
    rough[2, :2] = 0
    prior = CameraPrior(intrinsics(SIZE, 70.0), anchor_noise=0.05, tilt_prior_deg=20.0)
    side = np.sqrt(abs(np.linalg.det(H[:2, :2])))
    fitted = fit_pose(cells, points, np.ones(len(cells)), prior, [rough], side)
    assert camera_from_homography(fitted, SIZE, 70.0).tilt_deg == pytest.approx(25, abs=1.0)
    assert np.abs(apply_homography(fitted, cells) - points).max() < 0.05 * side


def test_a_held_tilt_is_fitted_to_three_points():
    """Three points cannot show a tilt, but one told otherwise (``toward``) is held: the pose
    fitted from a flat start is the camera's, and its anchors lie on it."""
    H = grid_homography(20, 35)
    camera = camera_from_homography(H, SIZE, 70.0)
    K = intrinsics(SIZE, 70.0)
    cells = np.array([(0, 0), (1, 0), (0, 1)], np.float64)
    points = apply_homography(H, cells)
    flat = H.copy()
    flat[2, :2] = 0
    side = np.sqrt(abs(np.linalg.det(H[:2, :2])))
    held = CameraPrior(K, anchor_noise=0.15, tilt_prior_deg=1.0, toward=tuple(looking_toward(camera)))
    fitted, misfit = anchor_misfit(cells, points, np.ones(3), held, [flat], side)
    assert camera_from_homography(fitted, SIZE, 70.0).tilt_deg == pytest.approx(20, abs=0.5)
    assert misfit < 0.01
    beyond = np.array([(3.0, 3.0)])  # a cell away from the three: the tilt shows there
    np.testing.assert_allclose(apply_homography(fitted, beyond), apply_homography(H, beyond), atol=0.05 * side)

import numpy as np
import pytest

from vision.camera import CameraPrior, camera_from_homography, intrinsics, looking_toward
from vision.grid import fit_grid

TOLERANCE = (0.12, 0.03)  # the default profile's lattice tolerance


def camera_points(tilt_deg, yaw_deg, jitter, seed, size=(1600, 1200), hfov=70.0, distance=12.0):
    """Project a 6 x 5 lattice (pitch 1) seen by a camera ``distance`` pitches away, tilted
    toward the bottom of the image."""
    rng = np.random.default_rng(seed)
    cells = np.array([(c, r) for r in range(5) for c in range(6)], float)
    yaw = np.radians(yaw_deg)
    rot = np.array([[np.cos(yaw), -np.sin(yaw)], [np.sin(yaw), np.cos(yaw)]])
    table = (cells - cells.mean(axis=0)) @ rot.T + rng.uniform(-jitter, jitter, cells.shape)
    w, h = size
    f = 0.5 * w / np.tan(np.radians(hfov) / 2)
    t = np.radians(tilt_deg)
    # table: x right, y toward the player, z up; the camera 12 pitches away, above the
    # player's side of the city, looking at its centre
    center = distance * np.array([0, np.sin(t), np.cos(t)])
    forward = -center / distance
    right = np.array([1.0, 0, 0])
    down = np.cross(right, forward)
    R = np.stack([right, down, forward])
    pts3 = np.hstack([table, np.zeros((len(table), 1))])
    cam = (pts3 - center) @ R.T
    xy = cam[:, :2] / cam[:, 2:3] * f + [w / 2, h / 2]
    return cells.astype(int), xy


@pytest.mark.parametrize("tilt, yaw, seed", [(0, 0, 1), (15, 20, 2), (28, -35, 3), (25, 40, 4)])
def test_cells_recovered_up_to_translation(tilt, yaw, seed):
    cells, xy = camera_points(tilt, yaw, jitter=0.08, seed=seed)
    fit = fit_grid(xy, spacing_hint=np.median(np.linalg.norm(np.diff(xy, axis=0), axis=1)), tolerance=TOLERANCE)
    offsets = {tuple(o) for o in cells - fit.cells}
    assert len(offsets) == 1
    assert fit.residual.max() < 0.3


def test_camera_tilt_is_recovered():
    cells, xy = camera_points(25, 10, jitter=0.0, seed=5)
    fit = fit_grid(xy, spacing_hint=80, tolerance=TOLERANCE)
    camera = camera_from_homography(fit.H, (1600, 1200), 70.0)
    assert camera.tilt_deg == pytest.approx(25, abs=2)
    base = camera.project(np.array([[fit.cells[0][0], fit.cells[0][1], 0.0]]))[0]
    apex = camera.project(np.array([[fit.cells[0][0], fit.cells[0][1], 1.0]]))[0]
    assert np.linalg.norm(base - xy[0]) < 1.0
    assert apex[1] < base[1]  # upright things lean toward the top of a photo taken from the player's side


def test_a_small_noisy_city_is_not_read_as_steeply_tilted():
    """Seen from far away, a city's perspective is subtle next to pieces a few mm off
    centre; a free homography reads the noise as tilt. The camera prior keeps it near the
    truth without hiding a real tilt."""
    prior = CameraPrior(intrinsics((1600, 1200), 70.0), anchor_noise=0.15, tilt_prior_deg=20.0)
    errors = []
    for seed in range(6):
        for tilt in (0, 25):
            cells, xy = camera_points(tilt, 10, jitter=0.2, seed=seed, distance=20)
            fit = fit_grid(xy, spacing_hint=80, tolerance=TOLERANCE, camera=prior)
            assert len({tuple(o) for o in cells - fit.cells}) == 1
            errors.append(abs(camera_from_homography(fit.H, (1600, 1200), 70.0).tilt_deg - tilt))
    assert np.mean(errors) < 8


def test_one_piece_gets_one_cell():
    fit = fit_grid(np.array([[300.0, 200.0]]), spacing_hint=50, tolerance=TOLERANCE)
    assert fit.cells.tolist() == [[0, 0]]


def test_a_sparse_rotated_city_with_fragments_keeps_its_pitch():
    """Pieces on alternate cells (diagonal neighbours are nearer than any other piece),
    turned 35 degrees, plus light-weight fragments halfway between some of them."""
    cells, xy = camera_points(10, 35, jitter=0.05, seed=6)
    keep = (cells.sum(axis=1) % 2 == 0) | (cells[:, 0] == 2)
    cells, xy = cells[keep], xy[keep]
    fragments = (xy[:4] + xy[1:5]) / 2
    fit = fit_grid(np.vstack([xy, fragments]), spacing_hint=30, tolerance=TOLERANCE, weights=np.r_[np.ones(len(xy)), 0.2 * np.ones(4)])
    offsets = {tuple(o) for o in cells - fit.cells[:len(cells)]}
    assert len(offsets) == 1


def test_fragments_as_many_as_pieces_cannot_make_a_finer_grid():
    cells, xy = camera_points(0, 10, jitter=0.03, seed=7)
    pitch = np.median(np.linalg.norm(np.diff(xy[:6], axis=0), axis=1))
    fragments = xy + np.array([0.5, 0.0]) @ np.array([[np.cos(0.17), np.sin(0.17)], [-np.sin(0.17), np.cos(0.17)]]) * pitch
    fit = fit_grid(np.vstack([xy, fragments]), spacing_hint=pitch, tolerance=TOLERANCE, min_pitch=0.7 * pitch)
    offsets = {tuple(o) for o in cells - fit.cells[:len(cells)]}
    assert len(offsets) == 1


def test_a_small_city_is_fitted_at_the_tilt_held():
    """Five pieces seen at 25 degrees: fitted without a tilt told, the grid is flat (an affine
    map); with the tilt held (``toward``), the fit keeps it, and the cells are the same."""
    cells, xy = camera_points(25, 10, jitter=0.0, seed=5)
    K = intrinsics((1600, 1200), 70.0)
    whole = camera_from_homography(fit_grid(xy, spacing_hint=80, tolerance=TOLERANCE).H, (1600, 1200), 70.0)
    few = [7, 8, 9, 13, 14]
    free = CameraPrior(K, anchor_noise=0.15, tilt_prior_deg=20.0)
    held = CameraPrior(K, anchor_noise=0.15, tilt_prior_deg=1.0, toward=tuple(looking_toward(whole)))
    flat, tilted = (fit_grid(xy[few], spacing_hint=80, tolerance=TOLERANCE, camera=prior) for prior in (free, held))
    assert camera_from_homography(flat.H, (1600, 1200), 70.0).tilt_deg < 1
    assert camera_from_homography(tilted.H, (1600, 1200), 70.0).tilt_deg == pytest.approx(25, abs=1.5)
    assert len({tuple(o) for o in cells[few] - tilted.cells}) == 1

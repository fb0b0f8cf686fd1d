"""The shadows a low lamp casts beside the pieces: one lamp fitted to the darkness beside a
reading's pieces places every piece's shadow, outside the pieces; on a print, only where the
darkness told against the table across each piece fits the same lamp."""
import dataclasses

import cv2
import numpy as np
import pytest

from calibration import load_profile
from vision.cast_shadows import cast_shadows
from vision.detection import DetectedPiece, Detection
from vision.model import BASE_MM, HEIGHT_MM

PROFILE = load_profile()
PITCH_MM = 32.0
CELL_PX = 40.0
H = np.array([[CELL_PX, 0.0, 100.0], [0.0, CELL_PX, 80.0], [0.0, 0.0, 1.0]])  # grid (col, row) -> pixels


def _piece(col: int, row: int, size: int, level: int = 0) -> DetectedPiece:
    """A piece seen straight down: its outline the square of its base."""
    centre = H[:2, :2] @ (col, row) + H[:2, 2]
    half = BASE_MM[size] / PITCH_MM * CELL_PX / 2
    outline = centre + half * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
    return DetectedPiece(row, col, "red", size, level, 0.9, tuple(centre), outline)


def _city() -> Detection:
    """A 3 x 3 block of pieces, sizes alternating, one of them a stack."""
    pieces = [_piece(col, row, 3 if (col + row) % 2 == 0 else 2) for row in range(3) for col in range(3)]
    pieces.append(_piece(1, 0, 1, level=1))
    return Detection(pieces, H, (400, 300), 0.0, PITCH_MM)


def _shaded(detection: Detection, elevation_deg: float, turn_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """The log ratio (float32 (300, 400, 3)) of a photo of ``detection``'s pieces under a lamp
    ``elevation_deg`` above the table, lit from the grid direction ``turn_deg``: the pieces
    brighter than the table in red, their shadows darker in every channel; and the
    shadows outside the pieces (bool (300, 400))."""
    log_ratio = np.zeros((300, 400, 3), np.float32)
    shadow = np.zeros((300, 400), np.uint8)
    away = -np.array([np.cos(np.radians(turn_deg)), np.sin(np.radians(turn_deg))])
    for p in detection.pieces:
        if p.level:
            continue
        grid = np.linalg.solve(H, (*p.center, 1.0))[:2]
        length = HEIGHT_MM[p.size] / PITCH_MM / np.tan(np.radians(elevation_deg))
        tip = H[:2, :2] @ (grid + length * away) + H[:2, 2]
        cv2.fillConvexPoly(shadow, cv2.convexHull(np.vstack([p.outline, tip]).astype(np.float32)).astype(np.int32), 1)
    pieces = np.zeros((300, 400), np.uint8)
    for p in detection.pieces:
        cv2.fillConvexPoly(pieces, np.round(p.outline).astype(np.int32), 1)
    shadow = (shadow > 0) & (pieces == 0)
    log_ratio[shadow] = -0.6
    log_ratio[pieces > 0] = (0.5, -0.3, -0.3)
    return log_ratio, shadow


@pytest.mark.parametrize("elevation, turn", [(35, 30), (40, 200), (45, 290)])
def test_the_shadows_of_a_low_lamp_are_placed_outside_the_pieces(elevation, turn):
    detection = _city()
    log_ratio, truth = _shaded(detection, elevation, turn)
    found = cast_shadows(detection, log_ratio, PROFILE)
    assert found is not None and found.shape == truth.shape
    assert (found & truth).sum() >= 0.85 * truth.sum()
    assert (found & ~truth).sum() <= 0.15 * truth.sum()
    inside = np.zeros(truth.shape, np.uint8)
    for p in detection.pieces:
        cv2.fillConvexPoly(inside, np.round(p.outline).astype(np.int32), 1)
    assert not (found & (inside > 0)).any()


def test_a_high_lamp_casts_no_shadow_worth_leaving_out():
    detection = _city()
    log_ratio, truth = _shaded(detection, 75, 30)
    assert truth.any()
    assert cast_shadows(detection, log_ratio, PROFILE) is None


def test_no_darkness_beside_the_pieces_is_no_shadow():
    detection = _city()
    log_ratio, _ = _shaded(detection, 35, 30)
    log_ratio[log_ratio.mean(axis=2) < 0] = 0.0
    assert cast_shadows(detection, log_ratio, PROFILE) is None


def test_darkness_all_round_the_pieces_is_the_table_not_a_shadow():
    """A dark table seen against a brighter estimate of it is dark every way round: no lamp
    explains more of it than it leaves unexplained."""
    detection = _city()
    log_ratio, _ = _shaded(detection, 35, 30)
    log_ratio[log_ratio[..., 0] <= 0] = -0.6 * (np.random.default_rng(1).random((300, 400))
                                                 [log_ratio[..., 0] <= 0] < 0.4)[:, None]
    assert cast_shadows(detection, log_ratio, PROFILE) is None


MILD_PRINT = (-0.5, 0.0, 0.4)  # a third of it as dark as a shadow against the table's estimate
HARSH_PRINT = (-0.7, 0.7)  # half of it darker than a shadow


def _printed(log_ratio: np.ndarray, seed: int, levels: tuple[float, ...] = MILD_PRINT) -> np.ndarray:
    """``log_ratio`` with a print on the table of patches 6 pixels across, each brighter or
    darker than the estimate of the table by one of ``levels``, chosen at random."""
    patches = np.array(levels, np.float32)[np.random.default_rng(seed).integers(0, len(levels), size=(50, 67))]
    print_ = cv2.resize(patches, (400, 300), interpolation=cv2.INTER_NEAREST)
    table = log_ratio[..., 0] <= 0
    out = log_ratio.copy()
    out[table] += print_[table][:, None]
    return out


@pytest.mark.parametrize("elevation, turn, seed", [(35, 30, 1), (40, 200, 2), (45, 290, 3)])
def test_a_low_lamps_shadows_are_placed_on_a_print(elevation, turn, seed):
    detection = _city()
    log_ratio, truth = _shaded(detection, elevation, turn)
    found = cast_shadows(detection, _printed(log_ratio, seed), PROFILE, printed=True)
    assert found is not None
    assert (found & truth).sum() >= 0.85 * truth.sum()
    assert (found & ~truth).sum() <= 0.15 * truth.sum()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_print_under_a_high_lamp_casts_no_shadow(seed):
    detection = _city()
    log_ratio, _ = _shaded(detection, 75, 30)
    assert cast_shadows(detection, _printed(log_ratio, seed), PROFILE, printed=True) is None


@pytest.mark.parametrize("elevation, turn", [(35, 30), (40, 200), (45, 290), (35, 120)])
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_the_shadows_cast_on_a_print_passing_for_shadow_are_the_lamps_or_none(elevation, turn, seed):
    """Against the table's estimate, the darkest half of the print makes a lamp of its own
    (most of these cases); told across each piece too, no lamp or the true one."""
    detection = _city()
    log_ratio, truth = _shaded(detection, elevation, turn)
    found = cast_shadows(detection, _printed(log_ratio, seed, HARSH_PRINT), PROFILE, printed=True)
    if found is not None:
        assert (found & truth).sum() >= 0.85 * truth.sum()
        assert (found & ~truth).sum() <= 0.15 * truth.sum()


def test_on_a_print_only_a_lamp_low_enough_casts_shadows_worth_leaving_out():
    """The short shadows of a lamp 55 degrees up are left out on a plain table, not on a print."""
    detection = _city()
    log_ratio, _ = _shaded(detection, 55, 30)
    assert PROFILE.cast_shadow_print_max_elevation_deg < 55 <= PROFILE.cast_shadow_max_elevation_deg
    assert cast_shadows(detection, log_ratio, PROFILE) is not None
    assert cast_shadows(detection, _printed(log_ratio, 1), PROFILE, printed=True) is None


def test_a_city_of_uppers_alone_casts_nothing():
    detection = dataclasses.replace(_city(), pieces=[_piece(0, 0, 1, level=1)])
    log_ratio, _ = _shaded(_city(), 35, 30)
    assert cast_shadows(detection, log_ratio, PROFILE) is None

"""Telling a stack from a piece with a stray second colour, on pixels drawn from the model."""
import cv2
import numpy as np
import pytest

from calibration import load_profile
from vision.camera import Camera
from vision.model import outline, seat_height_mm
from vision.stacks import split_stack

PROFILE = load_profile()
PITCH_MM = 30.0


def camera(tilt_deg: float) -> Camera:
    """Ten pitches from grid point (0, 0), looking at it, tilted ``tilt_deg`` from straight
    down toward the rows above it; about 3 pixels a millimetre there."""
    t = np.radians(tilt_deg)
    forward = np.array([0.0, np.sin(t), -np.cos(t)])
    right = np.array([1.0, 0.0, 0.0])
    R = np.stack([right, np.cross(forward, right), forward])
    centre = -10.0 * forward
    K = np.array([[1000.0, 0, 600], [0, 1000.0, 500], [0, 0, 1]])
    return Camera(K @ np.hstack([R, (-R @ centre)[:, None]]), centre)


def pixels_in(polygon: np.ndarray, but_not: np.ndarray | None = None) -> np.ndarray:
    """(N, 2) int32 (x, y) pixels inside ``polygon`` and outside ``but_not`` ((K, 2) (x, y))."""
    mask = np.zeros((1000, 1200), np.uint8)
    cv2.fillConvexPoly(mask, np.round(polygon).astype(np.int32), 1)
    if but_not is not None:
        cv2.fillConvexPoly(mask, np.round(but_not).astype(np.int32), 0)
    ys, xs = np.nonzero(mask)
    return np.stack([xs, ys], axis=1).astype(np.int32)


@pytest.mark.parametrize("tilt_deg", [0.0, 20.0])
@pytest.mark.parametrize("lower, upper", [(3, 2), (3, 1), (2, 1)])
def test_a_smaller_piece_resting_on_a_larger_one_is_read_as_a_stack(tilt_deg, lower, upper):
    """The upper piece's colour fills its outline at its seat; the lower one's shows round it,
    on fewer sides under tilt. Either colour group may be given first."""
    cam = camera(tilt_deg)
    lower_shape = outline(cam, np.zeros(2), lower, PITCH_MM)
    upper_shape = outline(cam, np.zeros(2), upper, PITCH_MM, seat_height_mm(lower, upper))
    ring, top = pixels_in(lower_shape, but_not=upper_shape), pixels_in(upper_shape)
    split = split_stack(cam, (0, 0), lower, PITCH_MM, (ring, top), PROFILE)
    assert (split.lower, split.upper_size) == (0, upper)
    assert split_stack(cam, (0, 0), lower, PITCH_MM, (top, ring), PROFILE).lower == 1


@pytest.mark.parametrize("tilt_deg", [0.0, 20.0])
@pytest.mark.parametrize("shift, scale", [((0.12, -0.1), 1.08), ((-0.1, 0.12), 0.92)])
def test_a_stack_a_little_off_its_modelled_place_and_scale_is_still_a_stack(tilt_deg, shift, scale):
    """The grid and the modelled pitch hold for the city; one stack can be seen a few pixels
    off them, or a little larger (blur, a shadow). The model is laid on what is seen."""
    cam = camera(tilt_deg)
    lower_shape = outline(cam, np.zeros(2), 3, PITCH_MM)
    upper_shape = outline(cam, np.zeros(2), 2, PITCH_MM, seat_height_mm(3, 2))
    centre, side = lower_shape.mean(axis=0), np.sqrt(cv2.contourArea(lower_shape.astype(np.float32)))

    def seen(points):
        return centre + scale * (points - centre) + side * np.array(shift)

    ring, top = pixels_in(seen(lower_shape), but_not=seen(upper_shape)), pixels_in(seen(upper_shape))
    split = split_stack(cam, (0, 0), 3, PITCH_MM, (ring, top), PROFILE)
    assert (split.lower, split.upper_size) == (0, 2)


@pytest.mark.parametrize("tilt_deg", [0.0, 20.0])
def test_a_second_colour_on_one_side_of_a_piece_is_not_a_stack(tilt_deg):
    """A face turned from the lamp (read black on a dark table) covers one side of a single
    piece, as does a shadow beside it: neither lies where a stack's colours would."""
    cam = camera(tilt_deg)
    piece = pixels_in(outline(cam, np.zeros(2), 3, PITCH_MM))
    centre_x = piece[:, 0].mean()
    face = piece[:, 0] > centre_x + 5
    assert split_stack(cam, (0, 0), 3, PITCH_MM, (piece[~face], piece[face]), PROFILE) is None
    shadow = piece + [int(np.ptp(piece[:, 0])) // 2, 0]
    shadow = shadow[shadow[:, 0] > piece[:, 0].max()]
    assert split_stack(cam, (0, 0), 3, PITCH_MM, (piece, shadow), PROFILE) is None


@pytest.mark.parametrize("tilt_deg", [0.0, 20.0])
def test_an_upper_piece_showing_the_lower_colour_through_it_is_a_weak_stack(tilt_deg):
    """Tinted plastic over another colour can show that colour through it: in bands here,
    the upper colour fills 60% of its outline. It lies wholly within it and the lower
    colour shows all round, so this is a stack, but a weak one (kept within the rules)."""
    cam = camera(tilt_deg)
    lower_shape = outline(cam, np.zeros(2), 3, PITCH_MM)
    upper_shape = outline(cam, np.zeros(2), 2, PITCH_MM, seat_height_mm(3, 2))
    top = pixels_in(upper_shape)
    through = top[:, 1] // 2 % 5 < 2
    ring = np.vstack([pixels_in(lower_shape, but_not=upper_shape), top[through]])
    split = split_stack(cam, (0, 0), 3, PITCH_MM, (ring, top[~through]), PROFILE)
    assert (split.lower, split.upper_size, split.weak) == (0, 2, True)


def test_a_small_piece_cannot_hold_a_stack():
    cam = camera(0.0)
    piece = pixels_in(outline(cam, np.zeros(2), 1, PITCH_MM))
    assert split_stack(cam, (0, 0), 1, PITCH_MM, (piece[:10], piece[10:]), PROFILE) is None


def test_the_upper_piece_s_size_is_the_outline_its_colour_fills_best():
    """A medium piece on a large one, a face of the medium lost against the lower colour: its
    colour fills a small piece's outline more densely, but a medium's outline best."""
    cam = camera(10.0)
    lower_shape = outline(cam, np.zeros(2), 3, PITCH_MM)
    medium = outline(cam, np.zeros(2), 2, PITCH_MM, seat_height_mm(3, 2))
    small = outline(cam, np.zeros(2), 1, PITCH_MM, seat_height_mm(3, 1))
    top = pixels_in(medium)
    lost = (top[:, 0] > top[:, 0].mean() + 12) & ~np.isin(np.arange(len(top)), _inside(top, small))
    ring = np.vstack([pixels_in(lower_shape, but_not=medium), top[lost]])
    split = split_stack(cam, (0, 0), 3, PITCH_MM, (ring, top[~lost]), PROFILE)
    assert (split.lower, split.upper_size) == (0, 2)


def _inside(pixels: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Indices of ``pixels`` ((N, 2) (x, y)) inside ``polygon``."""
    contour = np.round(polygon).astype(np.float32).reshape(-1, 1, 2)
    return np.flatnonzero([cv2.pointPolygonTest(contour, (float(x), float(y)), False) >= 0 for x, y in pixels])

"""Reading candidates into pieces on cells, on small synthetic candidate sets."""
import numpy as np

from calibration import load_profile
from calibration.profile import COLOR_ORDER
from vision.cells import read_pieces
from vision.pieces import Blob

PROFILE = load_profile()


def square_blob(x, y, side, color, feature=None):
    ys, xs = np.mgrid[y - side // 2:y + side // 2, x - side // 2:x + side // 2]
    pixels = np.stack([xs.ravel(), ys.ravel()], 1).astype(np.int32)
    protos = PROFILE.colors.prototype_array()
    k = COLOR_ORDER.index(color)
    return Blob((float(x), float(y)), pixels, protos[k] if feature is None else feature, np.zeros(3), k, side / 2)


def test_a_candidate_keeps_the_colour_its_pixels_were_labelled_with():
    """The yellow candidate's median is pulled toward red (a red piece's tint, red pixels at
    its edge); its pixels were labelled yellow one by one, and yellow it stays."""
    protos = PROFILE.colors.prototype_array()
    colors = ["red", "green", "blue", "black", "red", "green", "blue", "black", "red"]
    blobs = [square_blob(200 + 60 * (k % 3), 150 + 60 * (k // 3), 30, c) for k, c in enumerate(colors)]
    reddish = 0.35 * protos[COLOR_ORDER.index("yellow")] + 0.65 * protos[COLOR_ORDER.index("red")]
    blobs.append(square_blob(380, 150, 30, "yellow", reddish))
    reading = read_pieces(blobs, (640, 480), 60.0, PROFILE)
    assert len(reading.pieces) == len(blobs)
    far_right = max(reading.pieces, key=lambda p: p.center[0])
    assert COLOR_ORDER[far_right.color_index] == "yellow"

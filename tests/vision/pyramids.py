"""Drawing pyramids into small test photos."""
import cv2
import numpy as np

from vision.model import HEIGHT_PER_SIDE


def draw_pyramid(rgb, camera, centre, side, turn_deg, colour, lift=0.0):
    """Draw on ``rgb`` a pyramid of base ``side`` (grid units, its height as a real piece's
    for its side) at base ``centre`` (col, row), raised by ``lift`` (grid units), turned
    ``turn_deg``: its faces that face the camera, each a different shade of ``colour`` (RGB),
    as a lamp lights them."""
    turn = np.radians(turn_deg)
    square = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * side / 2
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    points = np.zeros((5, 3))
    points[:4, :2] = np.asarray(centre) + square @ rotation.T
    points[:4, 2] = lift
    points[4, :2], points[4, 2] = centre, lift + side * HEIGHT_PER_SIDE
    image = camera.project(points)
    base_sign = np.sign(cv2.contourArea(image[:4].astype(np.float32), oriented=True))
    for k, shade in enumerate((1.0, 0.75, 0.55, 0.85)):
        face = image[[k, (k + 1) % 4, 4]].astype(np.float32)
        if np.sign(cv2.contourArea(face, oriented=True)) == base_sign:
            cv2.fillConvexPoly(rgb, np.round(face * 16).astype(np.int32), tuple(int(c * shade) for c in colour),
                               cv2.LINE_AA, 4)

"""Rule cards lying beside the city: what is printed on them is not pieces.

A card is paper (near white, brighter than the table in every channel, see
:func:`vision.pieces.foreground`) in a rectangle, which a tilted camera sees as a
four-sided figure: a region of paper at least a few pieces across whose convex hull fills
nearly all of the four-sided figure round it (a band printed along a side may leave a bay in
the paper), or, cut by the photo's edge, a few straight sides of one. The glare round a
lamp's hot spot is near white too, but round and ragged. A candidate whose centre lies on a
card is its print.
"""
from __future__ import annotations

import cv2
import numpy as np

from calibration import Profile


def least_quadrilateral(hull: np.ndarray) -> np.ndarray | None:
    """The corners ((1, 4, 2) int32 (x, y)) of the least four-sided figure round the convex
    ``hull`` ((K, 1, 2) int32 (x, y), from ``cv2.convexHull``); None for a hull of under four
    points (a triangle), which ``cv2.approxPolyN`` refuses with an error."""
    return cv2.approxPolyN(hull, 4) if len(hull) >= 4 else None


def card_outlines(paper: np.ndarray, side: float, profile: Profile) -> list[np.ndarray]:
    """The corners ((K, 2) float32 image (x, y)) of each card in ``paper`` (bool (H, W), the
    pixels of paper, print and pieces left out): a region whose area, its holes (the print)
    filled, is at least ``card_min_side`` typical pieces' sides (``side`` pixels) squared,
    whose convex hull fills at least ``card_rect_fill`` of the least four-sided figure round
    it (a rectangle in perspective), and which fills at least ``card_hull_fill`` of that hull
    (a coloured band printed along a card's side leaves a bay in its paper; paper open wide on
    one side fills little of its hull). Cut by the photo's edge, a card shows as part of a
    rectangle, as little of it as the photo holds: a region touching the edge, of at least
    ``card_cut_min_side`` typical sides squared, is a card where it fills ``card_rect_fill``
    of its convex hull, whose outline is at most six straight sides to within
    ``card_straightness`` typical sides (glare there is round)."""
    contours, _ = cv2.findContours(paper.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    h, w = paper.shape
    cards = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < (profile.card_cut_min_side * side) ** 2:
            continue
        hull = cv2.convexHull(contour)
        hull_area = cv2.contourArea(hull)
        quadrilateral = least_quadrilateral(hull)
        if (area >= (profile.card_min_side * side) ** 2 and quadrilateral is not None
                and hull_area >= profile.card_rect_fill * cv2.contourArea(quadrilateral)
                and area >= profile.card_hull_fill * hull_area):
            cards.append(quadrilateral.reshape(-1, 2).astype(np.float32))
            continue
        x, y, bw, bh = cv2.boundingRect(contour)
        if x > 0 and y > 0 and x + bw < w and y + bh < h:
            continue
        corners = cv2.approxPolyDP(hull, profile.card_straightness * side, True)
        if area >= profile.card_rect_fill * hull_area and len(corners) <= 6:
            cards.append(hull.reshape(-1, 2).astype(np.float32))
    return cards


def on_card(point: tuple[float, float], cards: list[np.ndarray]) -> bool:
    """Whether the image point ``point`` (x, y) lies inside one of ``cards`` (from
    :func:`card_outlines`)."""
    return any(cv2.pointPolygonTest(card, (float(point[0]), float(point[1])), False) > 0 for card in cards)

"""Rule cards: a large rectangle of paper is a card; a round patch of glare is not."""
import cv2
import numpy as np

from calibration import load_profile
from vision.cards import card_outlines, on_card

PROFILE = load_profile()
SIDE = 30.0  # a typical piece's side in pixels


def test_a_turned_rectangle_of_paper_with_print_on_it_is_a_card():
    paper = np.zeros((400, 500), np.uint8)
    corners = cv2.boxPoints(((250.0, 200.0), (120.0, 170.0), 25.0))
    cv2.fillConvexPoly(paper, np.round(corners).astype(np.int32), 1)
    paper[180:200, 230:250] = 0  # the print, left out of the paper
    cards = card_outlines(paper > 0, SIDE, PROFILE)
    assert len(cards) == 1
    assert on_card((240, 190), cards) and not on_card((60, 60), cards)


def test_glare_and_a_scrap_of_paper_are_not_cards():
    paper = np.zeros((400, 500), np.uint8)
    cv2.circle(paper, (150, 200), 80, 1, -1)  # a lamp's hot spot: round
    paper[50:90, 380:420] = 1  # a scrap smaller than two pieces across
    assert card_outlines(paper > 0, SIDE, PROFILE) == []

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


def test_a_card_seen_by_a_tilted_camera_is_a_card():
    """A tilted camera sees the card's rectangle as a four-sided figure narrower at its far
    end, which fills too little of its least rectangle (20270305 scene 61: its printed
    pyramids were read as three pieces apart from the city)."""
    paper = np.zeros((400, 500), np.uint8)
    far, near = 70.0, 100.0  # half widths, in pixels
    corners = np.array([[-far, -80], [far, -80], [near, 80], [-near, 80]])
    turn = np.deg2rad(30.0)
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    cv2.fillConvexPoly(paper, np.round(corners @ rotation.T + (250, 200)).astype(np.int32), 1)
    cards = card_outlines(paper > 0, SIDE, PROFILE)
    assert len(cards) == 1 and on_card((250, 200), cards)


def test_a_triangle_of_paper_is_no_card_unless_it_is_a_card_s_corner_cut_by_the_photo_s_edge():
    """A region whose hull has three corners has no four-sided figure to fill; at the photo's
    edge it is the corner of a card running out of the photo."""
    middle = np.zeros((400, 500), np.uint8)
    cv2.fillConvexPoly(middle, np.array([[100, 100], [300, 100], [100, 300]], np.int32), 1)
    assert card_outlines(middle > 0, SIDE, PROFILE) == []
    corner = np.zeros((400, 500), np.uint8)
    cv2.fillConvexPoly(corner, np.array([[0, 250], [0, 399], [149, 399]], np.int32), 1)
    cards = card_outlines(corner > 0, SIDE, PROFILE)
    assert len(cards) == 1 and on_card((30, 370), cards)


def test_glare_and_a_scrap_of_paper_are_not_cards():
    paper = np.zeros((400, 500), np.uint8)
    cv2.circle(paper, (150, 200), 80, 1, -1)  # a lamp's hot spot: round
    paper[50:90, 380:420] = 1  # a scrap smaller than two pieces across
    assert card_outlines(paper > 0, SIDE, PROFILE) == []


def test_a_card_cut_by_the_photos_edge_is_a_card_and_glare_there_is_not():
    """Cut by the frame, a card shows a few straight sides (of the card and the frame); glare
    at the edge is round."""
    paper = np.zeros((400, 500), np.uint8)
    corners = cv2.boxPoints(((470.0, 360.0), (150.0, 200.0), 35.0))  # runs out of the photo
    cv2.fillConvexPoly(paper, np.round(corners).astype(np.int32), 1)
    cards = card_outlines(paper > 0, SIDE, PROFILE)
    assert len(cards) == 1 and on_card((460, 350), cards)
    glare = np.zeros((400, 500), np.uint8)
    cv2.circle(glare, (0, 200), 110, 1, -1)
    assert card_outlines(glare > 0, SIDE, PROFILE) == []


def test_a_card_s_strip_at_the_photos_edge_is_a_card_however_little_of_it_shows():
    """A card lying mostly beyond the frame shows a strip of paper, less than a card inside
    the photo must hold (20270305 scene 83: 2.1-2.5 sides squared, its printed pyramids read
    as a piece); its straight sides tell it. Glare as large at the edge is round."""
    strip = np.zeros((400, 500), np.uint8)
    strip[0:28, 200:300] = 1  # 2800 pixels: 3.1 sides squared, under the 4 a card must hold
    cards = card_outlines(strip > 0, SIDE, PROFILE)
    assert len(cards) == 1 and on_card((250, 10), cards)
    glare = np.zeros((400, 500), np.uint8)
    cv2.circle(glare, (0, 200), 45, 1, -1)  # 3.6 sides squared
    assert card_outlines(glare > 0, SIDE, PROFILE) == []


def test_a_card_with_a_band_printed_along_its_side_is_a_card_and_a_hollow_frame_is_not():
    """A coloured band printed along part of a card's side leaves a bay in its paper, which
    then fills too little of its least rectangle; its convex hull still fills it. Paper open
    wide on one side (a C, as a cloth's print can make) fills too little of its hull."""
    paper = np.zeros((400, 500), np.uint8)
    paper[100:300, 150:300] = 1
    paper[130:270, 260:300] = 0  # the band, not paper, from the card's edge inwards
    cards = card_outlines(paper > 0, SIDE, PROFILE)
    assert len(cards) == 1 and on_card((280, 200), cards)
    frame = np.zeros((400, 500), np.uint8)
    frame[100:300, 150:300] = 1
    frame[140:260, 190:300] = 0
    assert card_outlines(frame > 0, SIDE, PROFILE) == []

"""A city read with no large piece may be smalls and mediums read right or mediums and larges
read a size down (a photo has no ruler): the review page offers to move every size a step,
and back, and rescores."""
import json

from playwright.sync_api import expect

RULES = ["overshadowed", "lines-of-sight", "linear-park"]


def review_of(page, pieces, source="photo"):
    """The review page of a solo game whose city, read from a photo (or entered by hand), is
    ``pieces`` (city format)."""
    entry = {"source": source, "player": "", "photo": None, "photo_url": None, "image": None, "homography": None,
             "offset": {"row": 0, "col": 0}, "doubtful": [],
             "detected": {"pieces": pieces, "warnings": [], "uncertain_below": 0.6} if source == "photo" else None,
             "pieces": [{**p, "level": p.get("level", 0), "unsure": False} for p in pieces]}
    draft = {"uid": "0" * 32, "variant": "standard", "rules": RULES, "competitive": False, "date": "2026-12-07",
             "notes": "", "players": [entry], "current": 0}
    page.goto("/new")
    page.evaluate(f"localStorage.setItem('citycam.draft', {json.dumps(json.dumps(draft))})")
    page.goto("/review" if source == "photo" else "/manual")


def sizes(page):
    draft = page.evaluate("JSON.parse(localStorage.getItem('citycam.draft'))")
    return [(p["row"], p["col"], p["size"], p.get("level", 0)) for p in draft["players"][0]["pieces"]]


def test_every_size_moves_a_step_and_back_and_the_sheet_follows(page):
    pieces = [{"row": 0, "col": 0, "color": "red", "size": 1}, {"row": 0, "col": 1, "color": "blue", "size": 2},
              {"row": 0, "col": 2, "color": "black", "size": 1}, {"row": 1, "col": 1, "color": "green", "size": 1},
              {"row": 1, "col": 0, "color": "yellow", "size": 2},
              {"row": 1, "col": 0, "color": "red", "size": 1, "level": 1}]
    review_of(page, pieces)
    steps, larger, smaller = page.locator("#size-steps"), page.locator("#sizes-larger"), page.locator("#sizes-smaller")
    expect(steps).to_be_visible()
    expect(larger).to_be_visible()
    expect(smaller).to_be_hidden()
    total = page.locator("#sheet tr.total td")
    expect(total).not_to_have_text("")
    before = total.inner_text()

    larger.click()
    assert sizes(page) == [(0, 0, 2, 0), (0, 1, 3, 0), (0, 2, 2, 0), (1, 1, 2, 0), (1, 0, 3, 0), (1, 0, 2, 1)]
    expect(larger).to_be_hidden()
    expect(smaller).to_be_visible()
    expect(total).not_to_have_text(before)  # a black piece costs its size for each neighbour

    smaller.click()
    assert sizes(page) == [(0, 0, 1, 0), (0, 1, 2, 0), (0, 2, 1, 0), (1, 1, 1, 0), (1, 0, 2, 0), (1, 0, 1, 1)]
    expect(total).to_have_text(before)


def test_a_city_holding_every_size_or_entered_by_hand_is_offered_no_step(page):
    review_of(page, [{"row": 0, "col": 0, "color": "red", "size": 1}, {"row": 0, "col": 1, "color": "blue", "size": 3}])
    expect(page.locator("#sheet tr.total td")).not_to_have_text("")
    expect(page.locator("#size-steps")).to_be_hidden()
    review_of(page, [{"row": 0, "col": 0, "color": "red", "size": 1}], source="manual")
    expect(page.locator("#sheet tr.total td")).not_to_have_text("")
    expect(page.locator("#size-steps")).to_be_hidden()

"""Calibrating from the phone: find the page from home, see the layout, photograph it, see the
report, then forget the calibration; a photo that is not the layout leaves things as they were."""
import re

import cv2
import pytest
from playwright.sync_api import expect

from bench.scenegen.scene import make_scene
from calibration.calibrate import layout_city


@pytest.fixture(scope="module")
def layout_photo(tmp_path_factory):
    """A photo of the calibration layout on a white table (seed 5 scene 0, rendered small)."""
    cv2.setNumThreads(1)
    path = tmp_path_factory.mktemp("layout") / "layout.jpg"
    path.write_bytes(make_scene(5, 0, scale=0.3, city=layout_city())[0])
    return path


def open_calibration(page):
    page.goto("/")
    page.get_by_role("link", name="Calibrate to your pieces").click()
    expect(page).to_have_url(re.compile(r"/calibrate$"))
    expect(page.locator("#calibration-status")).to_have_text("Your photos are read with the default colours.")


def test_calibrate_from_the_phone_then_forget(page, no_sideways_scroll, layout_photo):
    open_calibration(page)
    layout = page.locator(".layout-grid .piece")
    expect(layout).to_have_count(15)
    expect(layout.nth(0)).to_have_class("piece s-1 c-red")
    assert [layout.nth(k).inner_text() for k in range(3)] == ["S", "M", "L"]  # the far row, red
    assert [layout.nth(k).inner_text() for k in range(3, 6)] == ["M", "L", "S"]
    expect(page.locator("#forget")).to_be_hidden()
    no_sideways_scroll(page)

    page.locator("#gallery-input").set_input_files(str(layout_photo))
    expect(page.locator("#progress")).to_be_visible()
    status = page.locator("#calibration-status")
    expect(status).to_have_text(re.compile(r"^Calibrated\."), timeout=60_000)
    expect(page.locator("#progress")).to_be_hidden()
    expect(page.locator("#calibration-summary")).to_have_text("The five colours were told apart on this table.")
    report = page.locator("#calibration-report li")
    expect(report).to_have_count(2)
    expect(report.nth(1)).to_be_hidden()  # the figures behind it, folded away
    page.get_by_text("Details").click()
    expect(report.nth(1)).to_have_text("sizes: 15/15 read as laid out")

    page.reload()
    expect(status).to_have_text(re.compile(r"read with colours fitted to your pieces \(calibrated .+\)"))
    page.get_by_role("button", name="Forget the calibration").click()
    expect(status).to_have_text("Your photos are read with the default colours.")
    expect(page.locator("#forget")).to_be_hidden()
    expect(page.locator("#calibration-summary")).to_be_hidden()
    expect(report).to_have_count(0)


def test_a_photo_of_a_city_is_not_taken_for_the_layout(page, sample_photo):
    open_calibration(page)
    page.locator("#gallery-input").set_input_files(str(sample_photo))
    error = page.locator("#calibrate-error")
    expect(error).to_contain_text("expected the 5 x 3 calibration block", timeout=60_000)
    expect(error).to_contain_text("Nothing was changed.")
    expect(page.locator("#progress")).to_be_hidden()
    expect(page.locator("#calibration-status")).to_have_text("Your photos are read with the default colours.")


def test_a_poor_calibration_is_explained_in_plain_words(page):
    """The page tells the player what a report's figures mean: colours unseen, parts of the
    pieces still read as another colour, sizes read otherwise, pieces left out."""
    report = {"candidates": 20, "read_right": 17, "worst_margin": -1.2, "unseen": ["blue"], "sizes_right": 14,
              "left_out": 2, "lines": ["colours: 17/20 ...", "sizes: 14/15 read as laid out", "2 piece(s) ..."]}
    status = {"calibrated": True, "made": "2026-12-06T21:00:00+00:00", "report": report, "problem": None,
              "base": "default"}
    page.route("**/api/calibration", lambda route: route.fulfill(json=status))
    page.goto("/calibrate")
    expect(page.locator("#calibration-summary")).to_have_text(
        "No blue piece stood out of the table in the photo: those keep the usual colours. "
        "3 of the 20 patches of colour on the pieces still read as another colour: check the colours of your "
        "next photos, or calibrate again in better light. 1 of the 15 pieces was read at another size than the "
        "layout shows: check that yours is laid out as below. 2 pieces beside the layout were left out.")
    expect(page.locator("#calibration-status")).to_contain_text("(calibrated ")

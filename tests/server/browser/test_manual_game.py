"""A game entered by hand on a phone, end to end: new game, tap cells, watch the score,
save, find it in the history and on the chart, export CSV."""
import csv
import io
import re

from playwright.sync_api import expect

RULES = ["garden-city", "we-compost", "little-boxes"]


def place(page, row, col, color, size):
    page.locator(f"#grid .cell[data-row='{row}'][data-col='{col}']").click()
    editor = page.locator("#cell-editor")
    expect(editor).to_be_visible()
    layer = editor.locator(".layer[data-level='0']")
    layer.locator(f".swatch[data-color='{color}']").click()
    layer.locator(f".size[data-size='{size}']").click()
    editor.get_by_role("button", name="Done").click()
    expect(editor).to_be_hidden()


def total(page):
    return page.locator("#sheet tr.total td")


def test_manual_entry_game_end_to_end(page, no_sideways_scroll):
    page.goto("/new")
    expect(page.locator("#rule-count")).to_have_text("(0 of 3)")  # the page's script is running
    no_sideways_scroll(page)
    for rule in RULES:
        page.locator(f"input[name=rules][value='{rule}']").check()
    expect(page.locator("#target")).to_have_text("45")
    page.get_by_role("button", name="Enter the city by hand").click()
    expect(page).to_have_url(re.compile(r"/manual$"))

    place(page, 0, 0, "red", 1)
    expect(total(page)).to_have_text("1")
    place(page, 0, 1, "red", 2)
    expect(total(page)).to_have_text("2")
    place(page, -1, 0, "green", 2)  # above the city: the plan renumbers, (0,0) becomes (1,0)
    expect(total(page)).to_have_text("5")  # red 2 + green 1 + garden city 2
    expect(page.locator("#grid .cell[data-row='1'][data-col='0'] .piece")).to_have_text("S")
    place(page, 1, 2, "yellow", 1)
    expect(total(page)).to_have_text("6")
    no_sideways_scroll(page)

    page.locator("#sheet tr[data-key='rule:garden-city']").click()
    expect(page.locator("#grid .cell.highlight")).to_have_count(1)
    expect(page.locator("#sheet-detail li")).to_have_count(1)

    page.fill("#player", "Ann")
    page.fill("#notes", "first manual game")
    page.get_by_role("button", name="Save game").click()
    expect(page.locator("#saved-note")).to_be_visible()
    game_id = re.search(r"/games/(\d+)", page.url).group(1)
    expect(page.locator("#game-title")).to_contain_text("lost")

    page.goto("/history")
    no_sideways_scroll(page)
    expect(page.locator(f"#games li[data-game-id='{game_id}']")).to_contain_text("6 / 45 lost")
    expect(page.locator(f"#chart circle.point[data-game-id='{game_id}']")).to_have_count(1)
    expect(page.locator("#stat-games b")).to_have_text("1")

    with page.expect_download() as download:
        page.locator("#export-csv").click()
    rows = list(csv.DictReader(io.StringIO(open(download.value.path()).read())))
    assert [(r["game_id"], r["player"], r["total"], r["notes"]) for r in rows] == [
        (game_id, "Ann", "6", "first manual game")]

    page.locator(f"#chart circle.point[data-game-id='{game_id}']").click()  # the point opens its game
    expect(page).to_have_url(re.compile(rf"/games/{game_id}$"))
    expect(page.locator("#game-notes")).to_have_text("first manual game")
    expect(page.locator(".player .city-grid .piece")).to_have_count(4)

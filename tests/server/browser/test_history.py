"""Phone flows around the log: stacking and removing pieces, a competitive game, deleting a
game with confirmation, importing an export file."""
import json
import re

from playwright.sync_api import expect


def new_game(page, rules, competitive=False, variant="standard"):
    page.goto("/new")
    expect(page.locator("#rule-count")).to_have_text("(0 of 3)")  # the page's script is running
    page.locator(f"input[name=variant][value='{variant}']").check()
    if competitive:
        page.locator("input[name=mode][value='competitive']").check()
        expect(page.locator("#target-note")).to_be_visible()
    for rule in rules:
        page.locator(f"input[name=rules][value='{rule}']").check()
    page.get_by_role("button", name="Enter the city by hand").click()
    expect(page).to_have_url(re.compile(r"/manual$"))


def open_cell(page, row, col):
    page.locator(f"#grid .cell[data-row='{row}'][data-col='{col}']").click()
    return page.locator("#cell-editor")


def place(page, row, col, color, size, level=0):
    editor = open_cell(page, row, col)
    if level:
        editor.get_by_role("button", name="Stack a piece on top").click()
    layer = editor.locator(f".layer[data-level='{level}']")
    layer.locator(f".swatch[data-color='{color}']").click()
    layer.locator(f".size[data-size='{size}']").click()
    editor.get_by_role("button", name="Done").click()


def total(page):
    return page.locator("#sheet tr.total td")


def test_stack_remove_and_rules_count(page):
    page.goto("/new")
    expect(page.locator("#rule-count")).to_have_text("(0 of 3)")
    page.locator("input[name=rules][value='little-boxes']").check()
    page.get_by_role("button", name="Enter the city by hand").click()
    expect(page.locator("#new-error")).to_contain_text("Pick 3 special rules")

    new_game(page, ["mixed-use-development", "garden-city"], variant="small-city")
    place(page, 0, 0, "red", 3)
    place(page, 0, 0, "green", 1, level=1)
    expect(page.locator("#grid .cell[data-row='0'][data-col='0'] .piece")).to_have_count(2)
    expect(total(page)).to_have_text("4")  # red 1 + green 1 + garden city 2
    expect(page.locator("#illegal-block")).to_be_hidden()
    page.reload()  # a phone may drop the tab: the city in progress survives
    expect(page.locator("#grid .cell[data-row='0'][data-col='0'] .piece")).to_have_count(2)
    expect(total(page)).to_have_text("4")

    page.get_by_text("Change the special rules").click()
    page.locator("#rules-choice input[value='garden-city']").uncheck()
    expect(page.locator("#rules-error")).to_contain_text("Pick 2 rules")
    page.locator("#rules-choice input[value='we-compost']").check()
    expect(page.locator("#sheet tr[data-key='rule:we-compost']")).to_be_visible()
    expect(total(page)).to_have_text("2")  # garden city's 2 points gone, we compost scores nothing
    expect(page.locator("#game-line")).to_contain_text("We Compost")
    page.locator("#rules-choice input[value='we-compost']").uncheck()
    page.locator("#rules-choice input[value='garden-city']").check()
    expect(total(page)).to_have_text("4")

    place(page, 0, 1, "red", 3)  # two larges side by side
    expect(page.locator("#illegal li[data-reason='same-size']")).to_contain_text("large")
    expect(page.locator("#grid .cell.illegal")).to_have_count(2)
    editor = open_cell(page, 0, 1)
    editor.get_by_role("button", name="Remove piece").click()
    editor.get_by_role("button", name="Done").click()
    expect(page.locator("#illegal-block")).to_be_hidden()
    expect(total(page)).to_have_text("4")


def test_competitive_game_of_two_players(page):
    new_game(page, ["garden-city", "we-compost", "piazzas"], competitive=True)
    place(page, 0, 0, "red", 1)
    page.get_by_role("button", name="Next player: by hand").click()
    expect(page.locator("#save-error")).to_contain_text("name")
    page.fill("#player", "Ann")
    page.get_by_role("button", name="Next player: by hand").click()
    expect(page.locator("#game-line")).to_contain_text("player 2")
    place(page, 0, 0, "red", 1)
    place(page, 0, 1, "green", 2)
    page.fill("#player", "Bea")
    expect(page.locator("#players li")).to_have_count(2)
    page.get_by_role("button", name="Save game").click()
    expect(page.locator("#saved-note")).to_be_visible()
    expect(page.locator(".player h2")).to_have_text(["1. Bea", "2. Ann"])
    expect(page.locator("#game-title")).to_contain_text("competitive")


def test_delete_with_confirmation_and_import(page, live_server):
    new_game(page, ["garden-city", "we-compost", "piazzas"])
    place(page, 0, 0, "blue", 2)
    page.fill("#notes", "to be deleted")
    page.get_by_role("button", name="Save game").click()
    expect(page.locator("#saved-note")).to_be_visible()
    game_id = re.search(r"/games/(\d+)", page.url).group(1)
    exported = page.request.get("/api/export.json").json()
    exported["games"] = [g for g in exported["games"] if str(g["id"]) == game_id]

    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.get_by_role("button", name="Delete this game").click()
    expect(page.locator("#game-title")).to_be_visible()
    assert len(asked) == 1 and "Delete this game" in asked[0]
    assert page.request.get(f"/api/games/{game_id}").ok  # kept

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete this game").click()
    expect(page).to_have_url(re.compile(r"/history$"))
    expect(page.locator("#stat-games b")).to_be_visible()  # the history is loaded
    expect(page.locator(f"#games li[data-game-id='{game_id}']")).to_have_count(0)
    assert page.request.get(f"/api/games/{game_id}").status == 404

    export = {"name": "games.json", "mimeType": "application/json", "buffer": json.dumps(exported).encode()}
    page.locator("#import-input").set_input_files(export)
    expect(page.locator("#import-result")).to_contain_text("Imported 1 game(s); 0 already here")
    expect(page.locator("#games li")).to_have_count(len(page.request.get("/api/games").json()["games"]))
    page.locator("#import-input").set_input_files(export)
    expect(page.locator("#import-result")).to_contain_text("Imported 0 game(s); 1 already here")
    page.locator("#import-input").set_input_files({"name": "x.json", "mimeType": "application/json", "buffer": b"{nope"})
    expect(page.locator("#import-result")).to_contain_text("not valid JSON")

"""A game from a photo on a phone: upload a sample photo, see the overlay and the sheet, tap
the photo to open a cell, correct one cell and watch the score change, save, find it."""
import io
import json
import re
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import expect

from vision.load import field_of_view, load_photo

RULES = ["little-boxes", "shopping-district", "linear-park"]
SAMPLES = Path(__file__).resolve().parents[3] / "sample_images"


def draft_entry(page):
    draft = page.evaluate("JSON.parse(localStorage.getItem('citycam.draft'))")
    return draft, draft["players"][draft["current"]]


def project(h, col, row):
    w = h[2][0] * col + h[2][1] * row + h[2][2]
    return ((h[0][0] * col + h[0][1] * row + h[0][2]) / w, (h[1][0] * col + h[1][1] * row + h[1][2]) / w)


def start_photo_game(page, no_sideways_scroll=lambda page: None, variant="standard", rules=RULES):
    page.goto("/new")
    expect(page.locator("#rule-count")).to_have_text("(0 of 3)")  # the page's script is running
    page.locator(f"input[name=variant][value='{variant}']").check()
    for rule in rules:
        page.locator(f"input[name=rules][value='{rule}']").check()
    page.get_by_role("button", name="Photograph the city").click()
    expect(page).to_have_url(re.compile(r"/capture$"))
    expect(page.locator("#camera-input")).to_have_attribute("capture", "environment")
    expect(page.locator("#game-line")).to_contain_text("Little Boxes")
    no_sideways_scroll(page)


def test_photo_game_end_to_end(page, no_sideways_scroll, sample_photo):
    start_photo_game(page, no_sideways_scroll)
    page.locator("#gallery-input").set_input_files(str(sample_photo))
    expect(page.locator("#progress")).to_be_visible()
    label = page.locator("#progress-label")
    expect(label).to_contain_text(re.compile(r"\(\d+ kB\)"))
    uploaded_kb = int(re.search(r"\((\d+) kB\)", label.inner_text()).group(1))
    assert uploaded_kb < sample_photo.stat().st_size / 1000  # shrunk on the phone
    expect(page).to_have_url(re.compile(r"/review$"), timeout=90_000)

    draft, entry = draft_entry(page)
    pieces = entry["pieces"]
    detected = entry["detected"]
    unsure = [p for p in detected["pieces"] if p["confidence"] < detected["uncertain_below"]]
    expect(page.locator("#photo-block")).to_be_visible()
    expect(page.locator("#overlay g.piece-mark")).to_have_count(len(pieces))
    expect(page.locator("#overlay g.piece-mark.unsure")).to_have_count(len(unsure))
    expect(page.locator("#grid .piece.unsure")).to_have_count(len(unsure))
    expect(page.locator("#overlay line.grid-line").first).to_be_attached()
    expect(page.locator("#grid .piece")).to_have_count(len(pieces))
    before = page.locator("#sheet tr.total td").inner_text()
    no_sideways_scroll(page)

    # Tapping the photo at a piece's cell opens the editor on that cell.
    first = pieces[0]
    x, y = project(entry["homography"], first["col"] + entry["offset"]["col"], first["row"] + entry["offset"]["row"])
    box = page.locator("#overlay").bounding_box()
    scale = box["width"] / entry["image"]["width"]
    page.locator("#overlay").click(position={"x": x * scale, "y": y * scale})
    editor = page.locator("#cell-editor")
    expect(editor.locator("#editor-title")).to_contain_text(f"row {first['row']}, col {first['col']}:")
    editor.get_by_role("button", name="Done").click()

    # Correct a misread cell: a piece (alone in its cell) with a neighbour becomes a large black. That costs
    # points whatever it was (a black next to something always does, and these rules cannot
    # gain from a black), so the total must move.
    cells = [(p["row"], p["col"]) for p in pieces]
    target = next((p for p in pieces if p["color"] != "black" and cells.count((p["row"], p["col"])) == 1 and any(
        (p["row"] + dr, p["col"] + dc) in cells for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)))), None)
    assert target, f"the detection has no unstacked non-black piece next to another: {pieces}"
    page.locator(f"#grid .cell[data-row='{target['row']}'][data-col='{target['col']}']").click()
    layer = editor.locator(".layer[data-level='0']")
    layer.locator(".swatch[data-color='black']").click()
    layer.locator(".size[data-size='3']").click()
    editor.get_by_role("button", name="Done").click()
    draft, entry = draft_entry(page)
    city = {"variant": draft["variant"], "rules": draft["rules"],
            "pieces": [{k: p[k] for k in ("row", "col", "color", "size", "level")} for p in entry["pieces"]]}
    expected = page.request.post("/api/score", data=json.dumps(city), headers={"Content-Type": "application/json"}).json()
    expect(page.locator("#sheet tr.total td")).to_have_text(str(expected["total"]))
    assert int(before) > expected["total"]
    expect(page.locator(f"#overlay g.piece-mark[data-row='{target['row']}'][data-col='{target['col']}'] circle")
           ).to_have_attribute("stroke", "#111")

    page.fill("#notes", "from a photo")
    page.get_by_role("button", name="Save game").click()
    expect(page.locator("#saved-note")).to_be_visible()
    game_id = re.search(r"/games/(\d+)", page.url).group(1)
    expect(page.locator(".player img.photo")).to_be_visible()
    expect(page.locator(".player .overlay g.piece-mark")).to_have_count(len(pieces))  # as detected
    saved = page.request.get(f"/api/games/{game_id}").json()
    assert saved["total"] == expected["total"] and saved["detected"]["photo"] == saved["photo"]

    page.goto("/history")
    expect(page.locator(f"#games li[data-game-id='{game_id}']")).to_be_visible()
    expect(page.locator(f"#chart circle.point[data-game-id='{game_id}']")).to_have_count(1)


def test_a_file_that_is_not_a_photo_gets_a_friendly_line(page, tmp_path):
    start_photo_game(page)
    notes = tmp_path / "notes.jpg"
    notes.write_text("groceries: eggs, milk")
    page.locator("#gallery-input").set_input_files(str(notes))
    expect(page.locator("#capture-error")).to_be_visible(timeout=30_000)
    expect(page.locator("#capture-error")).to_contain_text("enter the city by hand")
    expect(page).to_have_url(re.compile(r"/capture$"))
    expect(page.locator("#progress")).to_be_hidden()


def test_a_60_mb_file_gets_a_friendly_line(page, tmp_path):
    start_photo_game(page)
    huge = tmp_path / "huge.jpg"
    huge.write_bytes(b"\xff\xd8" + b"\0" * (60 * 1024 * 1024))
    page.locator("#gallery-input").set_input_files(str(huge))
    expect(page.locator("#capture-error")).to_contain_text("too large", timeout=30_000)
    expect(page.locator("#capture-error")).to_contain_text("enter the city by hand")


def test_an_empty_cell_in_doubt_is_marked_until_the_player_opens_it(page, sample_photo):
    """The detection doubts an empty cell beside the city (as where a black piece on a dark
    table may have gone unseen; the answer is edited to hold one, whatever the photo shows):
    the photo and the plan mark it, the mark survives a reload, and it goes once the player
    opens the cell, who can then put the missed piece there."""
    def with_a_doubt(route):
        response = route.fetch()
        detection = response.json()
        taken = {(p["row"], p["col"]) for p in detection["pieces"]}
        detection["doubtful_empty"] = [next([r + dr, c + dc] for r, c in sorted(taken)
                                            for dr, dc in ((0, -1), (-1, 0), (0, 1), (1, 0))
                                            if (r + dr, c + dc) not in taken)]
        route.fulfill(response=response, json=detection)

    page.route("**/api/detect", with_a_doubt)
    start_photo_game(page)
    page.locator("#gallery-input").set_input_files(str(sample_photo))
    expect(page).to_have_url(re.compile(r"/review$"), timeout=90_000)
    _, entry = draft_entry(page)
    ((row, col),) = [(d["row"], d["col"]) for d in entry["doubtful"]]
    mark = page.locator(f"#overlay g.doubt-mark[data-row='{row}'][data-col='{col}']")
    cell = page.locator(f"#grid .cell.doubtful[data-row='{row}'][data-col='{col}']")
    expect(mark).to_have_count(1)
    expect(cell).to_have_count(1)
    expect(cell).to_have_attribute("aria-label", re.compile("empty .check: a piece may stand here"))
    page.reload()
    expect(page.locator("#grid .cell.doubtful")).to_have_count(1)

    page.locator(f"#grid .cell[data-row='{row}'][data-col='{col}']").click()
    editor = page.locator("#cell-editor")
    expect(editor.locator("#editor-title")).to_contain_text(f"row {row}, col {col}: empty")
    layer = editor.locator(".layer[data-level='0']")
    layer.locator(".swatch[data-color='black']").click()
    layer.locator(".size[data-size='2']").click()
    editor.get_by_role("button", name="Done").click()
    expect(page.locator("#overlay g.doubt-mark")).to_have_count(0)
    expect(page.locator("#grid .cell.doubtful")).to_have_count(0)
    _, entry = draft_entry(page)
    assert entry["doubtful"] == []
    assert len(entry["pieces"]) == len(entry["detected"]["pieces"]) + 1


def uploaded_form(page, photo, **game):
    """The fields (name -> bytes: the JPEG as ``photo``) the page uploads when the player
    chooses ``photo`` in a game started with ``game`` (see :func:`start_photo_game`); the
    request goes on to the server, and the review opens."""
    sent = {}

    def keep(route):
        boundary = route.request.headers["content-type"].split("boundary=")[1].encode()
        for part in route.request.post_data_buffer.split(b"--" + boundary):
            head, _, body = part.partition(b"\r\n\r\n")
            name = re.search(rb'name="([^"]+)"', head)
            if name:
                sent[name.group(1).decode()] = body[:-2]  # less the line break before the next boundary
        route.continue_()

    page.route("**/api/detect", keep)
    start_photo_game(page, **game)
    page.locator("#gallery-input").set_input_files(str(photo))
    expect(page).to_have_url(re.compile(r"/review$"), timeout=90_000)
    return sent


def test_the_game_s_variant_and_rules_go_up_with_the_photo(page, sample_photo):
    """The photo of a Small City game is read knowing its variant (its set's supply) and
    rules, and the city comes back of that variant."""
    sent = uploaded_form(page, sample_photo, variant="small-city", rules=RULES[:2])
    assert sent["variant"] == b"small-city" and sent["rules"] == ",".join(RULES[:2]).encode()
    _, entry = draft_entry(page)
    assert entry["detected"]["variant"] == "small-city"


def test_a_photo_shrunk_on_the_phone_keeps_the_lens_it_records(page):
    """A photo taken at 2x zoom is shrunk on the phone to 2000 pixels; the JPEG the phone
    makes still records the lens (38 degrees across), so the server models its camera."""
    jpeg = uploaded_form(page, SAMPLES / "zoom" / "scene_0220.jpg")["photo"]
    assert Image.open(io.BytesIO(jpeg)).size == (2000, 1500)
    assert field_of_view(jpeg) == pytest.approx(38.0, abs=0.5)


def test_a_sideways_photo_goes_up_upright_with_its_lens(page):
    """A photo stored sideways with an Orientation tag is turned upright on the phone; the
    Exif put back says so, or the server would turn it a second time."""
    photo = SAMPLES / "scene_0149.jpg"
    jpeg = uploaded_form(page, photo)["photo"]
    assert load_photo(jpeg, 2000).shape[:2] == (2000, 1500)
    assert field_of_view(jpeg) == pytest.approx(field_of_view(photo.read_bytes()), abs=0.5)


def test_recolouring_pieces_suggests_calibrating_and_the_game_is_kept(page, sample_photo):
    """A player who gives two pieces read from the photo another colour is pointed to the
    calibration page; the game in progress is there when they come back."""
    start_photo_game(page)
    page.locator("#gallery-input").set_input_files(str(sample_photo))
    expect(page).to_have_url(re.compile(r"/review$"), timeout=90_000)
    hint = page.locator("#calibrate-hint")
    expect(hint).to_be_hidden()
    _, entry = draft_entry(page)
    cells = [(p["row"], p["col"]) for p in entry["pieces"]]
    alone = [p for p in entry["pieces"] if cells.count((p["row"], p["col"])) == 1][:2]
    assert len(alone) == 2, f"the detection has fewer than two cells of one piece: {entry['pieces']}"
    editor = page.locator("#cell-editor")
    for k, piece in enumerate(alone):
        page.locator(f"#grid .cell[data-row='{piece['row']}'][data-col='{piece['col']}']").click()
        other = "yellow" if piece["color"] == "red" else "red"
        editor.locator(".layer[data-level='0'] .swatch[data-color='" + other + "']").click()
        editor.get_by_role("button", name="Done").click()
        if k == 0:
            expect(hint).to_be_hidden()  # one misread colour is no pattern
    expect(hint).to_be_visible()
    edited = draft_entry(page)[1]["pieces"]
    hint.get_by_role("link", name="calibrate it to them").click()
    expect(page).to_have_url(re.compile(r"/calibrate$"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/review$"))
    expect(hint).to_be_visible()
    assert draft_entry(page)[1]["pieces"] == edited

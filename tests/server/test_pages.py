"""The HTML pages: each one renders, links its script, and errors are friendly pages."""
import pytest


@pytest.mark.parametrize("path, script", [
    ("/", "index.js"), ("/new", "new.js"), ("/capture", "capture.js"), ("/review", "review.js"),
    ("/manual", "review.js"), ("/history", "history.js"),
])
def test_each_page_renders_for_a_phone(client, path, script):
    response = client.get(path)
    assert response.status_code == 200
    html = response.data.decode()
    assert 'name="viewport" content="width=device-width' in html
    assert f"js/{script}" in html


def test_new_game_lists_every_rule_with_its_target(client):
    html = client.get("/new").data.decode()
    assert html.count('name="rules"') == 18
    assert 'value="little-boxes" data-target="9"' in html
    assert 'value="density-bonusing" data-target="-4"' in html


def test_capture_uses_the_rear_camera_and_the_gallery(client):
    html = client.get("/capture").data.decode()
    assert 'capture="environment"' in html and 'id="gallery-input"' in html


def test_capture_says_how_to_take_a_photo_that_reads_well(client):
    """What misreads most, said before the photo is taken: a low lamp, cards on the city,
    and a printed cloth whose colours are the pieces' own."""
    html = client.get("/capture").data.decode()
    assert "Light it from above" in html and "rule cards off the city" in html
    assert "plain table reads best" in html and "print's own colours" in html


def test_saved_game_page_and_unknown_game(client, city):
    game = client.post("/api/games", json={"city": city}).get_json()
    assert client.get(f"/games/{game['id']}").status_code == 200
    response = client.get("/games/999")
    assert response.status_code == 404
    assert "There is nothing here." in response.data.decode() and "Traceback" not in response.data.decode()


def test_unknown_page_is_a_friendly_html_404(client):
    response = client.get("/nowhere")
    assert response.status_code == 404 and response.mimetype == "text/html"
    assert "There is nothing here." in response.data.decode()


@pytest.mark.parametrize("asset", ["css/site.css", "js/common.js", "js/review.js", "js/overlay.js",
                                   "js/citygrid.js", "js/sheet.js", "js/city.js", "js/history.js", "js/game.js",
                                   "js/celleditor.js", "js/capture.js", "js/new.js", "js/index.js"])
def test_static_assets_are_served(client, asset):
    assert client.get(f"/static/{asset}").status_code == 200


def test_an_unexpected_error_is_logged_not_shown(app, client, monkeypatch, caplog):
    from server import games

    def broken(*_):
        raise RuntimeError("secret detail")

    monkeypatch.setattr(games, "list_games", broken)
    response = client.get("/api/games")
    assert response.status_code == 500
    assert "secret" not in response.data.decode() and "error" in response.get_json()
    assert "secret detail" in caplog.text

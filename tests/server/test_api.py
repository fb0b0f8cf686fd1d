"""The JSON API through Flask's test client: every route and every error."""
import csv
import io
import json

import pytest


def save(client, city, **extra):
    response = client.post("/api/games", json={"city": city, **extra})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_rules_lists_all_special_rules(client):
    rules = client.get("/api/rules").get_json()
    assert len(rules) == 18
    assert {"id": "little-boxes", "name": "Little Boxes", "target": 9} == {k: rules[5][k] for k in ("id", "name", "target")}


def test_score_returns_the_contract_object_with_cells(client, city):
    data = client.post("/api/score", json=city).get_json()
    assert data["base"] == {"red": 3, "yellow": 0, "green": 1, "blue": 1, "black": -2}
    assert [(r["id"], r["points"], r["target"]) for r in data["rules"]] == [
        ("garden-city", 4, 17), ("we-compost", 1, 19), ("little-boxes", 0, 9)]
    assert data["total"] == 3 + 1 + 1 - 2 + 5
    assert data["target"] == 45 and data["won"] is False and data["illegal"] == []
    assert sorted(data["base_cells"]["red"]) == [[0, 0], [0, 1], [1, 1]]
    assert sorted(data["rules"][0]["cells"]) == [[0, 0], [1, 1]]  # the reds next to the green


def test_score_flags_illegal_placements(client, city):
    city["pieces"].append({"row": 2, "col": 1, "color": "blue", "size": 3})  # large next to large red
    data = client.post("/api/score", json=city).get_json()
    assert [i["reason"] for i in data["illegal"]] == ["same-size"]
    assert sorted(data["illegal"][0]["cells"]) == [[1, 1], [2, 1]]


@pytest.mark.parametrize("body, words", [
    (b"{not json", "not valid JSON"),
    (b"", "empty"),
    (b'{"pieces": [{"row": 0, "col": 0, "color": "purple", "size": 1}]}', "purple"),
    (b'{"pieces": [{"row": 0, "col": 0, "color": "red", "size": 4}]}', "size 4"),
    (b'{"pieces": [{"row": 0, "col": 0, "color": "red"}]}', "'size'"),
    (b'{"rules": ["no-such-rule"], "pieces": []}', "no-such-rule"),
])
def test_score_rejects_bad_cities_with_a_message(client, body, words):
    response = client.post("/api/score", data=body, content_type="application/json")
    assert response.status_code == 400
    assert words in response.get_json()["error"]


def test_save_open_list_and_delete_a_game(client, city):
    game = save(client, city, notes="first try", player="Ann", date="2026-05-01")
    assert game["total"] == 8 and game["target"] == 45 and game["won"] is False
    by_cell = lambda pieces: sorted(pieces, key=lambda p: (p["row"], p["col"]))  # noqa: E731
    assert by_cell(game["city"]["pieces"]) == by_cell(city["pieces"]) and game["notes"] == "first try"
    assert game["players"][0]["player"] == "Ann" and game["date"] == "2026-05-01"
    assert client.get(f"/api/games/{game['id']}").get_json() == game
    listed = client.get("/api/games").get_json()["games"]
    assert [(g["id"], g["total"], g["target"], g["won"]) for g in listed] == [(game["id"], 8, 45, False)]
    assert client.delete(f"/api/games/{game['id']}").get_json() == {"deleted": game["id"]}
    assert client.get(f"/api/games/{game['id']}").status_code == 404
    assert client.get("/api/games").get_json()["games"] == []


def test_saved_score_is_the_servers_not_the_clients(client, city):
    game = save(client, city, score={"total": 999})
    assert game["score"]["total"] == 8


def test_saving_twice_with_one_uid_keeps_one_game(client, city):
    first = client.post("/api/games", json={"city": city, "uid": "abc"})
    again = client.post("/api/games", json={"city": city, "uid": "abc"})
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.get_json()["id"] == first.get_json()["id"]
    assert len(client.get("/api/games").get_json()["games"]) == 1


def test_illegal_city_can_be_saved_and_keeps_its_flags(client, city):
    city["pieces"].append({"row": 3, "col": 3, "color": "yellow", "size": 1})
    game = save(client, city)
    assert [i["reason"] for i in game["score"]["illegal"]] == ["disconnected"]


def test_competitive_game_ranks_players(client, city):
    small = {**city, "pieces": city["pieces"][:2]}
    game = client.post("/api/games", json={"players": [
        {"player": "Bea", "city": small}, {"player": "Ann", "city": city}]}).get_json()
    assert game["mode"] == "competitive" and game["won"] is None
    assert [(p["player"], p["rank"]) for p in game["players"]] == [("Bea", 2), ("Ann", 1)]
    assert game["total"] == 8


@pytest.mark.parametrize("players, words", [
    ([{"player": "A", "city": "CITY"}, {"player": "A", "city": "CITY"}], "different name"),
    ([{"player": "A", "city": "CITY"}, {"player": "B", "city": "OTHER_RULES"}], "same variant and rules"),
    ([], "non-empty"),
    ([{"player": "A"}], "missing field 'city'"),
])
def test_competitive_game_errors(client, city, players, words):
    other = {**city, "rules": ["piazzas"]}
    swap = {"CITY": city, "OTHER_RULES": other}
    body = {"players": [{**p, "city": swap[p["city"]]} if "city" in p else p for p in players]}
    response = client.post("/api/games", json=body)
    assert response.status_code == 400 and words in response.get_json()["error"]


@pytest.mark.parametrize("body, words", [
    ({"notes": "no city"}, "missing field 'city'"),
    ({"city": {"pieces": [{"row": "a", "col": 0, "color": "red", "size": 1}]}}, "whole number"),
    ({"city": "CITY", "date": "yesterday"}, "'date'"),
    ({"city": "CITY", "notes": 5}, "'notes' must be text"),
    ({"city": "CITY", "photo": "0" * 32 + ".jpg"}, "upload it again"),
    ({"city": "CITY", "photo": "../citycam.sqlite"}, "upload it again"),
    ([1, 2], "JSON object"),
])
def test_save_rejects_bad_games(client, city, body, words):
    if isinstance(body, dict) and body.get("city") == "CITY":
        body["city"] = city
    response = client.post("/api/games", json=body)
    assert response.status_code == 400 and words in response.get_json()["error"]


def test_save_rejects_malformed_json(client):
    response = client.post("/api/games", data="{'city':", content_type="application/json")
    assert response.status_code == 400 and "not valid JSON" in response.get_json()["error"]


def test_unknown_game_is_404(client):
    for method in (client.get, client.delete):
        response = method("/api/games/4242")
        assert response.status_code == 404
        assert response.get_json() == {"error": "there is no game 4242"}


def test_unknown_api_route_and_wrong_method_answer_json(client):
    assert client.get("/api/nothing").status_code == 404
    assert "error" in client.get("/api/nothing").get_json()
    response = client.put("/api/games")
    assert response.status_code == 405 and "error" in response.get_json()


def test_too_large_upload_is_a_json_413(client):
    big = io.BytesIO(b"\xff" * (60 * 1024 * 1024))
    response = client.post("/api/detect", data={"photo": (big, "huge.jpg")}, content_type="multipart/form-data")
    assert response.status_code == 413
    assert "too large" in response.get_json()["error"]
    assert client.get("/api/rules").status_code == 200  # still serving


def test_too_large_json_is_a_json_413(client):
    response = client.post("/api/score", data=b" " * (41 * 1024 * 1024), content_type="application/json")
    assert response.status_code == 413 and "error" in response.get_json()


def test_stats_win_rates_best_and_average(client, city):
    save(client, city, date="2026-01-02")
    winner = {**city, "rules": ["density-bonusing"]}  # base 3, density -3: 0 against -4, won
    save(client, winner, date="2026-01-01")
    stats = client.get("/api/stats").get_json()
    assert (stats["games"], stats["wins"], stats["win_rate"], stats["best"], stats["average"]) == (2, 1, 0.5, 8, 4.0)
    assert [(p["date"], p["total"], p["target"], p["won"]) for p in stats["points"]] == [
        ("2026-01-01", 0, -4, True), ("2026-01-02", 8, 45, False)]
    per_rule = {r["id"]: (r["games"], r["wins"], r["win_rate"]) for r in stats["per_rule"]}
    assert per_rule == {"density-bonusing": (1, 1, 1.0), "garden-city": (1, 0, 0.0),
                        "we-compost": (1, 0, 0.0), "little-boxes": (1, 0, 0.0)}


def test_stats_of_an_empty_log(client):
    stats = client.get("/api/stats").get_json()
    assert (stats["games"], stats["win_rate"], stats["best"], stats["average"], stats["points"]) == (0, None, None, None, [])


def test_export_csv_has_one_row_per_city(client, city):
    save(client, city, player="Ann", notes="windy, day")
    response = client.get("/api/export.csv")
    assert response.mimetype == "text/csv" and "attachment" in response.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.data.decode())))
    assert len(rows) == 1
    assert {k: rows[0][k] for k in ("player", "total", "target", "won", "red", "black", "rule_points", "pieces", "notes")} == {
        "player": "Ann", "total": "8", "target": "45", "won": "no", "red": "3", "black": "-2",
        "rule_points": "5", "pieces": "6", "notes": "windy, day"}
    assert rows[0]["rules"] == "garden-city we-compost little-boxes"


def test_export_then_import_adds_nothing_twice(client, app, city, tmp_path):
    save(client, city, notes="one")
    save(client, {**city, "rules": ["piazzas"]}, notes="two")
    exported = client.get("/api/export.json").get_json()
    assert exported["format"] == "citycam-games" and len(exported["games"]) == 2
    assert client.post("/api/import", json=exported).get_json() == {"added": 0, "skipped": 2}

    from server import create_app  # a second, empty site imports the file twice
    other = create_app({"TESTING": True, "DATABASE": str(tmp_path / "other.sqlite"),
                        "PHOTO_DIR": str(tmp_path / "other-photos")}).test_client()
    upload = {"file": (io.BytesIO(json.dumps(exported).encode()), "games.json")}
    assert other.post("/api/import", data=upload, content_type="multipart/form-data").get_json() == {"added": 2, "skipped": 0}
    assert other.post("/api/import", json=exported).get_json() == {"added": 0, "skipped": 2}
    games = other.get("/api/games").get_json()["games"]
    assert sorted(g["notes"] for g in games) == ["one", "two"]
    assert {g["uid"] for g in games} == {g["uid"] for g in exported["games"]}


@pytest.mark.parametrize("body, words", [
    ({"games": []}, "not a citycam export"),
    ({"format": "citycam-games", "games": [{"players": [{"city": {"pieces": "x"}}]}]}, "game 1 of the file"),
    ({"format": "citycam-games", "games": [{"uid": "x"}]}, "missing field 'players'"),
])
def test_import_rejects_bad_files(client, body, words):
    response = client.post("/api/import", json=body)
    assert response.status_code == 400 and words in response.get_json()["error"]
    assert client.get("/api/games").get_json()["games"] == []


def test_import_rejects_malformed_json_file(client):
    upload = {"file": (io.BytesIO(b"{oops"), "games.json")}
    response = client.post("/api/import", data=upload, content_type="multipart/form-data")
    assert response.status_code == 400 and "not valid JSON" in response.get_json()["error"]


def test_unknown_photo_is_404(client):
    assert client.get("/api/photos/" + "a" * 32 + ".jpg").status_code == 404
    assert client.get("/api/photos/..%2Fcitycam.sqlite").status_code == 404


@pytest.mark.parametrize("data, words", [
    ({}, "missing field 'photo'"),
    ({"photo": (io.BytesIO(b""), "empty.jpg")}, "empty"),
    ({"photo": (io.BytesIO(b"x"), "a.jpg"), "rules": "little-boxes,nope"}, "unknown rule 'nope'"),
    ({"photo": (io.BytesIO(b"x"), "a.jpg"), "profile": "../../etc/passwd"}, "name of a calibration profile"),
])
def test_detect_rejects_missing_or_bad_fields(client, data, words):
    response = client.post("/api/detect", data=data, content_type="multipart/form-data")
    assert response.status_code == 400 and words in response.get_json()["error"]


def test_detect_needs_a_multipart_form(client):
    response = client.post("/api/detect", json={"photo": "abc"})
    assert response.status_code == 400 and "missing field 'photo'" in response.get_json()["error"]

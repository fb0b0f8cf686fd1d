"""Storage: schema versions and migrations, WAL, concurrent saves, photo housekeeping."""
import os
import sqlite3
import threading
import time

import pytest

from server import create_app, db
from server.photos import prune_unsaved


def tables(path):
    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        conn.close()


def test_a_new_database_gets_the_latest_schema_in_wal_mode(app):
    path = app.config["DATABASE"]
    assert {"schema_version", "games", "cities"} <= tables(path)
    conn = db.connect(path)
    assert db.schema_version(conn) == len(db.MIGRATIONS)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_restart_keeps_the_games(app, client, city, tmp_path):
    game = client.post("/api/games", json={"city": city}).get_json()
    again = create_app({"TESTING": True, "DATABASE": app.config["DATABASE"], "PHOTO_DIR": app.config["PHOTO_DIR"]})
    assert again.test_client().get(f"/api/games/{game['id']}").get_json() == game


def test_migrations_apply_only_what_is_missing_and_keep_data(app, client, city, monkeypatch):
    path = app.config["DATABASE"]
    client.post("/api/games", json={"city": city, "notes": "kept"})
    monkeypatch.setattr(db, "MIGRATIONS", [*db.MIGRATIONS, "ALTER TABLE games ADD COLUMN weather TEXT"])
    assert db.migrate(path) == len(db.MIGRATIONS)
    assert db.migrate(path) == len(db.MIGRATIONS)  # nothing left to do: no error
    conn = db.connect(path)
    assert conn.execute("SELECT notes, weather FROM games").fetchall()[0][:] == ("kept", None)
    assert [r[0] for r in conn.execute("SELECT version FROM schema_version ORDER BY version")] == [1, 2]
    conn.close()


def test_a_failing_migration_leaves_the_previous_version(app, monkeypatch):
    path = app.config["DATABASE"]
    monkeypatch.setattr(db, "MIGRATIONS", [*db.MIGRATIONS, "CREATE TABLE half (x INTEGER); SELECT * FROM nowhere"])
    with pytest.raises(sqlite3.OperationalError):
        db.migrate(path)
    assert "half" not in tables(path)
    conn = db.connect(path)
    assert db.schema_version(conn) == 1
    conn.close()


def test_a_database_from_a_newer_citycam_is_refused(app):
    conn = db.connect(app.config["DATABASE"])
    conn.execute("INSERT INTO schema_version (version) VALUES (99)")
    conn.close()
    with pytest.raises(RuntimeError, match="newer than this citycam"):
        db.migrate(app.config["DATABASE"])


def test_two_phones_saving_at_the_same_moment_both_land(app, city):
    rounds = 15
    start = threading.Barrier(2)
    failures = []

    def phone(name):
        client = app.test_client()
        start.wait()
        for k in range(rounds):
            response = client.post("/api/games", json={"city": city, "player": name, "notes": str(k)})
            if response.status_code != 201:
                failures.append(response.get_json())

    threads = [threading.Thread(target=phone, args=(n,)) for n in ("ann", "bea")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    games = app.test_client().get("/api/games").get_json()["games"]
    assert len(games) == 2 * rounds
    assert sorted(g["players"][0]["player"] for g in games) == ["ann"] * rounds + ["bea"] * rounds


def test_a_failed_transaction_stores_nothing(app):
    conn = db.connect(app.config["DATABASE"])
    with pytest.raises(sqlite3.IntegrityError):
        with db.transaction(conn):
            conn.execute("INSERT INTO games (uid, played_on, saved_at, mode, variant, rules, target, total)"
                         " VALUES ('x', '2026-01-01', 'now', 'solo', 'standard', '[]', 0, 0)")
            conn.execute("INSERT INTO cities (game_id, position, city, score, total) VALUES (12345, 0, '{}', '{}', 0)")
    assert conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
    conn.close()


def test_photos_never_saved_are_pruned_after_two_days(tmp_path):
    old, kept, fresh = ("a" * 32 + ".jpg", "b" * 32 + ".jpg", "c" * 32 + ".jpg")
    for name in (old, kept, fresh, "notes.txt"):
        (tmp_path / name).write_bytes(b"x")
    three_days_ago = time.time() - 3 * 24 * 3600
    for name in (old, kept, "notes.txt"):
        os.utime(tmp_path / name, (three_days_ago, three_days_ago))
    assert prune_unsaved(str(tmp_path), saved={kept}) == 1
    assert sorted(os.listdir(tmp_path)) == sorted([kept, fresh, "notes.txt"])


def test_starting_the_site_prunes_old_unsaved_photos(app, tmp_path):
    photo_dir = app.config["PHOTO_DIR"]
    old = os.path.join(photo_dir, "d" * 32 + ".jpg")
    with open(old, "wb") as f:
        f.write(b"x")
    os.utime(old, (time.time() - 3 * 24 * 3600,) * 2)
    create_app({"TESTING": True, "DATABASE": app.config["DATABASE"], "PHOTO_DIR": photo_dir})
    assert not os.path.exists(old)

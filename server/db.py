"""SQLite storage: one connection per request, a versioned schema migrated on start.

The database runs in WAL mode so readers never block the writer; every write goes through
:func:`transaction`, which takes the write lock up front (``BEGIN IMMEDIATE``) and waits for
it (``busy_timeout``), so two phones saving at the same moment both land.
"""
from __future__ import annotations

import logging
import sqlite3
from contextlib import contextmanager

from flask import current_app, g

log = logging.getLogger(__name__)

BUSY_TIMEOUT_S = 15

# Each entry upgrades the schema by one version; never edit an entry once released,
# append a new one instead.
MIGRATIONS: list[str] = [
    # 1: games and the cities played in them (one for solo, one per player when competitive)
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE,
        played_on TEXT NOT NULL,
        saved_at TEXT NOT NULL,
        mode TEXT NOT NULL,
        variant TEXT NOT NULL,
        rules TEXT NOT NULL,
        notes TEXT NOT NULL DEFAULT '',
        target INTEGER NOT NULL,
        total INTEGER NOT NULL,
        won INTEGER
    );
    CREATE TABLE cities (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        player TEXT NOT NULL DEFAULT '',
        city TEXT NOT NULL,
        detected TEXT,
        score TEXT NOT NULL,
        total INTEGER NOT NULL,
        rank INTEGER,
        photo TEXT
    );
    CREATE INDEX cities_game ON cities(game_id, position);
    CREATE INDEX games_played_on ON games(played_on, id);
    """,
]


def connect(path: str) -> sqlite3.Connection:
    """Open the database in autocommit mode (transactions are explicit), rows as dicts."""
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                           check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_S * 1000}")
    return conn


def get_db() -> sqlite3.Connection:
    """The request's connection, opened on first use."""
    if "db" not in g:
        g.db = connect(current_app.config["DATABASE"])
    return g.db


def close_db(_exc=None) -> None:
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()


@contextmanager
def transaction(conn: sqlite3.Connection):
    """Run a block as one write transaction: all of it lands, or none of it."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def schema_version(conn: sqlite3.Connection) -> int:
    conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return row[0] or 0


def migrate(path: str) -> int:
    """Bring the database at ``path`` to the latest schema; returns the version reached.

    Each migration runs in its own transaction together with its version bump, so a crash
    half-way leaves the database at the previous version. Refuses a database written by a
    newer citycam rather than guessing.
    """
    conn = connect(path)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        with transaction(conn):
            current = schema_version(conn)
        if current > len(MIGRATIONS):
            raise RuntimeError(f"database {path} has schema version {current}, newer than this "
                               f"citycam understands ({len(MIGRATIONS)}); upgrade citycam")
        for version in range(current + 1, len(MIGRATIONS) + 1):
            log.info("migrating %s to schema version %d", path, version)
            with transaction(conn):
                for statement in _statements(MIGRATIONS[version - 1]):
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
        return max(current, len(MIGRATIONS))
    finally:
        conn.close()


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (executescript would commit on its own)."""
    return [s.strip() for s in script.split(";") if s.strip()]

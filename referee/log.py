"""The match log: every refereed match, its events and its scores, in one SQLite file.

::

    with MatchLog("matches.sqlite") as log:
        mid = log.start("pitrush", ["Ann", "Bo"], {"title": "Friday"})
        log.add(mid, events, frame="frames/0003.jpg")
        log.finish(mid, [5, 8])
        log.scoreboard(mid)   # {'players': ['Ann', 'Bo'], 'scores': [5, 8], 'final': True, ...}

The file is created with its schema on first use; the schema's version is SQLite's
``PRAGMA user_version`` (a file written by a newer tableref is refused, not misread).  An event's
``data`` is stored as JSON; values JSON cannot hold (dataclasses, enums, NaN ...) are stored as
their ``str()``.  One ``MatchLog`` may be shared between threads (the web UI's workers, the live
loop): every call takes a lock.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from rules.base import Event
from tableref.errors import InputError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE matches (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    game      TEXT NOT NULL,
    players   TEXT NOT NULL,             -- JSON list of names
    meta      TEXT NOT NULL DEFAULT '{}',-- JSON object
    started   REAL NOT NULL,             -- unix time, s
    finished  REAL,                      -- unix time, s, NULL while the match goes on
    scores    TEXT                       -- JSON list, one per player (final once finished)
);
CREATE TABLE events (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id  INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,          -- 1, 2, ... within the match
    at        REAL NOT NULL,             -- unix time, s
    frame     TEXT,                      -- the settled frame the event came from, if any
    kind      TEXT NOT NULL,
    text      TEXT NOT NULL,
    player    INTEGER,                   -- index into the match's players, or NULL
    points    INTEGER NOT NULL DEFAULT 0,
    data      TEXT NOT NULL DEFAULT '{}' -- JSON object
);
CREATE UNIQUE INDEX events_by_match ON events(match_id, seq);
"""


class UnknownMatch(InputError):
    """No match with that id in the log."""


@dataclass(frozen=True)
class MatchInfo:
    id: int
    game: str
    players: list[str]
    meta: dict[str, Any]
    started: float
    finished: float | None
    scores: list[int] | None
    n_events: int

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["started_iso"] = _iso(self.started)
        d["finished_iso"] = _iso(self.finished)
        return d


@dataclass(frozen=True)
class LoggedEvent:
    seq: int
    at: float
    frame: str | None
    kind: str
    text: str
    player: int | None
    points: int
    data: dict[str, Any]

    def event(self) -> Event:
        """The event as the rules engine gave it (``data`` as stored: JSON values)."""
        return Event(self.kind, self.text, self.player, self.points, self.data)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _iso(t: float | None) -> str | None:
    if t is None:
        return None
    return datetime.fromtimestamp(t, UTC).astimezone().isoformat(timespec="seconds")


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data: containers kept, numbers and strings kept, anything else ``str()``."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, enum.Enum) and not isinstance(value, int):
        return str(value)
    if isinstance(value, int):  # also IntEnum/IntFlag and numpy ints via __index__ below
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    try:  # numpy scalars and arrays without importing numpy here
        import numpy as np

        if isinstance(value, np.ndarray):
            return jsonable(value.tolist())
        if isinstance(value, np.generic):
            return jsonable(value.item())
    except ImportError:  # pragma: no cover
        pass
    return str(value)


class MatchLog:
    """The match log in the SQLite file ``path`` (created, with its schema, on first use)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.last_started: int | None = None
        self._lock = threading.RLock()
        if self.path.is_dir():
            raise InputError(f"{self.path}: is a folder, expected a match log file", "e.g. --log matches.sqlite")
        if not self.path.parent.exists():
            raise InputError(f"{self.path}: its folder {self.path.parent} does not exist", "create it first")
        try:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=10.0)
            self._db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.DatabaseError as e:
            self._close_quietly()
            raise InputError(f"{self.path}: not a match log ({e})",
                             "give a new file name, or one that tableref wrote with --log") from None

    # -------------------------------------------------------------------------- housekeeping

    def _close_quietly(self) -> None:
        db = getattr(self, "_db", None)
        if db is not None:
            try:
                db.close()
            except sqlite3.Error:
                pass
            self._db = None

    def _migrate(self) -> None:
        with self._lock:
            db = self._db
            if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
                return
            db.execute("BEGIN IMMEDIATE")  # one writer creates the schema; others wait, then see it
            try:
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version > SCHEMA_VERSION:
                    raise InputError(f"{self.path}: match log schema version {version} is newer than this "
                                     f"tableref reads ({SCHEMA_VERSION})", "upgrade tableref")
                if version == 0:
                    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                    if tables:
                        raise InputError(f"{self.path}: is an SQLite file but not a match log "
                                         f"(tables {sorted(tables)})", "give a new file name")
                    for stmt in _SCHEMA.split(";"):
                        if stmt.strip():
                            db.execute(stmt)
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                db.commit()
            except BaseException:
                db.rollback()
                raise

    def close(self) -> None:
        with self._lock:
            self._close_quietly()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise InputError(f"{self.path}: the match log is closed")
        return self._db

    def _match_row(self, match_id: int):
        row = self._conn().execute("SELECT id, game, players, meta, started, finished, scores FROM matches "
                                   "WHERE id = ?", (int(match_id),)).fetchone()
        if row is None:
            raise UnknownMatch(f"no match {match_id} in {self.path}", "see the list of matches")
        return row

    # -------------------------------------------------------------------------------- writing

    def start(self, game: str, players: Sequence[str], meta: Mapping[str, Any] | None = None) -> int:
        """Open a new match; returns its id."""
        with self._lock, self._conn() as db:
            cur = db.execute("INSERT INTO matches (game, players, meta, started) VALUES (?, ?, ?, ?)",
                             (str(game), json.dumps([str(p) for p in players]),
                              json.dumps(jsonable(dict(meta or {}))), time.time()))
            self.last_started = int(cur.lastrowid)
            return self.last_started

    def add(self, match_id: int, events: Sequence[Event], frame: str | None = None,
            scores: Sequence[int] | None = None) -> None:
        """Append events to a match (in order), optionally with the running scores after them."""
        with self._lock, self._conn() as db:
            row = self._match_row(match_id)
            if row[5] is not None:
                raise InputError(f"match {match_id} in {self.path} is finished; it takes no more events")
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE match_id = ?",
                             (int(match_id),)).fetchone()[0]
            now = time.time()
            rows = []
            for e in events:
                seq += 1
                rows.append((int(match_id), seq, now, None if frame is None else str(frame), str(e.kind), str(e.text),
                             None if e.player is None else int(e.player), int(e.points or 0),
                             json.dumps(jsonable(dict(e.data or {})), ensure_ascii=False)))
            db.executemany("INSERT INTO events (match_id, seq, at, frame, kind, text, player, points, data) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            if scores is not None:
                db.execute("UPDATE matches SET scores = ? WHERE id = ?",
                           (json.dumps([int(s) for s in scores]), int(match_id)))

    def finish(self, match_id: int, scores: Sequence[int] | Mapping[str, int]) -> None:
        """Close a match with its final scores (one per player, in order, or by player name)."""
        with self._lock, self._conn() as db:
            row = self._match_row(match_id)
            players = json.loads(row[2])
            if isinstance(scores, Mapping):
                missing = [p for p in players if p not in scores]
                if missing:
                    raise InputError(f"match {match_id}: no score for {missing}")
                scores = [scores[p] for p in players]
            scores = [int(s) for s in scores]
            if len(scores) != len(players):
                raise InputError(f"match {match_id}: {len(scores)} scores for {len(players)} players")
            db.execute("UPDATE matches SET finished = ?, scores = ? WHERE id = ?",
                       (time.time(), json.dumps(scores), int(match_id)))

    # -------------------------------------------------------------------------------- reading

    def matches(self) -> list[MatchInfo]:
        """Every match, oldest first."""
        with self._lock:
            rows = self._conn().execute(
                "SELECT m.id, m.game, m.players, m.meta, m.started, m.finished, m.scores, "
                "(SELECT COUNT(*) FROM events e WHERE e.match_id = m.id) FROM matches m ORDER BY m.id").fetchall()
        return [self._info(r, r[7]) for r in rows]

    def match(self, match_id: int) -> MatchInfo:
        with self._lock:
            row = self._match_row(match_id)
            n = self._conn().execute("SELECT COUNT(*) FROM events WHERE match_id = ?", (int(match_id),)).fetchone()[0]
        return self._info(row, n)

    @staticmethod
    def _info(r, n: int) -> MatchInfo:
        return MatchInfo(int(r[0]), r[1], json.loads(r[2]), json.loads(r[3] or "{}"), float(r[4]),
                         None if r[5] is None else float(r[5]), None if r[6] is None else json.loads(r[6]), int(n))

    def events(self, match_id: int) -> list[LoggedEvent]:
        """The events of a match, in order."""
        with self._lock:
            self._match_row(match_id)
            rows = self._conn().execute("SELECT seq, at, frame, kind, text, player, points, data FROM events "
                                        "WHERE match_id = ? ORDER BY seq", (int(match_id),)).fetchall()
        return [LoggedEvent(int(r[0]), float(r[1]), r[2], r[3], r[4], r[5], int(r[6]), json.loads(r[7] or "{}"))
                for r in rows]

    def scoreboard(self, match_id: int) -> dict[str, Any]:
        """Players, scores and winners of a match.

        ``final`` is true once the match is finished.  Before that the scores are the last running
        scores given to :meth:`add`, or else (``source: "event points"``) the sum of the points its
        events moved per player -- provisional: an engine that re-scores the whole board (PitRush)
        may differ until :meth:`finish`.
        """
        info = self.match(match_id)
        if info.scores is not None:
            scores, source = list(info.scores), ("final" if info.finished is not None else "running")
        else:
            scores = [0] * len(info.players)
            for e in self.events(match_id):
                if e.player is not None and 0 <= e.player < len(scores):
                    scores[e.player] += e.points
            source = "event points"
        best = max(scores) if scores else None
        winners = [p for p, s in zip(info.players, scores) if s == best] if info.finished is not None else []
        return {"match": info.id, "game": info.game, "players": list(info.players), "scores": scores,
                "rows": [{"player": p, "score": s, "winner": p in winners} for p, s in zip(info.players, scores)],
                "winners": winners, "final": info.finished is not None, "source": source}

"""One SQLite database shared by every local port, safe for threads and processes.

Each thread (and each process after a fork) gets its own connection. Writes run
in short ``BEGIN IMMEDIATE`` transactions so two writers never deadlock upgrading
a read lock; WAL lets readers proceed while one writer commits.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from local_adapters.errors import DatabaseBusyError

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    created_at REAL NOT NULL,
    sort_time REAL NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_by_status ON jobs (status, sort_time DESC, job_id DESC);
CREATE TABLE IF NOT EXISTS segment_completions (
    job_id TEXT NOT NULL,
    segment_index INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (job_id, segment_index)
);
CREATE TABLE IF NOT EXISTS segment_status (
    job_id TEXT NOT NULL,
    segment_index INTEGER NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    last_error TEXT,
    updated_at REAL NOT NULL,
    run INTEGER NOT NULL DEFAULT 0,  -- the chunking run the row speaks for (Job.run)
    PRIMARY KEY (job_id, segment_index)
);
CREATE TABLE IF NOT EXISTS segment_heartbeats (
    job_id TEXT NOT NULL,
    segment_index INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (job_id, segment_index)
);
CREATE TABLE IF NOT EXISTS reassembly (
    job_id TEXT PRIMARY KEY,
    token INTEGER NOT NULL DEFAULT 0,
    owner TEXT,
    expires_at REAL NOT NULL DEFAULT 0,
    done INTEGER NOT NULL DEFAULT 0,
    triggered_epoch INTEGER  -- NULL until triggered; Retry's epoch may trigger again
);
CREATE TABLE IF NOT EXISTS queue_messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT NOT NULL UNIQUE,
    queue TEXT NOT NULL,
    body TEXT NOT NULL,
    visible_at REAL NOT NULL,
    receipt TEXT,
    receives INTEGER NOT NULL DEFAULT 0,
    dead INTEGER NOT NULL DEFAULT 0,
    dead_reason TEXT,
    dead_at REAL
);
CREATE INDEX IF NOT EXISTS queue_ready ON queue_messages (queue, dead, visible_at);
"""


SCHEMA_PATIENCE = 3  # busy timeouts a new Database waits for its schema in all


class Database:
    """A SQLite file opened lazily per thread and per process.

    ``busy_timeout_s`` bounds how long a statement waits for another writer;
    past it the operation raises DatabaseBusyError (transient).
    """

    def __init__(self, path: Path, *, busy_timeout_s: float = 10.0) -> None:
        self.path = Path(path)
        self.busy_timeout_s = busy_timeout_s
        self._local = threading.local()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._initialise()

    def _initialise(self) -> None:
        """SCHEMA and ``_migrate``, tried again while another process holds the
        file, for up to SCHEMA_PATIENCE busy timeouts in all. Every service of a
        conversion opens the file at once, each creating the schema and
        switching it to WAL, and on a loaded 2-core machine one of them was
        refused with "database is locked" although its busy timeout had not
        run out (SQLite does not wait on every lock it meets here). Both steps
        are idempotent."""
        deadline = time.monotonic() + SCHEMA_PATIENCE * self.busy_timeout_s
        pause = 0.02
        while True:
            try:
                self.connection().executescript(SCHEMA)
                self._migrate()
                return
            except (sqlite3.OperationalError, DatabaseBusyError) as exc:
                held = any(word in str(exc) for word in ("locked", "busy"))
                if not held or time.monotonic() >= deadline:
                    raise DatabaseBusyError(f"cannot create schema in {self.path}: {exc}") from exc
                log.info("schema of %s: %s; trying again", self.path, exc)
            time.sleep(pause)
            pause = min(2 * pause, 0.5)

    def _migrate(self) -> None:
        """Bring a data folder written by an older version up to SCHEMA."""
        with self.write() as conn:
            columns = {row[1] for row in conn.execute("PRAGMA table_info(reassembly)")}
            if "triggered_epoch" not in columns:  # rows of old versions were triggered once
                conn.execute("ALTER TABLE reassembly ADD COLUMN triggered_epoch INTEGER")
                conn.execute("UPDATE reassembly SET triggered_epoch = 0")
            columns = {row[1] for row in conn.execute("PRAGMA table_info(segment_status)")}
            if "run" not in columns:  # rows of old versions belong to run 0
                conn.execute("ALTER TABLE segment_status ADD COLUMN run INTEGER NOT NULL DEFAULT 0")

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=self.busy_timeout_s, isolation_level=None,
            check_same_thread=True,
        )
        conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        # WAL + NORMAL survives any process crash; only an OS crash may lose
        # the last commits, which at-least-once redelivery tolerates.
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def connection(self) -> sqlite3.Connection:
        """This thread's connection (a new one after fork: never share across processes)."""
        conn = getattr(self._local, "conn", None)
        if conn is None or self._local.pid != os.getpid():
            conn = self._connect()
            self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A short write transaction (BEGIN IMMEDIATE ... COMMIT, rolled back on error).

        Raises DatabaseBusyError when SQLite stays locked or fails with I/O errors.
        """
        conn = self.connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise DatabaseBusyError(f"database {self.path} is busy: {exc}") from exc
        try:
            yield conn
        except sqlite3.OperationalError as exc:
            conn.execute("ROLLBACK")
            raise DatabaseBusyError(f"write to {self.path} failed: {exc}") from exc
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            conn.execute("ROLLBACK")
            raise DatabaseBusyError(f"commit to {self.path} failed: {exc}") from exc

    def read(self, sql: str, params: tuple | dict = ()) -> list[sqlite3.Row]:
        """Rows of one read-only statement (autocommit: no transaction held).

        Raises DatabaseBusyError when SQLite fails with an operational error.
        """
        try:
            return self.connection().execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            raise DatabaseBusyError(f"read from {self.path} failed: {exc}") from exc

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` result ("ok" when the file is sound)."""
        return str(self.read("PRAGMA integrity_check")[0][0])

    def close(self) -> None:
        """Close this thread's connection (others close when their threads end)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

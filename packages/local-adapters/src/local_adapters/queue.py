"""Queue on SQLite: leased receive in one UPDATE ... RETURNING, DLQ, redrive.

A message row is visible when ``visible_at <= now``. Receiving sets a new
``receipt`` and pushes ``visible_at`` out by the visibility timeout; only the
current receipt can extend, release or delete. Without a doorbell, a waiting
receive looks for a visible row with a cheap read (WAL readers never block
writers) every few milliseconds and takes the write lock only when one is
there, so a message is picked up within ~20 ms without the waiting workers
contending for writes.
A visible row that was already received ``max_receives`` times moves to the
dead-letter side (``dead = 1``).

With a ``Doorbell`` (the backend wires one) a waiting receive polls nothing:
it sleeps until a sender rings, or until the next message it knows of becomes
visible (a delayed message, a lease running out), at most ``WAKE_INTERVAL_S``,
or until its ``stop`` is set (a draining consumer: a ``StopEvent`` rings the
waiter's own socket; another event is checked every ``STOP_CHECK_S``, without
touching the database).
"""

from __future__ import annotations

import builtins
import logging
import threading
import time
import uuid
from collections.abc import Callable

from shared_types.data_plane import MAX_RECEIVES
from shared_types.errors import LeaseLostError
from shared_types.models import Message, QueueStats, now
from shared_types.stop_event import StopEvent

from local_adapters.db import Database
from local_adapters.doorbell import Doorbell, Ear

log = logging.getLogger(__name__)

MAX_RECEIVES_REASON = "received more than the queue's max receive count"
_POLL_MIN_S = 0.005
_POLL_MAX_S = 0.02
# A waiter with a doorbell re-reads at least this often (a ring lost, another host).
WAKE_INTERVAL_S = 1.0
# How soon a waiting receive notices its ``stop`` (a drain): a socket timeout and
# an event check, no database read.
STOP_CHECK_S = 0.02


class SqliteQueue:
    """One named queue (and its DLQ) inside the shared SQLite database."""

    def __init__(self, db: Database, name: str, *, max_receives: int = MAX_RECEIVES,
                 clock: Callable[[], float] = now, doorbell: Doorbell | None = None) -> None:
        if max_receives < 1:
            raise ValueError(f"max_receives must be at least 1, got {max_receives}")
        self._db = db
        self.name = name
        self.max_receives = max_receives
        self._clock = clock
        self._doorbell = doorbell

    def _ring(self) -> None:
        if self._doorbell is not None:
            self._doorbell.ring(self.name)

    def send(self, body: str, *, delay_s: float = 0) -> str:
        """Enqueue a message, visible after ``delay_s``; returns its message id."""
        message_id = str(uuid.uuid4())
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO queue_messages (message_id, queue, body, visible_at)"
                " VALUES (?, ?, ?, ?)",
                (message_id, self.name, body, self._clock() + max(0.0, delay_s)),
            )
        self._ring()  # a delayed one too: waiters learn when to look
        return message_id

    def receive(self, *, max_messages: int = 1, wait_s: float = 0, visibility_s: float = 30,
                stop: threading.Event | None = None) -> builtins.list[Message]:
        """Lease up to ``max_messages`` for ``visibility_s``; wait up to ``wait_s``,
        or until ``stop`` is set (within ``STOP_CHECK_S``).

        Raises DatabaseBusyError when SQLite stays locked.
        """
        deadline = time.monotonic() + max(0.0, wait_s)
        if wait_s > 0 and self._doorbell is not None:
            # listening before the first look: a message sent after it rings
            with self._doorbell.listen(self.name) as ear:
                return self._receive(max_messages, visibility_s, deadline, ear, stop)
        return self._receive(max_messages, visibility_s, deadline, None, stop)

    def _receive(self, max_messages: int, visibility_s: float, deadline: float,
                 ear: Ear | None, stop: threading.Event | None) -> builtins.list[Message]:
        pause = _POLL_MIN_S
        while True:
            messages = self._lease(max_messages, visibility_s)
            if messages:
                return messages
            while True:  # until a row is visible: only then take the write lock
                remaining = deadline - time.monotonic()
                if remaining <= 0 or (stop is not None and stop.is_set()):
                    return []
                until = self._until_visible()
                if until <= 0:
                    break
                if ear is not None:
                    _listen(ear, min(remaining, until), stop)
                else:
                    time.sleep(min(pause, remaining, until))
                    pause = min(pause * 2, _POLL_MAX_S)

    def _until_visible(self) -> float:
        """Seconds until this queue's next message becomes visible (0: one is
        now), capped at ``WAKE_INTERVAL_S``: one indexed read."""
        [(first,)] = self._db.read(
            "SELECT MIN(visible_at) FROM queue_messages WHERE queue = ? AND dead = 0",
            (self.name,))
        if first is None:
            return WAKE_INTERVAL_S
        return min(max(0.0, first - self._clock()), WAKE_INTERVAL_S)

    def _lease(self, max_messages: int, visibility_s: float) -> builtins.list[Message]:
        t = self._clock()
        with self._db.write() as conn:
            moved = conn.execute(
                "UPDATE queue_messages SET dead = 1, dead_reason = ?, dead_at = ?, receipt = NULL"
                " WHERE queue = ? AND dead = 0 AND visible_at <= ? AND receives >= ?",
                (MAX_RECEIVES_REASON, t, self.name, t, self.max_receives),
            ).rowcount
            rows = conn.execute(
                "UPDATE queue_messages SET receives = receives + 1, visible_at = ?,"
                "   receipt = message_id || ':' || lower(hex(randomblob(8)))"
                " WHERE seq IN (SELECT seq FROM queue_messages"
                "   WHERE queue = ? AND dead = 0 AND visible_at <= ? ORDER BY seq LIMIT ?)"
                " RETURNING seq, message_id, body, receipt, receives",
                (t + visibility_s, self.name, t, max_messages),
            ).fetchall()
        if moved:
            log.warning("queue=%s dead-lettered %d message(s) past %d receives",
                        self.name, moved, self.max_receives)
        return [Message(message_id=r[1], body=r[2], receipt=r[3], receive_count=r[4])
                for r in sorted(rows)]

    def _update_held(self, message: Message, sql: str, params: tuple) -> int:
        with self._db.write() as conn:
            return conn.execute(
                sql + " WHERE message_id = ? AND receipt = ? AND dead = 0",
                (*params, message.message_id, message.receipt),
            ).rowcount

    def extend(self, message: Message, visibility_s: float) -> None:
        """Keep a leased message invisible ``visibility_s`` more seconds.

        Raises LeaseLostError when the receipt is no longer current.
        """
        changed = self._update_held(
            message, "UPDATE queue_messages SET visible_at = ?", (self._clock() + visibility_s,))
        if not changed:
            raise LeaseLostError(f"queue {self.name}: lease of {message.message_id} was lost")

    def delete(self, message: Message) -> None:
        """Acknowledge a message; a stale receipt deletes nothing."""
        with self._db.write() as conn:
            conn.execute("DELETE FROM queue_messages WHERE message_id = ? AND receipt = ?",
                         (message.message_id, message.receipt))

    def release(self, message: Message) -> None:
        """Make a leased message visible again now (no-op for a stale receipt)."""
        if self._update_held(message, "UPDATE queue_messages SET visible_at = ?",
                             (self._clock(),)):
            self._ring()

    def dead_letter(self, message: Message, reason: str) -> None:
        """Move a leased message to the dead-letter queue now, recording ``reason``."""
        self._update_held(
            message,
            "UPDATE queue_messages SET dead = 1, dead_reason = ?, dead_at = ?, receipt = NULL",
            (reason, self._clock()),
        )

    def dead_letters(self, *, limit: int = 100) -> builtins.list[Message]:
        """Dead-lettered messages, oldest first, without consuming them."""
        rows = self._db.read(
            "SELECT message_id, body, receives, dead_reason FROM queue_messages"
            " WHERE queue = ? AND dead = 1 ORDER BY dead_at, seq LIMIT ?", (self.name, limit))
        return [Message(message_id=r[0], body=r[1], receipt="", receive_count=r[2],
                        dead_reason=r[3]) for r in rows]

    def dead_letter_reason(self, message_id: str) -> str | None:
        """Why a message was dead-lettered, or None if it is not dead-lettered."""
        rows = self._db.read(
            "SELECT dead_reason FROM queue_messages WHERE message_id = ? AND dead = 1",
            (message_id,))
        return rows[0][0] if rows else None

    def redrive(self, *, limit: int | None = None) -> int:
        """Move dead-lettered messages back (receive count reset); returns how many."""
        with self._db.write() as conn:
            moved = conn.execute(
                "UPDATE queue_messages SET dead = 0, dead_reason = NULL, dead_at = NULL,"
                "   receives = 0, receipt = NULL, visible_at = ?"
                " WHERE seq IN (SELECT seq FROM queue_messages WHERE queue = ? AND dead = 1"
                "   ORDER BY dead_at, seq LIMIT ?)",
                (self._clock(), self.name, -1 if limit is None else limit),
            ).rowcount
        if moved:
            self._ring()
        return moved

    def stats(self) -> QueueStats:
        """Visible / in-flight / dead-letter counts (exact for this backend)."""
        row = self._db.read(
            "SELECT COALESCE(SUM(dead = 0 AND visible_at <= ?), 0),"
            "       COALESCE(SUM(dead = 0 AND visible_at > ?), 0),"
            "       COALESCE(SUM(dead = 1), 0)"
            " FROM queue_messages WHERE queue = ?", (self._clock(), self._clock(), self.name))[0]
        return QueueStats(visible=row[0], in_flight=row[1], dead_letters=row[2])

    def purge(self) -> None:
        """Remove every message of this queue and its DLQ (tests and admin)."""
        with self._db.write() as conn:
            conn.execute("DELETE FROM queue_messages WHERE queue = ?", (self.name,))


def _listen(ear: Ear, timeout_s: float, stop: threading.Event | None) -> None:
    """Wait for a ring for up to ``timeout_s``, or until ``stop`` is set: a
    ``StopEvent`` rings the ear itself; another event is checked every
    ``STOP_CHECK_S``."""
    if stop is None:
        ear.wait(timeout_s)
        return
    if isinstance(stop, StopEvent):
        with stop.waking(ear.wake):
            ear.wait(timeout_s)
        return
    end = time.monotonic() + timeout_s
    while not stop.is_set():
        left = end - time.monotonic()
        if left <= 0 or ear.wait(min(left, STOP_CHECK_S)):
            return

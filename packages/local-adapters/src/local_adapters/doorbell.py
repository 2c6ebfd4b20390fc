"""Doorbell: wake the processes waiting on a local queue the moment it gets a message
(or on a job's status, ``local_adapters.job_changes``: any named channel).

SQLite has no notification, so a waiting receive would have to poll. Instead
each waiting receive binds a UNIX datagram socket in a folder shared by every
process of one database (``listen``); whoever makes a message visible sends an
empty datagram to every socket of that queue (``ring``). A waiter sleeps until
a ring, or until the next message it knows of becomes visible (a delayed
message, an expiring lease: nobody rings for those), or a safety interval.

A ring is only a hint: waiters always re-read the database, so a lost or
extra ring costs at most one interval or one read. The socket files of a
killed process refuse datagrams and are removed by the next ring. Where UNIX
sockets are missing (Windows) or the path is too long, ``Doorbell.for_database``
returns None and the queue polls as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import socket
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger(__name__)

# Longest socket path every supported OS binds (Linux allows 107, macOS 103).
_MAX_PATH = 100
_SUFFIX = ".sock"
_MAX_CHANNEL, _TOKEN_CHARS = 24, 12  # a socket's name: <channel>@<random hex>.sock


class Ear:
    """One waiter's socket: ``wait`` returns on a ring or after ``timeout_s``."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._path = sock.getsockname()

    def wake(self) -> None:
        """Ring this ear alone (its own waiter is told to stop); never raises."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
            sender.setblocking(False)
            try:
                sender.sendto(b"", self._path)
            except BlockingIOError:  # rings are pending already: it wakes anyway
                pass
            except OSError as exc:  # closed meanwhile: its wait is over
                log.debug("waking %s failed: %s", self._path, exc)

    def wait(self, timeout_s: float) -> bool:
        """Sleep until a ring or ``timeout_s``; True when rung. Drains rings already queued."""
        self._sock.settimeout(max(0.0, timeout_s))
        try:
            self._sock.recv(1)
        except (TimeoutError, BlockingIOError):
            return False
        self._drain()
        return True

    async def wait_async(self, timeout_s: float) -> bool:
        """``wait`` for a coroutine: the event loop runs while it waits."""
        self._sock.setblocking(False)
        try:
            await asyncio.wait_for(asyncio.get_running_loop().sock_recv(self._sock, 1),
                                   max(0.0, timeout_s))
        except TimeoutError:
            return False
        self._drain()
        return True

    def _drain(self) -> None:
        """Empty the rings already queued: one wake-up answers them all."""
        self._sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            while True:
                self._sock.recv(1)


class Doorbell:
    """Rings and ears of the channels (queue names) of one database, in ``folder``."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).close()  # OSError where unsupported
        self.folder = folder

    @classmethod
    def for_database(cls, db_path: Path) -> Doorbell | None:
        """The doorbell every process opening ``db_path`` shares: a folder beside
        the database, or in the temp dir (named from the database's path) where
        that path is too long for a socket; None where neither can work."""
        if not hasattr(socket, "AF_UNIX"):
            return None
        db_path = Path(db_path).resolve()
        key = hashlib.sha256(str(db_path).encode()).hexdigest()[:16]
        uid = os.getuid() if hasattr(os, "getuid") else 0
        for folder in (db_path.parent / "doorbell",
                       Path(tempfile.gettempdir()) / f"stereo-spot-{uid}" / key):
            longest = folder / f"{'x' * _MAX_CHANNEL}@{'x' * _TOKEN_CHARS}{_SUFFIX}"
            if len(os.fsencode(longest)) > _MAX_PATH:
                continue
            try:
                return cls(folder)
            except OSError as exc:
                log.info("no doorbell in %s (%s)", folder, exc)
        log.info("no doorbell for %s: its queues poll", db_path)
        return None

    @contextlib.contextmanager
    def listen(self, channel: str) -> Iterator[Ear]:
        """A socket that hears ``ring(channel)`` while the block runs (removed
        after). A folder removed meanwhile (a temp cleaner) is made again."""
        path = self.folder / f"{channel}@{uuid.uuid4().hex[:_TOKEN_CHARS]}{_SUFFIX}"
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            try:
                sock.bind(os.fspath(path))
            except FileNotFoundError:
                self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                sock.bind(os.fspath(path))
            yield Ear(sock)
        finally:
            sock.close()
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    def ring(self, channel: str) -> int:
        """Wake every waiter of ``channel``; returns how many were rung."""
        prefix = f"{channel}@"
        try:
            ears = [e.path for e in os.scandir(self.folder)
                    if e.name.startswith(prefix) and e.name.endswith(_SUFFIX)]
        except FileNotFoundError:  # removed under us (a temp cleaner): nobody listens
            return 0
        if not ears:
            return 0
        rung = 0
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
            sender.setblocking(False)
            for path in ears:
                try:
                    sender.sendto(b"", path)
                    rung += 1
                except BlockingIOError:  # its buffer is full: it has rings pending already
                    rung += 1
                except (ConnectionRefusedError, FileNotFoundError):  # its process is gone
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
                except OSError as exc:  # never fail a send for a hint
                    log.debug("doorbell ring of %s failed: %s", path, exc)
        return rung

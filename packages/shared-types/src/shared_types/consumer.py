"""The thin worker loop and the one failure policy of every worker.

A worker hands the loop a :class:`Route`: how a message decodes into commands,
the pure handler that takes one command, the job a command concerns and the
stage name. The loop owns everything else, in one place:

- decode fails (``MalformedMessageError``) -> dead-lettered at once with the
  reason (recorded, never retried);
- a handler returns                 -> next command; after the last one the
                                       message is deleted (acknowledged);
- a handler raises ``PermanentError`` -> that command's job is failed with the
                                       error's code, message and the stage; the
                                       other commands still run; then ack;
- ``OwnedElsewhereError`` or ``ConditionFailedError`` (a lease is busy or was
  lost, the job moved on) -> retried later, never a reason to fail the job;
- anything else (transient)         -> redelivered after a backoff with jitter;
  on the ``max_attempts``-th receive the job is failed (``retries_exhausted``,
  or ``disk_full`` when the last error was a full disk: ``failure.exhausted_code``,
  with the last error) and the message is dead-lettered with the same reason.

While the handlers run, a heartbeat thread extends the message's visibility; a
message whose lease was lost meanwhile is not acknowledged (another consumer
holds it now) and is counted in ``Consumer.leases_lost``.
Setting ``stop`` (SIGTERM) drains: no new receives, the current message finishes.
"""

from __future__ import annotations

import logging
import random
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from shared_types.data_plane import MAX_RECEIVES
from shared_types.errors import (
    ConditionFailedError,
    LeaseLostError,
    MalformedMessageError,
    OwnedElsewhereError,
    PermanentError,
    RetriesExhaustedError,
    StereoSpotError,
)
from shared_types.failure import exhausted_code
from shared_types.models import Message
from shared_types.ports import Queue
from shared_types.stop_event import StopEvent

log = logging.getLogger(__name__)

C = TypeVar("C")
# (job_id, stage, error) -> None: fails the job
# (shared_types.segment_retention.fail_for_and_release)
FailJob = Callable[[str, str, BaseException], object]
NEVER_FAILS_THE_JOB = (OwnedElsewhereError, ConditionFailedError)


@dataclass(frozen=True)
class Route(Generic[C]):
    """What one queue carries and who handles it."""

    stage: str
    decode: Callable[[Message], list[C]]  # raises MalformedMessageError
    handle: Callable[[C], object]
    job_id: Callable[[C], str | None]


@dataclass
class ConsumerConfig:
    wait_s: float = 20.0
    visibility_s: float = 120.0
    heartbeat_s: float | None = None  # default: a third of visibility_s
    max_messages: int = 1
    backoff_base_s: float = 2.0
    backoff_max_s: float = 300.0
    idle_sleep_s: float = 0.0  # extra pause after an empty receive (backends without long poll)
    # a transient failure on this receive fails the job: the queue's own limit
    max_attempts: int = MAX_RECEIVES


def retry_delay(receive_count: int, base_s: float, max_s: float) -> float:
    """Exponential backoff with full jitter for the n-th failed attempt."""
    return random.uniform(base_s, min(max_s, base_s * 2 ** max(0, receive_count - 1)))


class Heartbeat:
    """Extends a message's visibility every ``interval_s`` until stopped."""

    def __init__(self, queue: Queue, message: Message, visibility_s: float, interval_s: float):
        self._queue, self._message = queue, message
        self._visibility_s, self._interval_s = visibility_s, interval_s
        self._done = threading.Event()
        self.lost = False
        self._thread = threading.Thread(target=self._run, daemon=True, name="heartbeat")

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._done.wait(self._interval_s):
            try:
                self._queue.extend(self._message, self._visibility_s)
            except LeaseLostError:
                self.lost = True
                log.warning("queue=%s message=%s lease lost during work",
                            self._queue.name, self._message.message_id)
                return
            except Exception:  # a missed beat is not fatal; the next one may work
                log.warning("queue=%s heartbeat failed", self._queue.name, exc_info=True)


@dataclass
class Consumer(Generic[C]):
    """Consumes one queue along one route until ``stop`` is set."""

    queue: Queue
    route: Route[C]
    config: ConsumerConfig = field(default_factory=ConsumerConfig)
    fail_job: FailJob | None = None
    stop: threading.Event = field(default_factory=StopEvent)
    leases_lost: int = 0

    def run(self) -> None:
        log.info("queue=%s consumer started", self.queue.name)
        while not self.stop.is_set():
            try:
                messages = self.queue.receive(
                    max_messages=self.config.max_messages,
                    wait_s=self.config.wait_s,
                    visibility_s=self.config.visibility_s,
                    stop=self.stop,  # a drain ends the wait (where the backend can)
                )
            except Exception:
                log.exception("queue=%s receive failed; retrying", self.queue.name)
                self.stop.wait(1.0)
                continue
            if not messages and self.config.idle_sleep_s:
                self.stop.wait(self.config.idle_sleep_s)
            for message in messages:
                if self.stop.is_set():
                    self._safely(self.queue.release, message)
                    continue
                self.process(message)
        log.info("queue=%s consumer drained and stopped", self.queue.name)

    def process_once(self, *, wait_s: float = 0) -> bool:
        """Receive and settle at most one message; True if there was one."""
        messages = self.queue.receive(max_messages=1, wait_s=wait_s,
                                      visibility_s=self.config.visibility_s)
        for message in messages:
            self.process(message)
        return bool(messages)

    def process(self, message: Message) -> None:
        """Decode, handle and settle one leased message (ack, dead-letter or retry)."""
        try:
            commands = self.route.decode(message)
        except MalformedMessageError as exc:
            log.warning("queue=%s message=%s malformed, dead-lettered: %s",
                        self.queue.name, message.message_id, exc)
            self._safely(self.queue.dead_letter, message, str(exc))
            return
        interval = self.config.heartbeat_s or self.config.visibility_s / 3
        with Heartbeat(self.queue, message, self.config.visibility_s, interval) as beat:
            retry = self._handle_all(message, commands)
        if beat.lost:
            self.leases_lost += 1
            log.warning("queue=%s message=%s lease lost meanwhile; not settled here "
                        "(lost so far: %d)", self.queue.name, message.message_id,
                        self.leases_lost)
        elif retry is None:
            self._safely(self.queue.delete, message)
        else:
            self._retry_or_give_up(message, commands, retry)

    def _handle_all(self, message: Message, commands: list[Any]) -> Exception | None:
        """Run every command; the first retryable error stops the rest (they run again
        on redelivery, idempotently) and is returned."""
        for command in commands:
            try:
                self.route.handle(command)
            except PermanentError as exc:
                log.warning("queue=%s message=%s permanent failure: %s",
                            self.queue.name, message.message_id, exc)
                self._fail(command, exc)
            except Exception as exc:
                return exc
        return None

    def _retry_or_give_up(self, message: Message, commands: list[Any], exc: Exception) -> None:
        n = message.receive_count
        if n >= self.config.max_attempts and not isinstance(exc, NEVER_FAILS_THE_JOB):
            reason = RetriesExhaustedError(
                f"The {self.route.stage} step kept failing after {n} attempts "
                f"(last error: {exc}).", code=exhausted_code(exc))
            log.error("queue=%s message=%s %s", self.queue.name, message.message_id, reason)
            for command in commands:
                self._fail(command, reason)
            self._safely(self.queue.dead_letter, message, str(reason))
            return
        delay = retry_delay(n, self.config.backoff_base_s, self.config.backoff_max_s)
        log.warning("queue=%s message=%s attempt %d failed; retry in %.1fs: %r",
                    self.queue.name, message.message_id, n, delay, exc,
                    # our own errors say what happened; an unexpected one gets its traceback
                    # (the exception itself: this runs after its except block has ended)
                    exc_info=None if isinstance(exc, StereoSpotError) else exc)
        self._safely(self.queue.extend, message, delay)

    def _fail(self, command: Any, exc: BaseException) -> None:
        job_id = self.route.job_id(command)
        if job_id is not None and self.fail_job is not None:
            self._safely(self.fail_job, job_id, self.route.stage, exc)

    def _safely(self, fn: Callable[..., object], *args: object) -> None:
        try:
            fn(*args)
        except Exception:
            log.warning("queue=%s %s failed", self.queue.name, getattr(fn, "__name__", fn),
                        exc_info=True)


def run_consumers(consumers: list[Consumer], *, install_signals: bool = True,
                  daemon: bool = False) -> None:
    """Run consumers in threads until SIGTERM/SIGINT; drain, then return.

    All consumers share the first consumer's stop event. ``daemon`` threads do
    not hold up their process's exit (a host that gives up on a drain).
    """
    if not consumers:
        return
    stop = consumers[0].stop
    for c in consumers:
        c.stop = stop
    if install_signals and threading.current_thread() is threading.main_thread():
        def _drain(signum: int, _frame: object) -> None:
            log.info("signal %d: draining", signum)
            stop.set()

        signal.signal(signal.SIGTERM, _drain)
        signal.signal(signal.SIGINT, _drain)
    threads = [threading.Thread(target=c.run, name=f"consumer-{c.queue.name}", daemon=daemon)
               for c in consumers]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        for t in threads:
            t.join(timeout=0.5)

"""The thin worker loop: receive, dispatch to a pure handler, acknowledge.

This module holds the only broad ``except`` of a worker. Classification:

- the handler returns            -> the message is deleted (acknowledged);
- MalformedMessageError          -> dead-lettered at once with the reason (recorded,
                                    never retried);
- any other PermanentError       -> ``on_permanent`` is told (it fails the job) and
                                    the message is deleted;
- TransientError or anything else -> left for redelivery after a backoff with jitter;
                                    the queue dead-letters it after max receives.

While the handler runs, a heartbeat thread extends the message's visibility.
Setting ``stop`` (SIGTERM) drains: no new receives, the current message finishes.
"""

from __future__ import annotations

import logging
import random
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from shared_types.errors import LeaseLostError, MalformedMessageError, PermanentError
from shared_types.models import Message
from shared_types.ports import Queue

log = logging.getLogger(__name__)

Handler = Callable[[Message], None]
PermanentHook = Callable[[Message, PermanentError], None]


@dataclass
class ConsumerConfig:
    wait_s: float = 20.0
    visibility_s: float = 120.0
    heartbeat_s: float | None = None  # default: a third of visibility_s
    max_messages: int = 1
    backoff_base_s: float = 2.0
    backoff_max_s: float = 300.0
    idle_sleep_s: float = 0.0  # extra pause after an empty receive (backends without long poll)


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
class Consumer:
    """Consumes one queue with one handler until ``stop`` is set."""

    queue: Queue
    handler: Handler
    config: ConsumerConfig = field(default_factory=ConsumerConfig)
    on_permanent: PermanentHook | None = None
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        log.info("queue=%s consumer started", self.queue.name)
        while not self.stop.is_set():
            try:
                messages = self.queue.receive(
                    max_messages=self.config.max_messages,
                    wait_s=self.config.wait_s,
                    visibility_s=self.config.visibility_s,
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

    def process(self, message: Message) -> None:
        """Handle one leased message and settle it (ack, dead-letter or retry)."""
        interval = self.config.heartbeat_s or self.config.visibility_s / 3
        try:
            with Heartbeat(self.queue, message, self.config.visibility_s, interval):
                self.handler(message)
        except MalformedMessageError as exc:
            log.warning("queue=%s message=%s malformed, dead-lettered: %s",
                        self.queue.name, message.message_id, exc)
            self._safely(self.queue.dead_letter, message, str(exc))
        except PermanentError as exc:
            log.warning("queue=%s message=%s permanent failure: %s",
                        self.queue.name, message.message_id, exc)
            if self.on_permanent is not None:
                self._safely(self.on_permanent, message, exc)
            self._safely(self.queue.delete, message)
        except Exception:
            delay = retry_delay(message.receive_count, self.config.backoff_base_s,
                                self.config.backoff_max_s)
            log.exception("queue=%s message=%s attempt %d failed; retry in %.1fs",
                          self.queue.name, message.message_id, message.receive_count, delay)
            self._safely(self.queue.extend, message, delay)
        else:
            self._safely(self.queue.delete, message)

    def _safely(self, fn: Callable[..., object], *args: object) -> None:
        try:
            fn(*args)
        except Exception:
            log.warning("queue=%s %s failed", self.queue.name, getattr(fn, "__name__", fn),
                        exc_info=True)


def run_consumers(consumers: list[Consumer], *, install_signals: bool = True) -> None:
    """Run consumers in threads until SIGTERM/SIGINT; drain, then return.

    All consumers share the first consumer's stop event.
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
    threads = [threading.Thread(target=c.run, name=f"consumer-{c.queue.name}") for c in consumers]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        for t in threads:
            t.join(timeout=0.5)

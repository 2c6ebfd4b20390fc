"""The webhook deliverers: a bounded pool fed by one watching thread.

A receiver that answers slowly (or drips its answer until the deadline cuts
it) holds one pool thread, never the watcher: other jobs' webhooks go out on
the other threads meanwhile. One receiver (host and port) has at most one delivery in
flight, so a host that tarpits every request cannot take the whole pool, and
a job is never delivered twice at once.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from shared_types.models import Job
from shared_types.ports import Backend

from web_ui.webhooks import WebhookConfig, deliver_and_record, due

log = logging.getLogger(__name__)


class WebhookPool:
    """Deliveries on at most ``workers`` threads, one per receiver (host and port) at a time."""

    def __init__(self, backend: Backend, config: WebhookConfig, *, workers: int = 4) -> None:
        self._backend = backend
        self._config = config
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="webhook")
        self._lock = threading.Lock()
        self._jobs: set[str] = set()
        self._hosts: set[str] = set()

    def submit_due(self) -> int:
        """Start a delivery for every due job whose job and host are not busy;
        returns how many were started."""
        started = 0
        for job in due(self._backend):
            host = urlsplit(job.webhook_url or "").netloc.lower()  # host:port
            with self._lock:
                if job.job_id in self._jobs or host in self._hosts:
                    continue
                self._jobs.add(job.job_id)
                self._hosts.add(host)
            self._executor.submit(self._deliver, job, host)
            started += 1
        return started

    def _deliver(self, job: Job, host: str) -> None:
        try:
            deliver_and_record(self._backend, job, self._config)
        except Exception:  # a pool thread must survive; the next pass retries
            log.exception("job_id=%s webhook delivery failed", job.job_id)
        finally:
            with self._lock:
                self._jobs.discard(job.job_id)
                self._hosts.discard(host)

    def busy(self) -> int:
        """Deliveries in flight now."""
        with self._lock:
            return len(self._jobs)

    def close(self) -> None:
        """Stop taking work; deliveries in flight end by their deadline."""
        self._executor.shutdown(wait=False, cancel_futures=True)


def start_notifier(backend: Backend, config: WebhookConfig, *, poll_s: float,
                   workers: int = 4) -> threading.Event:
    """Hand due webhooks to a :class:`WebhookPool` every ``poll_s``, and as soon
    as a job's status changes where the backend tells of it
    (``Backend.job_changes``). It listens before this returns, so a job that
    ends right after is heard, not left to the next pass. Set the returned
    event to stop it (seen at its next pass)."""
    stop = threading.Event()
    pool = WebhookPool(backend, config, workers=workers)
    listening = contextlib.ExitStack()
    changes = listening.enter_context(backend.job_changes.listen())

    def loop() -> None:
        with listening:
            while not stop.is_set():
                changes.wait(poll_s)
                if stop.is_set():
                    break
                try:
                    pool.submit_due()
                except Exception:  # the only broad except: keep delivering on later polls
                    log.exception("webhook pass failed; retrying on the next poll")
        pool.close()

    threading.Thread(target=loop, name="webhooks", daemon=True).start()
    return stop

"""Job-ended webhooks: a signed JSON POST to the URL a person gave the job.

web-ui delivers them (it holds the secret): a daemon thread looks at recently
ended jobs every ``webhook_poll_s`` and whenever the backend tells of a job's
status change (the local one does: a job's end is posted about at once),
posts to those with a ``webhook_url`` and no ``notified_at``, and records
``notified_at`` once the receiver answered 2xx (so delivery is at least
once; receivers dedupe on ``job_id``). A failed
delivery is retried on later polls for ``RETRY_FOR_S``.

Signature: header ``X-StereoSpot-Signature: t=<unix time>,v1=<hex>`` where
``hex = HMAC-SHA256(secret, f"{t}.{body}")``; receivers recompute it and
reject old timestamps.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import threading
import time
import urllib.error
import urllib.request

from shared_types.models import Job, JobStatus, JobUpdate, now
from shared_types.ports import Backend

from web_ui.errors import BadRequestError

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-StereoSpot-Signature"
ENDED = (JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED)
RETRY_FOR_S = 24 * 3600
SCAN_LIMIT = 50
_URL = re.compile(r"^https?://[^\s]+$")


def form_url(raw: str | None) -> str | None:
    """A webhook URL from a form field (blank means none). Raises BadRequestError."""
    url = (raw or "").strip()
    if not url:
        return None
    if not _URL.match(url):
        raise BadRequestError("The webhook URL must start with http:// or https://.")
    return url


def sign(secret: bytes, body: bytes, timestamp: int) -> str:
    """The signature header value for ``body`` sent at ``timestamp``."""
    digest = hmac.new(secret, f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def payload(job: Job) -> bytes:
    """The JSON body describing how the job ended."""
    return json.dumps({
        "job_id": job.job_id, "status": job.status.value, "title": job.title,
        "mode": job.mode.value, "completed_at": job.completed_at,
        "error": job.error.message if job.error else None,
    }, sort_keys=True).encode()


def deliver(job: Job, secret: bytes, *, timeout_s: float) -> bool:
    """POST the signed body to the job's webhook; True on a 2xx answer."""
    if job.webhook_url is None:
        return False
    body = payload(job)
    request = urllib.request.Request(job.webhook_url, data=body, method="POST", headers={
        "Content-Type": "application/json", "User-Agent": "StereoSpot-Webhook/1",
        SIGNATURE_HEADER: sign(secret, body, int(time.time())),
    })
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310
            return 200 <= response.status < 300
    except (urllib.error.URLError, OSError, ValueError) as exc:
        log.warning("job_id=%s webhook to %s failed: %s", job.job_id, job.webhook_url, exc)
        return False


def due(backend: Backend) -> list[Job]:
    """Recently ended jobs whose webhook is not delivered yet."""
    cutoff = now() - RETRY_FOR_S
    return [job for status in ENDED
            for job in backend.jobs.list_by_status(status, limit=SCAN_LIMIT).items
            if job.webhook_url and job.notified_at is None and job.updated_at >= cutoff]


def deliver_due(backend: Backend, secret: bytes, *, timeout_s: float) -> int:
    """One pass: deliver every due webhook; returns how many were delivered."""
    sent = 0
    for job in due(backend):
        if deliver(job, secret, timeout_s=timeout_s):
            backend.jobs.update(job.job_id, JobUpdate(notified_at=now()))
            log.info("job_id=%s webhook delivered (%s)", job.job_id, job.status.value)
            sent += 1
    return sent


def start_notifier(backend: Backend, secret: bytes, *, poll_s: float,
                   timeout_s: float) -> threading.Event:
    """Run :func:`deliver_due` in a daemon thread every ``poll_s``, and as soon
    as a job's status changes where the backend tells of it
    (``Backend.job_changes``): a job that ends is posted about then. Set the
    returned event to stop it (seen at its next pass)."""
    stop = threading.Event()

    def loop() -> None:
        with backend.job_changes.listen() as changes:
            while not stop.is_set():
                changes.wait(poll_s)
                if stop.is_set():
                    return
                try:
                    deliver_due(backend, secret, timeout_s=timeout_s)
                except Exception:  # the only broad except: keep delivering on later polls
                    log.exception("webhook pass failed; retrying on the next poll")

    threading.Thread(target=loop, name="webhooks", daemon=True).start()
    return stop

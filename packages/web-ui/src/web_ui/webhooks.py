"""Job-ended webhooks: a signed JSON POST to the URL a person gave the job.

web-ui delivers them (it holds the secret): a daemon thread looks at recently
ended jobs every ``webhook_poll_s`` and whenever the backend tells of a job's
status change (the local one does: a job's end is posted about at once), and
hands those with a ``webhook_url`` and no ``notified_at`` to a bounded pool
(``web_ui.webhook_pool``). Each delivery goes through ``web_ui.outbound``
(public addresses only, no redirects, one total deadline). ``notified_at`` is
recorded once the receiver answered 2xx (at least once; receivers dedupe on
``job_id``). A failed delivery is retried with exponential backoff
(``retry_after``), at most ``MAX_ATTEMPTS`` times in all; a URL that may not be
called is given up at once.

Signature: header ``X-StereoSpot-Signature: t=<unix time>,v2=<hex>`` where
``hex = HMAC-SHA256(secret, f"{t}.{url}.{body}")``: the receiver's own URL is
signed, so a body captured by one receiver cannot be replayed to another.
Receivers recompute it and reject old timestamps. The body and the
``X-StereoSpot-Deployment`` header name the deployment that sent it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from dataclasses import dataclass, field

from shared_types.models import Job, JobStatus, JobUpdate, now
from shared_types.ports import Backend
from shared_types.transitions import record

from web_ui.errors import OutboundRefusedError
from web_ui.outbound import DeliveryError, OutboundPolicy, check_url, post

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-StereoSpot-Signature"
DEPLOYMENT_HEADER = "X-StereoSpot-Deployment"
ENDED = (JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED)
RETRY_FOR_S = 24 * 3600
SCAN_LIMIT = 50
MAX_ATTEMPTS = 8
FIRST_RETRY_S = 10.0
LONGEST_RETRY_S = 3600.0


@dataclass(frozen=True)
class WebhookConfig:
    """How this deployment signs and sends its webhooks."""

    secret: bytes
    deployment: str
    deadline_s: float = 5.0
    policy: OutboundPolicy = field(default_factory=OutboundPolicy)


def form_url(raw: str | None, policy: OutboundPolicy) -> str | None:
    """A webhook URL from a form field (blank means none): its scheme and form
    checked now, its addresses again at every delivery. Raises
    OutboundRefusedError (a BadRequestError)."""
    url = (raw or "").strip()
    if not url:
        return None
    check_url(url, policy)
    return url


def sign(secret: bytes, url: str, body: bytes, timestamp: int) -> str:
    """The signature header value for ``body`` sent to ``url`` at ``timestamp``."""
    message = f"{timestamp}.{url}.".encode() + body
    digest = hmac.new(secret, message, hashlib.sha256).hexdigest()
    return f"t={timestamp},v2={digest}"


def payload(job: Job, deployment: str) -> bytes:
    """The JSON body describing how the job ended, and who sends it."""
    return json.dumps({
        "deployment": deployment,
        "job_id": job.job_id, "status": job.status.value, "title": job.title,
        "mode": job.mode.value, "completed_at": job.completed_at,
        "error": job.error.message if job.error else None,
    }, sort_keys=True).encode()


def retry_after(attempts: int) -> float:
    """Seconds to wait after the ``attempts``-th failed delivery."""
    return min(LONGEST_RETRY_S, FIRST_RETRY_S * 2 ** max(0, attempts - 1))


def due(backend: Backend, at: float | None = None) -> list[Job]:
    """Recently ended jobs whose webhook is not delivered yet, whose attempts
    are not used up and whose backoff (from the last attempt, which wrote
    ``updated_at``) has passed."""
    at = now() if at is None else at
    cutoff = at - RETRY_FOR_S
    return [job for status in ENDED
            for job in backend.jobs.list_by_status(status, limit=SCAN_LIMIT).items
            if job.webhook_url and job.notified_at is None and job.updated_at >= cutoff
            and job.webhook_attempts < MAX_ATTEMPTS
            and (job.webhook_attempts == 0
                 or at >= job.updated_at + retry_after(job.webhook_attempts))]


def deliver(job: Job, config: WebhookConfig, *, at: int | None = None) -> bool:
    """POST the signed body to the job's webhook; True on a 2xx answer.
    Raises OutboundRefusedError when the URL or its address may not be called."""
    url = job.webhook_url or ""
    body = payload(job, config.deployment)
    headers = {"Content-Type": "application/json", "User-Agent": "StereoSpot-Webhook/2",
               DEPLOYMENT_HEADER: config.deployment,
               SIGNATURE_HEADER: sign(config.secret, url, body, int(now() if at is None else at))}
    try:
        status = post(url, body, headers, policy=config.policy, deadline_s=config.deadline_s)
    except DeliveryError as exc:
        log.warning("job_id=%s webhook to %s failed: %s", job.job_id, url, exc)
        return False
    if not 200 <= status < 300:
        log.warning("job_id=%s webhook to %s answered %d (redirects are not followed)",
                    job.job_id, url, status)
    return 200 <= status < 300


def deliver_and_record(backend: Backend, job: Job, config: WebhookConfig) -> bool:
    """Deliver one job's webhook and record the outcome: ``notified_at`` on
    success, one more attempt otherwise (all of them when the URL may never be
    called)."""
    try:
        delivered = deliver(job, config)
    except OutboundRefusedError as exc:
        log.warning("job_id=%s webhook refused, not retried: %s", job.job_id, exc)
        record(backend.jobs, job.job_id, JobUpdate(webhook_attempts=MAX_ATTEMPTS))
        return False
    if delivered:
        record(backend.jobs, job.job_id, JobUpdate(notified_at=now()))
        log.info("job_id=%s webhook delivered (%s)", job.job_id, job.status.value)
    else:
        record(backend.jobs, job.job_id, JobUpdate(webhook_attempts=job.webhook_attempts + 1))
    return delivered

"""boto3 clients configured the same way for every adapter.

Every client accepts an endpoint URL, so the adapters also run against
moto_server, LocalStack or MinIO. Clients (unlike boto3 resources) are
thread-safe, so one client may be shared by worker threads.
"""

from __future__ import annotations

import threading
from typing import Any

CONNECT_TIMEOUT_S = 5
# Long enough for a 20 s SQS long poll plus slack.
READ_TIMEOUT_S = 40
MAX_ATTEMPTS = 4

# One session per process: it caches the parsed service models, which makes
# every further client cheap. Creating clients from a session is not
# thread-safe, hence the lock; the clients themselves are.
_session: Any = None
_session_lock = threading.Lock()


def make_client(
    service: str, *, region: str | None = None, endpoint_url: str | None = None
) -> Any:
    """A boto3 client for ``service`` ("s3", "sqs", "dynamodb", "sagemaker-runtime",
    "cloudwatch").

    Uses SigV4, adaptive retries with backoff for throttling, bounded timeouts,
    and path-style S3 addressing when an endpoint URL is given (local servers
    do not resolve bucket sub-domains).
    """
    import boto3
    from botocore.config import Config

    config = Config(
        region_name=region,
        signature_version="s3v4" if service == "s3" else None,
        connect_timeout=CONNECT_TIMEOUT_S,
        read_timeout=READ_TIMEOUT_S,
        retries={"max_attempts": MAX_ATTEMPTS, "mode": "adaptive"},
        s3={"addressing_style": "path"} if endpoint_url else None,
        max_pool_connections=20,
    )
    global _session
    with _session_lock:
        if _session is None:
            _session = boto3.session.Session()
        return _session.client(service, endpoint_url=endpoint_url, config=config)

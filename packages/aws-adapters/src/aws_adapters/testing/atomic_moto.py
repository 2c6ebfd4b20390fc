"""``moto_server`` whose DynamoDB applies one request at a time, as DynamoDB does.

moto's server is threaded and its DynamoDB backend is not thread-safe: two
conditional writes racing on one item can both succeed there, where DynamoDB
applies each conditional write atomically. Our leases and triggers rely on that
atomicity, so tests that race workers over HTTP need it from the emulator too.
Every other service (an SQS long poll above all) stays concurrent.

Run as ``python -m aws_adapters.testing.atomic_moto -H 127.0.0.1 -p PORT``;
the environment (``INITIAL_NO_AUTH_ACTION_COUNT`` and friends) configures moto
as it does ``moto_server``.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable, Iterable
from typing import Any

DYNAMODB_TARGET_PREFIX = "DynamoDB"


class SerialisedDynamoDb:
    """WSGI middleware: DynamoDB requests (by their X-Amz-Target) run one at a time."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app
        self.lock = threading.Lock()

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        if not environ.get("HTTP_X_AMZ_TARGET", "").startswith(DYNAMODB_TARGET_PREFIX):
            return self.app(environ, start_response)
        with self.lock:
            return list(self.app(environ, start_response))


def main(argv: list[str] | None = None) -> None:
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import run_simple

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, required=True)
    args = parser.parse_args(argv)
    app = SerialisedDynamoDb(DomainDispatcherApplication(create_backend_app))
    run_simple(args.host, args.port, app, threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main()

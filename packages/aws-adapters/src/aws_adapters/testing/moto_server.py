"""Run ``moto_server`` on 127.0.0.1 for tests (S3, SQS and DynamoDB over HTTP).

``run_moto_server()`` picks a free port, starts the server as a subprocess,
waits until it answers, yields its endpoint URL and stops it afterwards.
``fake_aws_credentials()`` sets the dummy credentials boto3 needs to sign
requests to it. Pytest users can import the ``moto_server_url`` fixture into a
conftest::

    from aws_adapters.testing.moto_server import moto_server_url  # noqa: F401
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from shared_types.testing.serving import free_port

FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


class MotoServerError(RuntimeError):
    """moto_server could not be found or did not start."""


def moto_server_command() -> list[str]:
    """The argv prefix that starts moto's server from this interpreter's
    environment, with DynamoDB requests applied atomically (see atomic_moto).
    Raises MotoServerError when moto (with its server extra) is not installed."""
    try:
        import moto.moto_server.werkzeug_app  # noqa: F401
    except ImportError as exc:
        raise MotoServerError("moto's server is not installed: install moto[server]") from exc
    return [sys.executable, "-m", "aws_adapters.testing.atomic_moto"]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/moto-api/", timeout=1):
            return True
    except urllib.error.HTTPError:
        return True  # any HTTP answer means it is serving
    except (urllib.error.URLError, OSError):
        return False


@contextmanager
def run_moto_server(*, startup_timeout_s: float = 30.0,
                    command: list[str] | None = None) -> Iterator[str]:
    """Start moto_server (or ``command``, an argv prefix taking moto_server's
    ``-H``/``-p`` options) on a free port of 127.0.0.1 and yield its endpoint URL.

    The process is terminated (then killed) on exit. Raises MotoServerError
    when it exits early or does not answer within ``startup_timeout_s``.
    """
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tempfile.TemporaryFile()
    argv = [*(command or moto_server_command()), "-H", "127.0.0.1", "-p", str(port)]
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + startup_timeout_s
        while not _answers(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                tail = log.read()[-2000:].decode(errors="replace")
                raise MotoServerError(f"moto_server on port {port} did not start: {tail}")
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


def reset_moto_server(url: str) -> None:
    """Forget every resource the server holds (between tests)."""
    request = urllib.request.Request(f"{url}/moto-api/reset", method="POST")
    with urllib.request.urlopen(request, timeout=10):
        pass


@contextmanager
def fake_aws_credentials() -> Iterator[None]:
    """Set dummy AWS credentials in the environment (restored on exit)."""
    saved = {k: os.environ.get(k) for k in FAKE_CREDENTIALS}
    os.environ.update(FAKE_CREDENTIALS)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="session")
def moto_server_url() -> Iterator[str]:
    """A moto_server shared by a test session, with fake credentials set."""
    with fake_aws_credentials(), run_moto_server() as url:
        yield url

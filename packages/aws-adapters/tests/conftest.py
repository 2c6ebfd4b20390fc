"""Fixtures: the whole data plane on in-process moto, and a shared moto_server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings
from shared_types.ports import Backend
from shared_types.settings import BackendSettings

from aws_adapters.testing.moto_server import moto_server_url  # noqa: F401


@pytest.fixture
def serialised_moto(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make in-process moto handle one DynamoDB request at a time, as the real
    service applies each conditional write atomically. moto's in-process
    DynamoDB is not thread-safe, so without this the concurrency contracts
    (eight threads racing one conditional put) test moto's races instead of
    our conditions. Only DynamoDB: an SQS long poll must not block a send."""
    import threading

    from moto.core.botocore_stubber import BotocoreStubber

    lock = threading.Lock()
    unlocked = BotocoreStubber.process_request

    def process_request(self, request):  # type: ignore[no-untyped-def]
        if "dynamodb" not in request.url:
            return unlocked(self, request)
        with lock:
            return unlocked(self, request)

    monkeypatch.setattr(BotocoreStubber, "process_request", process_request)


@pytest.fixture
def aws_settings(serialised_moto: None) -> Iterator[BackendSettings]:
    """Settings whose buckets, queues (max 3 receives) and tables exist on moto."""
    from moto import mock_aws

    from aws_adapters.provision import create_data_plane

    with mock_aws():
        yield create_data_plane(BackendSettings(backend="aws"), max_receives=3)


@pytest.fixture
def backend(aws_settings: BackendSettings) -> Backend:
    from aws_adapters import build_backend

    return build_backend(aws_settings)


# Hypothesis without per-example deadlines: the shared CI machine is noisy.
settings.register_profile("stereo-spot", deadline=None, max_examples=100)
settings.load_profile("stereo-spot")

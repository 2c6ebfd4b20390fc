"""Fixtures: the whole data plane on in-process moto, and a shared moto_server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from shared_types.ports import Backend
from shared_types.settings import BackendSettings

from aws_adapters.testing.moto_server import moto_server_url  # noqa: F401


@pytest.fixture
def aws_settings() -> Iterator[BackendSettings]:
    """Settings whose buckets, queues (max 3 receives) and tables exist on moto."""
    from moto import mock_aws

    from aws_adapters.provision import create_data_plane

    with mock_aws():
        yield create_data_plane(BackendSettings(backend="aws"), max_receives=3)


@pytest.fixture
def backend(aws_settings: BackendSettings) -> Backend:
    from aws_adapters import build_backend

    return build_backend(aws_settings)

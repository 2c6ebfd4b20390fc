import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import uvicorn

from video_worker.settings import VideoWorkerSettings


@contextmanager
def serving(app) -> Iterator[str]:
    """Run ``app`` with uvicorn on a free 127.0.0.1 port in a thread; yields its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def settings(tmp_path) -> VideoWorkerSettings:
    return VideoWorkerSettings(_env_file=None, data_dir=tmp_path / "data",
                               work_dir=tmp_path / "work", sqs_wait_s=0.1, visibility_s=30)


@pytest.fixture
def local_backend(settings):
    local_adapters = pytest.importorskip("local_adapters", reason="local-adapters not installed")
    return local_adapters.build_backend(settings)

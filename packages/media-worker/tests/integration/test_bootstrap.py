"""build_worker wires the configured backend and hands out two consumers."""

from __future__ import annotations

import pytest

from media_worker.bootstrap import build_worker


def test_the_local_backend_is_built_from_settings(settings):
    pytest.importorskip("local_adapters")
    worker = build_worker(settings)
    chunker, joiner = worker.consumers()
    assert (chunker.queue.name, joiner.queue.name) == ("chunking", "reassembly")
    assert chunker.stop is joiner.stop  # one drain signal for both
    assert (settings.data_dir / "state.sqlite3").exists()
    assert worker.deps.segment_seconds == settings.segment_seconds
    assert worker.process_chunking_once() is False  # nothing queued yet


def test_an_explicit_backend_wins(settings, mem_backend):
    worker = build_worker(settings, backend=mem_backend)
    assert worker.deps.backend is mem_backend
    assert not settings.data_dir.exists()

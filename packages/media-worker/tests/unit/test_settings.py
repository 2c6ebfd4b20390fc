"""Settings come from STEREO_SPOT_* variables, once."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from media_worker.settings import MediaWorkerSettings


def test_settings_read_the_stereo_spot_prefix(monkeypatch, tmp_path):
    monkeypatch.setenv("STEREO_SPOT_SEGMENT_SECONDS", "12.5")
    monkeypatch.setenv("STEREO_SPOT_FFMPEG", "/opt/ffmpeg")
    monkeypatch.setenv("STEREO_SPOT_WORK_DIR", str(tmp_path))
    s = MediaWorkerSettings()
    assert (s.segment_seconds, s.ffmpeg, s.work_dir) == (12.5, "/opt/ffmpeg", tmp_path)
    assert s.max_width == 7680
    assert s.segment_seconds > 0


def test_nonsense_limits_are_refused(monkeypatch):
    monkeypatch.setenv("STEREO_SPOT_SEGMENT_SECONDS", "0")
    with pytest.raises(ValidationError):
        MediaWorkerSettings()


def test_a_lease_longer_than_the_visibility_is_refused():
    with pytest.raises(ValidationError, match="lease_s"):
        MediaWorkerSettings(lease_s=300, visibility_s=120)


def test_the_default_probe_limits_are_the_ones_the_engine_applies(monkeypatch):
    from stereo_media.probe_limits import DEFAULT_LIMITS

    from media_worker.bootstrap import probe_limits

    for name in ("MAX_WIDTH", "MAX_HEIGHT", "MAX_SOURCE_BYTES", "PROBE_TIMEOUT_S"):
        monkeypatch.delenv(f"STEREO_SPOT_{name}", raising=False)
    assert probe_limits(MediaWorkerSettings()) == DEFAULT_LIMITS

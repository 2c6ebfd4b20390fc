"""``convert`` runs only the video-workers a video is worth (local_stack.parallelism)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from stereo_media.testing.media import make_video

from local_stack.convert import _planned
from local_stack.settings import StackSettings


def _plan(settings: StackSettings, source: Path) -> tuple[int, str]:
    out = io.StringIO()
    planned = _planned(settings, source, Console(file=out, width=200, no_color=True))
    return planned.workers, out.getvalue()


@pytest.fixture
def two_cores(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 2)


@pytest.fixture(scope="module")
def clips(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("plan")
    return {"short": make_video(folder / "short.mp4", seconds=4, fps=24, audio=False),
            "long": make_video(folder / "long.mp4", seconds=31, size=(64, 48), fps=24,
                               audio=False)}


def test_a_short_video_on_two_cores_runs_one_worker_and_says_so(two_cores, clips, tmp_path):
    workers, said = _plan(StackSettings(data_dir=tmp_path, workers=2), clips["short"])
    assert workers == 1
    assert "1 video-worker(s) instead of 2" in said and "4 s video" in said


def test_a_long_enough_video_keeps_the_workers_asked_for(two_cores, clips, tmp_path):
    workers, said = _plan(StackSettings(data_dir=tmp_path, workers=2), clips["long"])
    assert (workers, said) == (2, "")


def test_fitting_switched_off_keeps_every_worker(two_cores, clips, tmp_path):
    settings = StackSettings(data_dir=tmp_path, workers=2, fit_workers=False)
    assert _plan(settings, clips["short"]) == (2, "")


def test_a_file_whose_header_cannot_be_read_keeps_every_worker(two_cores, tmp_path):
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video at all" * 100)
    # the media worker's probe fails the job with the reason; the plan just stands aside
    assert _plan(StackSettings(data_dir=tmp_path, workers=2), junk) == (2, "")


def test_workers_with_cores_of_their_own_are_never_weighed(monkeypatch, clips, tmp_path):
    monkeypatch.setattr("os.cpu_count", lambda: 4)
    assert _plan(StackSettings(data_dir=tmp_path, workers=2), clips["short"]) == (2, "")

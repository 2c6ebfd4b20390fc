"""Finding ffmpeg ahead of its first run (``find_soon``)."""

import time

from stereo_media import ffmpeg
from stereo_media.ffmpeg import ffmpeg_path, find_soon


def test_find_soon_finds_the_build_in_the_background():
    ffmpeg_path.cache_clear()
    find_soon()
    deadline = time.monotonic() + 60
    while not ffmpeg_path.cache_info().currsize and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ffmpeg_path.cache_info().currsize == 1  # nobody here called it: the thread did


def test_an_explicit_binary_needs_no_finding(monkeypatch):
    ffmpeg_path.cache_clear()
    monkeypatch.setattr(ffmpeg.threading, "Thread", None)  # would raise if used
    find_soon("/opt/ffmpeg/bin/ffmpeg")
    assert ffmpeg_path.cache_info().currsize == 0


def test_once_found_there_is_nothing_to_find(monkeypatch):
    ffmpeg_path()
    monkeypatch.setattr(ffmpeg.threading, "Thread", None)  # would raise if used
    find_soon()

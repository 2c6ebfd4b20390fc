"""A raw H.264/HEVC stream is found (and nothing else is), and its timed copy
plays every picture, in order, at the rate the stream states."""

import subprocess
from pathlib import Path

import pytest

from stereo_media.clock_jumps import continuous_source
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.raw_video import HEAD_BYTES, raw_stream, starts_as_elementary_stream
from stereo_media.testing.media import make_video
from stereo_media.testing.timing import flash_time, frame_times, make_raw_stream

FPS = 30


def run_ffmpeg(args):
    subprocess.run([ffmpeg_path(), *args], check=True, capture_output=True, timeout=120)


@pytest.mark.parametrize(("codec", "b_frames"), [("h264", True), ("h264", False),
                                                 ("hevc", True), ("hevc", False)])
def test_a_raw_stream_is_copied_onto_the_timeline_its_own_rate_gives(tmp_path, codec, b_frames):
    source = make_raw_stream(tmp_path / f"camera.{codec}", codec=codec, b_frames=b_frames,
                             seconds=3.0, fps=FPS, flash_at=2.0)
    raw = raw_stream(source)
    assert raw is not None
    assert (raw.demuxer, raw.rate, raw.reordered) == (codec, FPS, b_frames)

    copy = continuous_source(source, tmp_path, run_ffmpeg)

    assert copy != source and copy.suffix == ".mkv"
    assert raw_stream(copy) is None
    times = frame_times(copy)
    assert len(times) == 3 * FPS  # every picture
    assert times == sorted(times)  # in the order they are shown
    assert max(b - a for a, b in zip(times, times[1:], strict=False)) < 1.5 / FPS
    # at 30 a second, as the stream states: FFmpeg's 25 would show it at 2.4 s
    assert flash_time(copy) == pytest.approx(2.0, abs=1.5 / FPS)


def test_a_stream_coded_in_display_order_is_copied_not_re_encoded(tmp_path):
    source = make_raw_stream(tmp_path / "pi.h264", b_frames=False)
    copy = continuous_source(source, tmp_path, run_ffmpeg)
    with open(source, "rb") as f:
        coded = f.read()
    import av

    with av.open(str(copy)) as container:
        packets = b"".join(bytes(p) for p in container.demux(video=0) if p.size)
    # the same coded pictures (Matroska holds them length-prefixed, not start-coded)
    assert len(packets) == pytest.approx(len(coded), rel=0.02)


def test_files_in_a_container_are_not_taken_for_raw_streams(tmp_path):
    mp4 = make_video(tmp_path / "clip.mp4", seconds=1.0)
    ts, ps = tmp_path / "clip.ts", tmp_path / "clip.mpg"
    run_ffmpeg(["-i", str(mp4), "-c", "copy", "-f", "mpegts", str(ts)])
    run_ffmpeg(["-i", str(mp4), "-c:v", "mpeg2video", "-c:a", "mp2", "-f", "vob", str(ps)])
    for path in (mp4, ts, ps):
        assert raw_stream(path) is None, path
        assert continuous_source(path, tmp_path, _never) == path
    # the transport stream holds the same H.264, start codes and all, but it
    # is not opened with the raw demuxers at all
    with open(ts, "rb") as f:
        assert not starts_as_elementary_stream(f.read(HEAD_BYTES))


@pytest.mark.parametrize(("head", "raw"), [
    (b"\x00\x00\x00\x01\x09\xf0", True),  # H.264: an access unit delimiter first
    (b"\x00\x00\x01\x67\x64", True),  # H.264: a 3-byte start code, then the SPS
    (b"\x00\x00\x00\x01\x40\x01", True),  # HEVC: the VPS
    (b"\x00\x00\x01\xba\x44", False),  # an MPEG program stream's pack header
    (b"\x00\x00\x01\xb3\x14", False),  # MPEG-1/2 video's sequence header
    (b"\x00\x00\x01\xb0\x01", False),  # MPEG-4 Part 2's visual object sequence
    (b"\x47\x40\x00\x10", False),  # a transport stream packet
    (b"\x00\x00\x00\x18ftypmp42", False),  # an MP4
    (b"\x00\x01\x67", False),  # one zero byte is no start code
    (b"\x00\x00\x01", False),  # nothing after the start code
])
def test_what_begins_as_an_elementary_stream(head, raw):
    assert starts_as_elementary_stream(head) is raw


def _never(args):
    raise AssertionError(f"no copy was due: {args}")


def test_an_unreadable_path_is_no_raw_stream(tmp_path):
    assert raw_stream(Path(tmp_path / "missing.h264")) is None

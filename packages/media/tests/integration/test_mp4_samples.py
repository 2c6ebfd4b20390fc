"""The probe reads an MP4's sample table instead of its packets, and only where
the table says what the packets would (``stereo_media.mp4_samples``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import av
import pytest

from stereo_media import mp4_samples
from stereo_media.bounded_probe import probe_video
from stereo_media.errors import UnusableVideoError
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.mp4_samples import composition_offsets, indexed_facts
from stereo_media.packet_facts import PacketFacts
from stereo_media.probe_limits import ProbeLimits
from stereo_media.testing.media import make_video

ROOMY = ProbeLimits(max_bytes=10**10, max_duration_s=36000, max_width=8000, max_height=8000)


def _ffmpeg(*args: str) -> None:
    subprocess.run([ffmpeg_path(), "-v", "error", "-y", *args], check=True)


def _encode(path: Path, *codec: str, seconds: float = 4, frames: int | None = None) -> Path:
    length = ["-frames:v", str(frames)] if frames else ["-t", str(seconds)]
    _ffmpeg("-f", "lavfi", "-i", "testsrc2=size=192x108:rate=25", *length, *codec, str(path))
    return path


def _scanned(path: Path) -> tuple:
    """The facts from every packet, as the probe's scan collects them."""
    facts = PacketFacts()
    with av.open(str(path)) as container:
        for packet in container.demux(container.streams.video[0]):
            if packet.pts is not None and packet.size:
                facts.add(float(packet.pts * packet.time_base),
                          float((packet.duration or 0) * packet.time_base), packet.is_keyframe)
    return facts.result()


def _indexed(path: Path) -> tuple | None:
    with av.open(str(path)) as container:
        facts = indexed_facts(path, container, container.streams.video[0])
    return facts.result() if facts is not None else None


def _same(a: tuple, b: tuple) -> bool:
    return (a[0] == b[0] and a[3] == b[3] and len(a[4]) == len(b[4])
            and all(x == pytest.approx(y, abs=1e-6) for x, y in zip(a[1:3], b[1:3], strict=True))
            and all(x == pytest.approx(y, abs=1e-6) for x, y in zip(a[4], b[4], strict=True)))


@pytest.fixture(scope="module")
def media(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("samples")


@pytest.fixture(scope="module")
def bframes(media) -> Path:
    """H.264 with B-frames: decoding and presentation order differ (a ctts box)."""
    return _encode(media / "bframes.mp4", "-c:v", "libx264", "-g", "25")


@pytest.mark.parametrize("kind", ["plain", "bframes", "open-gop", "mov", "faststart",
                                  "one-frame", "with-audio"])
def test_the_sample_table_gives_what_the_packets_give(kind, media, bframes):
    path = {
        "plain": lambda: make_video(media / "plain.mp4", seconds=3, gop=24),
        "bframes": lambda: bframes,
        "open-gop": lambda: _encode(media / "open.mp4", "-c:v", "libx265",
                                    "-x265-params", "keyint=25:log-level=0"),
        "mov": lambda: _remux(bframes, media / "bframes.mov"),
        "faststart": lambda: _remux(bframes, media / "fast.mp4", "-movflags", "+faststart"),
        "one-frame": lambda: _encode(media / "one.mp4", "-c:v", "libx264", frames=1),
        "with-audio": lambda: make_video(media / "audio.mp4", seconds=3, audio=True),
    }[kind]()
    indexed = _indexed(path)
    assert indexed is not None, "the sample table was not used"
    assert _same(indexed, _scanned(path))
    if kind == "open-gop":
        assert indexed[3]  # leading frames: the source is re-encoded before a cut


def _remux(source: Path, path: Path, *options: str) -> Path:
    _ffmpeg("-i", str(source), "-c", "copy", *options, str(path))
    return path


@pytest.mark.parametrize("kind", ["fragmented", "matroska", "cut-off", "edit-list-discard"])
def test_what_the_sample_table_cannot_vouch_for_is_left_to_the_packet_scan(
        kind, media, bframes, tmp_path):
    if kind == "fragmented":
        path = _remux(bframes, tmp_path / "frag.mp4", "-movflags", "frag_keyframe+empty_moov")
    elif kind == "matroska":
        path = _remux(bframes, tmp_path / "clip.mkv")
    elif kind == "cut-off":  # the index (first) names samples past the end of the file
        whole = _remux(bframes, tmp_path / "whole.mp4", "-movflags", "+faststart")
        path = tmp_path / "cut.mp4"
        path.write_bytes(whole.read_bytes()[: whole.stat().st_size * 2 // 3])
    else:  # a copy cut between keyframes: the edit list discards the lead-in
        path = tmp_path / "edited.mp4"
        _ffmpeg("-ss", "1.3", "-i", str(bframes), "-c", "copy", str(path))
    assert _indexed(path) is None
    if kind == "cut-off":  # the scan says where it stops
        with pytest.raises(UnusableVideoError, match="incomplete or damaged: it stops after"):
            probe_video(path, ROOMY)
    else:
        assert probe_video(path, ROOMY).video_frames == _scanned(path)[0]


def test_a_sample_table_read_otherwise_than_the_demuxer_reads_it_is_not_believed(
        bframes, monkeypatch):
    true = mp4_samples.composition_offsets

    def misread(path, track_id, samples):
        offsets = true(path, track_id, samples)
        return [offsets[0] + 512, *offsets[1:]]  # one sample's offset read wrong

    assert _indexed(bframes) is not None  # negative control: read right, it is used
    monkeypatch.setattr(mp4_samples, "composition_offsets", misread)
    assert _indexed(bframes) is None


def _read_bytes() -> int:
    """Bytes this process has read through system calls so far (``rchar``)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux's /proc/self/io")
def test_probing_a_long_mp4_reads_its_index_not_its_packets(tmp_path):
    # a large file of many frames: 40 s at a high bitrate
    mp4 = _encode(tmp_path / "long.mp4", "-c:v", "libx264", "-crf", "0", "-preset",
                  "ultrafast", "-g", "25", seconds=40)
    mkv = _remux(mp4, tmp_path / "long.mkv")
    size = mp4.stat().st_size
    before = _read_bytes()
    info = probe_video(mp4, ROOMY)
    read_mp4 = _read_bytes() - before
    before = _read_bytes()
    assert probe_video(mkv, ROOMY).video_frames == info.video_frames == 1000
    read_mkv = _read_bytes() - before
    assert read_mp4 < size / 5, f"read {read_mp4:,} of {size:,} bytes"
    assert read_mkv > size * 0.9  # negative control: a scan reads the whole file


def test_a_file_of_countless_tiny_boxes_is_not_walked_to_its_end(bframes, tmp_path):
    with av.open(str(bframes)) as container:
        stream = container.streams.video[0]
        track, samples = stream.id, len(stream.index_entries)
    data = bframes.read_bytes()
    moov = data.index(b"moov") - 4
    moov_box = data[moov:moov + int.from_bytes(data[moov:moov + 4], "big")]
    free = (8).to_bytes(4, "big") + b"free"
    few, many = tmp_path / "few.mp4", tmp_path / "many.mp4"
    few.write_bytes(free * 100 + moov_box)
    many.write_bytes(free * (mp4_samples.MAX_BOXES + 1) + moov_box)
    assert composition_offsets(few, track, samples)  # control: found behind 100 boxes
    assert composition_offsets(many, track, samples) is None

"""Real media for integration tests: generated with ffmpeg, measured with PyAV."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.frame_rate import stream_rate
from stereo_media.testing.media import make_video
from stereo_media.testing.timing import make_paused_video


@dataclass(frozen=True)
class Timeline:
    frames: int
    video_s: float
    audio_s: float | None
    fps: float
    size: tuple[int, int]


def measure(path: Path) -> Timeline:
    """Frame count and per-stream durations (from packet timestamps, no decoding)."""
    import av

    spans: dict[str, list[float]] = {}
    frames = 0
    with av.open(str(path)) as container:
        video = container.streams.video[0]
        fps = float(stream_rate(video) or 0)
        size = (video.codec_context.width, video.codec_context.height)
        for packet in container.demux():
            if packet.pts is None or packet.size == 0:
                continue
            kind = packet.stream.type
            start = float(packet.pts * packet.time_base)
            stop = start + float((packet.duration or 0) * packet.time_base)
            lo, hi = spans.get(kind, [start, stop])
            spans[kind] = [min(lo, start), max(hi, stop)]
            frames += kind == "video"
    audio = spans.get("audio")
    return Timeline(frames=frames, video_s=spans["video"][1] - spans["video"][0],
                    audio_s=audio[1] - audio[0] if audio else None, fps=fps, size=size)


def make_odd_video(path: Path, *, seconds: float = 4.0) -> Path:
    """An H.264 4:4:4 video of 161x97 (odd sizes need a chroma format without subsampling)."""
    subprocess.run([
        ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
        "-f", "lavfi", "-i", f"testsrc2=size=160x96:rate=25:duration={seconds}",
        "-f", "lavfi", "-i", f"sine=frequency=300:sample_rate=44100:duration={seconds}",
        "-vf", "scale=161:97", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv444p",
        "-g", "25", "-c:a", "aac", "-shortest", str(path)], check=True, timeout=60)
    return path


def make_foreign_codec_video(path: Path, codec: list[str], audio: str | None, *,
                             seconds: float = 4.0) -> Path:
    """A video in ``codec`` in the container ``path``'s suffix picks (.mov for
    ProRes, .webm for VP8, .ogv, .mxf, .gif, .ivf, .y4m, .m2v), with ``audio`` (a codec; None:
    a picture alone)."""
    sound = ["-f", "lavfi", "-i", f"sine=frequency=300:sample_rate=48000:duration={seconds}",
             "-c:a", audio] if audio else []
    subprocess.run([
        ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
        "-f", "lavfi", "-i", f"testsrc2=size=160x96:rate=25:duration={seconds}",
        *sound, *codec, "-g", "25", "-shortest", str(path)],
        check=True, timeout=60)
    return path


SOURCES = {
    "audio": lambda p: make_video(p, seconds=5, audio=True),
    "sparse-keyframes": lambda p: make_video(p, seconds=6, gop=150),
    "odd-dimensions": lambda p: make_odd_video(p, seconds=4),
    "variable-frame-rate": lambda p: make_video(p, seconds=5, vfr=True),
    "paused-timestamps": lambda p: make_paused_video(p),
    "prores-in-mov": lambda p: make_foreign_codec_video(
        p.with_suffix(".mov"), ["-c:v", "prores_ks", "-profile:v", "0"], "pcm_s16le"),
    "vp8-in-webm": lambda p: make_foreign_codec_video(
        p.with_suffix(".webm"), ["-c:v", "libvpx", "-deadline", "realtime", "-b:v", "300k"],
        "libopus"),
    "theora-in-ogg": lambda p: make_foreign_codec_video(
        p.with_suffix(".ogv"), ["-c:v", "libtheora", "-q:v", "5"], "libvorbis"),
    "mpeg2-in-mxf": lambda p: make_foreign_codec_video(
        p.with_suffix(".mxf"), ["-c:v", "mpeg2video", "-b:v", "2M"], "pcm_s16le"),
    "dv-camcorder": lambda p: make_foreign_codec_video(
        p.with_suffix(".dv"), ["-vf", "scale=720:576,format=yuv420p", "-c:v", "dvvideo",
                               "-ac", "2", "-f", "dv"], "pcm_s16le"),
    "animated-gif": lambda p: make_foreign_codec_video(
        p.with_suffix(".gif"), ["-c:v", "gif"], None),
    # codec tools' own files: libvpx's and SVT-AV1's IVF, uncompressed YUV4MPEG2
    "vp9-in-ivf": lambda p: make_foreign_codec_video(
        p.with_suffix(".ivf"), ["-c:v", "libvpx-vp9", "-deadline", "realtime",
                                "-cpu-used", "8"], None),
    "av1-in-ivf": lambda p: make_foreign_codec_video(
        p.with_suffix(".ivf"), ["-c:v", "libsvtav1", "-preset", "12",
                                "-svtav1-params", "log-level=0"], None),
    "uncompressed-y4m": lambda p: make_foreign_codec_video(
        p.with_suffix(".y4m"), ["-pix_fmt", "yuv420p"], None),
    # a DVD authoring tool's bare MPEG-2 video (its parser stamps each picture)
    "mpeg2-elementary-stream": lambda p: make_foreign_codec_video(
        p.with_suffix(".m2v"), ["-c:v", "mpeg2video", "-b:v", "2M", "-bf", "2",
                                "-f", "mpeg2video"], None),
}
# sources re-encoded once before splitting (media_worker.splitting.reencode_reason)
REENCODED = {"sparse-keyframes", "prores-in-mov", "vp8-in-webm", "theora-in-ogg",
             "animated-gif", "dv-camcorder", "uncompressed-y4m", "mpeg2-elementary-stream"}


@pytest.fixture(params=sorted(SOURCES))
def source_video(request, tmp_path: Path) -> tuple[str, Path]:
    return request.param, SOURCES[request.param](tmp_path / f"{request.param}.mp4")

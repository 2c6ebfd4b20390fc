"""Probe a video with PyAV before any work: is it a video, how big, how long."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
from pydantic import BaseModel
from stereo_media.demuxers import av_options
from stereo_media.frame_rate import stream_rate
from stereo_media.hdr import HdrInfo, frame_color, hdr_info
from stereo_media.probe_limits import DEFAULT_LIMITS
from stereo_media.stream_names import codec_name

from stereo_inference.errors import InvalidInputError
from stereo_inference.readable_frames import ReadableFrames


class VideoInfo(BaseModel):
    """What the engine needs to know about an input before converting it."""

    width: int
    height: int
    fps: float
    frames: int | None  # from the container; None when it does not say
    duration_s: float
    # the video's own duration as the container's index lists it (MP4/MOV); None
    # when it does not say: what a cut-off download still claims
    indexed_s: float | None = None
    codec: str
    pix_fmt: str | None = None  # the decoder's sample format ("yuv420p"), when it says
    rotation: int  # degrees, from the display matrix
    sample_aspect: tuple[int, int] | None
    audio_codecs: list[str]
    # (primaries, transfer, matrix, range) as FFmpeg numbers; 2/2/2/0 = unspecified
    color: tuple[int, int, int, int] | None = None
    hdr: HdrInfo = HdrInfo(bit_depth=8)  # bit depth and HDR10 metadata of the first frame


def probe_video(path: Path) -> VideoInfo:
    """Open ``path`` and describe its first video stream.

    Raises InvalidInputError for a missing, zero-byte, corrupt or audio-only
    file, or one beyond ``stereo_media.probe_limits`` (bytes, frame size, frame
    rate, frame count, duration: the media worker's limits too).
    """
    path = Path(path)
    if not path.is_file():
        raise InvalidInputError(f"input file not found: {path.name}")
    if path.stat().st_size == 0:
        raise InvalidInputError(f"input file is empty (0 bytes): {path.name}")
    try:
        with av.open(str(path), options=av_options(probesize="20000000")) as container:
            return _describe(container, path)
    except InvalidInputError:
        raise
    except (av.FFmpegError, UnicodeDecodeError, ValueError) as exc:
        raise InvalidInputError(f"not a readable video file: {path.name} ({exc})") from exc


def _describe(container, path: Path) -> VideoInfo:
    videos = [s for s in container.streams.video if s.codec_context is not None]
    audio = [codec_name(s.codec_context) for s in container.streams.audio]
    if not videos:
        kind = "audio-only file" if audio else "file without a video stream"
        raise InvalidInputError(f"{path.name} is an {kind}; a video is required")
    stream = videos[0]
    width, height = stream.codec_context.width, stream.codec_context.height
    if not width or not height:
        raise InvalidInputError(f"{path.name}: video stream has no frame size")
    rate = stream_rate(stream) or Fraction(25)
    duration = _duration_s(container, stream)
    # the media worker's limits, in its words: what it accepts the engine converts
    refusal = DEFAULT_LIMITS.refusal(width=width, height=height, size_bytes=path.stat().st_size,
                                     fps=float(rate), frames=stream.frames or None,
                                     duration_s=duration)
    if refusal is not None:
        raise InvalidInputError(f"{path.name}: {refusal}")
    rotation, color, hdr = _first_frame(container, stream)
    if color is None:
        raise InvalidInputError(f"{path.name}: no decodable video frame")
    sar = stream.sample_aspect_ratio
    return VideoInfo(
        width=width,
        height=height,
        fps=float(rate),
        frames=stream.frames or None,
        duration_s=duration,
        indexed_s=(float(stream.duration * stream.time_base)
                   if stream.frames and stream.duration and stream.time_base else None),
        codec=codec_name(stream.codec_context),
        pix_fmt=stream.codec_context.pix_fmt,
        rotation=rotation,
        sample_aspect=(sar.numerator, sar.denominator) if sar else None,
        audio_codecs=audio,
        color=color,
        hdr=hdr,
    )


def _duration_s(container, stream) -> float:
    if stream.duration is not None and stream.time_base:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / av.time_base
    return 0.0


def _first_frame(container, stream):
    """Decode one frame: proves the stream is decodable (colour is None when it
    is not) and reads its rotation, colour description and HDR metadata."""
    for frame in ReadableFrames(container, stream, Path(container.name).name):
        return int(round(frame.rotation or 0)) % 360, frame_color(frame), hdr_info(frame)
    return 0, None, HdrInfo(bit_depth=8)


def video_length(path: Path) -> tuple[int | None, int | None]:
    """(frames, pixels a frame) of ``path`` for an estimate; (None, None) when it
    cannot be read (the conversion then says why)."""
    try:
        info = probe_video(path)
    except InvalidInputError:
        return None, None
    return info.frames or round(info.duration_s * info.fps) or None, info.width * info.height

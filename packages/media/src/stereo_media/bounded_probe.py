"""Probe an untrusted source with PyAV under bounded limits.

Every rejection is an UnusableVideoError whose message is a sentence a person
understands; the technical detail goes to the log.
"""

from __future__ import annotations

import logging
import struct
import time
from dataclasses import dataclass
from pathlib import Path

from stereo_media.errors import (
    SourceUnreachableError,
    TooLongError,
    UnknownFormatError,
    UnusableVideoError,
)
from stereo_media.ffmpeg_runner import URL_HEADER_BYTES, URL_REQUEST_BYTES, VIDEO_DEMUXERS
from stereo_media.frame_rate import stream_rate
from stereo_media.hdr import Color, HdrInfo, frame_color, hdr_info
from stereo_media.mp4_boxes import Mp4BoxError, top_level_boxes
from stereo_media.mp4_samples import indexed_facts
from stereo_media.packet_facts import PacketFacts
from stereo_media.probe_limits import ProbeLimits
from stereo_media.source_streams import describe_stream, file_timecode, is_cover, video_labels
from stereo_media.stream_names import codec_name

log = logging.getLogger(__name__)

MAX_STREAMS = 16
PLAYLIST_MAGIC = (b"#EXTM3U", b"ffconcat", b"[playlist]", b"<?xml")
NOT_A_VIDEO = "The file is not a video we can read"
# The first bytes of still-picture formats (HEIC: its ftyp brand), named in the
# refusal: "not a known video format" would leave a person guessing.
PICTURE_MAGIC = ((b"\x89PNG\r\n\x1a\n", "PNG"), (b"\xff\xd8\xff", "JPEG"),
                 (b"II*\x00", "TIFF"), (b"MM\x00*", "TIFF"))
HEIF_BRANDS = (b"heic", b"heix", b"mif1", b"avif")
# The first bytes of sound files no video demuxer reads, named for the same reason
# (an MP3 carries its ID3 tag first; M4A is an MP4 and gets "no video" instead).
SOUND_MAGIC = ((b"ID3", "MP3"), (b"fLaC", "FLAC"))


@dataclass(frozen=True)
class SourceInfo:
    """What the bounded probe learnt about an untrusted source (the engine's own
    probe of its input is ``stereo_inference.video_info.VideoInfo``)."""

    size_bytes: int
    duration_s: float
    width: int
    height: int
    video_frames: int
    has_audio: bool
    max_keyframe_gap_s: float  # longest stretch without a keyframe (incl. to the end)
    container: str
    # frames shown before a later keyframe but coded after it (open GOPs, e.g.
    # x265's default): a ``-c copy`` cut at that keyframe loses them
    has_leading_frames: bool = False
    video_codec: str = ""  # FFmpeg's name of the video codec (h264, prores, ...)
    # the video stream's language and title (``source_streams.video_labels``), as pairs
    video_labels: tuple[tuple[str, str], ...] = ()
    timecode: str | None = None  # the start timecode (``source_streams.file_timecode``)
    # the video's keyframes, s after its first timestamp, in order (``cut_plan.plan_cuts``)
    keyframes_s: tuple[float, ...] = ()


def _reject(reason: str) -> UnusableVideoError:
    return UnusableVideoError(reason)


def refuse_oversize(size: int, limits: ProbeLimits) -> None:
    """Raise UnusableVideoError for a file over ``limits.max_bytes``."""
    if size > limits.max_bytes:
        raise _reject(limits.too_large(size))


def _check_header(path: Path, limits: ProbeLimits) -> int:
    size = path.stat().st_size
    if size == 0:
        raise _reject("The file is empty (0 bytes); please upload the video again.")
    refuse_oversize(size, limits)
    with path.open("rb") as fh:
        refuse_by_signature(fh.read(64))
    return size


def refuse_by_signature(head: bytes) -> None:
    """Raise UnusableVideoError naming what a file is when its first bytes
    ``head`` say it is a playlist, a still picture or a sound file."""
    head = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(PLAYLIST_MAGIC):
        raise _reject("The file is a playlist, not a video; please upload the video file itself.")
    picture = picture_format(head)
    if picture:
        raise _reject(f"The file is a still picture ({picture}), not a video; please upload "
                      "a video file.")
    sound = sound_format(head)
    if sound:
        raise _reject(f"The file is a sound recording ({sound}), not a video; please upload "
                      "a video file.")


def picture_format(head: bytes) -> str | None:
    """The still-picture format whose signature ``head`` (a file's first bytes)
    begins with ("PNG", "JPEG", "WebP", "TIFF", "HEIF"), or None."""
    for magic, name in PICTURE_MAGIC:
        if head.startswith(magic):
            return name
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    if head[4:8] == b"ftyp" and head[8:12] in HEIF_BRANDS:
        return "HEIF"
    return None


def sound_format(head: bytes) -> str | None:
    """The sound format whose signature ``head`` (a file's first bytes) begins
    with ("MP3", "FLAC", "WAV"), or None."""
    for magic, name in SOUND_MAGIC:
        if head.startswith(magic):
            return name
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "WAV"
    return None


def probe_video(path: Path, limits: ProbeLimits) -> SourceInfo:
    """Open ``path`` with PyAV, check it against ``limits`` and scan its video
    packets (demux only, no decoding). Raises UnusableVideoError."""
    import av  # vendor import stays in this module

    size = _check_header(path, limits)
    try:
        container = av.open(str(path), options={"format_whitelist": VIDEO_DEMUXERS},
                            timeout=limits.timeout_s)
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        log.info("probe of %s failed to open: %s", path, exc)
        if _mp4_without_index(path):
            raise _reject("The video file is incomplete: it has no index (an MP4's moov "
                          "box, written last), as when an upload, a download or a recording "
                          "stops before its end; please upload the whole file.") from exc
        raise UnknownFormatError(f"{NOT_A_VIDEO} (it is not in a known video format, "
                                 "or it is damaged).") from exc
    with container:
        stream, width, height, duration = _check_streams(container, limits)
        frames, end_s, gap, leading, keyframes = _scan_packets(container, stream, limits, path)
        has_audio = bool(container.streams.audio)
        container_name = container.format.name
        codec = codec_name(stream.codec_context)
        labels = tuple(video_labels(describe_stream(stream)).items())
        timecode = file_timecode(container)
    if frames == 0 or end_s <= 0:
        raise _reject(f"{NOT_A_VIDEO} (it has no video frames; its duration is zero).")
    if duration is not None and end_s + max(1.0, 0.05 * duration) < duration:
        raise _reject(f"The video file is incomplete or damaged: it stops after {end_s:.1f} s "
                      f"of its {duration:.1f} s.")
    if end_s > limits.max_duration_s:
        raise _reject(limits.too_long(end_s))
    _check_work(frames, end_s, width, height, limits)
    return SourceInfo(size_bytes=size, duration_s=duration or end_s, width=width, height=height,
                     video_frames=frames, has_audio=has_audio, max_keyframe_gap_s=gap,
                     container=container_name, has_leading_frames=leading, video_codec=codec,
                     video_labels=labels, timecode=timecode, keyframes_s=keyframes)


@dataclass(frozen=True)
class SourceHeader:
    """What a source's header says (no packet read): enough to place a strip."""

    duration_s: float
    width: int
    height: int
    has_audio: bool
    fps: float | None = None  # the declared rate (``stream_rate``); None when unknown

    @property
    def frames(self) -> int | None:
        """About how many frames the header's duration holds at its rate, or None."""
        return round(self.duration_s * self.fps) if self.fps else None


def open_options(headers: dict[str, str] | None = None) -> dict[str, str]:
    """PyAV's options for opening a source a worker reads in place (a local
    path, or a presigned URL sent with request ``headers``): video demuxers
    only, and bounded Range requests, as ``ffmpeg_runner.url_input`` asks."""
    options = {"format_whitelist": VIDEO_DEMUXERS,
               "protocol_whitelist": "file,https,http,tls,tcp",
               "multiple_requests": "1", "request_size": str(URL_REQUEST_BYTES),
               "initial_request_size": str(URL_HEADER_BYTES)}
    if headers:
        options["headers"] = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return options


def probe_header(target: str, limits: ProbeLimits, *,
                 headers: dict[str, str] | None = None) -> SourceHeader:
    """Open ``target`` (a local path or a presigned HTTP(S) URL, with request
    ``headers``) and check its header against ``limits`` without scanning its
    packets: a URL costs a few Range requests, not the file. The full
    :func:`probe_video` still runs before the whole video is chunked.
    Raises UnusableVideoError."""
    import av

    try:
        container = av.open(target, options=open_options(headers), timeout=limits.timeout_s)
    except (av.error.HTTPServerError, av.error.HTTPTooManyRequestsError,
            ConnectionError, TimeoutError) as exc:  # the store, not the video
        raise SourceUnreachableError(f"reading the source failed: {exc}") from exc
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        log.info("header probe failed to open: %s", exc)
        raise UnknownFormatError(f"{NOT_A_VIDEO} (it is not in a known video format, "
                                 "or it is damaged).") from exc
    with container:
        stream, width, height, duration = _check_streams(container, limits)
        has_audio = bool(container.streams.audio)
        rate = stream_rate(stream)
    if not duration or duration <= 0:
        raise _reject(f"{NOT_A_VIDEO} (its duration is unknown or zero).")
    return SourceHeader(duration_s=duration, width=width, height=height, has_audio=has_audio,
                        fps=float(rate) if rate else None)


def _mp4_without_index(path: Path) -> bool:
    """Whether ``path`` begins as an MP4 (``ftyp``) and holds media (``mdat``) but
    no ``moov``: a file cut off before its index was written."""
    try:
        kinds = [kind for kind, _, _ in top_level_boxes(path)]
    except (Mp4BoxError, OSError, struct.error):
        return False
    return kinds[:1] == [b"ftyp"] and b"mdat" in kinds and b"moov" not in kinds


def _check_streams(container, limits: ProbeLimits):
    """(video stream, width, height, declared duration or None) of an open
    container, checked against ``limits``."""
    if len(container.streams) > MAX_STREAMS:
        raise _reject(f"{NOT_A_VIDEO} (it has {len(container.streams)} streams; "
                      f"at most {MAX_STREAMS} are allowed).")
    if not container.streams.video:
        raise _reject(f"{NOT_A_VIDEO} (no video stream found).")
    stream = container.streams.video[0]
    # a song's album cover is a one-picture "video" stream at a 90 kHz clock: judged
    # as the film it was refused as "90000 frames per second"
    if all(is_cover(s) for s in container.streams.video):
        held = "only sound and a cover picture" if container.streams.audio else \
            "only a cover picture"
        raise _reject(f"{NOT_A_VIDEO} (it holds {held}; no video stream found).")
    width, height = stream.codec_context.width, stream.codec_context.height
    if not width or not height:
        raise _reject(f"{NOT_A_VIDEO} (its picture size is unknown).")
    if limits.refuses_size(width, height):
        raise _reject(limits.too_big(width, height))
    rate = stream_rate(stream)  # the packet scan checks the real rate (``_check_work``)
    if rate is not None and float(rate) > limits.max_fps:
        raise _reject(limits.too_fast(float(rate)))
    # MP4/MOV index every frame: a source huge in frames but tiny in bytes (2x2 px
    # for hours) is refused here, before the packet scan reads a million of them
    if stream.frames and stream.frames > limits.max_frames:
        raise _reject(limits.too_many_frames(stream.frames))
    duration = _declared_duration(container, stream)
    if duration is not None and duration > limits.max_duration_s:
        raise TooLongError(limits.too_long(duration), container=container.format.name)
    return stream, width, height, duration


def probe_colour(path: Path, limits: ProbeLimits) -> tuple[Color | None, HdrInfo]:
    """The colour description and bit depth / HDR10 metadata of the first video
    frame of an already probed ``path`` (what a re-encode must keep); (None,
    8-bit) when no frame decodes. Raises UnusableVideoError when it cannot be read."""
    import av

    try:
        with av.open(str(path), options={"format_whitelist": VIDEO_DEMUXERS},
                     timeout=limits.timeout_s) as container:
            for frame in container.decode(container.streams.video[0]):
                return frame_color(frame), hdr_info(frame)
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        raise _reject(f"{NOT_A_VIDEO} (its first frame cannot be decoded).") from exc
    return None, HdrInfo(bit_depth=8)


def _check_work(frames: int, end_s: float, width: int, height: int, limits: ProbeLimits) -> None:
    """Refuse what would pin a worker: too many frames per second, too many frames,
    or too many pixels in all (width x height x frames)."""
    if frames / end_s > limits.max_fps * 1.01 and frames > 1:
        raise _reject(limits.too_fast(frames / end_s))
    if frames > limits.max_frames:
        raise _reject(limits.too_many_frames(frames))
    if width * height * frames > limits.max_pixel_frames:
        raise _reject(f"The video is too much work to convert ({width}x{height} x {frames:,} "
                      f"frames); the limit is {limits.max_pixel_frames / 1e9:,.0f} gigapixels "
                      "in all. Shorten it or lower its resolution.")


def _declared_duration(container, stream) -> float | None:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / 1_000_000
    return None


def _scan_packets(container, stream, limits: ProbeLimits, path: Path
                  ) -> tuple[int, float, float, bool, tuple[float, ...]]:
    """``PacketFacts.result`` of the video stream, from an MP4's sample table
    where it can vouch for them (``mp4_samples``: no packet read), else from
    reading every packet."""
    facts = indexed_facts(path, container, stream) or _read_packets(container, stream, limits,
                                                                    path)
    if facts.frames > limits.max_frames:
        raise _reject(_too_many_frames_seen(limits))
    if facts.frames and not facts.has_keyframe:
        raise _reject(f"{NOT_A_VIDEO} (it has no keyframe to start from).")
    return facts.result()


def _read_packets(container, stream, limits: ProbeLimits, path: Path) -> PacketFacts:
    """The facts of every packet of ``stream``, read within ``limits``."""
    import av

    facts = PacketFacts()
    deadline = time.monotonic() + limits.timeout_s
    try:
        for packet in container.demux(stream):
            if packet.pts is None or packet.size == 0:
                continue
            facts.add(float(packet.pts * packet.time_base),
                      float(packet.duration * packet.time_base) if packet.duration else 0.0,
                      packet.is_keyframe)
            if facts.frames > limits.max_frames:  # stop scanning early: refused anyway
                raise _reject(_too_many_frames_seen(limits))
            if facts.frames % 256 == 0 and time.monotonic() > deadline:
                raise _reject(f"{NOT_A_VIDEO} (reading it took longer than "
                              f"{limits.timeout_s:g} s).")
    except av.error.FFmpegError as exc:
        log.info("probe of %s failed while reading packets: %s", path, exc)
        raise _reject("The video file is damaged (it cannot be read after frame "
                      f"{facts.frames}).") from exc
    return facts


def _too_many_frames_seen(limits: ProbeLimits) -> str:
    return (f"The video has more than {limits.max_frames:,} frames; at most "
            f"{limits.max_frames:,} are allowed.")

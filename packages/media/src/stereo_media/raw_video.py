"""Raw elementary streams: a video with no container and so no clock.

A Raspberry Pi camera (``rpicam-vid -o clip.h264``), many security cameras,
drones' and encoders' debug outputs write the bare H.264 or HEVC bitstream:
pictures in decoding order, no timestamps. Players time them by the rate the
stream's own parameter sets state (H.264/HEVC VUI timing), else 25 frames a
second. Read through PyAV, such a stream's packets and pictures carry no
timestamps at all and its stream says 25 a second, so the pipeline saw a 3 s
clip as 0 s long (refused as "not a video") and the engine wrote its 90
frames into 0.04 s.

:func:`raw_stream` says whether a file is one (only a file that begins as one
is opened, and only with the raw demuxers) and at what rate it plays;
:func:`timed_copy_command` puts it on a timeline in Matroska with FFmpeg's
command line, which stamps each picture at that rate: copied as it is when
its pictures are shown in the order they are coded (no B-frames), else
re-encoded nearly losslessly (x264 at CRF 12), because no container takes a
reordered stream without presentation times and only a decoder knows them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from stereo_media.demuxers import file_only
from stereo_media.ffmpeg import QUIET

RAW_DEMUXERS = "h264,hevc"
DEFAULT_RATE = Fraction(25)  # what FFmpeg and players assume when the stream states none
MAX_RATE = 1000
HEAD_BYTES = 64  # enough for the leading zero bytes some encoders write
COPY_SUFFIX = ".mkv"
# The re-encode of a reordered stream: near-transparent, fast; the pixel format
# stays (x264 takes 8- and 10-bit 4:2:0, 4:2:2, 4:4:4), and so do colour tags.
REENCODE = ("-c:v", "libx264", "-crf", "12", "-preset", "veryfast")


@dataclass(frozen=True)
class RawStream:
    demuxer: str  # "h264" or "hevc"
    rate: Fraction  # frames a second it plays at
    reordered: bool  # B-frames: shown in another order than coded


def raw_stream(path: Path) -> RawStream | None:
    """What ``path`` is when it is a raw H.264/HEVC elementary stream; None for
    anything else, and for a file that does not open as one (its own probe
    says what is wrong with it). Only a file that begins as such a stream does
    (:func:`starts_as_elementary_stream`) is opened, with only the raw
    demuxers."""
    import av  # vendor import stays in this function

    try:
        with open(path, "rb") as f:
            if not starts_as_elementary_stream(f.read(HEAD_BYTES)):
                return None
    except OSError:
        return None
    try:
        with av.open(str(path), options={"format_whitelist": RAW_DEMUXERS,
                                         "protocol_whitelist": "file"}) as container:
            if not container.streams.video:
                return None
            stream = container.streams.video[0]
            stated = stream.guessed_rate  # the parameter sets' timing, when they have it
            rate = (Fraction(stated).limit_denominator(100000)
                    if stated and 0 < stated <= MAX_RATE else DEFAULT_RATE)
            return RawStream(container.format.name, rate,
                             bool(stream.codec_context.has_b_frames))
    except (av.error.FFmpegError, OSError, ValueError):
        return None


def starts_as_elementary_stream(head: bytes) -> bool:
    """Whether a file's first bytes (:data:`HEAD_BYTES` of them) are a start
    code (``00 00 01``, after any zero bytes) and a NAL unit header whose
    forbidden bit is clear. A transport stream (0x47), MP4, Matroska or AVI
    header is not; neither are MPEG's own start codes (a program stream's
    ``00 00 01 BA``, MPEG-1/2 and MPEG-4 Part 2 video's B3 and B0), whose
    next byte has that bit set."""
    zeros = len(head) - len(head.lstrip(b"\0"))
    if zeros < 2 or head[zeros : zeros + 1] != b"\x01" or len(head) <= zeros + 1:
        return False
    return not head[zeros + 1] & 0x80


def timed_copy_command(source: Path, dest: Path, raw: RawStream) -> list[str]:
    """ffmpeg arguments (after the binary) writing raw stream ``source`` to
    ``dest`` in Matroska, each picture at its time at ``raw.rate`` (the rate
    its parameter sets state, which FFmpeg's command line also reads)."""
    codec = REENCODE if raw.reordered else ("-c", "copy")
    return [*QUIET, "-framerate", str(raw.rate), *file_only(RAW_DEMUXERS),
            "-f", raw.demuxer, "-i", str(source),
            "-map", "0:v:0", *codec, "-f", "matroska", str(dest)]

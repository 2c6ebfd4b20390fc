"""Sources whose clock jumps mid-file, found and copied onto one timeline.

A transport stream may restart or jump its clock part-way: two recordings
joined with ``cat``, a broadcast whose encoder was reset, a camcorder's
``.mts`` files glued together, a 33-bit clock that wrapped. Players follow
the jump and play the picture on; a decoder's timestamps do not, so a 6 s
file of two joined parts reads as 26 hours (a wrapped clock) or runs
backwards, and every duration, frame count and cut made from them is wrong.

FFmpeg's command line puts such a stream on one continuous timeline when it
copies it: in a format that allows discontinuities (``AVFMT_TS_DISCONT``:
MPEG-TS and -PS) a step of its timestamps over ten seconds either way
(its ``-dts_delta_threshold``) is taken as a new clock and stitched on.
:func:`clock_jumps` says whether a file has such a step (demux only, no
decoding, and only for those formats: an MP4's pause is a pause, kept);
:func:`continuous_source` makes the copy with ``-c copy`` (every stream, no
re-encode), through the caller's own ffmpeg runner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from stereo_media.demuxers import file_only
from stereo_media.ffmpeg import QUIET
from stereo_media.raw_video import COPY_SUFFIX as RAW_COPY_SUFFIX
from stereo_media.raw_video import raw_stream, timed_copy_command

TS_DISCONT = 0x0200  # AVFMT_TS_DISCONT: the format's timestamps may jump
# the demuxers whose formats allow a jumping clock (and only those are tried)
JUMPING_FORMATS = "mpegts,mpeg"
JUMP_S = 10.0  # FFmpeg's default -dts_delta_threshold: a larger step is a new clock
# The copy's container: the source's own for MPEG-TS (teletext, DVB subtitles and
# data streams stay); Matroska for MPEG-PS (it holds DVD subtitles, which TS does not)
COPY_FORMATS = {"mpegts": ("mpegts", ".ts")}
DEFAULT_COPY_FORMAT = ("matroska", ".mkv")


def clock_jumps(path: Path) -> bool:
    """Whether ``path`` is in a format whose clock may jump (:data:`JUMPING_FORMATS`;
    no other demuxer is even tried) and its video's timestamps do (a step of
    more than :data:`JUMP_S` either way). False for a file that does not open
    as one of them or cannot be read: its own probe says what is wrong with it."""
    return _jumping_format(path) is not None


def _jumping_format(path: Path) -> str | None:
    """The demuxer name of ``path`` when its clock jumps (see :func:`clock_jumps`)."""
    import av  # vendor import stays in this function

    try:
        with av.open(str(path), options={"format_whitelist": JUMPING_FORMATS,
                                         "protocol_whitelist": "file"}) as container:
            if not container.format.flags & TS_DISCONT or not container.streams.video:
                return None
            last = None
            for packet in container.demux(container.streams.video[0]):
                if packet.dts is None:
                    continue
                t = float(packet.dts * packet.time_base)
                if last is not None and abs(t - last) > JUMP_S:
                    return container.format.name
                last = t
    except (av.error.FFmpegError, OSError, ValueError):
        return None
    return None


def continuous_copy_command(source: Path, dest: Path, muxer: str, *,
                            maps: Sequence[str] = ("0",)) -> list[str]:
    """ffmpeg arguments (after the binary) copying the ``maps`` of ``source``
    (every stream by default) to ``dest`` as ``muxer`` on one continuous
    timeline; streams of a type FFmpeg does not know are left out (no muxer
    could take them)."""
    mapped = [arg for spec in maps for arg in ("-map", spec)]
    return [*QUIET, *file_only(JUMPING_FORMATS), "-i", str(source),
            *mapped, "-ignore_unknown", "-c", "copy", "-f", muxer, str(dest)]


def continuous_source(source: Path, folder: Path, run: Callable[[Sequence[str]], None], *,
                      stem: str = "continuous", to_seek: bool = False) -> Path:
    """``source`` itself when it plays on one timeline, else a copy of it that
    does, written in ``folder`` (``stem`` + the format's suffix) by ``run``
    (which runs ffmpeg with the arguments it is given and raises on failure):
    a continuous copy when its clock jumps, a timed one when it has no clock
    at all (a raw elementary stream: ``stereo_media.raw_video``).
    ``to_seek``: a copy of the picture and sound only, in Matroska, for reads
    that seek by time (a transport stream seeks badly near its end)."""
    raw = raw_stream(source)
    if raw is not None:
        dest = Path(folder) / f"{stem}{RAW_COPY_SUFFIX}"
        run(timed_copy_command(source, dest, raw))
        return dest
    demuxer = _jumping_format(source)
    if demuxer is None:
        return source
    if to_seek:
        dest = Path(folder) / f"{stem}{DEFAULT_COPY_FORMAT[1]}"
        run(continuous_copy_command(source, dest, DEFAULT_COPY_FORMAT[0],
                                    maps=("0:v:0", "0:a?")))
        return dest
    muxer, suffix = COPY_FORMATS.get(demuxer, DEFAULT_COPY_FORMAT)
    dest = Path(folder) / f"{stem}{suffix}"
    run(continuous_copy_command(source, dest, muxer))
    return dest

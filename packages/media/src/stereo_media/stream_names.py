"""Codec names of streams: the codec's own, and those PyAV's FFmpeg cannot name.

:func:`codec_name` is a stream's codec ("av1"), never the decoder PyAV picked
for it ("libdav1d"): an AV1 source read as "libdav1d" was taken for a codec no
MP4 segment holds and re-encoded before it was cut.

PyAV's bundled FFmpeg has no teletext decoder, so a DVB recording's teletext
stream comes back from PyAV with no codec at all; the ``ffmpeg`` command line
(imageio-ffmpeg's, with libzvbi) knows it, and says so in the description of
its input it prints (``Stream #0:2[0x102](eng): Subtitle: dvb_teletext ...``).
:func:`ffmpeg_codec_names` reads those lines: asked only for a file that has
such a stream, it costs one short ffmpeg start.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

from shared_types.errors import FfmpegNotFoundError

from stereo_media.demuxers import file_only
from stereo_media.ffmpeg import ffmpeg_path

_STREAM_LINE = re.compile(r"Stream #0:(\d+)(?:\[[^\]]*\])?(?:\([^)]*\))?: \w+: (\w+)")
DESCRIBE_TIMEOUT_S = 60


def codec_name(codec_context) -> str:
    """The codec of a PyAV stream's ``codec_context`` by FFmpeg's codec name
    ("av1", "opus"), not its decoder's ("libdav1d", "libopus"); "" when it has
    no codec."""
    codec = getattr(codec_context, "codec", None)
    return codec.canonical_name if codec is not None else ""


def ffmpeg_codec_names(path: Path, demuxer: str) -> dict[int, str]:
    """Codec name of each stream of ``path`` (read with ``demuxer`` only, local
    file protocol only), by stream index, as the ffmpeg command line names
    them; empty when ffmpeg is missing or cannot read the file."""
    try:
        done = subprocess.run(
            [ffmpeg_path(), "-hide_banner", "-nostdin", *file_only(demuxer),
             "-f", demuxer, "-i", str(path)],
            capture_output=True, timeout=DESCRIBE_TIMEOUT_S)
    except (FfmpegNotFoundError, OSError, subprocess.TimeoutExpired):
        return {}
    text = done.stderr.decode("utf-8", "replace")
    return {int(index): codec for index, codec in _STREAM_LINE.findall(text)}


_DECODER_LINE = re.compile(r"^ [A-Z.]{6} (\S+)", re.MULTILINE)


@cache
def ffmpeg_decoders() -> frozenset[str]:
    """The decoders the ffmpeg command line has (``libzvbi_teletextdec`` is not
    in every build); empty when ffmpeg is missing."""
    try:
        done = subprocess.run([ffmpeg_path(), "-hide_banner", "-nostdin", "-decoders"],
                              capture_output=True, timeout=DESCRIBE_TIMEOUT_S)
    except (FfmpegNotFoundError, OSError, subprocess.TimeoutExpired):
        return frozenset()
    return frozenset(_DECODER_LINE.findall(done.stdout.decode("utf-8", "replace")))

"""Sources the ffmpeg command line cannot decode: 3D said twice.

A video whose container says it is 3D (MP4 ``st3d``, Matroska StereoMode) and
whose H.264/HEVC stream says so as well, in a frame-packing SEI that names
the views' order (x264's ``frame-packing`` option writes one on every
keyframe), hands its first decoded picture the stereo side data twice. The
ffmpeg command line (7.1 to 9.0 at least, the shipped one among them) stops
on that picture ("File exists"; ARCHITECTURE.md, "Stereo signalling"), so
such an upload got no poster, no thumbnail strip and no preview clip, though
PyAV, and so the conversion, read it. With its SEI units removed on the way
in (an input bitstream filter) the command line decodes it. Only such sources
lose their SEI: elsewhere it carries what a preview's re-encode keeps (HDR10
mastering metadata, captions).
"""

from __future__ import annotations

import logging

from stereo_media.bounded_probe import open_options
from stereo_media.side_data import side_data

log = logging.getLogger(__name__)

# NAL unit types of SEI, for FFmpeg's filter_units bitstream filter
SEI_UNITS = {"h264": "6", "hevc": "39|40"}
_STEREO = "STEREO3D"


def decode_options(target: str, *, headers: dict[str, str] | None = None,
                   timeout_s: float = 60.0) -> list[str]:
    """ffmpeg input options (to put before ``-i``) that the command line needs to
    decode the source at ``target`` (a local path or a presigned URL sent with
    ``headers``): none for almost every video; the removal of its SEI units
    for a 3D one said twice. Reads the source's first picture with PyAV.
    Never raises: a source PyAV cannot read gets none, and the ffmpeg run
    that follows says what is wrong with it."""
    import av

    try:
        with av.open(target, options=open_options(headers), timeout=timeout_s) as container:
            stream = container.streams.video[0]
            stream.codec_context.thread_count = 1  # a picture from the first packet
            frame = next(container.decode(stream), None)
            said = 0 if frame is None else sum(sd.type.name == _STEREO
                                               for sd in side_data(frame))
            codec = stream.codec_context.name
    except (av.error.FFmpegError, OSError, ValueError, IndexError) as exc:
        log.info("first picture of the source not read (%s); decoding it as it is", exc)
        return []
    units = SEI_UNITS.get(codec)
    if said < 2 or units is None:
        return []
    log.info("the source says it is 3D twice (container and %s SEI); its SEI is removed "
             "for the ffmpeg command line to decode it", codec)
    return ["-bsf:v", f"filter_units=remove_types={units}"]

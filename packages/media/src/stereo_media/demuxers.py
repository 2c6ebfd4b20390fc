"""Which demuxers (formats) a user's video may be opened with, by ffmpeg or PyAV.

A playlist (hls), a concat list or an image sequence names other files or URLs
to read: opened as a "video", it would read whatever it lists (#52, finding 4:
an ``.m3u8`` input made the engine read another local file). Every open of a
file that came from a user passes a format whitelist (``-format_whitelist``
for ffmpeg, ``format_whitelist`` for PyAV) and the file protocol only.
"""

from __future__ import annotations

# Demuxers a user's file may be read with: real video containers only, never a
# playlist (hls), a concat list or an image pipe that could reach other files.
# Every container a video reaches people in: phones and cameras (MP4/MOV, DV),
# the web (WebM, Ogg Theora, FLV, animated GIF), broadcast and production
# (MPEG-TS/PS, MXF, a DVD tool's bare MPEG-2 video), Windows (AVI, ASF), codec
# tools' own (libvpx's and AV1 encoders' IVF, uncompressed YUV4MPEG2); no
# playlist, concat or image sequence. Raw H.264/HEVC streams have no clock:
# they are read through a timed copy (``stereo_media.raw_video``), so their
# demuxers are not here (bare MPEG-2 video's parser stamps every picture).
VIDEO_DEMUXERS = ("mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,mpegts,flv,mpeg,asf,"
                  "ogg,mxf,dv,gif,ivf,yuv4mpegpipe,mpegvideo")



def file_only(formats: str = VIDEO_DEMUXERS) -> list[str]:
    """ffmpeg options to put before an ``-i`` of a user's file: the file
    protocol only, and only the demuxers ``formats`` names."""
    return ["-protocol_whitelist", "file", "-format_whitelist", formats]


def av_options(formats: str = VIDEO_DEMUXERS, **extra: str) -> dict[str, str]:
    """PyAV ``av.open`` options for a user's file, as :func:`file_only`."""
    return {"protocol_whitelist": "file", "format_whitelist": formats, **extra}

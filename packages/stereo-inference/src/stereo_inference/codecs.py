"""Which encoder writes the 3D video, with what options (``--codec``, ``--crf``,
``--bitrate``, ``--pix-fmt``).

Every choice is an encoder of the PyAV wheel's FFmpeg (the engine encodes in
process): libx264, libx265 and libsvtav1, or their NVENC siblings on a GPU.
One quality scale for all: ``crf`` is x264's (0..51); x265 takes the same
number, SVT-AV1 the same point of its 0..63 scale. The x264 preset names map
onto SVT-AV1's numbered presets (0 slowest .. 13 fastest).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from shared_types.models import PixelFormat, VideoCodec

SVT_PRESETS = {"ultrafast": 12, "superfast": 11, "veryfast": 10, "faster": 9, "fast": 8,
               "medium": 7, "slow": 5, "slower": 4}
SOFTWARE = {VideoCodec.X264: "libx264", VideoCodec.X265: "libx265", VideoCodec.AV1: "libsvtav1"}
NVENC = {VideoCodec.X264: "h264_nvenc", VideoCodec.X265: "hevc_nvenc", VideoCodec.AV1: "av1_nvenc"}
HEVC_ENCODERS = ("libx265", "hevc_nvenc")
AV1_ENCODERS = ("libsvtav1", "av1_nvenc")


@dataclass(frozen=True)
class EncoderChoice:
    """An encoder's name, its options, the pixel format it is fed and the codec tag."""

    name: str
    options: dict[str, str] = field(default_factory=dict)
    pix_fmt: str = "yuv420p"
    bit_rate: int | None = None  # bits/s; None: constant quality
    tag: str | None = None

    @property
    def is_hevc(self) -> bool:
        return self.name in HEVC_ENCODERS

    @property
    def has_sei(self) -> bool:
        """H.264 and HEVC carry SEI messages (frame packing, captions); AV1 has none."""
        return self.name not in AV1_ENCODERS


def choose_encoder(codec: VideoCodec | str = VideoCodec.X264, *, crf: int = 20,
                   preset: str = "veryfast", bitrate_kbps: int | None = None,
                   pix_fmt: PixelFormat | str | None = None, nvenc: bool = False,
                   hdr_x265_params: str | None = None) -> EncoderChoice:
    """The encoder for ``codec``. ``hdr_x265_params`` (an HDR10 source kept as HDR)
    forces 10-bit HEVC with that static metadata, whatever ``codec`` says, since
    only x265 writes it here. ``nvenc`` picks the GPU encoder of the codec."""
    codec = VideoCodec(codec)
    if hdr_x265_params is not None:
        codec, pix_fmt = VideoCodec.X265, PixelFormat.YUV420P10
    pix = str(PixelFormat(pix_fmt)) if pix_fmt else "yuv420p"
    bit_rate = bitrate_kbps * 1000 if bitrate_kbps else None
    if nvenc:
        options = {} if bit_rate else {"cq": str(crf)}
        return EncoderChoice(NVENC[codec], {**options, "preset": "p4"}, pix, bit_rate,
                             "hvc1" if codec is VideoCodec.X265 else None)
    quality = {} if bit_rate else {"crf": str(crf)}
    if codec is VideoCodec.AV1:
        # SVT-AV1 prints ~20 lines of its settings to stderr per encoder unless its
        # log level (read from the environment when it starts) says errors only
        os.environ.setdefault("SVT_LOG", "1")
        if not bit_rate:
            quality = {"crf": str(max(1, round(crf * 63 / 51)))}
        return EncoderChoice("libsvtav1", {**quality, "preset": str(SVT_PRESETS[preset])},
                             pix, bit_rate)
    options = {**quality, "preset": preset}
    if codec is VideoCodec.X265:
        # (x265 prints its settings to stderr unless told; HDR's params say it too)
        params = hdr_x265_params or "log-level=error"
        return EncoderChoice("libx265", {**options, "x265-params": params}, pix,
                             bit_rate, "hvc1")  # the tag Apple players need
    return EncoderChoice("libx264", options, pix, bit_rate)

"""10-bit and HDR10 sources stay 10-bit HDR10: bit depth and mastering metadata.

Every encoder that re-encodes a source keeps it this way: the engine (a source
decoded to more than 8 bits a sample is rendered on 10-bit planes and encoded
with libx265 through PyAV) and media-worker's re-encode of a source whose
keyframes are too sparse (the ffmpeg command line, :func:`x265_cli_args`). Both
copy the colour description and hand the HDR10 static metadata (mastering
display colour volume, content light level) to x265 in its own syntax.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

# x265 units: chromaticity in 0.00002, luminance in 0.0001 cd/m2
_CHROMA_UNIT, _LUMA_UNIT = 50_000, 10_000


@dataclass(frozen=True)
class HdrInfo:
    bit_depth: int  # 8 or 10
    master_display: str | None = None  # x265's master-display value
    max_cll: str | None = None  # x265's max-cll value: "MaxCLL,MaxFALL"

    @property
    def x265_params(self) -> str:
        params = ["log-level=error"]
        if self.master_display or self.max_cll:
            params.append("hdr10=1")
        if self.master_display:
            params.append(f"master-display={self.master_display}")
        if self.max_cll:
            params.append(f"max-cll={self.max_cll}")
        return ":".join(params)


def _rationals(raw: bytes, count: int) -> list[float]:
    values = struct.unpack(f"<{2 * count}i", raw[:8 * count])
    return [n / d if d else 0.0 for n, d in zip(values[::2], values[1::2], strict=True)]


def master_display(raw: bytes) -> str | None:
    """x265's master-display string from FFmpeg's AVMasteringDisplayMetadata bytes
    (primaries R, G, B, white point, min and max luminance, two has-flags)."""
    if len(raw) < 88:
        return None
    r = _rationals(raw, 10)
    has_primaries, has_luminance = struct.unpack("<ii", raw[80:88])
    if not (has_primaries and has_luminance):
        return None
    (rx, ry, gx, gy, bx, by, wx, wy), (lo, hi) = r[:8], r[8:10]

    def xy(x, y):
        return f"({round(x * _CHROMA_UNIT)},{round(y * _CHROMA_UNIT)})"

    return (f"G{xy(gx, gy)}B{xy(bx, by)}R{xy(rx, ry)}WP{xy(wx, wy)}"
            f"L({round(hi * _LUMA_UNIT)},{round(lo * _LUMA_UNIT)})")


def content_light(raw: bytes) -> str | None:
    """x265's max-cll string from FFmpeg's AVContentLightMetadata bytes."""
    if len(raw) < 8:
        return None
    max_cll, max_fall = struct.unpack("<II", raw[:8])
    return f"{max_cll},{max_fall}"


Color = tuple[int, int, int, int]  # primaries, transfer, matrix, range (FFmpeg numbers)


def frame_color(frame) -> Color:
    """The colour description of a decoded PyAV frame (duck-typed); 2/2/2/0 = unspecified."""
    primaries, transfer, matrix, full = (int(getattr(frame, a) or 0) for a in
                                         ("color_primaries", "color_trc", "colorspace",
                                          "color_range"))
    return primaries, transfer, matrix, full


def x265_cli_args(hdr: HdrInfo, color: Color | None, *, closed_gop: bool = False) -> list[str]:
    """ffmpeg output arguments encoding 10-bit HEVC (``hvc1``) that keeps ``color``
    and ``hdr``'s HDR10 metadata: the command-line twin of the engine's encoder.
    Colour goes into the HEVC VUI through x265's own options (numbers are H.273
    codes), which hold even where the decoded frames say nothing. ``closed_gop``
    for files cut at keyframes with ``-c copy`` (an open GOP's leading frames
    would be lost at each cut)."""
    params = hdr.x265_params + (":open-gop=0" if closed_gop else "")
    if color is not None:
        primaries, transfer, matrix, rng = color
        vui = [f"{name}={value}" for name, value in
               (("colorprim", primaries), ("transfer", transfer), ("colormatrix", matrix))
               if value not in (0, 2)]
        if rng in (1, 2):
            vui.append("range=" + ("limited" if rng == 1 else "full"))
        params = ":".join([params, *vui])
    return ["-c:v", "libx265", "-pix_fmt", "yuv420p10le", "-x265-params", params,
            "-tag:v", "hvc1"]


def hdr_info(frame) -> HdrInfo:
    """Bit depth and HDR10 metadata of a decoded PyAV frame (duck-typed)."""
    name = frame.format.name
    deep = any(tag in name for tag in ("p10", "p12", "p16"))
    found = {sd.type.name: bytes(sd) for sd in frame.side_data}
    md = found.get("MASTERING_DISPLAY_METADATA")
    cll = found.get("CONTENT_LIGHT_LEVEL")
    return HdrInfo(bit_depth=10 if deep else 8,
                   master_display=master_display(md) if md else None,
                   max_cll=content_light(cll) if cll else None)

"""``dynamic_range=sdr``: an HDR10 source comes out 8-bit BT.709, tone-mapped, not clipped."""

import subprocess

import av
import numpy as np
import pytest
from shared_types.models import ConversionParams, DynamicRange
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.testing.media_facts import media_facts
from stereo_media.testing.rich_media import MASTER_DISPLAY, MAX_CLL

from stereo_inference import convert_file
from stereo_inference.tonemap import nits_to_pq

W, H, BAR = 192, 96, 32
RAMP_NITS = (100, 150, 200, 250, 300, 400)  # all above SDR white
GREY_NITS = 26  # BT.2408's 18 % grey in a PQ master
SDR = ConversionParams(divergence=0.0, crf=0, dynamic_range=DynamicRange.SDR)


def pq_code(nits: float) -> int:
    return round(64 + 876 * float(nits_to_pq(nits)))


@pytest.fixture(scope="module")
def hdr_bars(tmp_path_factory):
    """HDR10 (PQ, BT.2020, 10-bit, 1000-nit master): grey bars of RAMP_NITS on top,
    a mid-grey field below, losslessly coded so every code value is exact."""
    work = tmp_path_factory.mktemp("hdr")
    frame = np.full((H * 3 // 2, W), 512, np.uint16)
    frame[H // 2:H] = pq_code(GREY_NITS)
    for i, nits in enumerate(RAMP_NITS):
        frame[:H // 2, i * BAR:(i + 1) * BAR] = pq_code(nits)
    raw = work / "bars.yuv"
    raw.write_bytes(np.tile(frame, (12, 1)).astype("<u2").tobytes())
    out = work / "bars.mkv"
    x265 = ("lossless=1:log-level=error:hdr10=1:colorprim=bt2020:transfer=smpte2084:"
            f"colormatrix=bt2020nc:master-display={MASTER_DISPLAY}:max-cll={MAX_CLL}")
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
                    "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", f"{W}x{H}", "-r", "12",
                    "-i", str(raw), "-c:v", "libx265", "-preset", "ultrafast",
                    "-x265-params", x265, "-color_primaries", "bt2020",
                    "-color_trc", "smpte2084", "-colorspace", "bt2020nc", "-color_range", "tv",
                    str(out)], check=True, timeout=120)
    return out


def luma(path) -> np.ndarray:
    with av.open(str(path)) as c:
        frame = next(c.decode(c.streams.video[0]))
        return frame.to_ndarray(format="yuv420p")[:frame.height]


def test_sdr_output_is_8_bit_bt709_and_tagged_so(hdr_bars, tmp_path):
    out = tmp_path / "sdr.mp4"
    convert_file(hdr_bars, out, mode="sbs", params=SDR)
    facts = media_facts(out)
    assert facts.of_kind("video")[0].codec == "h264"
    assert facts.pix_fmt == "yuv420p"
    assert facts.color == ("1", "1", "1")  # BT.709 primaries, transfer, matrix
    assert facts.hdr_side_data == frozenset()


def test_highlights_are_compressed_not_clipped_and_mid_grey_stays_mid(hdr_bars, tmp_path):
    out = tmp_path / "sdr.mkv"
    convert_file(hdr_bars, out, mode="sbs", params=SDR)
    y = luma(out).astype(int)
    left = y[:, :W]  # divergence 0: the left eye is the picture itself
    bars = [int(np.median(left[4:H // 2 - 4, i * BAR + 6:(i + 1) * BAR - 6]))
            for i in range(len(RAMP_NITS))]
    assert all(b < a for a, b in zip(bars[1:], bars, strict=False)), bars  # rising
    assert bars[-1] <= 235  # never past SDR white
    assert bars[0] < 220  # 100 nits sits below white: room was left for the highlights
    grey = int(np.median(left[H // 2 + 6:H - 6, 8:W - 8]))
    assert 105 <= grey <= 145, grey  # an 18 % grey lands near the middle of 16..235


def test_an_hdr_anaglyph_is_always_tone_mapped(hdr_bars, tmp_path):
    out = tmp_path / "anaglyph.mp4"
    convert_file(hdr_bars, out, mode="anaglyph",
                 params=ConversionParams(divergence=0.0, crf=0))  # dynamic_range keep
    facts = media_facts(out)
    assert (facts.pix_fmt, facts.color) == ("yuv420p", ("1", "1", "1"))
    grey = int(np.median(luma(out).astype(int)[H // 2 + 6:H - 6, 8:W - 8]))
    assert 105 <= grey <= 145, grey  # the same mid-grey as the SBS output


def test_an_hlg_source_is_tone_mapped_too(tmp_path):
    """HLG (BT.2100): a grey ramp of HLG signal levels up to 100 % comes out rising,
    BT.709-tagged, its top below SDR white's code plus rounding."""
    frame = np.full((H * 3 // 2, W), 512, np.uint16)
    levels = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    for i, level in enumerate(levels):
        frame[:H, i * BAR:(i + 1) * BAR] = round(64 + 876 * level)
    raw = tmp_path / "hlg.yuv"
    raw.write_bytes(np.tile(frame, (6, 1)).astype("<u2").tobytes())
    src = tmp_path / "hlg.mkv"
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
                    "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", f"{W}x{H}", "-r", "12",
                    "-i", str(raw), "-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                    "lossless=1:log-level=error:colorprim=bt2020:transfer=arib-std-b67:"
                    "colormatrix=bt2020nc", str(src)], check=True, timeout=120)
    out = tmp_path / "sdr.mp4"
    convert_file(src, out, mode="sbs", params=SDR)
    assert media_facts(out).color == ("1", "1", "1")
    y = luma(out).astype(int)[:, :W]
    bars = [int(np.median(y[8:H - 8, i * BAR + 6:(i + 1) * BAR - 6]))
            for i in range(len(levels))]
    assert all(b < a for a, b in zip(bars[1:], bars, strict=False)), bars
    assert bars[-1] <= 235 and bars[0] > 60, bars


def test_keep_leaves_the_hdr_source_hdr(hdr_bars, tmp_path):
    out = tmp_path / "keep.mkv"
    convert_file(hdr_bars, out, mode="sbs", params=ConversionParams(divergence=0.0))
    facts = media_facts(out)
    assert facts.pix_fmt == "yuv420p10le"
    assert facts.color == ("9", "16", "9")  # BT.2020, PQ, BT.2020 non-constant

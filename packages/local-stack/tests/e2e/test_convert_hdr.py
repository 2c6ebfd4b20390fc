"""``stereo-spot convert --segment-seconds 4`` of an HDR10 source: kept HDR, or tone-mapped SDR."""

from pathlib import Path

import pytest
from stereo_media.testing.media_facts import media_facts
from stereo_media.testing.rich_media import make_rich_video

# four segments (<= 4 s, a multiple of 2 workers); x265's open GOPs make chunking re-encode
SECONDS, FPS = 9.0, 12


@pytest.fixture(scope="module")
def film(tmp_path_factory):
    """10-bit HEVC, BT.2020 / PQ, mastering display and content light level."""
    path = tmp_path_factory.mktemp("hdr") / "film.mkv"
    return make_rich_video(path, seconds=SECONDS, size=(320, 180), fps=FPS, hdr10=True)


@pytest.mark.parametrize("dynamic_range", ["keep", "sdr"])
def test_segmented_hdr_is_kept_or_tone_mapped_and_no_frame_is_lost(
    film, dynamic_range, tmp_path: Path, stack_env, run_cli
):
    out = tmp_path / "out.mkv"
    result = run_cli(["convert", str(film.path), "-o", str(out), "--mode", "half-sbs",
                      "--dynamic-range", dynamic_range, "--workers", "2",
                      "--segment-seconds", "4"], stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    assert "4 segment(s)" in result.stdout  # 9 s in <= 4 s parts, as many for each of 2 workers
    src, facts = media_facts(film.path), media_facts(out)
    assert facts.frames == src.frames
    assert len(facts.of_kind("audio")) == 2 and len(facts.cues) == len(film.cues)
    if dynamic_range == "keep":
        assert (facts.of_kind("video")[0].codec, facts.pix_fmt) == ("hevc", "yuv420p10le")
        assert facts.color == src.color == ("9", "16", "9")
        assert facts.hdr_side_data == {"MASTERING_DISPLAY_METADATA", "CONTENT_LIGHT_LEVEL"}
    else:
        assert (facts.of_kind("video")[0].codec, facts.pix_fmt) == ("h264", "yuv420p")
        assert facts.color == ("1", "1", "1")
        assert facts.hdr_side_data == frozenset()
    assert facts.stereo_mode == "left_right"

"""The frame-packing SEI the engine writes for every encoder is the one FFmpeg's
own bitstream parser reads, in H.264 and HEVC, in both its forms; and why the
keyframe's form leaves the views' order unsaid (a bug of the ffmpeg command
line, pinned here so that its fix shows)."""

import subprocess
from pathlib import Path

import pytest

from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.frame_packing import PackingSeis, frame_packing_sei
from stereo_media.sei import START_CODE, with_sei
from stereo_media.stereo_boxes import add_st3d
from stereo_media.testing.media_facts import ffmpeg_decode_error, frame_packing_arrangements


def _encode(path: Path, encoder: str, *extra: str) -> bytes:
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                    "-i", "testsrc2=size=64x48:rate=10:duration=1", "-c:v", encoder,
                    "-x265-params", "log-level=none", "-g", "5", *extra, str(path)],
                   check=True, timeout=60)
    return path.read_bytes()


@pytest.mark.parametrize(("encoder", "suffix", "hevc"), [("libx264", ".h264", False),
                                                          ("libx265", ".hevc", True)])
@pytest.mark.parametrize(("packing", "kind"), [("sbs", 3), ("tb", 4)])
@pytest.mark.parametrize(("left_first", "views"), [(True, 1), (False, 0)])
def test_the_sei_reads_back_as_the_arrangement(tmp_path, encoder, suffix, hevc, packing, kind,
                                               left_first, views):
    plain = tmp_path / f"plain{suffix}"
    data = _encode(plain, encoder)
    assert frame_packing_arrangements(plain) == []
    # the SEI before the first slice of the first picture (after its parameter sets)
    sei = frame_packing_sei(packing, hevc=hevc, left_first=left_first)
    marked = tmp_path / f"marked{suffix}"
    marked.write_bytes(with_sei(data, sei, hevc=hevc))
    assert [(k, v) for _, k, v in frame_packing_arrangements(marked)] == [(kind, views)]
    assert START_CODE + sei in marked.read_bytes()


def test_a_keyframe_gets_the_arrangement_and_the_next_picture_the_views_order():
    seis = PackingSeis("sbs")
    unsaid, left_first = (frame_packing_sei("sbs", left_first=False), frame_packing_sei("sbs"))
    pictures = [True, False, False, True, True, False, False]
    assert [seis.for_picture(key) for key in pictures] == [
        unsaid, left_first, None, unsaid, unsaid, left_first, None]


def test_the_ffmpeg_command_line_stops_on_a_keyframe_with_both_stereo_signals(tmp_path):
    """x264's own SEI (left view first, on keyframes) beside the container's
    st3d: the shipped ffmpeg cannot decode the file. When this fails, FFmpeg
    has fixed it, and keyframes may say the views' order again."""
    both = tmp_path / "both.mp4"
    _encode(both, "libx264", "-x264-params", "frame-packing=3")
    add_st3d(both, "sbs")
    assert "File exists" in (ffmpeg_decode_error(both) or "")
    sei_only = tmp_path / "sei_only.mp4"
    _encode(sei_only, "libx264", "-x264-params", "frame-packing=3")
    assert ffmpeg_decode_error(sei_only) is None


def test_only_packed_layouts_have_an_arrangement():
    with pytest.raises(KeyError):
        frame_packing_sei("anaglyph")
    with pytest.raises(KeyError):
        PackingSeis("anaglyph")

"""Depth state warmed on the previous segment's tail (real PyAV, heuristic depth)."""

import subprocess
from pathlib import Path

import av
import pytest
from shared_types.models import ConversionParams, DepthModel
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.testing.media import make_video

from stereo_inference import convert_file
from stereo_inference.errors import InvalidInputError
from stereo_inference.seams import warm_depth_state


def test_warming_on_a_whole_clip_reproduces_the_state_of_converting_it(clip, tmp_path):
    converted = convert_file(clip, tmp_path / "o.mp4", mode="sbs").depth_state
    warmed = warm_depth_state(clip, ConversionParams(), tail_frames=1000)
    assert warmed == converted


def test_a_short_tail_still_gives_a_depth_range(clip):
    state = warm_depth_state(clip, ConversionParams(), tail_frames=4, device="cpu")
    assert state["model"] == "heuristic"
    assert state["hi"] > state["lo"]


def test_iw3_keeps_no_state(clip):
    assert warm_depth_state(clip, ConversionParams(depth_model=DepthModel.IW3)) is None


@pytest.mark.parametrize("name", ["missing.mp4", "garbage.mp4"])
def test_an_unreadable_segment_is_invalid_input(tmp_path, name):
    if name == "garbage.mp4":
        (tmp_path / name).write_bytes(b"not a video" * 50)
    with pytest.raises(InvalidInputError):
        warm_depth_state(tmp_path / name, ConversionParams())


def test_convert_file_warms_its_state_from_the_context(halves, tmp_path, encoded):
    first, second = halves
    plain = convert_file(second, tmp_path / "plain.mp4", mode="sbs")
    seeded = convert_file(second, tmp_path / "seeded.mp4", mode="sbs",
                          depth_state=warm_depth_state(first, ConversionParams()))
    with_context = convert_file(second, tmp_path / "ctx.mp4", mode="sbs", context_path=first)
    assert with_context.depth_state == seeded.depth_state
    assert with_context.frames == plain.frames == 24
    # The context changed how the first frames were normalised, exactly like the state did.
    plain_first, seeded_first, ctx_first = (frames[0] for frames in encoded)
    assert (ctx_first == seeded_first).all()
    assert (ctx_first != plain_first).any()


def test_an_explicit_depth_state_wins_over_the_context(halves, tmp_path):
    first, second = halves
    plain = convert_file(second, tmp_path / "plain.mp4", mode="anaglyph")
    state = plain.depth_state
    explicit = convert_file(second, tmp_path / "a.mp4", mode="anaglyph", depth_state=state)
    both = convert_file(second, tmp_path / "b.mp4", mode="anaglyph", depth_state=state,
                        context_path=first)
    assert both.depth_state == explicit.depth_state


def test_an_unusable_context_is_ignored(halves, tmp_path):
    _, second = halves
    plain = convert_file(second, tmp_path / "plain.mp4", mode="tb")
    (tmp_path / "bad.mp4").write_bytes(b"")
    for context in (tmp_path / "gone.mp4", tmp_path / "bad.mp4"):
        result = convert_file(second, tmp_path / "o.mp4", mode="tb", context_path=context)
        assert result.depth_state == plain.depth_state
        assert result.frames == 24


@pytest.fixture(scope="module")
def kept_clock_segment(media) -> Path:
    """The third second of a 3 s clip (keyframes every half second), cut as
    media-worker cuts: the source's timestamps kept (it starts at 2 s)."""
    whole = make_video(media / "clocked.mp4", seconds=3.0, gop=12, audio=False)
    out = media / "clocked"
    out.mkdir()
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-i", str(whole),
                    "-c", "copy", "-f", "segment", "-segment_time", "1",
                    "-segment_time_delta", "0.05", str(out / "%05d.mp4")],
                   check=True, timeout=60)
    last = sorted(out.glob("*.mp4"))[-1]
    with av.open(str(last)) as c:
        stream = c.streams.video[0]
        assert float(stream.start_time * stream.time_base) == pytest.approx(2.0)
    return last


def test_the_warm_up_decodes_from_the_keyframe_before_its_tail_on_the_sources_clock(
        kept_clock_segment, monkeypatch):
    import stereo_inference.seams as seams

    decoded = []

    class Counted(seams.ReadableFrames):
        def __iter__(self):
            for frame in super().__iter__():
                decoded.append(frame.pts)
                yield frame

    monkeypatch.setattr(seams, "ReadableFrames", Counted)
    state = warm_depth_state(kept_clock_segment, ConversionParams(), tail_frames=8)
    assert len(decoded) == 12  # from the keyframe at 2.5 s: 8 tail frames and 4 before
    decoded.clear()
    monkeypatch.setattr(seams, "_tail_start", lambda *args: None)  # the whole segment
    assert warm_depth_state(kept_clock_segment, ConversionParams(), tail_frames=8) == state
    assert len(decoded) == 24

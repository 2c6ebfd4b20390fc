"""Closed captions carried in the source's pictures (A/53) come out in the 3D
video at the same moments, in every container and codec the engine writes;
captions as a track of their own (a MOV's c608) become a text track."""

import av
import pytest
from stereo_media.testing.captions import (
    caption_cues,
    make_caption_track_video,
    make_captioned_video,
    track_cues,
)
from stereo_media.testing.media import make_video
from stereo_media.testing.media_facts import media_facts

from stereo_inference import convert_file


@pytest.mark.parametrize(("source", "output", "mode"), [
    ("captioned.mp4", "out.mp4", "half-sbs"),
    ("captioned.ts", "out.mkv", "anaglyph"),
    ("captioned.mkv", "out.mp4", "tb"),
])
def test_captions_in_the_pictures_are_kept_at_their_moments(tmp_path, source, output, mode):
    captioned = make_captioned_video(tmp_path / source, text="HELLO WORLD")
    convert_file(captioned, tmp_path / output, mode=mode, start_at_zero=True)

    cues = caption_cues(captioned)
    assert [c.text for c in cues] == ["HELLO WORLD"]
    out = caption_cues(tmp_path / output)
    assert [c.text for c in out] == [c.text for c in cues]
    # to the millisecond an MKV stores (each time rounded there, and the cue
    # timed from the first picture's rounded time)
    for got, want in zip(out, cues, strict=True):
        assert got.start_s == pytest.approx(want.start_s, abs=0.0011)
        assert got.end_s == pytest.approx(want.end_s, abs=0.0011)


def test_a_ten_bit_source_keeps_its_captions_in_hevc(tmp_path):
    captioned = make_captioned_video(tmp_path / "ten.mp4", pix_fmt="yuv420p10le",
                                     text="TEN BITS")
    out = tmp_path / "out.mp4"
    convert_file(captioned, out, mode="sbs")

    with av.open(str(out)) as container:
        assert container.streams.video[0].codec_context.name == "hevc"
    assert [c.text for c in caption_cues(out)] == ["TEN BITS"]
    assert caption_cues(out) == caption_cues(captioned)


def test_a_source_without_captions_gets_none(tmp_path):
    plain = make_video(tmp_path / "plain.mp4", seconds=1.0)
    out = tmp_path / "out.mp4"
    convert_file(plain, out, mode="half-sbs")
    assert caption_cues(out) == []


@pytest.mark.parametrize(("output", "codec"), [("out.mp4", "mov_text"), ("out.mkv", "subrip")])
def test_a_caption_track_becomes_a_text_track_named_closed_captions(tmp_path, output, codec):
    source = make_caption_track_video(tmp_path / "edit.mov", text="FROM A TRACK")
    out = tmp_path / output
    convert_file(source, out, mode="half-sbs")

    subtitles = media_facts(out).of_kind("subtitle")
    assert [(s.codec, s.title) for s in subtitles] == [(codec, "Closed captions")]
    assert track_cues(out) == track_cues(source)
    assert [c.text for c in track_cues(out)] == ["FROM A TRACK"]

"""Burned-in 3D subtitles sit in front of the nearest content under them."""

import av
import numpy as np
import pytest
from shared_types.models import ConversionParams
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.subtitle_cues import parse_srt
from stereo_media.testing.rich_media import Cue, make_rich_video
from stereo_media.testing.stereo_offset import horizontal_offset

from stereo_inference import convert_file
from stereo_inference.subtitles3d import read_text_cues, text_levels
from stereo_inference.viewing import limits, viewing_of

W, H, FPS = 320, 180, 12
CUE = Cue(0.5, 1.5, "NEAR TEXT")


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    """A moving pattern whose bottom (under the cue) the depth estimator finds nearest."""
    path = tmp_path_factory.mktemp("subs3d") / "scene.mp4"
    # dimmed so only the burned text is white
    return make_rich_video(path, seconds=2.0, size=(W, H), fps=FPS, cues=(CUE,), chapters=(),
                           audio=(), video_filter="lutyuv=y=val*0.7")


def measured(out) -> tuple[float, list[float]]:
    """(the text's disparity on the cue's last frame, the disparities of the
    object under it just before and just after the cue), in pixels, crossed positive."""
    with av.open(str(out)) as c:
        frames = {round(float(f.pts * f.time_base) * FPS): f.to_ndarray(format="gray")
                  for f in c.decode(video=0)}
    # The text's shift only grows during a cue (it never moves back), as nearer
    # content comes under it: its last frame holds the largest. (In the middle of
    # the cue the text can be behind what comes under it later: on this clip the
    # moving pattern is lifted as it moves, 10 px at 1.0 s against 14 at 1.6 s.)
    cue_frame = frames[round(CUE.end_s * FPS) - 1]
    text_left, text_right = cue_frame[:, :W] > 200, cue_frame[:, W:] > 200
    assert text_left.sum() > 50 and text_right.sum() > 50  # the text is there, in both views
    rows = np.nonzero(text_left.any(axis=1))[0]
    band = slice(rows.min(), rows.max() + 1)  # the cue's rows: what lies under the text
    text = horizontal_offset(text_left[band].astype(float), text_right[band].astype(float))
    objects = [horizontal_offset(frames[n][band, :W].astype(float),
                                 frames[n][band, W:].astype(float))
               for n in (int(0.4 * FPS), int(1.6 * FPS))]
    return text, objects


def converted(scene, tmp_path, name: str, **params) -> tuple[float, list[float]]:
    out = tmp_path / f"{name}.mp4"
    convert_file(scene.path, out, mode="sbs",
                 params=ConversionParams(subtitles_3d=True, **params))
    return measured(out)


def test_the_text_is_nearer_than_the_object_under_it(scene, tmp_path):
    text, objects = converted(scene, tmp_path, "out", divergence=5.0, convergence=1.0)
    assert min(objects) > 0  # the content under the cue really is in front of the screen
    assert text > max(objects)


def test_the_ipd_offset_moves_the_text_back_with_the_picture(scene, tmp_path):
    """The offset pushes everything 4.8 px back: the text follows the picture
    (the plain formula left it where it was) and stays in front of it."""
    plain, _ = converted(scene, tmp_path, "plain", divergence=5.0, convergence=1.0)
    text, objects = converted(scene, tmp_path, "offset", divergence=5.0, convergence=1.0,
                              ipd_offset=1.5)
    assert text > max(objects)
    assert text < plain - 3  # negative control: without the offset it is nearer


LAPTOP = dict(viewing="laptop", fit_strength=False, divergence=8.0, convergence=1.0)


def test_with_comfort_fix_the_text_stays_within_the_near_limit(scene, tmp_path):
    near = limits(viewing_of(ConversionParams(**LAPTOP)), W).near_px  # ~9.6 px
    text, objects = converted(scene, tmp_path, "fixed", comfort="fix", **LAPTOP)
    assert text <= near + 1
    assert text >= max(objects) - 1  # not behind what it covers
    # negative control: only reported, the picture and its text go past the limit
    text, objects = converted(scene, tmp_path, "reported", comfort="report", **LAPTOP)
    assert max(objects) > near + 2 and text > max(objects)


def test_without_the_flag_nothing_is_burned(scene, tmp_path):
    out = tmp_path / "plain.mp4"
    convert_file(scene.path, out, mode="sbs",
                 params=ConversionParams(divergence=5.0, convergence=1.0))
    with av.open(str(out)) as c:
        frame = [f for i, f in enumerate(c.decode(video=0)) if i == int(1.0 * FPS)][0]
        band = frame.to_ndarray(format="gray")[int(0.7 * H):, :W]
    assert (band > 200).sum() <= 5  # no white text (the burned run has > 50 such pixels)


def test_cues_are_read_from_the_subtitle_track(scene):
    cues = read_text_cues(ffmpeg_path(), scene.path, 60)
    assert [(c.start_s, c.end_s, c.text) for c in cues] == [(0.5, 1.5, "NEAR TEXT")]


def test_srt_markup_is_stripped_and_empty_cues_dropped():
    cues = parse_srt("1\n00:00:01,000 --> 00:00:02,500\n<i>Hi</i> {\\an8}there\n\n"
                     "2\n00:00:03,000 --> 00:00:04,000\n<b></b>\n")
    assert [(c.start_s, c.end_s, c.text) for c in cues] == [(1.0, 2.5, "Hi there")]


def test_anaglyph_text_is_red_for_the_left_eye_and_cyan_for_the_right(scene, tmp_path):
    out = tmp_path / "anaglyph.mp4"
    convert_file(scene.path, out, mode="anaglyph",
                 params=ConversionParams(divergence=5.0, convergence=1.0, subtitles_3d=True))
    with av.open(str(out)) as c:
        frame = [f for i, f in enumerate(c.decode(video=0)) if i == int(1.0 * FPS)][0]
        rgb = frame.to_ndarray(format="rgb24").astype(int)[int(0.75 * H):, W // 5:-W // 5]
    red = (rgb[..., 0] > 180) & (rgb[..., 1] < 90) & (rgb[..., 2] < 90)
    cyan = (rgb[..., 0] < 90) & (rgb[..., 1] > 150) & (rgb[..., 2] > 150)
    assert red.sum() > 20
    assert cyan.sum() > 20
    # the left eye's (red) text lies right of the right eye's (cyan): in front of the screen
    assert np.nonzero(red)[1].mean() > np.nonzero(cyan)[1].mean() + 2


def test_on_hdr10_output_the_text_is_graphics_white_not_dark_grey(tmp_path):
    """A 10-bit PQ output: white text at 203 nits (code ~580 of 1023), where SDR's
    235 would be a dark grey of about 2 nits."""
    src = make_rich_video(tmp_path / "hdr.mkv", seconds=2.0, size=(W, H), fps=FPS, cues=(CUE,),
                          chapters=(), audio=(), hdr10=True, video_filter="lutyuv=y=val*0.4")
    out = tmp_path / "out.mkv"
    params = ConversionParams(divergence=5.0, convergence=1.0, subtitles_3d=True)
    convert_file(src.path, out, mode="sbs", params=params)
    with av.open(str(out)) as c:
        frame = [f for i, f in enumerate(c.decode(video=0)) if i == int(1.0 * FPS)][0]
        assert frame.format.name == "yuv420p10le"
        band = frame.to_ndarray(format="yuv420p10le")[int(0.7 * H):H, :W]
    white = text_levels(10, 16).white
    assert 560 <= white <= 600
    assert ((band >= white - 8) & (band <= white + 8)).sum() > 50

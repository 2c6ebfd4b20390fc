"""Everything a rich source carries survives ``convert_file`` and the output says it is 3D."""

import av
import pytest
from stereo_media.source_streams import ATTACHED_PIC
from stereo_media.stereo_boxes import read_st3d
from stereo_media.subtitle_cues import TextCue
from stereo_media.testing.captions import track_cues
from stereo_media.testing.media import (
    make_broadcast_recording,
    make_multiplex_recording,
    make_two_angle_video,
    make_video,
)
from stereo_media.testing.media_facts import (
    ffmpeg_decode_error,
    frame_packing_arrangements,
    media_facts,
)
from stereo_media.testing.rich_media import make_rich_video
from stereo_media.testing.timing_kept import assert_timing_kept

from stereo_inference import convert_file

SECONDS, FPS = 3.0, 12


@pytest.fixture(scope="module")
def phone_mp4(tmp_path_factory):
    """854x480 coded, shown portrait (90 degrees), 4:3 pixels, two audio tracks, subs."""
    path = tmp_path_factory.mktemp("rich") / "phone.mp4"
    return make_rich_video(path, seconds=SECONDS, fps=FPS, rotation=90, sar=(4, 3))


@pytest.fixture(scope="module")
def film_mkv(tmp_path_factory):
    """854x480 10-bit HDR10 HEVC in MKV with SubRip subtitles."""
    path = tmp_path_factory.mktemp("rich") / "film.mkv"
    return make_rich_video(path, seconds=SECONDS, fps=FPS, hdr10=True)


def assert_everything_kept(source, out_facts):
    src = media_facts(source.path)
    labels = [(s.kind, s.language, s.title, s.channels) for s in src.streams]
    assert [(s.kind, s.language, s.title, s.channels)
            for s in out_facts.streams] == labels  # the video's language and title too
    assert [t for _, _, t in out_facts.chapters] == [c.title for c in source.chapters]
    for (start, end, _), chapter in zip(out_facts.chapters, source.chapters, strict=True):
        assert abs(start - chapter.start_s) < 0.001
        assert abs(end - chapter.end_s) < 0.002
    assert out_facts.tags["title"] == source.metadata["title"]
    assert out_facts.tags["creation_time"].startswith("2024-05-01T10:00:00")
    assert_timing_kept(out_facts, src, source, FPS)


def assert_tvs_and_the_ffmpeg_command_line_read_it(out, kind: int) -> None:
    """The frame-packing SEI of arrangement ``kind`` on every keyframe with the
    views' order unsaid, then said (left first) on the picture after it; and
    the ffmpeg command line decodes the file from its start and from a seek
    (it cannot when a keyframe's SEI and the container both say 3D:
    shared-types' test_frame_packing)."""
    seis = frame_packing_arrangements(out)
    assert seis and {k for _, k, _ in seis} == {kind}
    assert [views for _, _, views in seis] == [0, 1] * (len(seis) // 2)
    assert ffmpeg_decode_error(out) is None
    assert ffmpeg_decode_error(out, seek_s=SECONDS / 2) is None


def test_a_phone_clip_keeps_every_stream_and_comes_out_upright_half_sbs(phone_mp4, tmp_path):
    out = tmp_path / "out.mp4"
    result = convert_file(phone_mp4.path, out, mode="half-sbs")
    facts = media_facts(out)
    assert_everything_kept(phone_mp4, facts)
    assert (facts.width, facts.height) == (480, 854) == (result.width, result.height)
    assert facts.rotation == 0  # applied to the pixels, not left to the player
    assert facts.sample_aspect == (3, 4)  # the pixels turned with the picture
    assert facts.frame_packing == "SIDEBYSIDE"
    assert read_st3d(out) == 2
    assert_tvs_and_the_ffmpeg_command_line_read_it(out, 3)


def test_an_hdr_film_in_mkv_keeps_every_stream_and_says_top_bottom(film_mkv, tmp_path):
    out = tmp_path / "out.mkv"
    convert_file(film_mkv.path, out, mode="tb")
    facts = media_facts(out)
    assert_everything_kept(film_mkv, facts)
    assert [s.codec for s in facts.of_kind("subtitle")] == ["subrip"]  # copied as-is
    assert (facts.width, facts.height) == (854, 960)
    assert facts.stereo_mode == "top_bottom"
    assert facts.frame_packing == "TOPBOTTOM"
    assert_tvs_and_the_ffmpeg_command_line_read_it(out, 4)  # HEVC's SEI, in MKV
    # still 10-bit HDR10: BT.2020 / PQ description, mastering display, light level
    source = media_facts(film_mkv.path)
    assert facts.pix_fmt == "yuv420p10le"
    assert facts.of_kind("video")[0].codec == "hevc"
    assert facts.color == source.color
    assert facts.hdr_side_data == source.hdr_side_data == {"MASTERING_DISPLAY_METADATA",
                                                           "CONTENT_LIGHT_LEVEL"}


def test_mkv_subtitles_become_mov_text_in_mp4_and_the_half_width_stays_854(film_mkv, tmp_path):
    out = tmp_path / "out.mp4"
    convert_file(film_mkv.path, out, mode="half-sbs")
    facts = media_facts(out)
    assert_everything_kept(film_mkv, facts)
    assert [s.codec for s in facts.of_kind("subtitle")] == ["mov_text"]
    assert (facts.width, facts.height) == (854, 480)  # each eye 427 wide
    assert read_st3d(out) == 2
    assert_tvs_and_the_ffmpeg_command_line_read_it(out, 3)  # HEVC's SEI, in MP4


@pytest.mark.parametrize("suffix", [".mp4", ".mkv"])
def test_anaglyph_carries_no_stereo_signalling(phone_mp4, tmp_path, suffix):
    out = tmp_path / f"out{suffix}"
    convert_file(phone_mp4.path, out, mode="anaglyph")
    facts = media_facts(out)
    assert facts.frame_packing is None
    assert facts.stereo_mode is None
    if suffix == ".mp4":
        assert read_st3d(out) is None
    assert len(facts.of_kind("audio")) == 2
    assert len(facts.cues) == len(phone_mp4.cues)


def test_the_container_argument_wins_over_the_file_name(phone_mp4, tmp_path):
    out = tmp_path / "out.video"
    convert_file(phone_mp4.path, out, mode="half-tb", container="mkv")
    facts = media_facts(out)
    assert facts.stereo_mode == "top_bottom"
    assert [s.codec for s in facts.of_kind("subtitle")] == ["subrip"]


def test_an_mp4_sources_track_titles_are_mkv_titles_not_a_second_name_tag(phone_mp4, tmp_path):
    # MP4 stores a track's title as "name": copied on, MKV got a NAME tag beside it
    out = tmp_path / "out.mkv"
    convert_file(phone_mp4.path, out, mode="half-sbs")
    with av.open(str(out)) as c:
        labels = [{k.lower(): v for k, v in s.metadata.items()} for s in c.streams]
    assert [m.get("title") for m in labels] == \
        [s.title for s in media_facts(phone_mp4.path).streams]
    assert not [m for m in labels if "name" in m]


@pytest.mark.parametrize("suffix", [".mp4", ".mkv"])
def test_a_camera_clips_start_timecode_is_kept_even_with_nothing_else_beside_the_picture(
        tmp_path, suffix):
    # video only: without its timecode the engine's own encode would be the output
    camera = make_rich_video(tmp_path / f"camera{suffix}", seconds=1.0, fps=FPS, audio=(),
                             cues=(), chapters=(), metadata={}, timecode="01:02:03:04")
    assert media_facts(camera.path).timecode == "01:02:03:04"
    out = tmp_path / f"out{suffix}"
    convert_file(camera.path, out, mode="half-sbs")
    assert media_facts(out).timecode == "01:02:03:04"


@pytest.mark.parametrize("suffix", [".mp4", ".mkv"])
def test_cover_art_is_kept_and_never_becomes_a_second_video_track(tmp_path, suffix):
    # an MP4's attached picture and an MKV's image attachment alike
    source = make_rich_video(tmp_path / f"album{suffix}", seconds=1.0, fps=FPS, cues=(),
                             chapters=(), cover=True)
    assert media_facts(source.path).cover == source.cover
    out = tmp_path / "out.mp4"
    convert_file(source.path, out, mode="half-sbs")
    assert media_facts(out).cover == source.cover  # the same bytes, as the MP4's covr
    mkv = tmp_path / "out.mkv"
    convert_file(source.path, mkv, mode="half-sbs")
    assert media_facts(mkv).cover == source.cover  # an image attachment in MKV
    with av.open(str(mkv)) as c:  # and the film is still the only video track
        films = [s for s in c.streams.video if not int(s.disposition) & ATTACHED_PIC]
        assert len(films) == 1 and films[0].codec_context.name == "h264"
        assert [a.metadata.get("mimetype") for a in c.streams.video
                if int(a.disposition) & ATTACHED_PIC] == ["image/jpeg"]


IPHONE = {"title": "Beach", "com.apple.quicktime.location.ISO6709": "+37.3349-122.0090+030.000/",
          "com.apple.quicktime.make": "Apple", "com.apple.quicktime.model": "iPhone 15"}


# an Android phone's slow-motion clip: its version and capture rate as 'mdta' keys
ANDROID = {"title": "Surf", "com.android.version": "14", "com.android.capture.fps": "240.0"}


@pytest.mark.parametrize("phone", [IPHONE, ANDROID], ids=["iphone", "android"])
def test_a_phone_clips_own_keys_are_kept_in_mp4(tmp_path, phone):
    clip = make_rich_video(tmp_path / "phone.mp4", seconds=1.0, fps=FPS, cues=(), chapters=(),
                           metadata=phone)
    out = tmp_path / "out.mp4"
    convert_file(clip.path, out, mode="half-sbs")
    with av.open(str(out)) as c:
        tags = dict(c.metadata)
    assert {k: tags.get(k) for k in phone} == phone  # the phone's spelling, exactly
    assert tags["minor_version"] == "512"  # the writer's tags once, not "512;512"


def test_a_gopro_clips_telemetry_is_kept_in_mp4_and_left_out_of_mkv_with_a_warning(
        tmp_path, caplog):
    clip = make_rich_video(tmp_path / "gopro.mp4", seconds=SECONDS, fps=FPS, cues=(),
                           chapters=(), timecode="12:00:00:00", telemetry=True)
    out = tmp_path / "out.mp4"
    convert_file(clip.path, out, mode="half-sbs")
    facts = media_facts(out)
    # every sample, byte for byte, at its time: GPS and gyro stay in step with the picture
    assert facts.telemetry == tuple(enumerate(clip.telemetry))
    assert facts.timecode == "12:00:00:00"
    assert [s.kind for s in facts.streams] == ["video", "audio", "audio"]
    mkv = tmp_path / "out.mkv"
    with caplog.at_level("WARNING", logger="stereo_inference.mux"):
        convert_file(clip.path, mkv, mode="half-sbs")
    assert media_facts(mkv).frames == facts.frames
    assert "GoPro telemetry (gpmd) (the MKV format cannot hold it)" in caplog.text


def test_a_dvb_recording_keeps_its_teletext_subtitles_as_text_and_dvb_subtitles_in_mkv(
        tmp_path):
    # teletext has no MKV or MP4 form: copying it made the whole mux fail; its
    # subtitle page is decoded to text instead (the index page is not a subtitle)
    clean = make_video(tmp_path / "clean.mp4", seconds=SECONDS, size=(160, 96), fps=FPS)
    recording = make_broadcast_recording(clean, tmp_path / "recording.ts",
                                         teletext=(("HELLO TELETEXT", 0.5, 1.5),))
    mkv, mp4 = tmp_path / "out.mkv", tmp_path / "out.mp4"
    convert_file(recording, mkv, mode="half-sbs", start_at_zero=True)
    convert_file(recording, mp4, mode="half-sbs", start_at_zero=True)
    with av.open(str(mkv)) as c:
        assert [s.codec_context.name for s in c.streams.subtitles] == ["srt", "dvbsub"]
        assert len(c.streams.audio) == 1
    with av.open(str(mp4)) as c:
        assert [s.codec_context.name for s in c.streams.subtitles] == ["mov_text"]
        assert len(c.streams.audio) == 1
    for out in (mkv, mp4):
        assert track_cues(out) == [TextCue(0.5, 1.5, "HELLO TELETEXT")]


def test_each_teletext_language_is_a_subtitle_track_of_its_own(tmp_path):
    # two languages on two pages of one teletext stream: decoded together, each
    # page's lines were cut short by the other's; the programme map names them
    clean = make_video(tmp_path / "clean.mp4", seconds=SECONDS, size=(160, 96), fps=FPS)
    recording = make_broadcast_recording(
        clean, tmp_path / "recording.ts",
        teletext=(("HELLO", 0.5, 1.5), ("BONJOUR", 0.7, 1.8, 0x777)),
        described=(("eng", 2, 0x888), ("fra", 5, 0x777)))
    for out in (tmp_path / "out.mkv", tmp_path / "out.mp4"):
        convert_file(recording, out, mode="half-sbs", start_at_zero=True)
        with av.open(str(out)) as c:
            text = [s for s in c.streams.subtitles if s.codec_context.name != "dvbsub"]
            assert [s.metadata.get("language") for s in text] == ["eng", "fra"]
            titles = [s.metadata.get("title") or s.metadata.get("name") for s in text]
        assert titles == ["Teletext subtitles", "Teletext subtitles (hard of hearing)"]
        assert track_cues(out, 0) == [TextCue(0.5, 1.5, "HELLO")]
        assert track_cues(out, 1) == [TextCue(0.7, 1.8, "BONJOUR")]


def _tone_hz(path) -> float:
    """The loudest frequency of the first audio track of ``path``."""
    import numpy as np

    with av.open(str(path)) as c:
        stream = c.streams.audio[0]
        samples = np.concatenate([f.to_ndarray().mean(0) for f in c.decode(stream)])
        rate = stream.codec_context.sample_rate
    spectrum = np.abs(np.fft.rfft(samples))
    return float(np.argmax(spectrum) * rate / len(samples))


def test_a_recorded_multiplex_keeps_the_films_programme_only(tmp_path, caplog):
    # a whole multiplex recorded: the other channel's sound is not the film's
    recording = make_multiplex_recording(tmp_path / "mux.ts")
    out = tmp_path / "out.mkv"
    with caplog.at_level("WARNING", logger="stereo_inference.mux"):
        convert_file(recording, out, mode="half-sbs", start_at_zero=True)
    with av.open(str(out)) as c:
        assert [s.type for s in c.streams] == ["video", "audio"]
    assert abs(_tone_hz(out) - 300) < 10  # programme 1's tone, not programme 2's 900 Hz
    assert "audio track 2 (another programme of the broadcast)" in caplog.text


def test_a_second_video_track_is_named_as_left_out_not_dropped_silently(tmp_path, caplog):
    two = make_two_angle_video(tmp_path / "two.mp4")
    out = tmp_path / "out.mkv"
    with caplog.at_level("WARNING", logger="stereo_inference.mux"):
        convert_file(two, out, mode="half-sbs")
    facts = media_facts(out)
    assert [s.kind for s in facts.streams] == ["video", "audio"]
    assert facts.frames == media_facts(two).frames
    assert "video track 2 (only the first is made 3D)" in caplog.text

"""``stereo-spot convert --segment-seconds 4`` keeps everything a rich source carries."""

import subprocess
from pathlib import Path

import av
import pytest
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.stereo_boxes import read_st3d
from stereo_media.subtitle_cues import TextCue
from stereo_media.testing.captions import track_cues
from stereo_media.testing.media import make_broadcast_recording, make_two_angle_video, make_video
from stereo_media.testing.media_facts import ffmpeg_decode_error, media_facts
from stereo_media.testing.rich_media import DEFAULT_AUDIO, make_rich_video
from stereo_media.testing.timing_kept import assert_timing_kept

SECONDS, FPS = 9.0, 12  # three 4 s segments (keyframe every second)
TIMECODE = "10:00:00:00"
IPHONE = {"com.apple.quicktime.location.ISO6709": "+48.8584+002.2945+035.000/",
          "com.apple.quicktime.make": "Apple", "com.apple.quicktime.model": "iPhone 15",
          "com.android.capture.fps": "30.0"}  # (and an Android phone's key, kept alike)


@pytest.fixture(scope="module")
def phone(tmp_path_factory):
    """854x480 coded, 90-degree display rotation, two audio tracks, subtitles,
    chapters, a start timecode, an iPhone's location, make and model."""
    path = tmp_path_factory.mktemp("rich") / "phone.mp4"
    return make_rich_video(path, seconds=SECONDS, fps=FPS, rotation=90, timecode=TIMECODE,
                           metadata={"title": "Rich test source", **IPHONE})


@pytest.mark.parametrize(("mode", "suffix", "size"), [
    ("half-sbs", ".mp4", (480, 854)),
    ("tb", ".mkv", (480, 1708)),
])  # anaglyph's absent signalling is shown on the engine path (one mux code for both)
def test_segmented_conversion_keeps_every_stream_chapter_tag_and_cue(
    phone, mode, suffix, size, tmp_path: Path, stack_env, run_cli
):
    out = tmp_path / f"out{suffix}"
    result = run_cli(["convert", str(phone.path), "-o", str(out), "--mode", mode,
                      "--workers", "2", "--segment-seconds", "4"],
                     stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    assert "4 segment(s)" in result.stdout  # 9 s in <= 4 s parts, as many for each of 2 workers
    src, facts = media_facts(phone.path), media_facts(out)
    assert [(s.kind, s.language, s.title) for s in facts.streams] == \
        [(s.kind, s.language, s.title) for s in src.streams]  # the video's labels too
    assert [(round(a, 3), round(b, 3), t) for a, b, t in facts.chapters] == \
        [(c.start_s, c.end_s, c.title) for c in phone.chapters]
    assert facts.tags["title"] == phone.metadata["title"]
    assert facts.timecode == TIMECODE  # a tmcd track in MP4, a tag in MKV
    assert {k.lower(): v for k, v in IPHONE.items()}.items() <= facts.tags.items()
    if suffix == ".mp4":  # Apple's spelling, as its players look them up
        with av.open(str(out)) as c:
            assert IPHONE.items() <= dict(c.metadata).items()
    assert_timing_kept(facts, src, phone, FPS)
    assert (facts.width, facts.height) == size
    assert facts.rotation == 0
    assert facts.frame_packing == {"half-sbs": "SIDEBYSIDE", "tb": "TOPBOTTOM"}[mode]
    if suffix == ".mkv":
        assert facts.stereo_mode == "top_bottom"
    else:
        assert read_st3d(out) == 2
    # every segment starts on a keyframe: the joined file decodes from any of them
    assert ffmpeg_decode_error(out) is None
    assert ffmpeg_decode_error(out, seek_s=5.0) is None


@pytest.mark.parametrize("suffix", [".mp4", ".mkv"])
def test_a_camera_clip_keeps_its_timecode_and_cover_through_the_segments(
        tmp_path: Path, stack_env, run_cli, suffix):
    # no audio or subtitles: the side-streams file holds only the cover, and the
    # timecode travels on the job
    camera = make_rich_video(tmp_path / "camera.mp4", seconds=5.0, fps=FPS, audio=(), cues=(),
                             chapters=(), metadata={}, timecode="01:02:03:04", cover=True)
    out = tmp_path / f"out{suffix}"  # MKV: the cover as an image attachment
    result = run_cli(["convert", str(camera.path), "-o", str(out), "--workers", "1",
                      "--segment-seconds", "2"], stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    assert "3 segment(s)" in result.stdout
    facts = media_facts(out)
    assert facts.timecode == "01:02:03:04"
    assert facts.cover == camera.cover
    assert facts.frames == media_facts(camera.path).frames


@pytest.mark.parametrize("suffix", [".mp4", ".mkv"])
def test_a_gopro_clips_telemetry_comes_through_the_segments_in_step_with_the_picture(
        tmp_path: Path, stack_env, run_cli, suffix):
    # video, audio, a timecode and a GPMF track: the telemetry travels beside the
    # MKV side file, in an MP4 of its own, and MKV output leaves it out
    gopro = make_rich_video(tmp_path / "GX010001.MP4", seconds=5.0, fps=FPS,
                            audio=DEFAULT_AUDIO[:1], cues=(),
                            chapters=(), metadata={}, timecode="09:30:00:00", telemetry=True)
    out = tmp_path / f"out{suffix}"
    result = run_cli(["convert", str(gopro.path), "-o", str(out), "--workers", "1",
                      "--segment-seconds", "2"], stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    assert "3 segment(s)" in result.stdout
    facts = media_facts(out)
    expected = tuple(enumerate(gopro.telemetry)) if suffix == ".mp4" else ()
    assert facts.telemetry == expected  # every sample at its second, byte for byte
    assert facts.timecode == "09:30:00:00"
    assert [s.kind for s in facts.streams] == ["video", "audio"]
    assert facts.frames == media_facts(gopro.path).frames


@pytest.mark.parametrize(("tags", "suffix"), [
    ({"title": "Over the ridge", "creation_time": "2024-05-01T10:00:00Z"}, ".mp4"),
    ({"title": "Over the ridge", "creation_time": "2024-05-01T10:00:00Z"}, ".mkv"),
    ({"title": "Over the ridge", **IPHONE}, ".mp4"),
])
def test_a_silent_clip_keeps_its_tags_and_chapters_through_the_segments(
        tmp_path: Path, stack_env, run_cli, tags, suffix):
    # a drone's or a screen recording's clip: no stream beside the picture, so
    # its chapters and tags are kept aside as FFmetadata text (an MKV needs a stream)
    clip = make_rich_video(tmp_path / "silent.mp4", seconds=5.0, fps=FPS, audio=(), cues=(),
                           metadata=tags)
    out = tmp_path / f"out{suffix}"
    result = run_cli(["convert", str(clip.path), "-o", str(out), "--workers", "1",
                      "--segment-seconds", "2"], stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    facts = media_facts(out)
    assert [(round(a, 3), round(b, 3), t) for a, b, t in facts.chapters] == \
        [(c.start_s, c.end_s, c.title) for c in clip.chapters]
    assert facts.tags["title"] == "Over the ridge"
    if "creation_time" in tags:
        assert facts.tags["creation_time"].startswith("2024-05-01T10:00:00")
    else:  # Apple's keys, in Apple's spelling
        with av.open(str(out)) as c:
            assert IPHONE.items() <= dict(c.metadata).items()
    assert [s.kind for s in facts.streams] == ["video"]


@pytest.mark.parametrize(("suffix", "subtitles"), [(".mkv", ["srt", "dvbsub"]),
                                                   (".mp4", ["mov_text"])])
def test_a_dvb_recording_keeps_its_teletext_subtitles_as_text(
        suffix, subtitles, tmp_path: Path, stack_env, run_cli):
    # the side file (MKV) cannot hold teletext: copying it failed every DVB job;
    # its subtitle page is decoded to text, timed as broadcast, across the cuts
    clean = make_video(tmp_path / "clean.mp4", seconds=4.0, size=(160, 96), fps=FPS)
    recording = make_broadcast_recording(clean, tmp_path / "recording.ts",
                                         teletext=(("HELLO TELETEXT", 1.5, 2.5),))
    out = tmp_path / f"out{suffix}"
    result = run_cli(["convert", str(recording), "-o", str(out), "--workers", "1",
                      "--segment-seconds", "2"], stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    with av.open(str(out)) as c:
        assert [s.codec_context.name for s in c.streams.subtitles] == subtitles
        assert len(c.streams.audio) == 1
    assert track_cues(out) == [TextCue(1.5, 2.5, "HELLO TELETEXT")]
    # and says what it left out: DVB subtitles, in MP4 only
    left_out = "not in this file: DVB subtitles (the MP4 format cannot hold it)" in result.stdout
    assert left_out == (suffix == ".mp4")


def test_a_two_angle_recording_says_which_track_is_not_made_3d(tmp_path: Path, stack_env,
                                                                run_cli):
    two = make_two_angle_video(tmp_path / "two.mp4")
    out = tmp_path / "out.mp4"
    result = run_cli(["convert", str(two), "-o", str(out), "--workers", "1",
                      "--segment-seconds", "1"], stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    assert "not in this file: video track 2 (only the first is made 3D)" in result.stdout
    with av.open(str(out)) as c:
        assert len(c.streams.video) == 1 and len(c.streams.audio) == 1


def _make_late_sound_film(path: Path, folder: Path) -> Path:
    """29.97 fps (1/30000 s ticks in MP4), the sound beginning 1 s after the
    picture, two subtitle tracks the source leaves off (the second forced),
    two chapters."""
    cues = folder / "cues.srt"
    cues.write_text("1\n00:00:00,500 --> 00:00:01,500\nHello\n", encoding="utf-8")
    chapters = folder / "chapters.txt"
    chapters.write_text(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1500\n"
                        "title=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1500\nEND=3000\n"
                        "title=Two\n", encoding="utf-8")
    subprocess.run([
        ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
        "testsrc2=size=160x96:rate=30000/1001:duration=3", "-itsoffset", "1", "-f", "lavfi",
        "-i", "sine=frequency=300:duration=1.5", "-i", str(cues), "-i", str(cues),
        "-f", "ffmetadata", "-i", str(chapters), "-map_chapters", "4",
        "-map", "0:v", "-map", "1:a", "-map", "2:s", "-map", "3:s", "-c:v", "libx264",
        "-preset", "ultrafast", "-g", "15", "-pix_fmt", "yuv420p", "-c:a", "aac",
        "-c:s", "srt" if path.suffix == ".mkv" else "mov_text",
        "-metadata:s:s:0", "language=eng", "-metadata:s:s:1", "language=fra",
        "-disposition:a:0", "default", "-disposition:s:0", "0", "-disposition:s:1", "forced",
        str(path)], check=True, timeout=60)
    return path


def _streams(path: Path) -> list[tuple[str, float, int]]:
    """(kind, first timestamp s, disposition flags) of each stream."""
    with av.open(str(path)) as c:
        firsts: dict[int, float] = {}
        for packet in c.demux():
            if packet.pts is not None and packet.size > 2:  # (mov_text's empty gaps)
                firsts.setdefault(packet.stream.index, float(packet.pts * packet.time_base))
        return [(s.type, firsts[s.index], int(s.disposition) & 0xFF) for s in c.streams
                if s.type in ("video", "audio", "subtitle")]  # (not MP4's chapter track)


@pytest.mark.parametrize("suffix", [".mp4", ".mkv"])
def test_a_late_soundtrack_unflagged_subtitles_and_ntsc_frame_times_survive_the_segments(
        tmp_path: Path, stack_env, run_cli, suffix):
    # through the segments the sound came 1 s early (the side file starts at its
    # first stream; the chapters with it), MKV marked the first subtitle
    # default, and each join moved the 29.97 fps frames by half a millisecond
    film = _make_late_sound_film(tmp_path / f"film{suffix}", tmp_path)
    out = tmp_path / f"out{suffix}"
    result = run_cli(["convert", str(film), "-o", str(out), "--workers", "1",
                      "--segment-seconds", "1"], stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    assert "(4 segment(s))" in result.stdout  # three joins
    before, after = _streams(film), _streams(out)
    video = before[0][1], after[0][1]
    assert [(k, round(t - video[0], 3)) for k, t, _ in before] == \
        [(k, round(t - video[1], 3)) for k, t, _ in after]
    assert [(round(a, 3), round(b, 3), t) for a, b, t in media_facts(out).chapters] == \
        [(0.0, 1.5, "One"), (1.5, 3.0, "Two")]  # (they had moved with the sound)
    if suffix == ".mkv":  # (an MP4 muxer enables the first subtitle track of its own)
        # (the film is made the default video track)
        assert [flags for *_, flags in after][1:] == [flags for *_, flags in before][1:]
        assert [flags for *_, flags in after][2:] == [0, 0x40]
    else:  # each frame at its own tick, 1001/30000 s apart
        assert exact_frame_times(out) == exact_frame_times(film)


def exact_frame_times(path: Path) -> list:
    with av.open(str(path)) as container:
        return [f.pts * f.time_base for f in container.decode(video=0)]

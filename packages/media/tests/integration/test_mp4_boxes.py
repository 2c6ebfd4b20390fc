"""Naming each track of an MP4 from its boxes, where PyAV cannot (a data track's type)."""

import av

from stereo_media.mp4_boxes import track_formats
from stereo_media.source_streams import SourceStream, data_tracks, file_streams
from stereo_media.testing.media_facts import media_facts
from stereo_media.testing.rich_media import make_rich_video


def test_each_track_is_named_in_the_order_ffmpeg_reads_the_streams(tmp_path):
    clip = make_rich_video(tmp_path / "gopro.mp4", seconds=3.0, fps=12, timecode="01:00:00:00",
                           telemetry=True)
    formats = track_formats(clip.path)
    # video, two audio, subtitles, the telemetry, the chapters' text, the timecode
    assert formats == ["avc1", "mp4a", "mp4a", "tx3g", "gpmd", "text", "tmcd"]
    with av.open(str(clip.path)) as c:
        assert [s.type for s in c.streams] == \
            ["video", "audio", "audio", "subtitle", "data", "data", "data"]
        # the telemetry is kept; the timecode and the chapters' text are kept another way
        assert data_tracks(c) == [SourceStream("data", "gpmd", index=4)]
    assert media_facts(clip.path).telemetry == tuple(enumerate(clip.telemetry))  # 1 a second
    assert len(clip.telemetry) == 3  # one sample a second


def test_a_file_without_data_tracks_lists_none_and_an_mkv_is_not_read_as_boxes(tmp_path):
    for name in ("plain.mp4", "plain.mkv"):
        clip = make_rich_video(tmp_path / name, seconds=1.0, fps=12, timecode="01:00:00:00")
        with av.open(str(clip.path)) as c:
            assert file_streams(c).data == []  # a tmcd track alone is the timecode
        assert media_facts(clip.path).telemetry == ()

"""3D subtitles in the segmented pipeline: each segment carries the cues of its window."""

import pytest
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.ffmpeg_runner import FfmpegRunner
from stereo_media.testing.media_facts import media_facts
from stereo_media.testing.rich_media import Cue, make_rich_video

from media_worker.segment_subtitles import add_cues_to_segments
from media_worker.splitting import segment_starts, split_segments

CUES = (Cue(0.5, 1.5, "First"), Cue(3.5, 4.6, "Across the cut"), Cue(9.0, 9.5, "Last"))


@pytest.fixture
def split(tmp_path):
    """A 10 s rich source (keyframe every second) cut into 4 s segments."""
    source = make_rich_video(tmp_path / "src.mp4", seconds=10.0, size=(160, 96), fps=12,
                             cues=CUES, audio=())
    runner = FfmpegRunner(ffmpeg_path(), timeout_s=60)
    segments = split_segments(runner, source.path, tmp_path / "segments", 4.0)
    return runner, source.path, segments


def test_segments_get_their_cues_at_source_times_and_a_cue_across_a_cut_is_in_both(
        split, tmp_path):
    runner, source, segments = split
    starts = segment_starts(segments[0].parent)
    assert starts == [0.0, 4.0, 8.0]
    frames_before = [media_facts(s).frames for s in segments]
    given = add_cues_to_segments(runner, source, segments, tmp_path, job_id="job")
    assert given == 3
    facts = [media_facts(s) for s in segments]
    assert [[(round(a, 3), round(b, 3)) for a, b in f.cues] for f in facts] == [
        [(0.5, 1.5), (3.5, 4.0)],
        [(4.0, 4.6)],
        [(9.0, 9.5)],
    ]
    assert [s.codec for s in facts[0].of_kind("subtitle")] == ["mov_text"]
    assert [f.frames for f in facts] == frames_before  # the video is untouched


def test_a_source_without_text_subtitles_leaves_the_segments_alone(tmp_path):
    source = make_rich_video(tmp_path / "plain.mp4", seconds=3.0, size=(160, 96), fps=12,
                             cues=(), audio=())
    runner = FfmpegRunner(ffmpeg_path(), timeout_s=60)
    segments = split_segments(runner, source.path, tmp_path / "segments", 4.0)
    before = segments[0].read_bytes()
    assert add_cues_to_segments(runner, source.path, segments, tmp_path, job_id="job") == 0
    assert segments[0].read_bytes() == before

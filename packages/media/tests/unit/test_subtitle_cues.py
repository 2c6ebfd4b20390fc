from stereo_media.subtitle_cues import TextCue, cues_in_window, format_srt, parse_srt

CUES = [TextCue(0.25, 0.95, "One"), TextCue(3.5, 4.6, "Across\nthe cut"), TextCue(9.0, 9.5, "End")]


def test_srt_round_trips_to_the_millisecond():
    assert parse_srt(format_srt(CUES)) == CUES


def test_a_cue_across_a_cut_is_in_both_windows_cut_and_shifted():
    first, second = cues_in_window(CUES, 0.0, 4.0), cues_in_window(CUES, 4.0, 8.0)
    assert first == [TextCue(0.25, 0.95, "One"), TextCue(3.5, 4.0, "Across\nthe cut")]
    assert [(round(c.start_s, 6), round(c.end_s, 6), c.text) for c in second] == \
        [(0.0, 0.6, "Across\nthe cut")]


def test_the_last_window_runs_to_the_end_and_an_empty_one_has_no_cues():
    assert cues_in_window(CUES, 8.0, None) == [TextCue(1.0, 1.5, "End")]
    assert cues_in_window(CUES, 5.0, 8.0) == []
    assert cues_in_window(CUES, 0.95, 3.5) == []  # touching edges are not overlaps


def test_a_cue_cut_at_a_frames_time_never_starts_after_that_frame():
    frame = 2 + 1 / 6  # a segment's first frame at 12 fps, 2.1666... s
    (cue,) = parse_srt(format_srt([TextCue(frame, 3 + 1 / 6, "x")]))
    assert cue.start_s <= frame and frame - cue.start_s < 0.001
    assert cue.end_s <= 3 + 1 / 6  # the end is exclusive: the frame there stays clear

"""Each converted segment lasts, in the concat list, up to the next one's own start."""

from media_worker.concat import write_concat_list
from media_worker.segment_timeline import concat_durations_us, file_starts_us


def test_each_duration_reaches_the_next_start_and_the_last_keeps_its_own():
    # a 2 s pause after the first segment: its entry lasts up to the second's start
    assert concat_durations_us([66_000, 4_066_000, 6_066_000]) == [4_000_000, 2_000_000, None]


def test_starts_that_do_not_follow_each_other_leave_that_file_its_own_length():
    # iw3's output restarts at 0; an unreadable file says nothing
    assert concat_durations_us([0, 0, None, 5_000_000]) == [None, None, None, None]


def test_the_list_gives_each_file_its_duration(tmp_path):
    segs = [tmp_path / "00000.mp4", tmp_path / "00001.mp4"]
    lines = write_concat_list(segs, tmp_path / "list.txt", [4_000_000, None]).read_text()
    assert lines.splitlines()[1:] == [f"file '{segs[0].resolve()}'", "duration 4000000us",
                                      f"file '{segs[1].resolve()}'"]


def test_a_file_that_cannot_be_read_has_no_start(tmp_path):
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video")
    assert file_starts_us([junk]) == [None]

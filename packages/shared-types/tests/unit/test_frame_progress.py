"""Frame progress from heartbeats: frames, fps (live workers add up), ETA."""

from shared_types.frame_progress import EXTRAPOLATE_S, tally_frames
from shared_types.models import SegmentHeartbeat

NOW = 10_000.0


def beat(index, done, total=100, *, elapsed=10.0, age=1.0):
    return SegmentHeartbeat(job_id="j", segment_index=index, worker=f"w{index}",
                            frames_done=done, frames_total=total,
                            started_at=NOW - age - elapsed, last_heartbeat=NOW - age)


def test_nothing_to_say_before_the_first_beat():
    assert tally_frames([], set(), 4, now=NOW) is None


def test_frames_speed_and_time_left_from_two_workers():
    # segment 0: 100 frames in the 20 s before 1 s ago; 1 and 2 started 11 s ago
    beats = [beat(0, 100, elapsed=20), beat(1, 50), beat(2, 20)]
    t = tally_frames(beats, {0}, 4, now=NOW)
    assert t.frames_done == 170
    assert t.frames_total == 400  # segment 3 assumed as long as the others
    assert t.fps == round(170 / 21, 2)  # all of it within the last 30 s (21 s of work)
    # both live beats are 1 s old: 5 + 2 frames were made since
    assert t.eta_seconds == round((230 - 7) / (170 / 21))
    assert t.segment_percent == {1: 50, 2: 20}


def test_the_speed_counts_only_the_last_window():
    old = beat(0, 100, elapsed=10, age=100)  # finished long ago
    recent = beat(1, 30, elapsed=10, age=0)
    t = tally_frames([old, recent], {0}, 2, now=NOW, window_s=20)
    assert t.fps == 1.5  # 30 frames in the last 20 s


def test_a_stale_worker_shows_no_percent():
    t = tally_frames([beat(0, 50), beat(1, 50, age=120)], set(), 2, now=NOW)
    assert t.segment_percent == {0: 50}


def test_no_speed_means_no_eta():
    t = tally_frames([beat(0, 0, elapsed=0.5)], set(), 2, now=NOW)
    assert t.fps is None
    assert t.eta_seconds is None


def test_a_worker_silent_for_many_beats_is_not_counted_as_converting_on():
    # 20 of 180 frames in 10 s, then silence (killed): 25 s later its beat is
    # not stale yet, but only EXTRAPOLATE_S of frames count as made since.
    t = tally_frames([beat(0, 20, total=180, elapsed=10, age=25)], set(), 1, now=NOW)
    fps = 10 / 30  # its last 5 s of work fall in the 30 s window
    assert t.eta_seconds == round((160 - 2.0 * EXTRAPOLATE_S) / fps)

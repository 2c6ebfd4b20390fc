"""Frame-level progress of a job from its segments' heartbeats: frames done,
frames in all, conversion speed and time left.

Workers beat while a segment converts (``SegmentHeartbeat``). A segment's
frame count is known from its beats; segments not started yet are assumed to
be as long as the average known one. The speed is the sum of the live
segments' rates (a beat older than ``stale_s`` belongs to a worker that
stopped), so several workers add up; frames done are extrapolated from each
live segment's last beat to now (beats are seconds apart), and so is the time
left.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from shared_types.models import SegmentHeartbeat

STALE_S = 30.0


@dataclass(frozen=True)
class FrameTally:
    frames_done: int
    frames_total: int | None  # estimated until every segment has reported
    fps: float | None
    eta_seconds: float | None
    segment_percent: dict[int, int] = field(default_factory=dict)  # segments converting now


def tally_frames(beats: Sequence[SegmentHeartbeat], done: Collection[int],
                 total_segments: int | None, *, now: float,
                 stale_s: float = STALE_S) -> FrameTally | None:
    """The job's frame progress, or None before any segment has reported.
    ``done`` holds the indexes of completed segments."""
    if not beats or not total_segments:
        return None
    by_index = {b.segment_index: b for b in beats}
    known = [b.frames_total for b in beats if b.frames_total]
    average = sum(known) / len(known) if known else None
    frames_done = 0
    for index in range(total_segments):
        beat = by_index.get(index)
        if index in done:
            frames_done += (beat.frames_total or beat.frames_done) if beat else round(average or 0)
        elif beat is not None:
            frames_done += beat.frames_done
    frames_total = None
    if average is not None:
        frames_total = round(sum(by_index[i].frames_total if i in by_index
                                 and by_index[i].frames_total else average
                                 for i in range(total_segments)))
        frames_total = max(frames_total, frames_done)
    live = [b for b in beats if b.segment_index not in done and now - b.last_heartbeat <= stale_s]
    rates = [(b, b.fps) for b in live if b.fps]
    fps = sum(rate for _, rate in rates) if rates else None
    since_beats = sum(min(rate * (now - b.last_heartbeat),
                          max(0, (b.frames_total or b.frames_done) - b.frames_done))
                      for b, rate in rates)
    eta = None
    if fps and frames_total is not None:
        eta = max(0.0, frames_total - frames_done - since_beats) / fps
    percent = {b.segment_index: min(99, int(100 * b.frames_done / b.frames_total))
               for b in live if b.frames_total}
    return FrameTally(frames_done=frames_done, frames_total=frames_total,
                      fps=round(fps, 2) if fps else None,
                      eta_seconds=round(eta) if eta is not None else None,
                      segment_percent=percent)

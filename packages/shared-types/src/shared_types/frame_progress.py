"""Frame-level progress of a job from its segments' heartbeats: frames done,
frames in all, conversion speed and time left.

Workers beat while a segment converts (``SegmentHeartbeat``). A segment's
frame count is known from its beats; segments not started yet are assumed to
be as long as the average known one. The speed is the job's throughput over
the last ``window_s`` seconds: each segment's frames are spread evenly over
its beats' span (first start to last beat, finished segments included), and
the frames falling in the window are added up, so parallel workers add up,
start-up pauses count, and one segment starting or ending does not make the
speed jump. The time left also counts the frames live segments made since
their last beat (at their own rate). A segment shows its own percent while its worker beats (a beat
older than ``stale_s`` belongs to a worker that stopped).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from shared_types.models import SegmentHeartbeat

STALE_S = 30.0
WINDOW_S = 30.0
# Workers beat every few seconds (video-worker: 2 s), so the page counts what a
# live segment made since its last beat, but never more than this long: a
# worker silent for longer is late or dead (killed, stalled), and counting on
# would show its segment finishing, then fall back when its beat goes stale.
EXTRAPOLATE_S = 5.0


@dataclass(frozen=True)
class FrameTally:
    frames_done: int
    frames_total: int | None  # estimated until every segment has reported
    fps: float | None
    eta_seconds: float | None
    segment_percent: dict[int, int] = field(default_factory=dict)  # segments converting now


def window_fps(beats: Sequence[SegmentHeartbeat], *, now: float,
               window_s: float = WINDOW_S) -> float | None:
    """Frames per second over the last ``window_s`` (or since the first segment
    started, if that is shorter); None before a second of conversion."""
    start = max(now - window_s, min(b.started_at for b in beats))
    span = now - start
    if span < 1.0:
        return None
    frames = 0.0
    for b in beats:
        duration = b.last_heartbeat - b.started_at
        if duration <= 0:
            continue
        overlap = min(b.last_heartbeat, now) - max(b.started_at, start)
        if overlap > 0:
            frames += b.frames_done * overlap / duration
    return frames / span if frames > 0 else None


def counted_silence_s(beat: SegmentHeartbeat, *, now: float) -> float:
    """Seconds since ``beat`` that a live segment is taken to have kept working:
    at most ``EXTRAPOLATE_S``."""
    return min(max(0.0, now - beat.last_heartbeat), EXTRAPOLATE_S)


def frames_since_beat(beat: SegmentHeartbeat, fps: float, *, now: float,
                      frames_left: float) -> float:
    """Frames a live segment likely made since its last beat at ``fps``: at most
    ``EXTRAPOLATE_S`` worth, and never more than it had left."""
    return min(fps * counted_silence_s(beat, now=now), max(0.0, frames_left))


def frames_done_by(beats: Sequence[SegmentHeartbeat], done: Collection[int],
                   average: float | None) -> int:
    """Frames converted: a done segment counts all its frames (``average`` when
    it has no beat), any other segment the frames its last beat reported."""
    by_index = {b.segment_index: b for b in beats}
    frames = sum((b.frames_total or b.frames_done) if i in done else b.frames_done
                 for i, b in by_index.items())
    return frames + round((average or 0) * sum(1 for i in set(done) if i not in by_index))


def _frames_or(beat: SegmentHeartbeat | None, average: float) -> float:
    """A segment's reported frame count, else ``average``."""
    return beat.frames_total if beat is not None and beat.frames_total else average


def tally_frames(beats: Sequence[SegmentHeartbeat], done: Collection[int],
                 total_segments: int | None, *, now: float, frames_total: int | None = None,
                 stale_s: float = STALE_S, window_s: float = WINDOW_S) -> FrameTally | None:
    """The job's frame progress, or None before any segment has reported.
    ``done`` holds the indexes of completed segments; ``frames_total`` is the
    source's frame count when the probe gave it (else estimated)."""
    if not beats or not total_segments:
        return None
    by_index = {b.segment_index: b for b in beats}
    known = [b.frames_total for b in beats if b.frames_total]
    average = sum(known) / len(known) if known else None
    frames_done = frames_done_by(beats, done, average)
    if frames_total is None and average is not None:
        frames_total = round(sum(_frames_or(by_index.get(i), average)
                                 for i in range(total_segments)))
    if frames_total is not None:
        frames_total = max(frames_total, frames_done)
    live = [b for b in beats if b.segment_index not in done and now - b.last_heartbeat <= stale_s]
    fps = window_fps(beats, now=now, window_s=window_s)
    # Beats are seconds apart: count the frames live segments made since their last one.
    since_beats = sum(
        frames_since_beat(b, b.fps, now=now,
                          frames_left=(b.frames_total or b.frames_done) - b.frames_done)
        for b in live if b.fps)
    eta = None
    if fps and frames_total is not None:
        eta = max(0.0, frames_total - frames_done - since_beats) / fps
    percent = {b.segment_index: min(99, int(100 * b.frames_done / b.frames_total))
               for b in live if b.frames_total}
    return FrameTally(frames_done=frames_done, frames_total=frames_total,
                      fps=round(fps, 2) if fps else None,
                      eta_seconds=round(eta) if eta is not None else None,
                      segment_percent=percent)
